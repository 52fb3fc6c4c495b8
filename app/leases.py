"""Named leases in Neo4j: one holder at a time across every service instance."""

from __future__ import annotations

from app.graph import Graph


async def acquire(graph: Graph, name: str, holder: str, ttl_s: float) -> bool:
    """Takes or renews the lease; False while another live holder has it."""
    rows = await graph.write("leases/acquire", name=name, holder=holder, ttl_ms=int(ttl_s * 1000))
    return bool(rows[0]["acquired"])


async def release(graph: Graph, name: str, holder: str) -> None:
    await graph.write("leases/release", name=name, holder=holder)
