"""Hybrid retrieve and search over HTTP: relevance, top_k, types, sessions, explain, floors, and
the first retrieves of a freshly started service."""

from __future__ import annotations

from typing import Any

import pytest
import pytest_asyncio
from neo4j import AsyncDriver
from quart.typing import TestClientProtocol

from tests.conftest import User, create_user
from tests.support.http import error_detail
from tests.support.memories import contents, ids, ranked, store, store_batch
from tests.support.neo4j_direct import query as cypher
from tests.support.query_plans import operators

FACTS = [
    "The user's daughter is called Emma and she is seven years old",
    "Drinks a dark roast espresso every morning before work",
    "Deploys the backend services with Kubernetes on Google Cloud",
    "Is severely allergic to peanuts",
    "Plays tennis with friends every Saturday",
    "Lives in an apartment in Lisbon, Portugal",
    "Writes code in the Vim editor with a custom configuration",
    "Favourite novel is Dune by Frank Herbert",
    "Drives a blue electric hatchback to the office",
    "Is learning to play the cello",
    "Has a golden retriever named Biscuit",
    "Works remotely for a fintech startup as a data engineer",
]

# Paraphrases: a question whose answer is the fact, mostly in other words.
PARAPHRASES = [
    ("What is the name of their child?", 0),
    ("which hot drink do they have when they wake up", 1),
    ("which tool orchestrates their deployments", 2),
    ("what food could give them an allergic reaction", 3),
    ("which sport do they do on weekends", 4),
    ("what city is their home in", 5),
    ("what text editor do they program with", 6),
    ("what book do they like most", 7),
    ("what kind of car do they own", 8),
    ("which musical instrument are they studying", 9),
    ("do they have a pet dog", 10),
    ("what is their job", 11),
]


# The same facts in Chinese, asked about in Chinese and in English: the bundled model reads
# Chinese through its English glosses (app.gloss). Read as raw Chinese, 4 of the 12 Chinese and
# 2 of the 6 English questions found their fact first by the vector alone.
FACTS_ZH = [
    "用户的女儿叫艾玛，今年七岁。",  # noqa: RUF001
    "每天上班前喝一杯深烘浓缩咖啡。",
    "用 Kubernetes 在谷歌云上部署后端服务。",
    "对花生严重过敏。",
    "每周六和朋友打网球。",
    "住在葡萄牙里斯本的一套公寓里。",
    "用 Vim 编辑器写代码，配置是自己定制的。",  # noqa: RUF001
    "最喜欢的小说是弗兰克·赫伯特的《沙丘》。",
    "开一辆蓝色的电动掀背车去办公室。",
    "正在学拉大提琴。",
    "养了一只叫饼干的金毛犬。",
    "在一家金融科技创业公司远程做数据工程师。",
]
PARAPHRASES_ZH = [
    ("他们的孩子叫什么名字？", 0),  # noqa: RUF001
    ("早上醒来喝什么热饮？", 1),  # noqa: RUF001
    ("用什么工具编排部署？", 2),  # noqa: RUF001
    ("吃什么食物会引起过敏反应？", 3),  # noqa: RUF001
    ("周末做什么运动？", 4),  # noqa: RUF001
    ("家在哪个城市？", 5),  # noqa: RUF001
    ("用哪个文本编辑器编程？", 6),  # noqa: RUF001
    ("最爱读哪本书？", 7),  # noqa: RUF001
    ("开的是什么车？", 8),  # noqa: RUF001
    ("在学哪种乐器？", 9),  # noqa: RUF001
    ("有没有养狗？", 10),  # noqa: RUF001
    ("做什么工作？", 11),  # noqa: RUF001
]
ACROSS_LANGUAGES = [PARAPHRASES[i] for i in (0, 4, 5, 9, 10, 11)]


@pytest_asyncio.fixture(loop_scope="session", scope="module")
async def facts_user(app: Any) -> tuple[User, list[dict[str, Any]]]:
    """One user with the twelve facts, shared by the read-only tests of this module."""
    client = app.test_client()
    owner = await create_user(client, "retrieval")
    stored = await store_batch(client, owner.headers, [{"content": fact} for fact in FACTS])
    return owner, stored


@pytest.mark.parametrize("mode", ["retrieve", "search"])
async def test_relevant_memory_ranks_first_for_paraphrases(
    client: TestClientProtocol, facts_user: tuple[User, list[dict[str, Any]]], mode: str
) -> None:
    owner, stored = facts_user
    misses = []
    for query, expected in PARAPHRASES:
        found = await ranked(client, owner.headers, mode, query)
        assert found, query
        if found[0]["memory_id"] != stored[expected]["memory_id"]:
            misses.append((query, found[0]["content"]))
    assert misses == []


