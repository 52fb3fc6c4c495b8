"""Console speed: how long each page of the memory console takes with 10,000 memories.

One user gets 10,000 real texts stored through the service (POST /v1/memories/batch, 100 a
call; a mix of types, sessions, subjects and metadata, 50 of them weak T4 notes), then what the
pages show: a snapshot followed by 10 corrections and 10 deletions, a branch with 20 memories
of its own, feedback, a governance run (which quarantines the weak notes) and a consolidate run.
The service runs as its own process (`memory-service serve`); a client signs in to /console as
a browser would (the form's token, then the session cookie) and times each page over distinct
requests (other memories, other queries, other entities where the page takes one), after a few
to warm up. An operator's session times the operators' pages.

Target: every page's p50 and p95 under 300 ms. Reported, not asserted.

    .venv/bin/python bench/console_speed.py            # ~15 min (storing takes most of it)

With NEO4J_URI, BENCH_CONSOLE_USER=<user id> times the pages of a user an earlier run seeded
there (a new key is issued for it) instead of seeding another.
"""

from __future__ import annotations

import os
import random
import re
import time
import uuid
from collections.abc import Callable
from typing import Any
from urllib.parse import quote_plus

import common
import httpx
from data.corpus import memory_texts, queries

USER_MEMORIES = 10_000
WEAK_NOTES = 50
BATCH = 100
REPS = 30
WARMUP = 3
TARGET_MS = 300.0
TYPES = ("semantic", "semantic", "semantic", "profile", "procedural", "episodic")
TOKEN = re.compile(r'name="csrf_token" value="([^"]+)"')
MEMORY_LINK = re.compile(r"/console/memories/([0-9a-f]{32})")
ENTITY_LINK = re.compile(r"/console/graph\?entity=([^\"&]+)")


def _items(texts: list[str], rng: random.Random) -> list[dict[str, Any]]:
    items = []
    for index, text in enumerate(texts):
        item: dict[str, Any] = {"content": text, "memory_type": TYPES[index % len(TYPES)]}
        if index % 3 == 0:
            item["session_id"] = f"session-{index % 40}"
        if index % 5 == 0:
            item["subject_id"] = f"subject-{index % 7}"
        if index % 4 == 0:
            item["extra_metadata"] = {"source": rng.choice(["chat", "email", "ticket"])}
        items.append(item)
    return items


def _store(http: httpx.Client, headers: dict[str, str], items: list[dict[str, Any]]) -> list[str]:
    stored: list[str] = []
    for start in range(0, len(items), BATCH):
        response = http.post(
            "/v1/memories/batch", json={"memories": items[start : start + BATCH]}, headers=headers
        )
        response.raise_for_status()
        stored += [memory["memory_id"] for memory in response.json()]  # the stored, in order
        if start % 2000 == 0:
            common.log(f"stored {start + BATCH} of {len(items)}")
    return stored


def _seed(http: httpx.Client, headers: dict[str, str]) -> dict[str, Any]:
    """The user's memories and what the pages show of them."""
    rng = random.Random(46)
    texts = memory_texts(USER_MEMORIES - WEAK_NOTES, seed=46)
    ids = _store(http, headers, _items(texts, rng))
    weak = [
        {"content": f"Unconfirmed rumour {n}: the {rng.choice(texts)[:60]}", "trust_tier": "T4"}
        for n in range(WEAK_NOTES)
    ]
    for item in weak:
        item["initial_confidence"] = 0.1
    ids += _store(http, headers, weak)
    http.post("/v1/snapshots", json={"name": "bench-snap"}, headers=headers).raise_for_status()
    corrected = rng.sample(ids[:-WEAK_NOTES], 20)
    new_ids = []
    for memory_id in corrected[:10]:
        response = http.put(
            f"/v1/memories/{memory_id}/correct",
            json={"new_content": f"Corrected: {uuid.uuid4().hex[:8]}", "reason": "bench"},
            headers=headers,
        )
        response.raise_for_status()
        new_ids.append(response.json()["memory_id"])
    for memory_id in corrected[10:]:
        http.delete(f"/v1/memories/{memory_id}", headers=headers).raise_for_status()
    http.post("/v1/branches", json={"name": "bench-branch"}, headers=headers).raise_for_status()
    branch_items = [
        {"content": f"Branch idea {n}: {text}"} for n, text in enumerate(memory_texts(20, seed=7))
    ]
    http.post(
        "/v1/memories/batch",
        json={"memories": branch_items, "branch": "bench-branch"},
        headers=headers,
    ).raise_for_status()
    for memory_id in rng.sample(ids[:-WEAK_NOTES], 40):
        signal = rng.choice(["useful", "useful", "irrelevant", "outdated"])
        http.post(
            f"/v1/memories/{memory_id}/feedback", json={"signal": signal}, headers=headers
        ).raise_for_status()
    common.log("governance and consolidate over the user's memories")
    governed = http.post("/v1/governance?force=true", headers=headers, timeout=600).json()
    consolidated = http.post("/v1/consolidate?force=true", headers=headers, timeout=600).json()
    common.log(f"governance: {governed}; consolidate: {consolidated}")
    return {"ids": ids, "corrected": new_ids}


