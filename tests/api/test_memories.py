"""Memories over HTTP: store, duplicates, validation, unicode, batch, list, correct, delete."""

from __future__ import annotations

import math
import re
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from quart.typing import TestClientProtocol

from tests.conftest import User, create_user
from tests.support.http import error_detail, request_ok
from tests.support.memories import (
    contents,
    correct,
    fulltext,
    ids,
    list_all,
    listed_ids,
    ranked,
    store,
    store_batch,
    without_confidence,
)

HEX32 = re.compile(r"^[0-9a-f]{32}$")
MEMORY_FIELDS = {
    "memory_id",
    "id",
    "user_id",
    "content",
    "memory_type",
    "session_id",
    "subject_id",
    "trust_tier",
    "initial_confidence",
    "confidence",
    "is_active",
    "superseded_by",
    "observed_at",
    "created_at",
    "updated_at",
    "branch",
    "extra_metadata",
    "retrieval_score",
}


def _timestamp(value: str) -> datetime:
    parsed = datetime.fromisoformat(value)
    assert parsed.tzinfo is not None, value
    return parsed


# --- store -------------------------------------------------------------------------------------


async def test_store_returns_201_with_every_memory_field(
    client: TestClientProtocol, user: User
) -> None:
    before = datetime.now(UTC)
    response = await client.post(
        "/v1/memories",
        json={
            "content": "The user prefers green tea over coffee",
            "session_id": "chat-1",
            "subject_id": "person-42",
            "extra_metadata": {"source": "chat", "n": 2, "ok": True, "score": 0.5},
        },
        headers=user.headers,
    )
    assert response.status_code == 201, await response.get_data(as_text=True)
    memory = await response.get_json()

    assert set(memory) >= MEMORY_FIELDS, MEMORY_FIELDS - set(memory)
    assert "embedding" not in memory
    assert HEX32.match(memory["memory_id"])
    assert uuid.UUID(memory["memory_id"]).version == 7
    assert memory["id"] == memory["memory_id"]
    assert memory["user_id"] == user.user_id
    assert memory["content"] == "The user prefers green tea over coffee"
    assert memory["memory_type"] == "semantic"
    assert memory["session_id"] == "chat-1"
    assert memory["subject_id"] == "person-42"
    assert memory["trust_tier"] == "T1"
    assert memory["initial_confidence"] == pytest.approx(0.95)
    assert 0.94 < memory["confidence"] <= memory["initial_confidence"]
    assert memory["is_active"] is True
    assert memory["superseded_by"] is None
    assert memory["branch"] == "main"
    assert memory["extra_metadata"] == {"source": "chat", "n": 2, "ok": True, "score": 0.5}
    assert memory["retrieval_score"] is None
    for field in ("observed_at", "created_at", "updated_at"):
        stamp = _timestamp(memory[field])
        assert before - timedelta(seconds=5) <= stamp <= datetime.now(UTC) + timedelta(seconds=5)

    # What the store answered is what the list shows.
    [listed] = await list_all(client, user.headers)
    assert {key: listed[key] for key in MEMORY_FIELDS - {"confidence"}} == {
        key: memory[key] for key in MEMORY_FIELDS - {"confidence"}
    }


async def test_store_defaults_session_and_subject_to_null(
    client: TestClientProtocol, user: User
) -> None:
    memory = await store(client, user.headers, "Unscoped fact", memory_type="procedural")
    assert memory["memory_type"] == "procedural"
    assert memory["session_id"] is None
    assert memory["subject_id"] is None
    assert memory["extra_metadata"] == {}


@pytest.mark.parametrize(
    ("tier", "initial"), [("T1", 0.95), ("T2", 0.85), ("T3", 0.65), ("T4", 0.40)]
)
async def test_trust_tier_sets_initial_confidence(
    client: TestClientProtocol, user: User, tier: str, initial: float
) -> None:
    memory = await store(client, user.headers, f"fact at tier {tier}", trust_tier=tier)
    assert memory["trust_tier"] == tier
    assert memory["initial_confidence"] == pytest.approx(initial)


