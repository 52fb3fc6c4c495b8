"""Document vectors of benchmark texts, computed once per model and kept on disk.

Encoding BEAM's development set whole takes minutes with all-MiniLM-L6-v2 and hours with
multilingual-e5-small on two cores; the quality benchmarks store the same texts again and
again. Vectors are kept per model id in var/embedding-cache/<model id>/<name>.npz, keyed by the
SHA-1 of each text, written every few hundred texts so an interrupted run resumes. They are
exactly what the service's embedder makes for those texts (its document role, glosses and
windows included), so a memory stored with a cached vector is the memory the API would store.

    .venv/bin/python bench/embedding_cache.py locomo beam   # fill the cache for EMBEDDING_MODEL
    BENCH_EMBEDDING_CACHE=var/cache-serve ...                 # encode again (another backend)
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import common
import numpy as np

# Another folder (an empty one) makes a run encode through the configured backend again: the
# same model behind an endpoint records the in-process model's id and would read its vectors.
CACHE = Path(os.environ.get("BENCH_EMBEDDING_CACHE", common.ROOT / "var" / "embedding-cache"))
# Bumped when the way a backend reads a text changes (windows, prefixes): old vectors go.
LAYOUT = "1"
CHUNK = 64
SAVE_EVERY = 512


def key(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


def _path(model_id: str, name: str) -> Path:
    safe = model_id.replace("/", "_").replace(":", "_")
    return CACHE / f"{safe}-v{LAYOUT}" / f"{name}.npz"


def _load(path: Path) -> dict[str, np.ndarray]:
    if not path.exists():
        return {}
    stored = np.load(path)
    return dict(zip(stored["keys"].tolist(), stored["vectors"], strict=True))


def _save(path: Path, vectors: dict[str, np.ndarray]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial.npz")
    np.savez(
        partial,
        keys=np.array(list(vectors), dtype=object).astype(str),
        vectors=np.array(list(vectors.values()), dtype=np.float32),
    )
    partial.replace(path)


async def document_vectors(embedder: Any, name: str, texts: Sequence[str]) -> np.ndarray:
    """The document vectors of `texts` (one row each), from the cache or encoded and cached."""
    path = _path(embedder.model_id, name)
    known = _load(path)
    missing = list(dict.fromkeys(key(text) for text in texts if key(text) not in known))
    if missing:
        by_key = {key(text): text for text in texts}
        common.log(f"{name}: encoding {len(missing)} texts with {embedder.model_id}")
        began, since_save = time.perf_counter(), 0
        for start in range(0, len(missing), CHUNK):
            chunk = missing[start : start + CHUNK]
            vectors = await embedder.encode_documents([by_key[k] for k in chunk])
            for k, vector in zip(chunk, vectors, strict=True):
                known[k] = np.asarray(vector, dtype=np.float32)
            since_save += len(chunk)
            if since_save >= SAVE_EVERY:
                _save(path, known)
                since_save = 0
                done = start + len(chunk)
                rate = done / (time.perf_counter() - began)
                common.log(f"{name}: {done}/{len(missing)} ({rate:.1f} texts/s)")
        _save(path, known)
    return np.stack([known[key(text)] for text in texts])


async def _fill(names: list[str]) -> None:
    import datasets

    embedder = common.embedder()
    await embedder.start()
    for name in names:
        texts = [memory.content for memory in datasets.load(name).memories]
        await document_vectors(embedder, name, texts)
    await embedder.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="+", help="datasets (see bench/datasets.py)")
    asyncio.run(_fill(parser.parse_args().names))
