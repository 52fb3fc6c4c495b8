"""The MCP tools: for each, what an agent reads about it, its arguments (REST's models), its
annotations, the use case it runs in the service, and the REST request it is for stdio."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from pydantic import BaseModel

from app.models.branches import CreateBranch, Pick
from app.models.mcp import (
    BranchArguments,
    CorrectArguments,
    DiffArguments,
    EntityArguments,
    FeedbackArguments,
    GovernanceArguments,
    HistoryArguments,
    ListArguments,
    MergeArguments,
    NoArguments,
    PickArguments,
    ProfileArguments,
    SnapshotArguments,
    SummaryArguments,
    TaskArguments,
)
from app.models.memories import CorrectById, CorrectByQuery, Observe, RetrieveRequest, StoreMemory
from app.models.purge import Purge
from app.models.snapshots import CreateSnapshot
from app.models.summaries import SummaryRequest
from app.registry import Registry
from app.services import capabilities, feedback, memories, observe, profile, purge, summaries, tasks
from app.services.entities import linking
from app.services.governance import consolidate, reflect, sweep
from app.services.retrieval import pipeline
from app.services.scope import Caller
from app.services.versioning import branches, history, pick, snapshots

UseCase = Callable[[Registry, Caller, Any], Awaitable[Any]]
PATH_FIELD = re.compile(r"{(\w+)}")


@dataclass(frozen=True)
class Hints:
    """MCP tool annotations: what calling the tool does to the user's memory."""

    read_only: bool = False
    destructive: bool = False
    idempotent: bool = False


READS = Hints(read_only=True, idempotent=True)
ADDS = Hints()
ADDS_ONCE = Hints(idempotent=True)
CHANGES = Hints(destructive=True)
CHANGES_ONCE = Hints(destructive=True, idempotent=True)


@dataclass(frozen=True)
class RestCall:
    """One request to the REST API: what the stdio server sends for a tool call."""

    method: str
    path: str
    query: dict[str, str] = field(default_factory=dict)
    body: dict[str, Any] | None = None


def rest(method: str, template: str) -> Callable[[BaseModel], RestCall]:
    """The REST request for a tool's arguments: `{field}`s of the path template filled from
    them, the other arguments the agent gave in the JSON body (POST, PUT) or the query."""
    in_path = PATH_FIELD.findall(template)

    def call(arguments: BaseModel) -> RestCall:
        path = template.format(
            **{name: quote(str(getattr(arguments, name)), safe="") for name in in_path}
        )
        given = arguments.model_dump(mode="json", exclude_unset=True, exclude=set(in_path))
        if method in ("POST", "PUT"):
            return RestCall(method, path, body=given)
        query = {
            name: str(value).lower() if isinstance(value, bool) else str(value)
            for name, value in given.items()
            if value is not None
        }
        return RestCall(method, path, query=query)

    return call


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    arguments: type[BaseModel]
    hints: Hints
    run: UseCase  # in the service: the use case REST's handler calls
    rest: Callable[[Any], RestCall]  # over stdio: the REST request that does the same


def _without(arguments: BaseModel, *names: str) -> dict[str, Any]:
    return arguments.model_dump(exclude_unset=True, exclude=set(names))


async def _store(registry: Registry, caller: Caller, arguments: StoreMemory) -> Any:
    memory, _created = await memories.store(registry, caller, arguments)
    return memory


async def _correct(registry: Registry, caller: Caller, arguments: CorrectArguments) -> Any:
    if arguments.memory_id is not None:
        fix = CorrectById(**_without(arguments, "memory_id", "query"))
        return await memories.correct(registry, caller, arguments.memory_id, fix)
    return await memories.correct_by_query(
        registry, caller, CorrectByQuery(**_without(arguments, "memory_id"))
    )


_CORRECT_BY_ID = rest("PUT", "/v1/memories/{memory_id}/correct")
_CORRECT_BY_QUERY = rest("POST", "/v1/memories/correct")


def _correct_call(arguments: CorrectArguments) -> RestCall:
    by_id = arguments.memory_id is not None
    return (_CORRECT_BY_ID if by_id else _CORRECT_BY_QUERY)(arguments)


async def _diff(registry: Registry, caller: Caller, arguments: DiffArguments) -> Any:
    if arguments.snapshot is not None:
        return await snapshots.diff(registry, caller, arguments.snapshot, arguments.limit)
    assert arguments.branch is not None  # DiffArguments wants exactly one
    return await branches.diff(registry, caller, arguments.branch)


_SNAPSHOT_DIFF = rest("GET", "/v1/snapshots/{snapshot}/diff")
_BRANCH_DIFF = rest("GET", "/v1/branches/{branch}/diff")