async def test_confidence_decays_with_the_age_of_the_observation(
    client: TestClientProtocol, user: User
) -> None:
    observed = datetime.now(UTC) - timedelta(days=30)
    memory = await store(
        client,
        user.headers,
        "An old insight",
        trust_tier="T4",
        initial_confidence=0.8,
        observed_at=observed.replace(tzinfo=None).isoformat(),  # no zone means UTC
    )
    assert memory["initial_confidence"] == pytest.approx(0.8)
    assert _timestamp(memory["observed_at"]) == observed
    assert memory["confidence"] == pytest.approx(0.8 * math.exp(-1), rel=1e-3)


async def test_exact_duplicate_returns_the_existing_memory(
    client: TestClientProtocol, user: User
) -> None:
    first = await store(client, user.headers, "Lives in Porto", subject_id="ana")
    again = await client.post(
        "/v1/memories",
        json={"content": "Lives in Porto", "subject_id": "ana"},
        headers=user.headers,
    )
    assert again.status_code == 200
    assert (await again.get_json())["memory_id"] == first["memory_id"]

    # Another subject, another type or other text is not a duplicate.
    other_subject = await store(client, user.headers, "Lives in Porto", subject_id="rui")
    other_type = await store(client, user.headers, "Lives in Porto", memory_type="profile")
    other_text = await store(client, user.headers, "Lives in Porto.", subject_id="ana")
    created = {first["memory_id"], other_subject["memory_id"], other_type["memory_id"]}
    created.add(other_text["memory_id"])
    assert len(created) == 4
    assert sorted(await listed_ids(client, user.headers)) == sorted(created)


async def test_batch_returns_existing_memories_for_duplicates(
    client: TestClientProtocol, user: User
) -> None:
    existing = await store(client, user.headers, "Speaks Portuguese")
    stored = await store_batch(
        client,
        user.headers,
        [
            {"content": "Speaks Portuguese"},
            {"content": "Speaks French"},
            {"content": "Speaks French"},
            {"content": "Speaks French", "memory_type": "profile"},
        ],
    )
    assert stored[0]["memory_id"] == existing["memory_id"]
    assert stored[1]["memory_id"] == stored[2]["memory_id"] != stored[3]["memory_id"]
    assert sorted(await listed_ids(client, user.headers)) == sorted(
        {existing["memory_id"], stored[1]["memory_id"], stored[3]["memory_id"]}
    )


async def test_store_on_a_branch_that_does_not_exist_is_404(
    client: TestClientProtocol, user: User
) -> None:
    response = await client.post(
        "/v1/memories", json={"content": "x", "branch": "no-such-branch"}, headers=user.headers
    )
    await error_detail(response, 404)
    assert await listed_ids(client, user.headers) == []


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"content": ""}, "content"),
        ({"content": "   \n\t "}, "content"),
        ({"content": "a" * (32 * 1024 + 1)}, "content"),
        ({"content": "é" * (16 * 1024 + 1)}, "content"),  # 16385 characters, 32770 bytes
        ({}, "content"),
        ({"content": "x", "memory_type": "gossip"}, "memory_type"),
        ({"content": "x", "trust_tier": "T5"}, "trust_tier"),
        ({"content": "x", "initial_confidence": 1.5}, "initial_confidence"),
        ({"content": "x", "extra_metadata": {"nested": {"a": 1}}}, "extra_metadata"),
        ({"content": "x", "extra_metadata": {"bad key": 1}}, "extra_metadata"),
        ({"content": "x", "colour": "red"}, "colour"),
    ],
    ids=[
        "empty",
        "blank",
        "over-32KiB",
        "over-32KiB-bytes",
        "missing",
        "unknown-type",
        "unknown-tier",
        "confidence-range",
        "nested-metadata",
        "metadata-key",
        "unknown-field",
    ],
)
async def test_invalid_store_is_422_and_stores_nothing(
    client: TestClientProtocol, user: User, body: dict[str, Any], field: str
) -> None:
    response = await client.post("/v1/memories", json=body, headers=user.headers)
    detail = await error_detail(response, 422)
    assert field in detail
    assert await listed_ids(client, user.headers) == []


async def test_content_of_exactly_32_kib_is_accepted(
    client: TestClientProtocol, user: User
) -> None:
    content = "é" * (16 * 1024)  # 32768 UTF-8 bytes
    memory = await store(client, user.headers, content)
    assert memory["content"] == content


