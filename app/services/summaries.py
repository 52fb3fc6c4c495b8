"""Session summaries: an LLM's `full` (topic, action, outcome) or `lightweight` (3 to 5 bullets)
summary of a session's memories, stored as an episodic memory of that session linked
DERIVED_FROM them; made at once (sync) or by the task worker.

Every summary is a task: a synchronous request claims its own task and runs it in the request,
so that the limit of lightweight summaries per session counts requests in flight the same way
whichever way they run, and an instance that dies mid-way leaves the task to another. A sync
request whose client goes away ends its task at once (failed, so never run again), which gives
its place under the limit back.

The limit counts the lightweight summaries requests produced (a summary identical to one already
stored included: each cost an LLM call), besides those in progress; a request over the limit
never reaches the LLM.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import uuid
from typing import Any

from pydantic import TypeAdapter, ValidationError

from app.errors import Conflict, DomainError, Invalid, NotFound, no_llm
from app.graph import Row
from app.llm import Read
from app.models.common import Name
from app.models.memories import NewMemory
from app.models.summaries import Summary, SummaryMode, SummaryRequest
from app.models.tasks import TaskAccepted
from app.prompts import summaries as prompt
from app.registry import Registry
from app.services import memories, tasks
from app.services.scope import Caller, Scope, scope_for
from app.services.versioning.versions import Why

KIND = "summary"
MAX_LIGHTWEIGHT = 3
SUMMARY_TIER = "T3"  # what an LLM reads from the memories, like observe's facts
SOURCES_LIMIT = 200
SESSION_ID = TypeAdapter(Name)
CLIENT_CLOSED = "cancelled: the client closed the request before the summary was made"


def _session(session_id: str) -> str:
    try:
        return SESSION_ID.validate_python(session_id)
    except ValidationError as error:
        raise Invalid("session_id must be 1 to 128 characters") from error


async def request(
    registry: Registry, caller: Caller, session_id: str, summary: SummaryRequest
) -> Summary | TaskAccepted:
    """POST /v1/sessions/{session_id}/summary: the summary (sync) or its task (202)."""
    if registry.llm is None:
        raise no_llm("session summaries")
    session_id = _session(session_id)
    scope = await scope_for(registry, caller, None)
    task_id = uuid.uuid4().hex
    holder = f"{registry.instance_id}#sync-{task_id[:8]}" if summary.sync else None
    rows = await registry.graph.write(
        "summaries/reserve",
        **scope.params(),
        session_id=session_id,
        mode=summary.mode,
        max_lightweight=MAX_LIGHTWEIGHT,
        task_id=task_id,
        params=json.dumps({"generate_embedding": summary.generate_embedding}),
        holder=holder,
        lease_s=registry.settings.task_lease_s,
    )
    if not rows or not rows[0]["sources"]:
        raise NotFound(f"session {session_id} not found or without memories")
    if not rows[0]["accepted"]:
        raise Conflict(
            f"session {session_id} has {MAX_LIGHTWEIGHT} lightweight summaries already "
            "(stored or in progress)"
        )
    if holder is None:
        return TaskAccepted(task_id=task_id)
    [found] = await registry.graph.read("tasks/get", user_id=caller.user_id, task_id=task_id)
    try:
        result = await tasks.execute(registry, found["task"], holder, run)
    except asyncio.CancelledError:
        # The client went away: the task ends now, whatever cancels this request next (with
        # the database down, its lease runs out instead).
        with contextlib.suppress(DomainError):
            await asyncio.shield(tasks.give_up(registry, found["task"], holder, CLIENT_CLOSED))
        raise
    return Summary.model_validate(result)


async def _summarise(
    registry: Registry, mode: SummaryMode, sources: list[Row]
) -> Read[prompt.FullSummary] | Read[prompt.LightweightSummary]:
    if registry.llm is None:
        raise no_llm("session summaries")
    fields = ("memory_id", "memory_type", "content")
    given = json.dumps(
        [{key: source[key] for key in fields} for source in sources], ensure_ascii=False
    )
    if mode == "full":
        return await registry.llm.answer("summary_full", prompt.FULL, given, prompt.FullSummary)
    return await registry.llm.answer(
        "summary_lightweight", prompt.LIGHTWEIGHT, given, prompt.LightweightSummary
    )


async def run(registry: Registry, task: Row) -> dict[str, Any]:
    """Makes the summary a task asks for (the task worker's entry, and a sync request's)."""
    caller = Caller(user_id=task["user_id"], active_branch=task["branch"])
    scope: Scope = await scope_for(registry, caller, None)
    sources = await registry.graph.read(
        "summaries/session_memories",
        **scope.params(),
        session_id=task["session_id"],
        limit=SOURCES_LIMIT,
    )
    if not sources:
        raise NotFound(f"session {task['session_id']} has no memories any more")
    mode: SummaryMode = task["mode"]
    read = await _summarise(registry, mode, sources)
    item = NewMemory(
        content=read.answer.text(),
        memory_type="episodic",
        session_id=task["session_id"],
        extra_metadata={"summary": mode},
    )
    params = json.loads(task["params"])
    memory, _ = await memories.store_derived(
        registry,
        scope,
        item,
        [source["memory_id"] for source in sources],
        SUMMARY_TIER,
        Why("summary", mode),
        embed=params["generate_embedding"],
        # Two sessions summarised in the same words are two episodes: each gets its summary.
        per_session=True,
        # Its labels (Topic, Action, Outcome) are no entities of the session.
        entity_texts=read.answer.sentences(),
    )
    if mode == "lightweight":
        await registry.graph.write("summaries/count_lightweight", task_id=task["task_id"])
    summary = Summary(**memory.model_dump(), dropped=read.dropped)
    result: dict[str, Any] = summary.model_dump(mode="json")
    return result