def _diff_call(arguments: DiffArguments) -> RestCall:
    return (_SNAPSHOT_DIFF if arguments.snapshot is not None else _BRANCH_DIFF)(arguments)


async def _govern(registry: Registry, caller: Caller, arguments: GovernanceArguments) -> Any:
    if arguments.op == "governance":
        return await sweep.govern(registry, caller, force=arguments.force)
    if arguments.op == "consolidate":
        return await consolidate.consolidate(registry, caller, force=arguments.force)
    return await reflect.reflect(registry, caller, arguments)


TOOLS: tuple[Tool, ...] = (
    Tool(
        "memory_store",
        "Store one memory for the user: a fact, preference, procedure or tool result, "
        "optionally tied to a session. Storing the same content again returns the memory "
        "already stored.",
        StoreMemory,
        ADDS_ONCE,
        _store,
        rest("POST", "/v1/memories"),
    ),
    Tool(
        "memory_retrieve",
        "Find the memories relevant to a question, ranked (vector, full-text and the entity "
        "graph), preferring the given session's memories. Use this before answering from memory. "
        "`as_of` (an ISO 8601 time or a snapshot name) answers from the memory as it stood then.",
        RetrieveRequest,
        READS,
        lambda registry, caller, a: pipeline.hybrid(registry, caller, a, mode="retrieve"),
        rest("POST", "/v1/memories/retrieve"),
    ),
    Tool(
        "memory_search",
        "Like memory_retrieve, without preferring any session: search all of the user's "
        "memories by meaning, keywords and the entity graph (`as_of` as memory_retrieve).",
        RetrieveRequest,
        READS,
        lambda registry, caller, a: pipeline.hybrid(registry, caller, a, mode="search"),
        rest("POST", "/v1/memories/search"),
    ),
    Tool(
        "memory_list",
        "Page through the user's active memories, newest first, optionally of one type; "
        "`as_of` (an ISO 8601 time or a snapshot name) lists them as they stood then.",
        ListArguments,
        READS,
        memories.list_page,
        rest("GET", "/v1/memories"),
    ),
    Tool(
        "memory_feedback",
        "Say how a retrieved memory served you (useful, irrelevant, outdated, wrong); feedback "
        "tunes ranking. When the content itself needs fixing, use memory_correct instead of "
        "`wrong`; when the memory should go, use memory_purge instead of `outdated`.",
        FeedbackArguments,
        ADDS,
        lambda registry, caller, a: feedback.record(registry, caller, a.memory_id, a),
        rest("POST", "/v1/memories/{memory_id}/feedback"),
    ),
    Tool(
        "memory_correct",
        "Fix a memory's content: by memory_id, or by query (the best semantic match is "
        "corrected). The old version is kept in history. Prefer this to `wrong` feedback.",
        CorrectArguments,
        CHANGES,
        _correct,
        _correct_call,
    ),
    Tool(
        "memory_purge",
        "Delete memories by ids, types, session, topic or age (all given selectors must match); "
        "a safety snapshot is taken first, so memory_rollback undoes it. Prefer this to "
        "`outdated` feedback when a memory should go.",
        Purge,
        CHANGES_ONCE,
        purge.purge,
        rest("POST", "/v1/memories/purge"),
    ),
    Tool(
        "memory_profile",
        "The user's profile (of one subject, if named): their profile memories and what "
        "kinds of memories they have.",
        ProfileArguments,
        READS,
        profile.profile,
        rest("GET", "/v1/profiles/me"),
    ),
    Tool(
        "memory_observe",
        "Hand over conversation messages; the facts worth keeping become memories (with an "
        "LLM distilled; without one the messages are stored as they are).",
        Observe,
        ADDS,
        observe.observe,
        rest("POST", "/v1/observe"),
    ),
    Tool(
        "memory_snapshot",
        "Save the current state of the user's memory under a name, to diff or roll back to.",
        CreateSnapshot,
        ADDS,
        lambda registry, caller, a: snapshots.create(
            registry, caller, a.name, a.description, a.branch
        ),
        rest("POST", "/v1/snapshots"),
    ),
    Tool(
        "memory_snapshots",
        "List the user's snapshots, including the safety snapshots purges and governance took.",
        NoArguments,
        READS,
        lambda registry, caller, _a: snapshots.list_all(registry, caller),
        rest("GET", "/v1/snapshots"),
    ),
    Tool(
        "memory_rollback",
        "Restore the user's memory exactly as a snapshot saw it (a safety snapshot is taken "
        "first).",
        SnapshotArguments,
        CHANGES_ONCE,
        lambda registry, caller, a: snapshots.rollback(registry, caller, a.name),
        rest("POST", "/v1/snapshots/{name}/rollback"),
    ),
    Tool(
        "memory_branch",
        "Create a branch: a copy of main (or of a snapshot, or of main as it was at "
        "from_timestamp) to change in isolation and merge back later; memory_checkout "
        "switches to it.",
        CreateBranch,
        ADDS,
        branches.create,
        rest("POST", "/v1/branches"),
    ),
    Tool(
        "memory_branches",
        "List the user's branches and which one is checked out.",
        NoArguments,
        READS,
        lambda registry, caller, _a: branches.list_all(registry, caller),
        rest("GET", "/v1/branches"),
    ),
    Tool(
        "memory_checkout",
        "Switch the branch that later calls read and write (`main` to go back).",
        BranchArguments,
        ADDS_ONCE,
        lambda registry, caller, a: branches.checkout(registry, caller, a.name),
        rest("POST", "/v1/branches/{name}/checkout"),
    ),
    Tool(
        "memory_diff",
        "What changed: since a snapshot (give `snapshot`), or on a branch against main "
        "(give `branch`).",
        DiffArguments,
        READS,
        _diff,
        _diff_call,
    ),
    Tool(
        "memory_merge",
        "Merge a branch into main: `append` brings over what main lacks, `replace` also "
        "applies the branch's changes and deletions. Merging twice changes nothing more.",
        MergeArguments,
        CHANGES_ONCE,
        lambda registry, caller, a: branches.merge(registry, caller, a.branch, a.strategy),
        rest("POST", "/v1/branches/{branch}/merge"),
    ),
    Tool(
        "memory_pick",
        "Promote chosen changes of a branch into main (or `target`): by memory_ids, by a range "
        "of the branch's snapshots, or by a query; `strategy` says what to do when main changed "
        "the same memory meanwhile (fail, skip, accept); `dry_run` shows what would change.",
        PickArguments,
        CHANGES,
        lambda registry, caller, a: pick.pick(
            registry, caller, a.branch, Pick(**_without(a, "branch"))
        ),
        rest("POST", "/v1/branches/{branch}/pick"),
    ),
    Tool(
        "memory_history",
        "Every version of a memory and of its correction chain, oldest first: what changed, "
        "why (store, correct, feedback, delete, rollback, merge...) and which snapshots hold it; "
        "with `as_of` (a time or a snapshot name), the history as it stood then.",
        HistoryArguments,
        READS,
        lambda registry, caller, a: history.history(
            registry, caller, a.memory_id, a.branch, a.as_of
        ),
        rest("GET", "/v1/memories/{memory_id}/history"),
    ),
    Tool(
        "memory_entities",
        "The people, teams, services, libraries and other entities the user's memories "
        "mention, with how many memories mention each; filter by type or name prefix.",
        EntityArguments,
        READS,
        linking.list_page,
        rest("GET", "/v1/entities"),
    ),
    Tool(
        "memory_governance",
        "Maintain the user's memory. op `governance`: quarantine low-confidence memories and "
        "clean up stale ones; `consolidate`: detect contradictions and fix orphans; `reflect`: "
        "synthesize insights across sessions (mode `candidates` returns the clusters for you to "
        "synthesize when the server has no LLM). Each runs once per cooldown unless `force`.",
        GovernanceArguments,
        CHANGES,
        _govern,
        rest("POST", "/v1/{op}"),
    ),
    Tool(
        "memory_summary",
        "Summarize a session into an episodic memory (`full` or `lightweight`). With "
        "`sync: false` it answers a task_id at once; poll it with memory_task. Needs an LLM.",
        SummaryArguments,
        ADDS,
        lambda registry, caller, a: summaries.request(
            registry, caller, a.session_id, SummaryRequest(**_without(a, "session_id"))
        ),
        rest("POST", "/v1/sessions/{session_id}/summary"),
    ),
    Tool(
        "memory_task",
        "The state of a background task (a session summary): processing, completed with its "
        "result, or failed with the error.",
        TaskArguments,
        READS,
        lambda registry, caller, a: tasks.get(registry, caller, a.task_id),
        rest("GET", "/v1/tasks/{task_id}"),
    ),
    Tool(
        "memory_capabilities",
        "What this server supports: its version, embedding model, languages, whether an LLM "
        "is configured and how each LLM feature runs without one.",
        NoArguments,
        READS,
        lambda registry, _caller, _a: capabilities.capabilities(registry),
        rest("GET", "/v1/capabilities"),
    ),
)
BY_NAME = {tool.name: tool for tool in TOOLS}