UNICODE_WORDS = {
    "emoji": "🎉👩‍👩‍👧‍👦",
    "cjk": "東京",
    "combining": "cafe\u0301",  # e + COMBINING ACUTE ACCENT, not the precomposed é
    "rtl": "שלום",
    "arabic": "مرحبا",
    "devanagari": "हिन्दी",
}
UNICODE_CONTENT = (
    "Unicode check 🎉👩‍👩‍👧‍👦 / 東京 の天気 / cafe\u0301 au lait / שלום עולם "
    "/ مرحبا بالعالم / हिन्दी भाषा / \u202eRTL override\u202c / zero\u200bwidth"
)


async def test_unicode_content_round_trips_byte_for_byte(
    client: TestClientProtocol, user: User
) -> None:
    stored = await store(client, user.headers, UNICODE_CONTENT)
    expected = UNICODE_CONTENT.encode("utf-8")
    assert stored["content"].encode("utf-8") == expected

    [listed] = await list_all(client, user.headers)
    assert listed["content"].encode("utf-8") == expected

    for mode in ("retrieve", "search"):
        found = await ranked(client, user.headers, mode, UNICODE_CONTENT, min_score=0)
        assert [item["content"].encode("utf-8") for item in found] == [expected]

    for name, word in UNICODE_WORDS.items():
        if name == "emoji":
            continue  # an emoji is no searchable word; see the full-text tests
        hits = await fulltext(client, user.headers, word)
        assert [hit["content"].encode("utf-8") for hit in hits] == [expected], name


async def test_unicode_survives_batch_and_search_by_each_script(
    client: TestClientProtocol, user: User
) -> None:
    items = [{"content": f"{name}: {word}"} for name, word in UNICODE_WORDS.items()]
    stored = await store_batch(client, user.headers, items)
    assert contents(stored) == [item["content"] for item in items]
    hits = await fulltext(client, user.headers, UNICODE_WORDS["combining"])
    assert contents(hits) == ["combining: cafe\u0301"]
    # Precomposed é is other bytes: full-text search does not fold it into e + accent.
    assert await fulltext(client, user.headers, "café") == []


# --- batch -------------------------------------------------------------------------------------


async def test_batch_of_100_is_stored_in_one_call(client: TestClientProtocol, user: User) -> None:
    items = [
        {"content": f"Batch fact number {i}", **({"memory_type": "profile"} if i % 10 == 0 else {})}
        for i in range(100)
    ]
    response = await client.post(
        "/v1/memories/batch", json={"memories": items}, headers=user.headers
    )
    assert response.status_code == 201, await response.get_data(as_text=True)
    stored = await response.get_json()  # a plain array, as Memoria's SDK reads it
    assert contents(stored) == [item["content"] for item in items]
    assert [m["memory_type"] for m in stored].count("profile") == 10
    assert all(set(m) >= MEMORY_FIELDS and m["trust_tier"] == "T1" for m in stored)
    assert len(set(ids(stored))) == 100
    assert ids(stored) == sorted(ids(stored))  # time-ordered ids, in the order given

    listed = await list_all(client, user.headers, limit=500)
    # Ids are time-ordered, so a batch lists newest (last given) first.
    assert contents(listed) == [item["content"] for item in reversed(items)]


@pytest.mark.parametrize(
    "items",
    [
        [{"content": f"fact {i}"} for i in range(101)],
        [{"content": "good one"}, {"content": "   "}, {"content": "good two"}],
        [{"content": "good one"}, {"content": "bad type", "memory_type": "rumour"}],
        [{"content": "good one"}, {"content": "x" * (32 * 1024 + 1)}],
        [],
    ],
    ids=["101-items", "blank-item", "unknown-type-item", "oversized-item", "empty"],
)
async def test_invalid_batch_is_422_and_stores_nothing(
    client: TestClientProtocol, user: User, items: list[dict[str, Any]]
) -> None:
    response = await client.post(
        "/v1/memories/batch", json={"memories": items}, headers=user.headers
    )
    await error_detail(response, 422)
    assert await listed_ids(client, user.headers) == []


# --- list --------------------------------------------------------------------------------------