@pytest.mark.parametrize("mode", ["retrieve", "search"])
async def test_chinese_memories_are_found_by_meaning_in_chinese_and_in_english(
    client: TestClientProtocol, user: User, mode: str
) -> None:
    stored = await store_batch(client, user.headers, [{"content": fact} for fact in FACTS_ZH])
    misses: dict[str, list[str]] = {"zh": [], "en": []}
    for language, questions in (("zh", PARAPHRASES_ZH), ("en", ACROSS_LANGUAGES)):
        for query, expected in questions:
            found = await ranked(client, user.headers, mode, query)
            if not found or found[0]["memory_id"] != stored[expected]["memory_id"]:
                misses[language].append(query)
    assert len(misses["zh"]) <= 2, misses
    assert misses["en"] == []


@pytest.mark.parametrize("mode", ["retrieve", "search"])
async def test_results_carry_scores_best_first(
    client: TestClientProtocol, facts_user: tuple[User, list[dict[str, Any]]], mode: str
) -> None:
    owner, _ = facts_user
    found = await ranked(client, owner.headers, mode, "pets and animals", min_score=0)
    scores = [item["retrieval_score"] for item in found]
    assert all(isinstance(score, float) and score > 0 for score in scores)
    assert scores == sorted(scores, reverse=True)
    assert all(item["user_id"] == owner.user_id and item["is_active"] for item in found)
    assert all("embedding" not in item for item in found)


@pytest.mark.parametrize(("mode", "default"), [("retrieve", 5), ("search", 10)])
async def test_top_k_is_respected(
    client: TestClientProtocol,
    facts_user: tuple[User, list[dict[str, Any]]],
    mode: str,
    default: int,
) -> None:
    owner, _ = facts_user
    for top_k in (1, 3, 12):
        found = await ranked(client, owner.headers, mode, "hobbies", top_k=top_k, min_score=0)
        assert len(found) == top_k
    assert len(await ranked(client, owner.headers, mode, "hobbies", min_score=0)) == default
    # Never more than there are.
    assert len(await ranked(client, owner.headers, mode, "hobbies", top_k=100, min_score=0)) == 12


@pytest.mark.parametrize("mode", ["retrieve", "search"])
async def test_min_score_zero_returns_top_k_even_for_irrelevant_queries(
    client: TestClientProtocol, facts_user: tuple[User, list[dict[str, Any]]], mode: str
) -> None:
    owner, _ = facts_user
    query = "quantum chromodynamics lattice gauge theory"
    found = await ranked(client, owner.headers, mode, query, top_k=7, min_score=0)
    assert len(found) == 7
    # Without min_score the relevance floor may return fewer, never more.
    assert len(await ranked(client, owner.headers, mode, query, top_k=7)) <= 7


@pytest.mark.parametrize("mode", ["retrieve", "search"])
async def test_a_high_min_score_drops_everything(
    client: TestClientProtocol, facts_user: tuple[User, list[dict[str, Any]]], mode: str
) -> None:
    owner, _ = facts_user
    assert await ranked(client, owner.headers, mode, "tennis", min_score=1000) == []


@pytest.mark.parametrize("mode", ["retrieve", "search"])
async def test_memory_types_filter(client: TestClientProtocol, user: User, mode: str) -> None:
    await store_batch(
        client,
        user.headers,
        [
            {
                "content": "Run the database migrations before deploying",
                "memory_type": "procedural",
            },
            {"content": "The database migrations broke production last week"},
            {"content": "Prefers to deploy on Tuesdays", "memory_type": "profile"},
            {
                "content": "Deployment checklist: tests, migrations, tag",
                "memory_type": "procedural",
            },
        ],
    )
    query = "database migrations deploy"
    procedural = await ranked(
        client, user.headers, mode, query, memory_types=["procedural"], min_score=0
    )
    assert sorted(contents(procedural)) == [
        "Deployment checklist: tests, migrations, tag",
        "Run the database migrations before deploying",
    ]
    mixed = await ranked(
        client, user.headers, mode, query, memory_types=["profile", "semantic"], min_score=0
    )
    assert {item["memory_type"] for item in mixed} == {"profile", "semantic"}
    assert len(mixed) == 2
    assert await ranked(client, user.headers, mode, query, memory_types=["working"]) == []


