"""The task worker: each instance claims waiting tasks from Neo4j under a lease and runs them.

- A claim lasts TASK_LEASE_S and is renewed while the task runs (services.tasks.execute); a
  task whose instance died is claimed again by any instance once its claim has run out.
- A task claimed TASK_MAX_ATTEMPTS times without finishing is failed with the reason, so none
  stays `processing` for ever: the bound is about TASK_MAX_ATTEMPTS times TASK_LEASE_S.
- An instance claims only the kinds it can run (summaries need an LLM).
- Finished tasks older than TASK_RETENTION_H are pruned.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import Mapping

from app.errors import Unavailable
from app.registry import Registry
from app.services import summaries, tasks
from app.services.tasks import TaskRun

log = logging.getLogger(__name__)

PRUNE_EVERY_S = 300.0


def runners(registry: Registry) -> dict[str, TaskRun]:
    """The kinds of task this instance can run, and what runs each."""
    return {summaries.KIND: summaries.run} if registry.llm is not None else {}


class TaskWorker:
    """Polls for tasks every TASK_POLL_S and runs them one at a time."""

    def __init__(self, registry: Registry, kinds: Mapping[str, TaskRun] | None = None) -> None:
        self._registry = registry
        self._settings = registry.settings
        self._runners = dict(runners(registry) if kinds is None else kinds)
        self.holder = f"{registry.instance_id}#{uuid.uuid4().hex[:8]}"
        self._loop_task: asyncio.Task[None] | None = None
        self._pruned_at = 0.0
        self._abandoned_checked_at = 0.0

    async def start(self) -> None:
        self._loop_task = asyncio.create_task(self._loop(), name="task-worker")
        log.info("task worker %s started: %s", self.holder, ", ".join(self._runners) or "none")

    async def stop(self) -> None:
        """Stops polling; a task in progress is abandoned to its lease (another instance takes
        it over when the claim runs out)."""
        if self._loop_task is not None:
            self._loop_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._loop_task
            self._loop_task = None

    async def _loop(self) -> None:
        while True:
            try:
                ran = await self.poll_once()
            except Unavailable:
                log.warning("task worker: the database is unavailable")
                ran = False
            if not ran:
                await asyncio.sleep(self._settings.task_poll_s)

    async def poll_once(self) -> bool:
        """Housekeeping, then claims and runs one task; whether it ran one."""
        graph = self._registry.graph
        if time.monotonic() - self._pruned_at > PRUNE_EVERY_S:
            await graph.write("tasks/prune", retention_h=self._settings.task_retention_h)
            self._pruned_at = time.monotonic()
        # A claim runs out only after a lease: looking for abandoned tasks twice a lease is
        # often enough, and spares the database a write every poll.
        if time.monotonic() - self._abandoned_checked_at > self._settings.task_lease_s / 2:
            await graph.write("tasks/fail_abandoned", max_attempts=self._settings.task_max_attempts)
            self._abandoned_checked_at = time.monotonic()
        if not self._runners:
            return False
        rows = await graph.write(
            "tasks/claim",
            kinds=list(self._runners),
            holder=self.holder,
            lease_s=self._settings.task_lease_s,
            max_attempts=self._settings.task_max_attempts,
        )
        if not rows:
            return False
        task = rows[0]["task"]
        # execute() records how it ended; nothing more to do with its error here.
        with contextlib.suppress(Exception):
            await tasks.execute(self._registry, task, self.holder, self._runners[task["kind"]])
        return True