async def test_cursor_paging_visits_every_memory_once_newest_first(
    client: TestClientProtocol, user: User
) -> None:
    first = await store(client, user.headers, "Paged memory 0")
    rest = await store_batch(
        client, user.headers, [{"content": f"Paged memory {i}"} for i in range(1, 10)]
    )
    stored = [first, *rest]
    pages: list[list[str]] = []
    cursor: str | None = None
    while True:
        query: dict[str, Any] = {"limit": 3, **({"cursor": cursor} if cursor else {})}
        response = await client.get("/v1/memories", query_string=query, headers=user.headers)
        assert response.status_code == 200
        page = await response.get_json()
        assert set(page) == {"items", "next_cursor"}
        pages.append(ids(page["items"]))
        cursor = page["next_cursor"]
        if cursor is None:
            break
        assert isinstance(cursor, str) and cursor
    assert [len(page) for page in pages] == [3, 3, 3, 1]
    assert [i for page in pages for i in page] == list(reversed(ids(stored)))


async def test_list_filters_by_memory_type(client: TestClientProtocol, user: User) -> None:
    await store_batch(
        client,
        user.headers,
        [
            {"content": "semantic one"},
            {"content": "profile one", "memory_type": "profile"},
            {"content": "procedural one", "memory_type": "procedural"},
            {"content": "profile two", "memory_type": "profile"},
        ],
    )
    profiles = await list_all(client, user.headers, memory_type="profile")
    assert contents(profiles) == ["profile two", "profile one"]
    assert contents(await list_all(client, user.headers, memory_type="working")) == []
    assert len(await list_all(client, user.headers)) == 4


async def test_list_filters_by_trust_tier(client: TestClientProtocol, user: User) -> None:
    await store_batch(
        client,
        user.headers,
        [
            {"content": "told by the user"},
            {"content": "heard second hand", "trust_tier": "T3"},
            {"content": "a guess", "trust_tier": "T4"},
        ],
    )
    assert contents(await list_all(client, user.headers, trust_tier="T3")) == ["heard second hand"]
    assert contents(
        await list_all(client, user.headers, trust_tier="T4", memory_type="semantic")
    ) == ["a guess"]
    assert contents(await list_all(client, user.headers, trust_tier="T2")) == []


async def test_list_default_limit_is_50(client: TestClientProtocol, user: User) -> None:
    await store_batch(client, user.headers, [{"content": f"item {i}"} for i in range(55)])
    response = await client.get("/v1/memories", headers=user.headers)
    page = await response.get_json()
    assert len(page["items"]) == 50
    assert page["next_cursor"]


@pytest.mark.parametrize(
    ("query", "status"),
    [
        ("limit=0", 422),
        ("limit=501", 422),
        ("limit=-1", 422),
        ("limit=abc", 400),
        ("limit=2.5", 400),
        ("memory_type=gossip", 422),
        ("trust_tier=T9", 422),
        ("cursor=not-a-cursor!", 400),
    ],
)
async def test_list_rejects_bad_parameters(
    client: TestClientProtocol, user: User, query: str, status: int
) -> None:
    response = await client.get(f"/v1/memories?{query}", headers=user.headers)
    await error_detail(response, status)


async def test_list_accepts_limit_bounds(client: TestClientProtocol, user: User) -> None:
    await store_batch(client, user.headers, [{"content": "one"}, {"content": "two"}])
    for limit, count in ((1, 1), (500, 2)):
        response = await client.get(f"/v1/memories?limit={limit}", headers=user.headers)
        assert response.status_code == 200
        assert len((await response.get_json())["items"]) == count


# --- correct -----------------------------------------------------------------------------------

OLD_TEXT = "The dentist appointment is on Tuesday at 3pm"
NEW_TEXT = "The dentist appointment is on Thursday at 10am"


async def _old_text_is_gone(client: TestClientProtocol, user: User) -> None:
    """The corrected text is in no read path; the correction is."""
    assert OLD_TEXT not in contents(await list_all(client, user.headers))
    for mode in ("retrieve", "search"):
        found = await ranked(client, user.headers, mode, "dentist appointment Tuesday", min_score=0)
        assert OLD_TEXT not in contents(found)
        assert NEW_TEXT in contents(found)
    assert await fulltext(client, user.headers, "Tuesday 3pm") == []
    assert contents(await fulltext(client, user.headers, "dentist")) == [NEW_TEXT]