async def test_retrieve_prioritises_the_request_session_and_search_ignores_it(
    client: TestClientProtocol, user: User
) -> None:
    # Same text (different subjects, so not duplicates): equally relevant, in two sessions.
    text = "The project deadline moved to the end of the month"
    first = await store(client, user.headers, text, session_id="session-a", subject_id="alpha")
    second = await store(client, user.headers, text, session_id="session-b", subject_id="beta")
    query = "when is the project due"

    for session, expected in (("session-a", first), ("session-b", second)):
        found = await ranked(client, user.headers, "retrieve", query, session_id=session)
        assert found[0]["memory_id"] == expected["memory_id"]
        assert found[0]["session_id"] == session
        assert found[0]["retrieval_score"] > found[1]["retrieval_score"]

    orders = [
        ids(await ranked(client, user.headers, "search", query, session_id=session))
        for session in ("session-a", "session-b", None)
    ]
    assert orders[0] == orders[1] == orders[2]
    assert sorted(orders[0]) == sorted([first["memory_id"], second["memory_id"]])


async def test_retrieve_with_a_session_still_returns_unscoped_memories(
    client: TestClientProtocol, user: User
) -> None:
    unscoped = await store(client, user.headers, "Favourite colour is forest green")
    await store(client, user.headers, "Booked a flight to Oslo", session_id="trip")
    found = await ranked(
        client, user.headers, "retrieve", "what colour does the user like", session_id="trip"
    )
    assert found[0]["memory_id"] == unscoped["memory_id"]
    assert found[0]["session_id"] is None


async def test_explain_true_reports_timings(
    client: TestClientProtocol, facts_user: tuple[User, list[dict[str, Any]]]
) -> None:
    owner, stored = facts_user
    response = await client.post(
        "/v1/memories/retrieve",
        json={"query": "which sport do they do on weekends", "explain": True},
        headers=owner.headers,
    )
    assert response.status_code == 200
    body = await response.get_json()
    assert set(body) == {"results", "explain"}
    assert body["results"][0]["memory_id"] == stored[4]["memory_id"]
    timings = body["explain"]["timings_ms"]
    assert {"embed_ms", "candidates_ms", "rank_ms", "total_ms"} <= set(timings)
    assert all(value >= 0 for value in timings.values())
    assert timings["total_ms"] >= timings["candidates_ms"]
    # A few memories are searched exactly: nothing nearer can be missed, no second search.
    assert body["explain"]["vector_searched_deeper"] is False
    assert "ranking" not in body["explain"]
    assert "plan" not in body["explain"]


@pytest.mark.parametrize("mode", ["retrieve", "search"])
async def test_explain_verbose_reports_component_scores(
    client: TestClientProtocol, facts_user: tuple[User, list[dict[str, Any]]], mode: str
) -> None:
    owner, _ = facts_user
    response = await client.post(
        f"/v1/memories/{mode}",
        json={"query": "tennis on Saturday", "explain": "verbose", "session_id": "s"},
        headers=owner.headers,
    )
    assert response.status_code == 200
    body = await response.get_json()
    results, ranking = body["results"], body["explain"]["ranking"]
    assert [row["memory_id"] for row in ranking] == ids(results)
    for row, result in zip(ranking, results, strict=True):
        factors = {"relevance", "feedback", "confidence", "recency", "session", "contradiction"}
        assert {"score", *factors} <= set(row)
        assert row["score"] == pytest.approx(result["retrieval_score"])
        product = row["relevance"] * row["feedback"] * row["confidence"]
        product *= row["recency"] * row["session"] * row["contradiction"]
        product *= row["denial"] * row["time"]
        assert row["score"] == pytest.approx(product)
    top = ranking[0]
    assert top["text_score"] is not None and top["vector_score"] is not None
    assert top["text_rank"] == 1
    assert results[0]["content"] == "Plays tennis with friends every Saturday"
    parts = top["relevance_parts"]
    assert parts["lexical"] == 1.0  # "tennis" and "saturday"; "on" is a stop word
    assert parts["vector"] + parts["text"] == pytest.approx(top["relevance"])
    # Every candidate has its similarity to the query, full-text hits included.
    assert all(-1.0 <= row["similarity"] <= 1.0 for row in ranking)
    assert all(0.0 <= row["relevance_parts"]["lexical"] <= 1.0 for row in ranking)
    assert body["explain"]["recipe"] == "balanced"
    # The meaning part is the cosine on the candidates' scale (0..1) times vector_weight.
    vector_weight = body["explain"]["config"]["fusion"]["vector_weight"]
    assert 0 < top["relevance_parts"]["vector"] <= vector_weight
    assert all(0.0 <= row["relevance_parts"]["vector"] <= vector_weight for row in ranking)
    assert "timings_ms" in body["explain"]
    assert "plan" not in body["explain"]


