"""The graph stage of retrieve and search: from the entities a question names, memories that
share no words with it come in along the entities they mention; verbose explain shows the path;
negated links, deleted memories and other users' memories never carry the walk; what the
question's subjects are said to have nothing to do with ranks lower."""

from __future__ import annotations

from typing import Any

import pytest
from prometheus_client import REGISTRY
from quart import Quart
from quart.typing import TestClientProtocol

from tests.conftest import User, create_user
from tests.support.branches import create_branch
from tests.support.entities import (
    CHAIN,
    QUESTION,
    UNKNOWN_QUESTION,
    UNNAMED_QUESTION,
    UNRELATED,
)
from tests.support.fake_llm import FakeLlm
from tests.support.http import post_created, request_ok
from tests.support.memories import explained, ids, stored_ids

Headers = dict[str, str]


CHAIN_ZH = [
    "王芳负责计费团队。",
    "计费团队维护 invoice-api。",
    "invoice-api 依赖 lodash 4.17.15。",
    "lodash 4.17.15 受 CVE-2020-8203 影响。",
]
UNRELATED_ZH = ["李雷每天早上喝咖啡。", "办公室搬到了三楼。", "周五下午开全员会议。"]
# Ends with the full-width question mark a Chinese question is typed with.
QUESTION_ZH = "王芳负责的服务依赖的库有没有已知漏洞？"  # noqa: RUF001
IVAN_APART = "Ivan works on auth-service, which has nothing to do with invoice-api."
IVAN_CALLS = "Ivan works on auth-service, which calls invoice-api."
IVAN_QUESTION = "What does Ivan work on, and does it depend on a library with a known hole?"
MARIA_APART = "Maria has nothing to do with ledger-sync; the data team owns it."
# Reached from the chain through lodash 4.17.15, and saying only what it is not about.
LODASH_APART = "lodash 4.17.15 has nothing to do with payment-gateway."
# Denies a link and carries the chain on through another.
INVOICE_MOVED = "invoice-api does not use moment-js any more, but pins lodash 4.17.15."
LEDGER = "ledger-sync runs in the eu-west region."
REGION_QUESTION = "In which region does the service Maria's team owns run?"