async def test_correct_by_id_supersedes_with_a_t2_memory(
    client: TestClientProtocol, user: User
) -> None:
    old = await store(client, user.headers, OLD_TEXT, session_id="s1", subject_id="me")
    response = await client.put(
        f"/v1/memories/{old['memory_id']}/correct",
        json={"new_content": NEW_TEXT, "reason": "rescheduled"},
        headers=user.headers,
    )
    assert response.status_code == 200, await response.get_data(as_text=True)
    new = await response.get_json()
    assert HEX32.match(new["memory_id"]) and new["memory_id"] != old["memory_id"]
    assert new["content"] == NEW_TEXT
    assert new["trust_tier"] == "T2"
    assert new["initial_confidence"] == pytest.approx(0.85)
    assert new["is_active"] is True
    assert (new["memory_type"], new["session_id"], new["subject_id"]) == ("semantic", "s1", "me")

    assert await listed_ids(client, user.headers) == [new["memory_id"]]
    await _old_text_is_gone(client, user)

    # The old memory is no longer there to be corrected or deleted.
    again = await client.put(
        f"/v1/memories/{old['memory_id']}/correct",
        json={"new_content": "Wednesday"},
        headers=user.headers,
    )
    await error_detail(again, 404)
    await error_detail(
        await client.delete(f"/v1/memories/{old['memory_id']}", headers=user.headers), 404
    )


async def test_correct_by_query_returns_the_matched_memory_id(
    client: TestClientProtocol, user: User
) -> None:
    old = await store(client, user.headers, OLD_TEXT)
    other = await store(client, user.headers, "The cat is called Miso and loves sardines")
    response = await client.post(
        "/v1/memories/correct",
        json={"query": "when is my dentist visit", "new_content": NEW_TEXT, "reason": "moved"},
        headers=user.headers,
    )
    assert response.status_code == 200, await response.get_data(as_text=True)
    corrected = await response.get_json()
    assert corrected["matched_memory_id"] == old["memory_id"]
    assert corrected["memory_id"] not in (old["memory_id"], other["memory_id"])
    assert corrected["content"] == NEW_TEXT
    assert corrected["trust_tier"] == "T2"
    assert sorted(await listed_ids(client, user.headers)) == sorted(
        [corrected["memory_id"], other["memory_id"]]
    )
    await _old_text_is_gone(client, user)


async def test_correct_by_query_in_chinese_corrects_the_memory_holding_its_words(
    client: TestClientProtocol, user: User
) -> None:
    """The bundled model reads no Chinese (every Chinese text is about as close as any other):
    a Chinese query corrected whichever memory came first, and never answered 404."""
    coffee = await store(client, user.headers, "我喜欢喝咖啡, 不喜欢喝茶。")
    on_call = await store(client, user.headers, "本周值班工程师是李雷。")
    await store(client, user.headers, "订单系统内存泄漏")
    for query, matched in (("咖啡", coffee), ("值班工程师", on_call)):
        response = await client.post(
            "/v1/memories/correct",
            json={"query": query, "new_content": f"更新 {query}", "reason": "r"},
            headers=user.headers,
        )
        assert response.status_code == 200, await response.get_data(as_text=True)
        assert (await response.get_json())["matched_memory_id"] == matched["memory_id"]
    before = sorted(await listed_ids(client, user.headers))
    for unrelated in ("火星探测器的轨道参数", "周末去爬山"):
        response = await client.post(
            "/v1/memories/correct",
            json={"query": unrelated, "new_content": "不该写入", "reason": "r"},
            headers=user.headers,
        )
        await error_detail(response, 404)
    assert sorted(await listed_ids(client, user.headers)) == before


async def test_correct_by_query_without_any_memory_is_404(
    client: TestClientProtocol, user: User
) -> None:
    response = await client.post(
        "/v1/memories/correct",
        json={"query": "dentist", "new_content": NEW_TEXT},
        headers=user.headers,
    )
    await error_detail(response, 404)
    assert await listed_ids(client, user.headers) == []