async def test_a_requested_recipe_is_the_one_in_effect_and_explain_names_it(
    client: TestClientProtocol, facts_user: tuple[User, list[dict[str, Any]]]
) -> None:
    owner, _ = facts_user

    async def ask(**fields: Any) -> dict[str, Any]:
        response = await client.post(
            "/v1/memories/retrieve",
            json={"query": "which sport do they play", "top_k": 6, "explain": True, **fields},
            headers=owner.headers,
        )
        assert response.status_code == 200, await response.get_data(as_text=True)
        body: dict[str, Any] = await response.get_json()
        return body

    default = await ask()
    assert default["explain"]["recipe"] == "balanced"
    assert len(default["results"]) == 6  # top_k filled: no relative floor by default
    precise = await ask(recipe="precise")
    assert precise["explain"]["recipe"] == "precise"
    assert 1 <= len(precise["results"]) < 6
    assert precise["results"][0]["memory_id"] == default["results"][0]["memory_id"]
    flat = await ask(recipe="flat")
    assert flat["explain"]["recipe"] == "flat" and flat["explain"]["graph"] is None
    response = await client.post(
        "/v1/memories/retrieve", json={"query": "x", "recipe": "fastest"}, headers=owner.headers
    )
    assert response.status_code == 422


async def test_explain_analyze_reports_the_plan(
    client: TestClientProtocol, facts_user: tuple[User, list[dict[str, Any]]]
) -> None:
    owner, _ = facts_user
    response = await client.post(
        "/v1/memories/search",
        json={"query": "tennis", "explain": "analyze"},
        headers=owner.headers,
    )
    assert response.status_code == 200
    body = await response.get_json()
    explain = body["explain"]
    assert {"timings_ms", "ranking", "plan"} <= set(explain)
    plan = explain["plan"]
    assert plan["operator"] and plan["total_db_hits"] >= 0
    assert any("Vector" in operator for operator, _ in operators(plan)), operators(plan)
    assert body["results"]


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({"query": ""}, 422),
        ({"query": "   "}, 422),
        ({}, 422),
        ({"query": "x", "top_k": 0}, 422),
        ({"query": "x", "top_k": 101}, 422),
        ({"query": "x", "memory_types": ["gossip"]}, 422),
        ({"query": "x", "explain": "loud"}, 422),
        ({"query": "x", "min_score": -1}, 422),
        ({"query": "x", "branch": "nope"}, 404),
    ],
)
@pytest.mark.parametrize("mode", ["retrieve", "search"])
async def test_invalid_retrieval_requests(
    client: TestClientProtocol, user: User, mode: str, body: dict[str, Any], status: int
) -> None:
    response = await client.post(f"/v1/memories/{mode}", json=body, headers=user.headers)
    await error_detail(response, status)


@pytest.mark.parametrize("mode", ["retrieve", "search"])
async def test_query_syntax_in_retrieval_is_harmless(
    client: TestClientProtocol, facts_user: tuple[User, list[dict[str, Any]]], mode: str
) -> None:
    owner, stored = facts_user
    query = 'tennis* AND (Saturday OR "friends") -cello ~2 ^3 [a TO z] {x} \\ / : ? ! &&||'
    found = await ranked(client, owner.headers, mode, query)
    assert found[0]["memory_id"] == stored[4]["memory_id"]


async def test_user_with_no_memories_gets_an_empty_list(
    client: TestClientProtocol, user: User
) -> None:
    for mode in ("retrieve", "search"):
        assert await ranked(client, user.headers, mode, "anything at all", min_score=0) == []


async def test_retrieves_answer_when_the_vector_index_holds_deleted_memories(
    client: TestClientProtocol, neo4j_driver: AsyncDriver, user: User, other_user: User
) -> None:
    # Deleting a memory's node (a dropped branch, collected garbage) deletes its entry from the
    # vector index. With binary-quantized vectors (Neo4j 2026's default) a filtered search then
    # failed with an internal error wherever an index segment held such a deletion and no hit
    # for the searching user.
    await store_batch(client, user.headers, [{"content": text} for text in FACTS[:6]])
    await store_batch(client, other_user.headers, [{"content": text} for text in FACTS[6:]])
    await cypher(
        neo4j_driver,
        "MATCH (m:Memory {user_id: $user_id}) WITH m LIMIT 1 DETACH DELETE m",
        user_id=other_user.user_id,
    )
    newcomer = await create_user(client)
    for mode in ("retrieve", "search"):
        assert await ranked(client, newcomer.headers, mode, "anything at all", min_score=0) == []
        found = await ranked(client, user.headers, mode, "which sport do they do on weekends")
        assert found[0]["content"] == FACTS[4]
