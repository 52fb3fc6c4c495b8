"""Purge: soft-delete every memory a set of selectors matches, after a safety snapshot."""

from __future__ import annotations

from app.graph import Tx
from app.models.purge import Purge, Purged
from app.registry import Registry
from app.services.memories import deletion
from app.services.retrieval.query_text import content_words, coverage, lucene_query
from app.services.scope import Caller, Scope, scope_for
from app.services.versioning import snapshots, versions
from app.services.versioning.versions import Why


async def _topic_ids(tx: Tx, scope: Scope, topic: str) -> list[str]:
    """The memories holding every word of the topic (as full-text search reads words: Chinese
    in pairs), read in the purge's change, so that a memory stored or corrected just before
    is seen. Any one word, as a search ranks, would purge "支付服务" with every memory that
    says 服务, and "invoice-api" with everything about an API."""
    lucene = lucene_query(topic, scope.user_id, scope.branch, scope.view_seq)
    if not lucene:
        return []
    wanted = content_words(topic)
    rows = await tx.run("memories/topic_ids", lucene=lucene, **scope.params())
    return [row["memory_id"] for row in rows if coverage(wanted, row["content"]) == 1.0]


async def purge(registry: Registry, caller: Caller, request: Purge) -> Purged:
    """Soft-deletes every memory matching all the given selectors; none given purges nothing."""
    selectors = (
        request.memory_ids,
        request.memory_types,
        request.before,
        request.session_id,
        request.topic,
    )
    if all(selector is None for selector in selectors):
        return Purged(purged=0)
    scope = await scope_for(registry, caller, request.branch)

    async def work(tx: Tx) -> Purged:
        seq = await versions.open_change(
            tx, scope.user_id, scope.branch, Why("purge", request.reason)
        )
        topic = request.topic
        topic_ids = None if topic is None else await _topic_ids(tx, scope, topic)
        matched = await tx.run(
            "memories/select_for_purge",
            **scope.params(),
            memory_ids=request.memory_ids,
            memory_types=request.memory_types,
            before=request.before,
            session_id=request.session_id,
            topic_ids=topic_ids,
        )
        name = await snapshots.take_safety(
            tx,
            scope.user_id,
            scope.branch,
            seq,
            "pre_purge",
            request.reason,
            registry.settings.safety_snapshots_kept,
        )
        removal = deletion(request.reason)
        await versions.revise(
            tx, seq, scope.user_id, scope.branch, [(row["memory_id"], removal) for row in matched]
        )
        return Purged(purged=len(matched), snapshot_name=name)

    return await registry.graph.transaction(work)