async def test_correct_unknown_id_is_404(client: TestClientProtocol, user: User) -> None:
    response = await client.put(
        f"/v1/memories/{uuid.uuid4().hex}/correct", json={"new_content": "x"}, headers=user.headers
    )
    await error_detail(response, 404)


@pytest.mark.parametrize(
    "body",
    [{"new_content": ""}, {"new_content": "  "}, {}, {"new_content": "x" * (32 * 1024 + 1)}],
    ids=["empty", "blank", "missing", "oversized"],
)
async def test_correct_with_invalid_content_is_422_and_changes_nothing(
    client: TestClientProtocol, user: User, body: dict[str, Any]
) -> None:
    old = await store(client, user.headers, OLD_TEXT)
    response = await client.put(
        f"/v1/memories/{old['memory_id']}/correct", json=body, headers=user.headers
    )
    await error_detail(response, 422)
    assert contents(await list_all(client, user.headers)) == [OLD_TEXT]


# --- delete ------------------------------------------------------------------------------------


async def test_delete_is_soft_and_leaves_every_read_path(
    client: TestClientProtocol, user: User
) -> None:
    doomed = await store(
        client, user.headers, "Favourite dessert is pistachio gelato", memory_type="profile"
    )
    kept = await store(client, user.headers, "Works as a marine biologist", memory_type="profile")

    response = await client.delete(
        f"/v1/memories/{doomed['memory_id']}",
        query_string={"reason": "no longer true"},
        headers=user.headers,
    )
    assert response.status_code == 200, await response.get_data(as_text=True)
    deleted = await response.get_json()
    assert deleted["memory_id"] == doomed["memory_id"]
    assert deleted["deleted"] is True
    assert re.fullmatch(r"pre_delete_[0-9a-f]{8}", deleted["snapshot_name"])

    assert await listed_ids(client, user.headers) == [kept["memory_id"]]
    for mode in ("retrieve", "search"):
        found = await ranked(client, user.headers, mode, "pistachio gelato dessert", min_score=0)
        assert ids(found) == [kept["memory_id"]]
    assert await fulltext(client, user.headers, "pistachio gelato") == []
    profile = await (await client.get("/v1/profiles/me", headers=user.headers)).get_json()
    assert profile["profile"] == "Works as a marine biologist"
    assert profile["stats"] == {"profile": 1}

    corrected = await client.put(
        f"/v1/memories/{doomed['memory_id']}/correct",
        json={"new_content": "Favourite dessert is tiramisu"},
        headers=user.headers,
    )
    await error_detail(corrected, 404)
    again = await client.delete(f"/v1/memories/{doomed['memory_id']}", headers=user.headers)
    await error_detail(again, 404)


async def test_correct_by_query_cannot_reach_a_deleted_memory(client: TestClientProtocol) -> None:
    user = await create_user(client)
    only = await store(client, user.headers, OLD_TEXT)
    response = await client.delete(f"/v1/memories/{only['memory_id']}", headers=user.headers)
    assert response.status_code == 200
    response = await client.post(
        "/v1/memories/correct",
        json={"query": OLD_TEXT, "new_content": NEW_TEXT},
        headers=user.headers,
    )
    await error_detail(response, 404)
    assert await listed_ids(client, user.headers) == []


async def test_delete_unknown_id_is_404(client: TestClientProtocol, user: User) -> None:
    await error_detail(
        await client.delete(f"/v1/memories/{uuid.uuid4().hex}", headers=user.headers), 404
    )


async def test_one_memory_is_read_by_id_active_or_not(
    client: TestClientProtocol, user: User, other_user: User
) -> None:
    stored = await store(client, user.headers, "The VPN config lives in vault.")
    path = f"/v1/memories/{stored['memory_id']}"
    response = await client.get(path, headers=user.headers)
    assert response.status_code == 200
    assert without_confidence([await response.get_json()]) == without_confidence([stored])

    corrected = await correct(
        client, user.headers, stored["memory_id"], "The VPN config lives in git."
    )
    old = await (await client.get(path, headers=user.headers)).get_json()
    assert (old["is_active"], old["superseded_by"]) == (False, corrected["memory_id"])
    await client.delete(f"/v1/memories/{corrected['memory_id']}", headers=user.headers)
    gone = await client.get(f"/v1/memories/{corrected['memory_id']}", headers=user.headers)
    assert (await gone.get_json())["is_active"] is False

    await error_detail(await client.get(path, headers=other_user.headers), 404)
    await error_detail(await client.get("/v1/memories/0123abcd", headers=user.headers), 404)
    unknown_branch = await client.get(path, query_string={"branch": "nope"}, headers=user.headers)
    await error_detail(unknown_branch, 404)


