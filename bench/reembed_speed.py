"""Switching a running deployment's embedding model: `memory-service reembed` on 10,000 memories,
one direction per run, and what a service of the old model answers meanwhile.

10,000 memories (bench/data/corpus.py's texts, one user) are stored with the old model (`--from`,
through the batch-store use case), a service process of that model is started on them, and
the re-embedding runs here with the new model (`--to`, the command's own use case) while a
client asks that service a retrieve every RETRIEVE_EVERY_S. It prints the time of each phase
(encoding beside the embeddings in use, then the switch: the index dropped, the new
embeddings made the nodes' own, the index built for the new model) per thousand memories, and
per phase how many retrieves answered 200 with results, 503, or otherwise, with their p50.
Finally a service of the new model starts on the data (it refuses data of another model).

    .venv/bin/python bench/reembed_speed.py --from all-MiniLM-L6-v2 --to multilingual-e5-small
    .venv/bin/python bench/reembed_speed.py --from multilingual-e5-small --to all-MiniLM-L6-v2
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time
from collections import defaultdict
from typing import Any

import common
import httpx
from data.corpus import memory_texts

MEMORIES = int(os.environ.get("BENCH_REEMBED_MEMORIES", "10000"))
BATCH = 100
RETRIEVE_EVERY_S = 0.5
USER = "bench-reembed"


def embedder_of(model: str) -> Any:
    os.environ["EMBEDDING_MODEL"] = model
    return common.embedder()


async def store(uri: str, model: str, texts: list[str]) -> float:
    from app.models.memories import NewMemory
    from app.registry import Registry
    from app.services import memories
    from app.services.scope import Caller

    registry = Registry.build(common.settings(uri), embedder_of(model))
    started = time.perf_counter()
    try:
        for start in range(0, len(texts), BATCH):
            items = [NewMemory(content=text) for text in texts[start : start + BATCH]]
            await memories.store_batch(registry, Caller(USER), items, None)
    finally:
        await registry.close()
    return time.perf_counter() - started


async def ask_meanwhile(base_url: str, phase: list[str], answers: dict[str, list[Any]]) -> None:
    questions = memory_texts(200, seed=7)
    async with httpx.AsyncClient(base_url=base_url, timeout=60) as http:
        n = 0
        while True:
            began = time.perf_counter()
            try:
                response = await http.post(
                    "/v1/memories/retrieve",
                    json={"query": questions[n % len(questions)], "top_k": 5},
                    headers=common.master_headers(USER),
                )
                status = response.status_code
                found = status == 200 and bool(response.json())
            except httpx.HTTPError:
                status, found = 0, False
            answers[phase[0]].append((status, found, time.perf_counter() - began))
            n += 1
            await asyncio.sleep(RETRIEVE_EVERY_S)


async def reembed(uri: str, model: str, phase: list[str]) -> dict[str, float]:
    from app.registry import Registry
    from app.services import reembed as use_case

    registry = Registry.build(common.settings(uri), embedder_of(model))
    marks = {"started": time.perf_counter()}

    def progress(done: int, total: int) -> None:
        if done >= total and "encoded" not in marks:
            marks["encoded"] = time.perf_counter()
            phase[0] = "switch"

    try:
        count = await use_case.reembed(registry, progress)
    finally:
        await registry.close()
    marks["done"] = time.perf_counter()
    marks.setdefault("encoded", marks["done"])
    return {
        "nodes": count,
        "encode_s": marks["encoded"] - marks["started"],
        "switch_s": marks["done"] - marks["encoded"],
    }


async def run(uri: str, old: str, new: str) -> None:
    texts = memory_texts(MEMORIES)
    common.log(f"storing {len(texts)} memories with {old}")
    stored_s = await store(uri, old, texts)
    common.log(f"stored in {stored_s:.0f}s")
    answers: dict[str, list[Any]] = defaultdict(list)
    phase = ["encode"]
    with common.service_process(uri, env={"EMBEDDING_MODEL": old}) as service:
        asking = asyncio.ensure_future(ask_meanwhile(service.base_url, phase, answers))
        try:
            figures = await reembed(uri, new, phase)
        finally:
            asking.cancel()
    common.log("starting a service of the new model on the re-embedded data")
    with common.service_process(uri, env={"EMBEDDING_MODEL": new}):
        started_new = True
    thousand = figures["nodes"] / 1000 or 1
    print(
        common.table(
            f"memory-service reembed, {old} -> {new}, {figures['nodes']:.0f} nodes",
            ["phase", "seconds", "seconds per 1,000"],
            [
                [
                    "encode (beside the embeddings in use)",
                    figures["encode_s"],
                    figures["encode_s"] / thousand,
                ],
                [
                    "switch (index dropped, nodes switched, index built)",
                    figures["switch_s"],
                    figures["switch_s"] / thousand,
                ],
                [
                    "whole",
                    figures["encode_s"] + figures["switch_s"],
                    (figures["encode_s"] + figures["switch_s"]) / thousand,
                ],
            ],
        )
    )
    rows = []
    for name in ("encode", "switch"):
        got = answers[name]
        rows.append(
            [
                name,
                len(got),
                sum(1 for status, found, _ in got if status == 200 and found),
                sum(1 for status, _, _ in got if status == 503),
                sum(1 for status, _, _ in got if status not in (200, 503)),
                common.median([seconds for _, _, seconds in got]) * 1000 if got else None,
            ]
        )
    print(
        common.table(
            f"Retrieves to the service of {old} meanwhile (one every {RETRIEVE_EVERY_S} s)",
            ["phase", "asked", "200 with results", "503", "other", "p50 ms"],
            rows,
        )
    )
    print(f"a service of {new} started on the data: {started_new}")
    print(common.code_state())
    print(common.load_line("at the end"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--from", dest="old", default="all-MiniLM-L6-v2")
    parser.add_argument("--to", dest="new", default="multilingual-e5-small")
    args = parser.parse_args()
    with common.neo4j_database(heap="1g", pagecache="1g") as database:
        asyncio.run(run(database.uri, args.old, args.new))


if __name__ == "__main__":
    main()
