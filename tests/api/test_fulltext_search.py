"""Full-text search exactly per spec 4.2: lexical, exact ANDed filters, limits, order, syntax."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from quart.typing import TestClientProtocol

from tests.conftest import MASTER, User
from tests.support.branches import create_branch
from tests.support.http import error_detail
from tests.support.memories import contents, fulltext, ids, ranked, store, store_batch

SYNTAX = ["+", "-", "&&", "||", "!", "(", ")", "{", "}", "[", "]", "^", '"', "~", "*", "?", ":"]
SYNTAX += ["\\", "/"]


def _order_key(hit: dict[str, Any]) -> tuple[float, str]:
    return (-hit["retrieval_score"], hit["memory_id"])


async def test_results_are_memories_with_a_score(client: TestClientProtocol, user: User) -> None:
    stored = await store(client, user.headers, "Spotted an ocelot near the river", session_id="s")
    [hit] = await fulltext(client, user.headers, "ocelot")
    assert hit["memory_id"] == stored["memory_id"]
    assert {k: v for k, v in hit.items() if k not in ("retrieval_score", "confidence")} == {
        k: v for k, v in stored.items() if k not in ("retrieval_score", "confidence")
    }
    assert isinstance(hit["retrieval_score"], float) and hit["retrieval_score"] > 0


async def test_search_is_purely_lexical(client: TestClientProtocol, user: User) -> None:
    await store(client, user.headers, "The cat sleeps on the warm windowsill")
    # Same meaning, no shared word: no embeddings are involved, so nothing matches.
    assert await fulltext(client, user.headers, "kitten naps") == []
    assert contents(await fulltext(client, user.headers, "WINDOWSILL")) == [
        "The cat sleeps on the warm windowsill"
    ]


async def test_session_filter_is_strict(client: TestClientProtocol, user: User) -> None:
    await store_batch(
        client,
        user.headers,
        [
            {"content": "heron in session one", "session_id": "one"},
            {"content": "heron in session two", "session_id": "two"},
            {"content": "heron without session"},
        ],
    )
    assert contents(await fulltext(client, user.headers, "heron", session_id="one")) == [
        "heron in session one"
    ]
    assert await fulltext(client, user.headers, "heron", session_id="three") == []
    everything = await fulltext(client, user.headers, "heron")
    assert sorted(contents(everything)) == [
        "heron in session one",
        "heron in session two",
        "heron without session",
    ]


FILTERED = [
    # content, subject, type, session, tier, metadata
    ("lynx alpha", "ana", "semantic", "s1", "T1", {"team": "red", "n": 2}),
    ("lynx bravo", "rui", "semantic", "s1", "T1", {"team": "red", "n": 2}),
    ("lynx charlie", "ana", "profile", "s1", "T1", {"team": "red", "n": 2}),
    ("lynx delta", "ana", "semantic", "s2", "T1", {"team": "red", "n": 2}),
    ("lynx echo", "ana", "semantic", "s1", "T3", {"team": "red", "n": 2}),
    ("lynx foxtrot", "ana", "semantic", "s1", "T1", {"team": "blue", "n": 2}),
    ("lynx golf", "ana", "semantic", None, "T1", {"team": "red", "n": 2}),
    ("lynx hotel", None, "semantic", "s1", "T1", {"team": "red"}),
]
ALL_FILTERS: dict[str, Any] = {
    "subject_id": "ana",
    "memory_types": ["semantic"],
    "session_id": "s1",
    "trust_tier": "T1",
    "extra_metadata_filter": {"team": "red", "n": 2},
}


async def _store_filtered(client: TestClientProtocol, user: User) -> None:
    items = []
    for content, subject, memory_type, session, tier, metadata in FILTERED:
        item: dict[str, Any] = {"content": content, "memory_type": memory_type, "trust_tier": tier}
        item["extra_metadata"] = metadata
        if subject:
            item["subject_id"] = subject
        if session:
            item["session_id"] = session
        items.append(item)
    await store_batch(client, user.headers, items)


async def test_every_filter_is_anded(client: TestClientProtocol, user: User) -> None:
    await _store_filtered(client, user)
    assert contents(await fulltext(client, user.headers, "lynx", **ALL_FILTERS)) == ["lynx alpha"]

    # Each filter alone keeps exactly the memories it matches.
    expected_alone = {
        "subject_id": {"lynx alpha", "lynx charlie", "lynx delta", "lynx echo", "lynx foxtrot"}
        | {"lynx golf"},
        "memory_types": {c for c, _, t, *_ in FILTERED if t == "semantic"},
        "session_id": {c for c, _, _, s, *_ in FILTERED if s == "s1"},
        "trust_tier": {c for c, _, _, _, tier, _ in FILTERED if tier == "T1"},
        "extra_metadata_filter": {c for c, *_, m in FILTERED if m == {"team": "red", "n": 2}},
    }
    for name, expected in expected_alone.items():
        hits = await fulltext(client, user.headers, "lynx", **{name: ALL_FILTERS[name]})
        assert set(contents(hits)) == expected, name

    # Leaving one filter out lets in exactly the memory that differs only there.
    differs_only_in = {
        "subject_id": "lynx bravo",
        "memory_types": "lynx charlie",
        "session_id": "lynx delta",  # and "lynx golf", which has no session
        "trust_tier": "lynx echo",
        "extra_metadata_filter": "lynx foxtrot",
    }
    for name, extra in differs_only_in.items():
        others = {key: value for key, value in ALL_FILTERS.items() if key != name}
        hits = await fulltext(client, user.headers, "lynx", **others)
        expected = ["lynx alpha", extra, *(["lynx golf"] if name == "session_id" else [])]
        assert sorted(contents(hits)) == sorted(expected), name

    # A filter nothing matches empties the result, whatever the others.
    assert await fulltext(client, user.headers, "lynx", **{**ALL_FILTERS, "trust_tier": "T4"}) == []
    assert await fulltext(client, user.headers, "lynx", subject_id="nobody") == []
    types = ["procedural", "working"]
    assert await fulltext(client, user.headers, "lynx", memory_types=types) == []


async def test_metadata_filter_keeps_the_number_type_family(
    client: TestClientProtocol, user: User
) -> None:
    await store_batch(
        client,
        user.headers,
        [
            {"content": "puma number two", "extra_metadata": {"n": 2}},
            {"content": "puma string two", "extra_metadata": {"n": "2"}},
            {"content": "puma float two", "extra_metadata": {"n": 2.0, "flag": True}},
            {"content": "puma flag one", "extra_metadata": {"flag": 1}},
        ],
    )

    async def found(metadata: dict[str, Any]) -> list[str]:
        return sorted(
            contents(await fulltext(client, user.headers, "puma", extra_metadata_filter=metadata))
        )

    assert await found({"n": 2}) == ["puma float two", "puma number two"]
    assert await found({"n": 2.0}) == ["puma float two", "puma number two"]
    assert await found({"n": "2"}) == ["puma string two"]
    assert await found({"n": 3}) == []
    assert await found({"flag": True}) == ["puma float two"]
    assert await found({"flag": 1}) == ["puma flag one"]
    assert await found({"missing": "x"}) == []
    assert len(await found({})) == 4


async def test_branch_filter(client: TestClientProtocol, user: User) -> None:
    await store(client, user.headers, "jaguar seen on main")
    await create_branch(client, user.headers, "field-trip")
    on_branch = await store(client, user.headers, "jaguar seen on the trip", branch="field-trip")
    assert on_branch["branch"] == "field-trip"

    main_hits = await fulltext(client, user.headers, "jaguar")
    assert contents(main_hits) == ["jaguar seen on main"]
    assert ids(await fulltext(client, user.headers, "jaguar", branch="main")) == ids(main_hits)
    branch_hits = await fulltext(client, user.headers, "jaguar", branch="field-trip")
    assert sorted(contents(branch_hits)) == ["jaguar seen on main", "jaguar seen on the trip"]
    assert {hit["branch"] for hit in branch_hits} == {"field-trip"}
    narrowed = await fulltext(client, user.headers, "trip", branch="field-trip", subject_id="x")
    assert narrowed == []

    response = await client.post(
        "/v1/memories/fulltext-search",
        json={"query": "jaguar", "branch": "no-such-branch"},
        headers=user.headers,
    )
    await error_detail(response, 404)


async def test_order_is_score_then_memory_id(client: TestClientProtocol, user: User) -> None:
    # Identical text under different subjects scores identically: ties broken by memory_id.
    same = [{"content": "caracal tracks in the sand", "subject_id": f"s{i}"} for i in range(5)]
    others = [
        {"content": "caracal"},
        {"content": "caracal caracal caracal"},
        {"content": "a caracal crossed the long dusty road near the old farm at dawn"},
    ]
    stored = await store_batch(client, user.headers, [*same[:2], *others, *same[2:]])

    hits = await fulltext(client, user.headers, "caracal")
    assert sorted(ids(hits)) == sorted(ids(stored))
    assert [_order_key(hit) for hit in hits] == sorted(_order_key(hit) for hit in hits)
    tied = [hit for hit in hits if hit["content"] == "caracal tracks in the sand"]
    assert len({hit["retrieval_score"] for hit in tied}) == 1
    assert ids(tied) == sorted(ids(tied))
    assert len({hit["retrieval_score"] for hit in hits}) > 1

    # The limit cuts that same order, ties included.
    for limit in (1, 3, 5, 6):
        assert (
            ids(await fulltext(client, user.headers, "caracal", limit=limit)) == ids(hits)[:limit]
        )
    # A filter applies before the limit, not after.
    assert contents(await fulltext(client, user.headers, "caracal", subject_id="s3", limit=1)) == [
        "caracal tracks in the sand"
    ]


async def test_limit_default_and_bounds(client: TestClientProtocol, user: User) -> None:
    await store_batch(client, user.headers, [{"content": f"serval note {i}"} for i in range(25)])
    assert len(await fulltext(client, user.headers, "serval")) == 20
    assert len(await fulltext(client, user.headers, "serval", limit=1)) == 1
    assert len(await fulltext(client, user.headers, "serval", limit=100)) == 25
    for limit in (0, 101, -1):
        response = await client.post(
            "/v1/memories/fulltext-search",
            json={"query": "serval", "limit": limit},
            headers=user.headers,
        )
        detail = await error_detail(response, 422)
        assert "limit" in detail


async def test_query_size_is_limited_to_4096_utf8_bytes(
    client: TestClientProtocol, user: User
) -> None:
    await store(client, user.headers, "margay in the canopy")
    exactly = "margay " + "é" * ((4096 - 7) // 2) + "x" * ((4096 - 7) % 2)
    assert len(exactly.encode()) == 4096
    assert contents(await fulltext(client, user.headers, exactly)) == ["margay in the canopy"]

    for over in (exactly + "x", "é" * 2049, "a" * 4097):
        response = await client.post(
            "/v1/memories/fulltext-search", json={"query": over}, headers=user.headers
        )
        detail = await error_detail(response, 422)
        assert "query" in detail


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"query": 5},
        {"query": "x", "memory_types": ["gossip"]},
        {"query": "x", "trust_tier": "T9"},
        {"query": "x", "extra_metadata_filter": {"a": {"b": 1}}},
        {"query": "x", "extra_metadata_filter": "team=red"},
        {"query": "x", "unknown": 1},
    ],
    ids=["no-query", "number", "type", "tier", "nested-metadata", "metadata-string", "unknown"],
)
async def test_invalid_requests_are_422(
    client: TestClientProtocol, user: User, body: dict[str, Any]
) -> None:
    response = await client.post("/v1/memories/fulltext-search", json=body, headers=user.headers)
    await error_detail(response, 422)


async def test_query_syntax_never_breaks_the_search(client: TestClientProtocol, user: User) -> None:
    target = await store(client, user.headers, "kodkod and NOT a wildcat (report)")
    await store(client, user.headers, "an unrelated memory about tea")

    every = " ".join(SYNTAX)
    queries = [*SYNTAX, every, "".join(SYNTAX), "AND", "OR", "NOT", "TO", "AND OR NOT"]
    queries += ['"unclosed', "(unbalanced", "field:value", "a~", "b^2", "[x TO y]", "*", "?*"]
    for query in queries:
        hits = await fulltext(client, user.headers, query)  # asserts 200 and a list
        assert all(hit["user_id"] == user.user_id for hit in hits), query

    # Syntax around a real word neither breaks the search nor hides the word.
    for char in SYNTAX:
        for query in (f"kodkod{char}", f"{char}kodkod", f"{char}kodkod{char}", f"kodkod {char} x"):
            assert ids(await fulltext(client, user.headers, query)) == [target["memory_id"]], query
    query = f"{every} kodkod {every}"
    assert ids(await fulltext(client, user.headers, query)) == [target["memory_id"]]
    # Operators are plain words, and English stop words the index does not hold (the cjk
    # analyzer drops them): "NOT" alone finds nothing, "NOT kodkod" negates nothing.
    assert await fulltext(client, user.headers, "NOT") == []
    assert ids(await fulltext(client, user.headers, "NOT kodkod")) == [target["memory_id"]]
    tea = await fulltext(client, user.headers, "tea")
    both = await fulltext(client, user.headers, "wildcat AND tea")
    assert sorted(ids(both)) == sorted([target["memory_id"], *ids(tea)])


NO_WORD_QUERIES = {
    "syntax": '+-&&||!(){}[]^"~*?:\\/',
    "underscore": "_",
    "underscores": "___",
    "emoji": "🎉🎉",
    "lone-mark": "\u0301",
    "punctuation": "... ,,, ;;;",
    # Characters that are letters or digits to Unicode but that the analyzer indexes nothing
    # for: they must not leave the user clause alone to match every memory.
    "fraction": "½",
    "superscript": "²",
    "closing-mark": "〆",
    "all-unindexed": "½ ² 〆 _ 🎉",
}


@pytest.mark.parametrize("query", ["", "   ", "\t\n"], ids=["empty", "blank", "whitespace"])
async def test_a_blank_query_is_an_invalid_value(
    client: TestClientProtocol, user: User, query: str
) -> None:
    response = await client.post(
        "/v1/memories/fulltext-search", json={"query": query}, headers=user.headers
    )
    assert await error_detail(response, 422) == "query: Value error, must not be blank"


@pytest.mark.parametrize("query", list(NO_WORD_QUERIES.values()), ids=list(NO_WORD_QUERIES))
async def test_a_query_without_a_searchable_word_returns_nothing(
    client: TestClientProtocol, user: User, query: str
) -> None:
    await store_batch(
        client,
        user.headers,
        [{"content": "snake_case names"}, {"content": "party 🎉🎉"}, {"content": "½ cup, x² 〆"}],
    )
    assert await fulltext(client, user.headers, query) == []


async def test_words_copied_from_a_memory_find_it(client: TestClientProtocol, user: User) -> None:
    texts = [
        "It is the tortoise's birthday",
        "Docs live at example.com today",
        "Pi is about 3.14 here",
        "Use the setting mode:strict always",
        "Ship it by 2026-12-01 at the latest",
        "Email ana@example.org for access",
    ]
    await store_batch(client, user.headers, [{"content": text} for text in texts])
    for query, text in zip(
        ["tortoise's", "example.com", "3.14", "mode:strict", "2026-12-01", "ana@example.org"],
        texts,
        strict=True,
    ):
        assert contents(await fulltext(client, user.headers, query)) == [text], query


async def test_user_ids_with_query_syntax_are_matched_exactly(client: TestClientProtocol) -> None:
    base = f"ft-{uuid.uuid4().hex[:8]}"
    odd = f'{base} "quoted" \\back\\slash (paren) AND OR *:?'
    similar = f"{base} quoted back slash paren"
    headers = {name: {**MASTER, "X-User-Id": name} for name in (odd, similar, base)}
    for name in (odd, similar, base):
        await store(client, headers[name], f"ocicat owned by {name}")
    for name in (odd, similar, base):
        hits = await fulltext(client, headers[name], "ocicat")
        assert [hit["user_id"] for hit in hits] == [name]
        assert contents(hits) == [f"ocicat owned by {name}"]


PAYMENT = "我们决定支付服务使用PostgreSQL数据库"
APART = "支持多种付款方式"  # 支 and 付, but never side by side
WEATHER = "今天的天气很好\uff0c适合出去散步"


async def test_a_chinese_word_inside_a_sentence_finds_it(
    client: TestClientProtocol, user: User
) -> None:
    await store_batch(client, user.headers, [{"content": c} for c in (PAYMENT, APART, WEATHER)])
    assert contents(await fulltext(client, user.headers, "支付")) == [PAYMENT]
    assert contents(await fulltext(client, user.headers, "数据库")) == [PAYMENT]
    assert contents(await fulltext(client, user.headers, "天气")) == [WEATHER]
    assert contents(await fulltext(client, user.headers, "散步")) == [WEATHER]
    # A question in Chinese finds the memory that shares its words first.
    hits = await fulltext(client, user.headers, "支付服务用的是什么数据库")
    assert contents(hits)[0] == PAYMENT


async def test_chinese_characters_that_only_appear_apart_do_not_match(
    client: TestClientProtocol, user: User
) -> None:
    await store_batch(client, user.headers, [{"content": c} for c in (APART, WEATHER)])
    # Every character of these words is in a memory, never next to each other.
    for query in ("支付", "持款", "天适", "种款"):
        assert await fulltext(client, user.headers, query) == [], query
    assert contents(await fulltext(client, user.headers, "付款")) == [APART]


MIXED = "支付服务的invoice-api在CVE-2020-8203之后升级了lodash 4.17.15"
POOL = "连接池db.pool.size调到50以后超时消失了"
BILLING = "The billing api calls the invoice service"
REPORT = "2020年的年度报告已经归档"


async def test_mixed_text_is_found_by_an_identifier_and_a_chinese_word(
    client: TestClientProtocol, user: User
) -> None:
    await store_batch(
        client, user.headers, [{"content": c} for c in (MIXED, POOL, BILLING, REPORT)]
    )
    # The memory holding the whole identifier comes first; its parts still find the others.
    for query in ("invoice-api 升级", "CVE-2020-8203", "升级了lodash@4.17.15", "lodash 升级"):
        assert contents(await fulltext(client, user.headers, query))[0] == MIXED, query
    assert contents(await fulltext(client, user.headers, "invoice-api")) == [MIXED, BILLING]
    assert contents(await fulltext(client, user.headers, "CVE-2020-8203")) == [MIXED, REPORT]
    # An identifier the analyzer keeps whole, alone or glued to Chinese.
    assert contents(await fulltext(client, user.headers, "db.pool.size")) == [POOL]
    assert contents(await fulltext(client, user.headers, "db.pool.size 超时")) == [POOL]
    assert contents(await fulltext(client, user.headers, "连接池db.pool.size")) == [POOL]
    assert contents(await fulltext(client, user.headers, "连接池")) == [POOL]
    # A dotted identifier is one word, as before: its start is another word.
    assert await fulltext(client, user.headers, "db.pool") == []


async def test_english_identifiers_rank_the_whole_identifier_first(
    client: TestClientProtocol, user: User
) -> None:
    whole = "The invoice-api timeout is 30 seconds"
    await store_batch(client, user.headers, [{"content": c} for c in (BILLING, whole)])
    assert contents(await fulltext(client, user.headers, "invoice-api")) == [whole, BILLING]
    assert sorted(contents(await fulltext(client, user.headers, "invoice"))) == sorted(
        [whole, BILLING]
    )
    assert contents(await fulltext(client, user.headers, "timeout")) == [whole]


async def test_users_and_branches_named_with_stop_words_find_their_memories(
    client: TestClientProtocol,
) -> None:
    # The analyzer keeps no token of "it" or "The"; user ids with '-', '_', '.' and case that
    # differ only in case have the same tokens. Each user still finds exactly their memories.
    word = f"tayra{uuid.uuid4().hex[:8]}"
    base = uuid.uuid4().hex[:8]
    names = ["it", "The", "a-s", f"Ops.Team-{base}_x", f"ops.team-{base}_x"]
    headers = {name: {**MASTER, "X-User-Id": name} for name in names}
    for name in names:
        await store(client, headers[name], f"{word} owned by {name}")
    for name in names:
        hits = await fulltext(client, headers[name], word)
        assert contents(hits) == [f"{word} owned by {name}"], name

    # A branch named "it" finds its own memories as well as main's it reads.
    await create_branch(client, headers["The"], "it")
    await store(client, headers["The"], f"{word} kept on the branch", branch="it")
    hits = await fulltext(client, headers["The"], word, branch="it")
    assert sorted(contents(hits)) == [f"{word} kept on the branch", f"{word} owned by The"]


async def test_a_long_chinese_query_is_answered(client: TestClientProtocol, user: User) -> None:
    # Lucene refuses a query of more than 1024 clauses; 1,300 characters make that many bigrams.
    target = await store(client, user.headers, PAYMENT)
    query = "支付服务" + "".join(chr(0x4E00 + i) for i in range(1300))
    assert len(query.encode()) <= 4096
    assert ids(await fulltext(client, user.headers, query)) == [target["memory_id"]]
    assert target["memory_id"] in ids(await ranked(client, user.headers, "search", query))