def _rows(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The explain ranking rows by memory id."""
    return {row["memory_id"]: row for row in body["explain"]["ranking"]}


def _path_memories(path: list[str], memory_ids: set[str]) -> list[str]:
    """The memory ids on a graph path (the rest are entity keys), in order."""
    return [step for step in path if step in memory_ids]


@pytest.mark.parametrize("mode", ["retrieve", "search"])
async def test_the_graph_brings_in_a_chain_that_shares_no_words_with_the_question(
    client: TestClientProtocol, user: User, mode: str
) -> None:
    chain = await stored_ids(client, user.headers, CHAIN)
    await stored_ids(client, user.headers, UNRELATED)
    cve = chain[3]

    with_graph = await explained(client, user.headers, mode, QUESTION, top_k=5)
    found = ids(with_graph["results"])
    assert cve in found
    assert chain[0] in found
    assert set(found) <= set(chain)  # nothing unrelated rides along

    # The same request without "graph" (it is on by default) and with it switched off.
    default = await request_ok(
        client, "POST", f"/v1/memories/{mode}", user.headers, json={"query": QUESTION, "top_k": 5}
    )
    assert set(ids(default)) == set(found)
    without = await explained(client, user.headers, mode, QUESTION, top_k=5, graph=False)
    # Without the chain, top_k is filled: something unrelated rides along.
    assert not set(ids(without["results"])) <= set(chain)
    assert without["explain"]["graph"] is None
    assert all("graph" not in row for row in without["explain"]["ranking"])


async def test_retrieved_memories_show_every_field_that_get_shows(
    client: TestClientProtocol, user: User
) -> None:
    # Retrieval reads only the properties a result shows, named one by one (not the
    # embedding, see cypher/retrieval/candidates): metadata, session, subject and feedback
    # come back as GET shows them.
    fields = {"session_id": "chain-notes", "subject_id": "billing"}
    stored = [
        await post_created(
            client,
            "/v1/memories",
            user.headers,
            {"content": text, "extra_metadata": {"source": "wiki", "rank": n}, **fields},
        )
        for n, text in enumerate(CHAIN)
    ]
    await request_ok(
        client,
        "POST",
        f"/v1/memories/{stored[3]['memory_id']}/feedback",
        user.headers,
        json={"signal": "useful"},
    )
    body = await explained(client, user.headers, "retrieve", QUESTION, top_k=5)
    for result in body["results"]:
        shown = await request_ok(client, "GET", f"/v1/memories/{result['memory_id']}", user.headers)
        for changing in ("retrieval_score", "confidence"):
            result.pop(changing)
            shown.pop(changing)
        assert result == shown


async def test_verbose_explain_shows_the_path_that_reached_a_memory(
    client: TestClientProtocol, user: User
) -> None:
    chain = await stored_ids(client, user.headers, CHAIN)
    unrelated = await stored_ids(client, user.headers, UNRELATED)
    body = await explained(client, user.headers, "retrieve", QUESTION, top_k=5)
    explain = body["explain"]
    assert explain["graph"]["seed_entities"] == ["maria"]
    assert explain["graph"]["reached"] >= len(CHAIN)
    assert explain["timings_ms"]["graph_ms"] >= 0
    assert explain["timings_ms"]["total_ms"] >= explain["timings_ms"]["graph_ms"]

    rows = _rows(body)
    cve = rows[chain[3]]
    assert cve["graph"] > 0
    assert cve["relevance"] >= cve["graph"]  # the graph score lifts relevance, never lowers it
    path = cve["graph_path"]
    # Maria -> her memory -> billing team -> ... -> the CVE memory: entity keys and memory ids
    # in turn.
    assert path[0] == "maria"
    assert _path_memories(path, set(chain) | set(unrelated)) == chain
    assert path[2] == "billing team"
    assert path[4] == "invoice api"
    assert path[6] in ("lodash 4.17.15", "lodash")
    assert path[-1] == chain[3]
    for row in explain["ranking"]:
        if row["memory_id"] in unrelated:
            assert "graph" not in row and "graph_path" not in row


async def test_a_question_that_names_an_entity_walks_from_it_alone(
    client: TestClientProtocol, user: User
) -> None:
    # The best first-stage memory's entities do not seed the walk then: it runs beside the
    # first stage, and a neighbour of a merely similar memory does not come in.
    await stored_ids(client, user.headers, CHAIN)
    await stored_ids(client, user.headers, UNRELATED)
    body = await explained(client, user.headers, "retrieve", QUESTION, top_k=5)
    assert body["explain"]["graph"]["seed_entities"] == ["maria"]
    paths = [row["graph_path"] for row in body["explain"]["ranking"] if "graph_path" in row]
    assert paths
    assert all(path[0] == "maria" for path in paths)


@pytest.mark.parametrize(
    ("question", "named"), [(UNNAMED_QUESTION, []), (UNKNOWN_QUESTION, ["acme"])]
)
async def test_a_top_candidates_entities_seed_the_walk_when_the_question_names_none_it_knows(
    client: TestClientProtocol, user: User, question: str, named: list[str]
) -> None:
    # The best first-stage memory's entities seed the walk.
    chain = await stored_ids(client, user.headers, CHAIN)
    await stored_ids(client, user.headers, UNRELATED)
    body = await explained(client, user.headers, "retrieve", question)
    assert body["explain"]["graph"]["seed_entities"] == named
    best = body["results"][0]["memory_id"]
    reached = [row for row in body["explain"]["ranking"] if "graph_path" in row]
    assert reached
    for row in reached:
        assert row["graph_path"][0] == best
        assert row["memory_id"] in chain


@pytest.mark.parametrize(
    ("memories", "question"),
    [
        # Entities that more than hub_limit memories name.
        (
            [f"night-runner finished backfill job {n} early." for n in range(25)],
            "what finished early?",
        ),
        # An entity no other memory names.
        (["zeta-cron ran exactly once, on the leap day."], "what ran exactly once?"),
    ],
)
async def test_a_best_candidate_with_nowhere_to_go_seeds_no_walk(
    client: TestClientProtocol, user: User, memories: list[str], question: str
) -> None:
    # A walk from a hub, or from an entity that leads to no other memory, finds nothing: the
    # service does not spend a round trip on it.
    await stored_ids(client, user.headers, memories)
    await stored_ids(client, user.headers, CHAIN)

    def walks() -> float:
        return (
            REGISTRY.get_sample_value(
                "memory_neo4j_statement_seconds_count", {"statement": "retrieval/expand"}
            )
            or 0.0
        )

    before = walks()
    nowhere = await explained(client, user.headers, "retrieve", question)
    assert nowhere["results"][0]["content"] in memories
    assert walks() == before
    assert nowhere["explain"]["graph"] == {
        "seed_entities": [],
        "reached": 0,
        "chain": False,
        "timed_out": False,
    }
    chain = await explained(client, user.headers, "retrieve", UNNAMED_QUESTION)
    assert walks() == before + 1
    assert chain["explain"]["graph"]["reached"] > 0


async def test_a_link_the_text_negates_does_not_carry_the_chain(
    client: TestClientProtocol,
) -> None:
    results: dict[str, list[dict[str, Any]]] = {}
    for ivan in (IVAN_CALLS, IVAN_APART):
        owner = await create_user(client, "negation")
        chain = await stored_ids(client, owner.headers, [*CHAIN, ivan])
        await stored_ids(client, owner.headers, UNRELATED)
        body = await explained(client, owner.headers, "retrieve", IVAN_QUESTION, top_k=5)
        assert body["explain"]["graph"]["seed_entities"] == ["ivan"]
        assert body["results"][0]["memory_id"] == chain[4]
        results[ivan] = [
            row for row in body["explain"]["ranking"] if "invoice api" in row.get("graph_path", [])
        ]
        if ivan == IVAN_APART:  # what lies past the denied link is not brought in by it
            rows = _rows(body)
            assert all("graph" not in rows.get(memory_id, {}) for memory_id in chain[2:4])
    # "which calls invoice-api" leads on to what invoice-api pins; "has nothing to do with
    # invoice-api" does not.
    assert results[IVAN_CALLS]
    assert results[IVAN_APART] == []


async def test_a_memory_that_denies_a_link_is_not_brought_in_as_an_answer(
    client: TestClientProtocol, user: User
) -> None:
    chain = await stored_ids(client, user.headers, [*CHAIN[:2], INVOICE_MOVED, CHAIN[3]])
    [apart] = await stored_ids(client, user.headers, [LODASH_APART])
    await stored_ids(client, user.headers, UNRELATED)
    body = await explained(client, user.headers, "retrieve", QUESTION, top_k=5)
    rows = _rows(body)
    # The walk reaches the denial through lodash 4.17.15 but gives it nothing; the memory that
    # denies moment-js still leads on to the CVE and rises with the chain.
    assert "graph" not in rows.get(apart, {})
    assert set(chain) <= set(ids(body["results"]))
    assert rows[chain[2]]["graph"] > 0
    assert chain[3] in _path_memories(rows[chain[3]]["graph_path"], set(chain))


async def test_what_the_questions_subject_is_said_to_have_nothing_to_do_with_ranks_lower(
    client: TestClientProtocol, user: User
) -> None:
    chain = await stored_ids(client, user.headers, CHAIN[:2])
    apart, ledger = await stored_ids(client, user.headers, [MARIA_APART, LEDGER])
    await stored_ids(client, user.headers, UNRELATED)
    body = await explained(client, user.headers, "retrieve", REGION_QUESTION, top_k=20, min_score=0)
    denial = {row["memory_id"]: row["denial"] for row in body["explain"]["ranking"]}
    # ledger-sync's memory shares "region" and "runs" with the question, but Maria is said to
    # have nothing to do with ledger-sync; the memory that says so is not denied itself.
    assert denial[ledger] < 1.0
    assert denial[apart] == denial[chain[0]] == denial[chain[1]] == 1.0

    # A question that names ledger-sync itself asks about it.
    named_question = "Where does Maria's ledger-sync run?"
    named = await explained(client, user.headers, "retrieve", named_question, top_k=20, min_score=0)
    assert all(row["denial"] == 1.0 for row in named["explain"]["ranking"])


async def test_a_denial_reaches_the_subject_an_alias_names_either_side_of_it(
    client: TestClientProtocol, user: User
) -> None:
    alias, backup, apart, dump = await stored_ids(
        client,
        user.headers,
        [
            "When people say PG they mean orders-db.",
            "orders-db takes a full backup every night at 01:00.",
            "reports-db is not a replica of orders-db.",
            "reports-db is dumped once a week on Sunday.",
        ],
    )
    await stored_ids(client, user.headers, UNRELATED)
    body = await explained(
        client, user.headers, "retrieve", "When is PG backed up?", top_k=20, min_score=0
    )
    denial = {row["memory_id"]: row["denial"] for row in body["explain"]["ranking"]}
    # The question names PG; the alias makes orders-db a subject, and the denial names
    # orders-db as the denied side: reports-db is what it has nothing to do with.
    assert denial[dump] < 1.0
    assert denial[alias] == denial[backup] == denial[apart] == 1.0


async def test_a_branch_that_deletes_the_denial_no_longer_denies(
    client: TestClientProtocol, user: User
) -> None:
    await stored_ids(client, user.headers, CHAIN[:2])
    apart, ledger = await stored_ids(client, user.headers, [MARIA_APART, LEDGER])
    await stored_ids(client, user.headers, UNRELATED)
    await create_branch(client, user.headers, "without-denial")
    await request_ok(client, "DELETE", f"/v1/memories/{apart}?branch=without-denial", user.headers)

    def denial_of_ledger(body: dict[str, Any]) -> float:
        rows = {row["memory_id"]: row for row in body["explain"]["ranking"]}
        return float(rows[ledger]["denial"])

    fields = {"top_k": 20, "min_score": 0}
    on_main = await explained(client, user.headers, "retrieve", REGION_QUESTION, **fields)
    on_branch = await explained(
        client, user.headers, "retrieve", REGION_QUESTION, branch="without-denial", **fields
    )
    assert denial_of_ledger(on_main) < 1.0
    assert denial_of_ledger(on_branch) == 1.0


async def test_a_deleted_memory_no_longer_brings_its_neighbours_in(
    client: TestClientProtocol, user: User
) -> None:
    chain = await stored_ids(client, user.headers, CHAIN)
    await stored_ids(client, user.headers, UNRELATED)
    before = await explained(client, user.headers, "retrieve", QUESTION, top_k=5)
    assert chain[3] in ids(before["results"])

    await request_ok(client, "DELETE", f"/v1/memories/{chain[1]}", user.headers)
    for mode in ("retrieve", "search"):
        after = await explained(client, user.headers, mode, QUESTION, top_k=5)
        assert chain[1] not in set(ids(after["results"])), mode
        rows = _rows(after)
        # What only the deleted memory led to is no longer reached (top_k may still be
        # filled with it, for what it is worth on its own).
        assert all("graph" not in rows.get(memory_id, {}) for memory_id in chain[2:4]), mode
        for row in after["explain"]["ranking"]:
            assert chain[1] not in row.get("graph_path", []), mode


async def test_a_chinese_chain_is_reached_through_its_entities(
    client: TestClientProtocol, user: User
) -> None:
    chain = await stored_ids(client, user.headers, CHAIN_ZH)
    unrelated = await stored_ids(client, user.headers, UNRELATED_ZH)
    body = await explained(client, user.headers, "retrieve", QUESTION_ZH, top_k=5)
    assert "王芳" in body["explain"]["graph"]["seed_entities"]
    assert body["explain"]["graph"]["reached"] >= len(CHAIN_ZH)
    rows = _rows(body)
    cve = rows.get(chain[3])
    assert cve is not None, [row["memory_id"] for row in body["explain"]["ranking"]]
    assert cve["graph"] > 0
    path = cve["graph_path"]
    assert path[0] == "王芳"
    assert "计费团队" in path
    assert _path_memories(path, set(chain) | set(unrelated)) == chain
    assert chain[3] in ids(body["results"])

    without = await explained(client, user.headers, "retrieve", QUESTION_ZH, top_k=5, graph=False)
    assert all("graph_path" not in row for row in without["explain"]["ranking"])


async def test_another_users_memories_are_never_reached(client: TestClientProtocol) -> None:
    a = await create_user(client, "graph-a")
    b = await create_user(client, "graph-b")
    # A holds the head of the chain only; B the whole chain with the same texts.
    a_ids = await stored_ids(client, a.headers, [*CHAIN[:2], *UNRELATED])
    b_ids = await stored_ids(client, b.headers, [*CHAIN, *UNRELATED])

    for mode in ("retrieve", "search"):
        body = await explained(client, a.headers, mode, QUESTION, top_k=100, min_score=0)
        assert set(ids(body["results"])) <= set(a_ids), mode
        assert all(item["user_id"] == a.user_id for item in body["results"])
        for row in body["explain"]["ranking"]:
            assert not set(row.get("graph_path", [])) & set(b_ids), mode
        # B still reaches its own chain.
        own = await explained(client, b.headers, mode, QUESTION, top_k=5)
        assert b_ids[3] in ids(own["results"])
        assert set(ids(own["results"])) <= set(b_ids)


async def test_users_with_the_same_chain_each_reach_only_their_own(
    client: TestClientProtocol,
) -> None:
    users = [await create_user(client, "graph-twin") for _ in range(2)]
    stored = {user.user_id: await stored_ids(client, user.headers, CHAIN) for user in users}
    for user, other in (users, users[::-1]):
        own, theirs = stored[user.user_id], set(stored[other.user_id])
        body = await explained(client, user.headers, "retrieve", QUESTION, top_k=5)
        assert own[3] in ids(body["results"])
        assert set(ids(body["results"])) <= set(own)
        for row in body["explain"]["ranking"]:
            path = row.get("graph_path", [])
            assert not set(path) & theirs, path


# --- with an LLM ---------------------------------------------------------------------------------


async def test_llm_extraction_keeps_a_negated_link_unfollowed(llm_app: Quart, llm: FakeLlm) -> None:
    client = llm_app.test_client()
    owner = await create_user(client, "negation-llm")
    chain = await stored_ids(client, owner.headers, [*CHAIN[2:], IVAN_APART])
    await stored_ids(client, owner.headers, UNRELATED)
    ivan = chain[2]
    # The LLM names the entities as written, which the text of course still negates.
    llm.reply = {
        "memories": [
            {
                "memory_id": ivan,
                "entities": [
                    {"name": "Ivan", "type": "person"},
                    {"name": "auth-service", "type": "service"},
                    {"name": "invoice-api", "type": "service"},
                ],
                "relations": [{"source": "Ivan", "target": "auth-service", "type": "works_on"}],
            }
        ]
    }
    answer = await request_ok(client, "POST", "/v1/extract-entities", owner.headers, json={})
    assert answer["processed"] == len(CHAIN[2:]) + 1 + len(UNRELATED)
    body = await explained(client, owner.headers, "retrieve", IVAN_QUESTION, top_k=5)
    assert body["results"][0]["memory_id"] == ivan
    for row in body["explain"]["ranking"]:
        assert "invoice api" not in row.get("graph_path", []), row