def _seeded(http: httpx.Client, headers: dict[str, str]) -> dict[str, Any]:
    """What an earlier run seeded for the user: its memories and its corrections (T2)."""
    ids: list[str] = []
    cursor = None
    while True:
        params = {"limit": 500, **({"cursor": cursor} if cursor else {})}
        page = http.get("/v1/memories", params=params, headers=headers).json()
        ids += [memory["memory_id"] for memory in page["items"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    corrections = http.post("/v1/memories/query", json={"trust_tier": "T2"}, headers=headers).json()
    common.log(f"reusing {len(ids)} memories")
    return {"ids": ids, "corrected": [memory["memory_id"] for memory in corrections["items"]]}


def _sign_in(base_url: str, credential: str, user_id: str = "") -> httpx.Client:
    client = httpx.Client(base_url=base_url, timeout=60)
    page = client.get("/console/sign-in").text
    token = TOKEN.search(page)
    assert token is not None
    response = client.post(
        "/console/sign-in",
        data={"csrf_token": token.group(1), "credential": credential, "user_id": user_id},
    )
    assert response.status_code == 303, response.text[:300]
    return client


def _time(client: httpx.Client, paths: Callable[[int], str]) -> list[float]:
    """Milliseconds of REPS requests (after WARMUP), each for the path of its number."""
    for n in range(WARMUP):
        client.get(paths(n)).raise_for_status()
    times = []
    for n in range(WARMUP, WARMUP + REPS):
        started = time.perf_counter()
        response = client.get(paths(n))
        times.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200, (paths(n), response.status_code)
    return times


def main() -> None:
    with (
        common.neo4j_database() as database,
        common.service_process(database.uri) as service,
        httpx.Client(base_url=service.base_url, timeout=120) as http,
    ):
        reused = os.environ.get("BENCH_CONSOLE_USER")
        user_id = reused or f"bench-console-{uuid.uuid4().hex[:8]}"
        response = http.post(
            "/auth/keys",
            json={"user_id": user_id, "name": "bench"},
            headers={"Authorization": f"Bearer {common.MASTER_KEY}"},
        )
        response.raise_for_status()
        raw_key = response.json()["raw_key"]
        headers = {"Authorization": f"Bearer {raw_key}"}
        seeded = _seeded(http, headers) if reused else _seed(http, headers)

        viewer = _sign_in(service.base_url, raw_key)
        operator = _sign_in(service.base_url, common.MASTER_KEY)
        rng = random.Random(7)
        memory_ids = rng.sample(seeded["ids"], WARMUP + REPS)
        asked = queries(WARMUP + REPS, seed=46)
        graph_page = viewer.get("/console/graph").text
        entities = list(dict.fromkeys(ENTITY_LINK.findall(graph_page)))
        first_page = viewer.get("/console/memories").text
        cursor = re.search(r'id="next-page" href="[^"]*cursor=([^"&]+)', first_page)
        assert cursor is not None and entities
        corrected = seeded["corrected"]
        common.wait_for_quiet()
        pages: list[tuple[str, httpx.Client, Callable[[int], str]]] = [
            ("memories: first page", viewer, lambda n: "/console/memories"),
            ("memories: next page", viewer, lambda n: f"/console/memories?cursor={cursor[1]}"),
            (
                "memories: filtered",
                viewer,
                lambda n: (
                    "/console/memories?memory_type=profile&trust_tier=T1"
                    f"&meta=source%3D{['chat', 'email', 'ticket'][n % 3]}&inactive=on"
                ),
            ),
            (
                "memories: search (explained)",
                viewer,
                lambda n: f"/console/memories?q={quote_plus(asked[n])}",
            ),
            ("one memory", viewer, lambda n: f"/console/memories/{memory_ids[n]}"),
            (
                "one corrected memory (history)",
                viewer,
                lambda n: f"/console/memories/{corrected[n % len(corrected)]}",
            ),
            ("graph: entities", viewer, lambda n: "/console/graph"),
            (
                "graph: an entity",
                viewer,
                lambda n: f"/console/graph?entity={entities[n % len(entities)]}",
            ),
            ("versioning", viewer, lambda n: "/console/versioning"),
            ("snapshot diff", viewer, lambda n: "/console/snapshots/bench-snap"),
            ("branch diff", viewer, lambda n: "/console/branches/bench-branch"),
            ("governance", viewer, lambda n: "/console/governance"),
            ("operators: users", operator, lambda n: "/console/operators"),
            ("operators: one user", operator, lambda n: f"/console/operators/users/{user_id}"),
        ]
        rows = []
        for name, client, paths in pages:
            times = _time(client, paths)
            p50, p95 = common.percentile(times, 50), common.percentile(times, 95)
            rows.append([name, p50, p95, p95 / TARGET_MS, common.verdict(p95, TARGET_MS, False)])
            common.log(f"{name}: p50 {p50:.1f} ms, p95 {p95:.1f} ms")
        viewer.close()
        operator.close()
        print(common.code_state())
        print(common.load_line("after measuring"))
        print(
            common.table(
                f"Console pages with {USER_MEMORIES:,} memories ({REPS} requests each, ms)",
                ["page", "p50", "p95", "p95 / 300 ms", "target"],
                rows,
            )
        )


if __name__ == "__main__":
    main()
