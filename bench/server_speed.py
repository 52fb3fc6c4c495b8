"""What the HTTP server costs per request: the service run by `memory-service serve` on hypercorn
(the default) and on uvicorn with httptools (SERVER=uvicorn), both up at once on one database,
asked the same requests in alternating blocks so that both see the same load.

Prints p50 and p95 per server and kind of request (GET /health, a store, a retrieve) and the
difference of the p50s. Each server gets its own user with the same memories.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack

import httpx
from common import (
    MASTER_KEY,
    code_state,
    load_line,
    log,
    neo4j_database,
    percentile,
    service_process,
    table,
    wait_for_quiet,
)
from data.corpus import memory_texts, queries

SERVERS = ("hypercorn", "uvicorn")
PER_KIND = 300  # requests of each kind per server
BLOCK = 20  # requests to one server before the other's turn
SEEDED = 300  # memories each server's user holds before the measured retrieves
WARM_UP = 30  # requests of each kind per server before measuring


def new_user(http: httpx.Client, name: str) -> dict[str, str]:
    answer = http.post(
        "/auth/keys",
        json={"user_id": f"bench-{name}-{time.time_ns()}", "name": name},
        headers={"Authorization": f"Bearer {MASTER_KEY}"},
    )
    answer.raise_for_status()
    return {"Authorization": f"Bearer {answer.json()['raw_key']}"}


def timed(send: Callable[[], httpx.Response]) -> float:
    start = time.perf_counter()
    answer = send()
    elapsed = (time.perf_counter() - start) * 1000
    answer.raise_for_status()
    return elapsed


def alternating_blocks() -> Iterator[tuple[range, str]]:
    """(request numbers, server) in turns: block 1 to one server then the other, the next block
    in the other order, so neither always runs right after the other's burst."""
    for number, start in enumerate(range(0, PER_KIND, BLOCK)):
        order = SERVERS if number % 2 == 0 else SERVERS[::-1]
        for server in order:
            yield range(start, start + BLOCK), server


def main() -> None:
    print(code_state())
    with neo4j_database(heap="1g", pagecache="512m") as database, ExitStack() as stack:
        services = {
            server: stack.enter_context(service_process(database.uri, env={"SERVER": server}))
            for server in SERVERS
        }
        clients = {
            server: stack.enter_context(httpx.Client(base_url=service.base_url, timeout=60))
            for server, service in services.items()
        }
        users = {server: new_user(http, server) for server, http in clients.items()}
        texts = memory_texts(SEEDED + WARM_UP + PER_KIND, seed=11)
        seeded, stored = texts[:SEEDED], texts[SEEDED:]
        asked = queries(WARM_UP + PER_KIND, seed=12)
        for server, http in clients.items():
            log(f"storing {SEEDED} memories through {server}")
            for start in range(0, SEEDED, 100):
                batch = [{"content": text} for text in seeded[start : start + 100]]
                http.post(
                    "/v1/memories/batch", json={"memories": batch}, headers=users[server]
                ).raise_for_status()

        # The n-th request of a kind is the same for both servers: a distinct text to store,
        # a distinct question (so the query-embedding cache never answers).
        kinds: dict[str, Callable[[httpx.Client, dict[str, str], int], float]] = {
            "GET /health": lambda http, user, n: timed(lambda: http.get("/health")),
            "POST /v1/memories": lambda http, user, n: timed(
                lambda: http.post("/v1/memories", json={"content": stored[n]}, headers=user)
            ),
            "POST /v1/memories/retrieve": lambda http, user, n: timed(
                lambda: http.post("/v1/memories/retrieve", json={"query": asked[n]}, headers=user)
            ),
        }
        for server, http in clients.items():
            log(f"warming up {server}")
            for send in kinds.values():
                for n in range(WARM_UP):
                    send(http, users[server], n)

        wait_for_quiet()
        print(load_line("before"))
        samples: dict[tuple[str, str], list[float]] = {}
        for kind, send in kinds.items():
            log(f"measuring {kind}: {PER_KIND} per server in blocks of {BLOCK}")
            for block, server in alternating_blocks():
                times = samples.setdefault((kind, server), [])
                for n in block:
                    times.append(send(clients[server], users[server], WARM_UP + n))
        print(load_line("after"))

    rows = []
    for kind in kinds:
        p50 = {server: percentile(samples[(kind, server)], 50) for server in SERVERS}
        p95 = {server: percentile(samples[(kind, server)], 95) for server in SERVERS}
        rows.append(
            [
                kind,
                p50["hypercorn"],
                p50["uvicorn"],
                p50["hypercorn"] - p50["uvicorn"],
                p95["hypercorn"],
                p95["uvicorn"],
            ]
        )
    print(
        table(
            f"p50 and p95 in ms, {PER_KIND} requests of each kind per server, alternating blocks "
            f"of {BLOCK}",
            [
                "request",
                "p50 hypercorn",
                "p50 uvicorn",
                "hypercorn - uvicorn",
                "p95 hypercorn",
                "p95 uvicorn",
            ],
            rows,
        )
    )


if __name__ == "__main__":
    main()