async def _query(client: TestClientProtocol, user: User, **body: Any) -> Any:
    return await client.post("/v1/memories/query", json=body, headers=user.headers)


async def test_query_filters_without_ranking_newest_first_and_pages(
    client: TestClientProtocol, user: User, other_user: User
) -> None:
    tagged = [
        await store(
            client,
            user.headers,
            f"Runbook step {n}",
            memory_type="procedural",
            session_id="ops",
            subject_id="db",
            extra_metadata={"team": "sre", "n": n},
        )
        for n in range(3)
    ]
    await store(client, user.headers, "A note of the web team", extra_metadata={"team": "web"})
    await store(client, other_user.headers, "Their runbook", extra_metadata={"team": "sre"})

    body = await (await _query(client, user, extra_metadata_filter={"team": "sre"})).get_json()
    assert ids(body["items"]) == ids(tagged)[::-1] and body["next_cursor"] is None

    first = await (await _query(client, user, subject_id="db", limit=2)).get_json()
    rest = await (
        await _query(client, user, subject_id="db", limit=2, cursor=first["next_cursor"])
    ).get_json()
    assert ids(first["items"]) + ids(rest["items"]) == ids(tagged)[::-1]
    assert rest["next_cursor"] is None

    combined = {
        "memory_types": ["procedural"],
        "session_id": "ops",
        "extra_metadata_filter": {"n": 1.0},
        "trust_tier": "T1",
    }
    only = await (await _query(client, user, **combined)).get_json()
    assert ids(only["items"]) == [tagged[1]["memory_id"]]  # 1 = 1.0 as Cypher compares
    since = tagged[1]["created_at"]
    after = await (await _query(client, user, created_after=since, subject_id="db")).get_json()
    assert ids(after["items"]) == [tagged[2]["memory_id"]]

    await client.delete(f"/v1/memories/{tagged[0]['memory_id']}", headers=user.headers)
    active = await (await _query(client, user, subject_id="db")).get_json()
    assert tagged[0]["memory_id"] not in ids(active["items"])
    everything = await (
        await _query(client, user, subject_id="db", include_inactive=True)
    ).get_json()
    assert tagged[0]["memory_id"] in ids(everything["items"])


async def test_query_needs_a_filter_and_valid_ones(client: TestClientProtocol, user: User) -> None:
    for body in (
        {},
        {"include_inactive": True},
        {"branch": "main"},
        {"limit": 5},
        {"memory_types": []},
        {"trust_tier": "T9"},
        {"created_after": "yesterday"},
        {"subject_id": "x", "sort": "score"},
    ):
        await error_detail(await _query(client, user, **body), 422)


async def test_correct_by_query_keeps_to_the_memory_types_named(
    client: TestClientProtocol, user: User
) -> None:
    await store(client, user.headers, "Ana drinks green tea every morning.")
    habit = await store(client, user.headers, "Ana drinks green tea.", memory_type="profile")
    query = "Ana drinks green tea every morning"

    corrected = await request_ok(
        client,
        "POST",
        "/v1/memories/correct",
        user.headers,
        json={"query": query, "new_content": "Ana drinks matcha.", "memory_types": ["profile"]},
    )

    assert corrected["matched_memory_id"] == habit["memory_id"]
    assert corrected["memory_type"] == "profile"
    response = await client.post(
        "/v1/memories/correct",
        json={"query": query, "new_content": "x", "memory_types": ["procedural"]},
        headers=user.headers,
    )
    await error_detail(response, 404)
    for types in ([], ["gossip"]):
        response = await client.post(
            "/v1/memories/correct",
            json={"query": query, "new_content": "x", "memory_types": types},
            headers=user.headers,
        )
        await error_detail(response, 422)
