"""Every LLM feature (observe, reflect, extract-entities, summaries full and lightweight, sync and
as tasks) against the stand-in answering as real models and servers do: correct; fenced in
```json with prose around; garbage; HTTP 500; hanging; items missing a required field; partly
usable; a server refusing structured outputs.

A failure is a 503 with Retry-After (a failed task) saying what happened, and it changes and
spends nothing: nothing stored, the cooldown given back, the memories left unprocessed, the
lightweight quota untouched. A partly usable answer keeps the usable items and says how many
it dropped."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
import pytest_asyncio
from neo4j import AsyncDriver
from quart import Quart
from quart.testing.app import TestApp
from quart.typing import TestClientProtocol

from app import create_app
from app.embedding import Embedder
from app.errors import LLM_RETRY_AFTER_S
from tests.conftest import STARTUP_TIMEOUT_S, User, create_user, make_settings
from tests.support.entities import candidates, entity_counts, mentions
from tests.support.fake_llm import GARBAGE, FakeLlm
from tests.support.governance import reflect_candidates
from tests.support.http import error_detail
from tests.support.memories import contents, list_all, store
from tests.support.summaries import BULLETS, FULL, finished, session, summarize

# Long enough that no other test races it on a busy machine (an error retried after its 0.5 s
# pause, a slow answer), short enough that the hanging LLM costs little.
TIMEOUT_S = 5.0
DEADLINE = f"the LLM did not answer within the {TIMEOUT_S:g} s deadline (LLM_TIMEOUT_S; "
NONE_USABLE = "none of the 2 items of the LLM's answer was usable"
Ids = dict[str, str]


@pytest_asyncio.fixture(loop_scope="session", scope="module")
async def deadline_app(fake_llm: FakeLlm, embedder: Embedder) -> AsyncIterator[Quart]:
    """An app whose LLM request has a TIMEOUT_S deadline with one retry in it, and whose worker
    looks for tasks often."""
    settings = make_settings(
        llm_api_key="test",
        llm_base_url=fake_llm.base_url,
        llm_timeout_s=TIMEOUT_S,
        llm_max_retries=1,
        task_worker_enabled=True,
        task_poll_s=0.2,
        instance_id="llm-answers",
    )
    service = create_app(settings, embedder=embedder)
    async with TestApp(service, startup_timeout=STARTUP_TIMEOUT_S):
        yield service


@dataclass
class Outcome:
    """How a feature's request ended: its answer (a task's result), or the failure's detail and
    Retry-After (a task has none)."""

    answer: dict[str, Any] | None
    detail: str | None = None
    retry_after: str | None = None


async def _outcome(response: Any, status: int) -> Outcome:
    if response.status_code == status:
        return Outcome(await response.get_json())
    detail = await error_detail(response, 503)
    return Outcome(None, detail, response.headers.get("Retry-After"))


class Feature:
    """One LLM feature as a test drives it: what it is given, how it is asked, what it keeps."""

    id: str
    sync = True
    has_items = True  # an answer of items, some of which may be usable
    missing_detail = NONE_USABLE

    async def seed(self, client: TestClientProtocol, user: User) -> Ids:
        return {}

    async def call(self, client: TestClientProtocol, user: User) -> Outcome:
        raise NotImplementedError

    def correct(self, ids: Ids) -> dict[str, Any]:
        raise NotImplementedError

    def missing(self, ids: Ids) -> dict[str, Any]:
        """An answer whose every item misses a required field."""
        raise NotImplementedError

    def partly(self, ids: Ids) -> dict[str, Any]:
        """An answer with one usable item and one missing a required field."""
        raise NotImplementedError

    async def kept(self, client: TestClientProtocol, user: User, ids: Ids) -> list[str]:
        """What the feature stored (or processed), sorted."""
        raise NotImplementedError

    def expected(self, answer: dict[str, Any]) -> list[str]:
        """What it keeps of a usable answer."""
        raise NotImplementedError

    async def nothing_spent(self, client: TestClientProtocol, user: User, llm: FakeLlm) -> None:
        """After a failure: what it would have spent is still there (beyond keeping nothing)."""


FACTS = [
    {"content": "Lives in Porto", "memory_type": "profile"},
    {"content": "Deploys with make release on Fridays", "memory_type": "procedural"},
]
CONVERSATION = [
    {"role": "user", "content": "I moved to Porto last month."},
    {"role": "user", "content": "I deploy with make release on Fridays."},
]


class Observe(Feature):
    id = "observe"

    async def call(self, client: TestClientProtocol, user: User) -> Outcome:
        body = {"messages": CONVERSATION, "session_id": "talk"}
        return await _outcome(
            await client.post("/v1/observe", json=body, headers=user.headers), 201
        )

    def correct(self, ids: Ids) -> dict[str, Any]:
        return {"facts": FACTS}

    def missing(self, ids: Ids) -> dict[str, Any]:
        return {"facts": [{"memory_type": fact["memory_type"]} for fact in FACTS]}

    def partly(self, ids: Ids) -> dict[str, Any]:
        return {"facts": [FACTS[0], {"memory_type": "procedural"}]}

    async def kept(self, client: TestClientProtocol, user: User, ids: Ids) -> list[str]:
        return sorted(contents(await list_all(client, user.headers)))

    def expected(self, answer: dict[str, Any]) -> list[str]:
        return sorted(str(fact["content"]) for fact in answer["facts"] if "content" in fact)


DEPLOYS = [
    ("s1", "The invoice-api deploy failed because the Redis cluster was full."),
    ("s2", "Another invoice-api deploy failed: the Redis cluster ran out of memory."),
    ("s3", "invoice-api deploys pass once the Redis cluster is flushed first."),
]
INSIGHT = "invoice-api deploys fail whenever the Redis cluster is full; flush it first."


class Reflect(Feature):
    id = "reflect"

    async def seed(self, client: TestClientProtocol, user: User) -> Ids:
        for session_id, content in DEPLOYS:
            await store(client, user.headers, content, session_id=session_id)
        return {}

    async def call(self, client: TestClientProtocol, user: User) -> Outcome:
        # Not forced: a failed run must leave the cooldown as it was.
        return await _outcome(await client.post("/v1/reflect", headers=user.headers), 200)

    def correct(self, ids: Ids) -> dict[str, Any]:
        return {"insights": [{"cluster": 0, "content": INSIGHT}]}

    def missing(self, ids: Ids) -> dict[str, Any]:
        return {"insights": [{"content": INSIGHT}, {"content": "Redis needs watching."}]}

    def partly(self, ids: Ids) -> dict[str, Any]:
        return {"insights": [{"cluster": 0, "content": INSIGHT}, {"content": "No cluster."}]}

    async def kept(self, client: TestClientProtocol, user: User, ids: Ids) -> list[str]:
        stored = await list_all(client, user.headers)
        return sorted(memory["content"] for memory in stored if memory["trust_tier"] == "T4")

    def expected(self, answer: dict[str, Any]) -> list[str]:
        return [INSIGHT]

    async def nothing_spent(self, client: TestClientProtocol, user: User, llm: FakeLlm) -> None:
        """The cluster is still offered, and the cooldown was given back: the next run,
        unforced, runs."""
        [cluster] = await reflect_candidates(client, user.headers)
        assert sorted(member["content"] for member in cluster["members"]) == sorted(
            content for _, content in DEPLOYS
        )
        llm.clear()
        llm.reply = self.correct({})
        outcome = await self.call(client, user)
        assert outcome.answer is not None, outcome.detail
        assert outcome.answer["skipped"] is False
        assert await self.kept(client, user, {}) == [INSIGHT]


LEDGER = "Ledger feeds the payroll run."
OLGA = "Olga owns the payroll run."


class Extract(Feature):
    id = "extract-entities"

    async def seed(self, client: TestClientProtocol, user: User) -> Ids:
        return {
            text: (await store(client, user.headers, text))["memory_id"] for text in (LEDGER, OLGA)
        }

    async def call(self, client: TestClientProtocol, user: User) -> Outcome:
        response = await client.post("/v1/extract-entities", json={}, headers=user.headers)
        return await _outcome(response, 200)

    def _item(self, ids: Ids, text: str) -> dict[str, Any]:
        name = "Ledger" if text == LEDGER else "Olga"
        return {"memory_id": ids[text], "entities": [{"name": name, "type": "service"}]}

    def correct(self, ids: Ids) -> dict[str, Any]:
        return {"memories": [self._item(ids, LEDGER), self._item(ids, OLGA)]}

    def _nameless(self, ids: Ids, text: str) -> dict[str, Any]:
        """An item whose every entity misses its name: nothing usable about that memory."""
        return {"memory_id": ids[text], "entities": [{"type": "person"}, {"type": "service"}]}

    def missing(self, ids: Ids) -> dict[str, Any]:
        """One item misses its memory id, the other the name of every entity."""
        return {"memories": [{"entities": [{"name": "Ledger"}]}, self._nameless(ids, OLGA)]}

    def partly(self, ids: Ids) -> dict[str, Any]:
        return {"memories": [self._item(ids, LEDGER), self._nameless(ids, OLGA)]}

    async def kept(self, client: TestClientProtocol, user: User, ids: Ids) -> list[str]:
        """The memories processed: those no longer offered as candidates."""
        waiting = {item["content"] for item in await candidates(client, user.headers)}
        return sorted(set(ids) - waiting)

    def expected(self, answer: dict[str, Any]) -> list[str]:
        named = {"Ledger": LEDGER, "Olga": OLGA}
        return sorted(
            named[entity["name"]]
            for item in answer["memories"]
            if "memory_id" in item
            for entity in item["entities"][:1]
            if "name" in entity
        )

    async def nothing_spent(self, client: TestClientProtocol, user: User, llm: FakeLlm) -> None:
        """Every memory is still offered, and the next extraction processes them all."""
        llm.clear()
        waiting = await candidates(client, user.headers)
        ids = {item["content"]: item["memory_id"] for item in waiting}
        llm.reply = self.correct(ids)
        outcome = await self.call(client, user)
        assert outcome.answer is not None, outcome.detail
        assert (outcome.answer["processed"], outcome.answer["dropped"]) == (2, 0)


class Summary(Feature):
    def __init__(self, mode: str, sync: bool) -> None:
        self.mode, self.sync = mode, sync
        self.has_items = mode == "lightweight"  # a full summary is all three sentences or none
        self.id = f"summary-{mode}-{'sync' if sync else 'task'}"
        expected = "topic, action and outcome" if mode == "full" else "3 to 5 bullets"
        self.missing_detail = f"the LLM did not answer with {expected}"

    async def seed(self, client: TestClientProtocol, user: User) -> Ids:
        await session(client, user)
        return {}

    async def call(self, client: TestClientProtocol, user: User) -> Outcome:
        response = await summarize(client, user, mode=self.mode, sync=self.sync)
        if self.sync:
            return await _outcome(response, 200)
        assert response.status_code == 202, await response.get_data(as_text=True)
        task = await finished(client, user, (await response.get_json())["task_id"])
        if task["status"] == "completed":
            return Outcome(task["result"])
        assert task["status"] == "failed" and task["result"] is None, task
        return Outcome(None, task["error"])

    def correct(self, ids: Ids) -> dict[str, Any]:
        return FULL if self.mode == "full" else BULLETS

    def missing(self, ids: Ids) -> dict[str, Any]:
        if self.mode == "full":
            return {"topic": FULL["topic"], "action": FULL["action"]}
        return {"bullets": [{"importance": n} for n in range(3)]}

    def partly(self, ids: Ids) -> dict[str, Any]:
        return {"bullets": [*BULLETS["bullets"], {"importance": 1}]}

    async def kept(self, client: TestClientProtocol, user: User, ids: Ids) -> list[str]:
        stored = await list_all(client, user.headers, session_id="deploy")
        return [memory["content"] for memory in stored if memory["memory_type"] == "episodic"]

    def expected(self, answer: dict[str, Any]) -> list[str]:
        if self.mode == "full":
            return [f"Topic: {FULL['topic']}\nAction: {FULL['action']}\nOutcome: {FULL['outcome']}"]
        return ["\n".join(f"- {bullet}" for bullet in answer["bullets"] if isinstance(bullet, str))]


FEATURES: list[Feature] = [
    Observe(),
    Reflect(),
    Extract(),
    *(Summary(mode, sync) for mode in ("full", "lightweight") for sync in (True, False)),
]
WITH_ITEMS = [feature for feature in FEATURES if feature.has_items]


@pytest.fixture(params=FEATURES, ids=lambda feature: feature.id)
def feature(request: pytest.FixtureRequest) -> Feature:
    chosen: Feature = request.param
    return chosen


async def _seeded(app: Quart, feature: Feature) -> tuple[TestClientProtocol, User, Ids]:
    client = app.test_client()
    user = await create_user(client, "llm-ways")
    return client, user, await feature.seed(client, user)


async def _used(
    feature: Feature, client: TestClientProtocol, user: User, ids: Ids, reply: dict[str, Any]
) -> dict[str, Any]:
    """Asks, and checks that the answer was used whole."""
    outcome = await feature.call(client, user)
    assert outcome.answer is not None, outcome.detail
    assert outcome.answer["dropped"] == 0
    assert await feature.kept(client, user, ids) == feature.expected(reply)
    return outcome.answer


async def _failed(
    feature: Feature, client: TestClientProtocol, user: User, ids: Ids, llm: FakeLlm
) -> Outcome:
    """Asks, and checks that the request failed, with Retry-After, having kept nothing."""
    outcome = await feature.call(client, user)
    assert outcome.answer is None
    assert outcome.detail is not None and "LLM" in outcome.detail
    assert outcome.retry_after == (str(LLM_RETRY_AFTER_S) if feature.sync else None)
    assert await feature.kept(client, user, ids) == []
    return outcome


async def test_a_correct_answer_is_used_whole(
    deadline_app: Quart, llm: FakeLlm, feature: Feature
) -> None:
    client, user, ids = await _seeded(deadline_app, feature)
    llm.reply = feature.correct(ids)
    await _used(feature, client, user, ids, llm.reply)
    assert len(llm.requests) == 1


async def test_a_fenced_answer_with_prose_around_is_used_like_a_correct_one(
    deadline_app: Quart, llm: FakeLlm, feature: Feature
) -> None:
    client, user, ids = await _seeded(deadline_app, feature)
    llm.reply, llm.fenced = feature.correct(ids), True
    await _used(feature, client, user, ids, llm.reply)


async def test_a_server_refusing_structured_outputs_is_asked_for_a_json_object(
    deadline_app: Quart, llm: FakeLlm, feature: Feature
) -> None:
    client, user, ids = await _seeded(deadline_app, feature)
    llm.reply, llm.refused = feature.correct(ids), {"json_schema"}
    await _used(feature, client, user, ids, llm.reply)
    # Refused once per prompt at most (the client remembers), then asked for a JSON object.
    assert llm.formats()[-1] == "json_object"
    assert llm.formats().count("json_schema") <= 1


async def test_garbage_is_a_failure_that_keeps_and_spends_nothing(
    deadline_app: Quart, llm: FakeLlm, feature: Feature
) -> None:
    client, user, ids = await _seeded(deadline_app, feature)
    llm.reply = GARBAGE
    outcome = await _failed(feature, client, user, ids, llm)
    assert outcome.detail == "the LLM did not answer with a JSON object"
    assert len(llm.requests) == 1  # an unusable answer is not asked again
    await feature.nothing_spent(client, user, llm)


async def test_an_llm_error_is_retried_once_then_a_failure_saying_so(
    deadline_app: Quart, llm: FakeLlm, feature: Feature
) -> None:
    client, user, ids = await _seeded(deadline_app, feature)
    llm.status = 500
    outcome = await _failed(feature, client, user, ids, llm)
    assert outcome.detail == "the LLM did not answer (2 attempts: HTTP 500, HTTP 500)"
    assert len(llm.requests) == 2
    await feature.nothing_spent(client, user, llm)


async def test_a_hanging_llm_is_a_failure_at_the_deadline_which_it_names(
    deadline_app: Quart, llm: FakeLlm, feature: Feature
) -> None:
    client, user, ids = await _seeded(deadline_app, feature)
    llm.reply = feature.correct(ids)
    llm.hold()
    outcome = await _failed(feature, client, user, ids, llm)
    assert outcome.detail == DEADLINE + "1 attempt: no answer yet)"
    await feature.nothing_spent(client, user, llm)


async def test_items_missing_a_required_field_are_a_failure_that_spends_nothing(
    deadline_app: Quart, llm: FakeLlm, feature: Feature
) -> None:
    client, user, ids = await _seeded(deadline_app, feature)
    llm.reply = feature.missing(ids)
    outcome = await _failed(feature, client, user, ids, llm)
    assert outcome.detail == feature.missing_detail
    await feature.nothing_spent(client, user, llm)


@pytest.mark.parametrize("partial", WITH_ITEMS, ids=lambda feature: feature.id)
async def test_a_partly_usable_answer_keeps_the_usable_items_and_counts_the_dropped(
    deadline_app: Quart, llm: FakeLlm, partial: Feature
) -> None:
    client, user, ids = await _seeded(deadline_app, partial)
    llm.reply = partial.partly(ids)
    outcome = await partial.call(client, user)
    assert outcome.answer is not None, outcome.detail
    assert outcome.answer["dropped"] == 1
    assert await partial.kept(client, user, ids) == partial.expected(llm.reply)


@pytest.mark.parametrize("sync", [True, False], ids=["sync", "task"])
async def test_the_lightweight_limit_counts_the_summaries_made_identical_ones_included(
    deadline_app: Quart, llm: FakeLlm, sync: bool
) -> None:
    """A failed request does not count; three that made a summary do, even when the LLM words
    it the same way each time (one memory); the fourth is 409 and never reaches the LLM."""
    client = deadline_app.test_client()
    user = await create_user(client, "llm-quota")
    await session(client, user)
    summary = Summary("lightweight", sync)
    llm.reply = GARBAGE
    assert (await summary.call(client, user)).answer is None

    llm.reply = BULLETS
    made = [await summary.call(client, user) for _ in range(3)]
    assert all(outcome.answer is not None for outcome in made), made
    assert len({outcome.answer["memory_id"] for outcome in made if outcome.answer}) == 1
    asked = len(llm.requests)

    detail = await error_detail(await summarize(client, user, mode="lightweight", sync=sync), 409)
    assert "3 lightweight summaries" in detail
    assert len(llm.requests) == asked


async def test_a_full_summarys_labels_never_become_entities(
    deadline_app: Quart, llm: FakeLlm, neo4j_driver: AsyncDriver
) -> None:
    client = deadline_app.test_client()
    user = await create_user(client, "llm-labels")
    await session(client, user)
    llm.reply = FULL
    response = await summarize(client, user, mode="full", sync=True)
    assert response.status_code == 200, await response.get_data(as_text=True)
    summary = await response.get_json()
    assert summary["content"].startswith("Topic: ")

    linked = await mentions(neo4j_driver, user.user_id, summary["memory_id"])
    assert {"invoice api", "database url"} <= set(linked)
    assert not {"topic", "action", "outcome"} & set(linked)
    assert not {"topic", "action", "outcome"} & set(await entity_counts(client, user.headers))
