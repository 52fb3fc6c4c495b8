"""Contradictions without an LLM on BEAM: how many of a long technical conversation's most
similar pairs consolidate would call contradictory, what they look like, and whether BEAM's
labelled updates and contradictions are found.

No database: the BEAM development set's messages (`../shared/datasets/beam`, a memory per
message, all of them one user as bench/scale.py's large user holds them), their embeddings by
the configured model (cached by bench/scale.py under var/scale-vectors/<model>/large.npy, else
encoded here), and their entities as the write path extracts them (`extractor.extract`; the
near-duplicate joining of keys left out). Candidate pairs as consolidate picks them: two
memories that mention a common entity (one at most `HUB_LIMIT` memories mention) at cosine
`MIN_SIMILARITY` or more, each memory's `PARTNERS` most similar such partners. Each pair is
read by `contradictions.disagreement`, as consolidate reads it.

Printed: the candidate pairs, the share flagged (within one conversation and across two), the
flagged pairs by reason, `--show` of them (default 20, chosen at random with a fixed seed) with
the clauses that disagree; then BEAM's labelled pairs (each `contradiction_resolution` and
`knowledge_update` question's evidence messages, taken two by two): how many are candidates,
how many are flagged. Those are the positives a precise rule should still find where the text
says it plainly (a changed number about the same thing); the questions of
`contradiction_resolution` mostly need reading ("I've never used X" against "I migrated to X"),
which no rule here claims to do.

    .venv/bin/python bench/contradiction_precision.py            # ~2 min on an idle machine
    .venv/bin/python bench/contradiction_precision.py --show 40
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import combinations

import common
import numpy as np
from data import scale_plan as plan

from app.services.entities.extractor import extract
from app.services.governance import consolidate, contradictions

VECTORS = common.ROOT / "var" / "scale-vectors"
SHOWN_CHARS = 240


@dataclass(frozen=True)
class Message:
    conversation: str
    message_id: int
    role: str
    content: str


def messages() -> list[Message]:
    """BEAM's messages in the order bench/scale.py stores them (its vectors' order)."""
    found = []
    for conversation in plan._beam():
        for message in conversation["messages"]:
            if message["content"].strip():
                found.append(
                    Message(
                        conversation["conv_id"],
                        message["id"],
                        message["role"],
                        plan._cut(message["content"]),
                    )
                )
    return found


def vectors(texts: list[str]) -> np.ndarray:
    """The texts' embeddings: bench/scale.py's cache when it holds them, else encoded now."""
    embedder = common.embedder()
    folder = VECTORS / re.sub(r"[^A-Za-z0-9.+-]+", "_", embedder.model_id)
    digests = [hashlib.sha1(text.encode()).hexdigest()[:12] for text in texts]
    if (folder / "large.json").exists():
        kept = json.loads((folder / "large.json").read_text())["digests"]
        if kept[: len(texts)] == digests:
            return np.load(folder / "large.npy")[: len(texts)]
    common.log(f"encoding {len(texts)} messages with {embedder.model_id}")
    return np.asarray(common.encode_now(embedder, texts), dtype=np.float32)


def candidate_pairs(
    items: list[Message], embeddings: np.ndarray
) -> tuple[list[tuple[int, int, float]], dict[int, set[str]]]:
    """Consolidate's candidates: for each memory its most similar partners that share an entity
    with it (not a hub), at the minimum similarity or more; each pair once."""
    keys = [{mention.key for mention in extract(item.content)} for item in items]
    holders: dict[str, list[int]] = defaultdict(list)
    for index, found in enumerate(keys):
        for key in found:
            holders[key].append(index)
    hubs = {key for key, held in holders.items() if len(held) > consolidate.HUB_LIMIT}
    unit = embeddings / np.linalg.norm(embeddings, axis=1, keepdims=True)
    pairs: dict[tuple[int, int], float] = {}
    for index, found in enumerate(keys):
        partners = {other for key in found - hubs for other in holders[key] if other != index}
        if not partners:
            continue
        others = np.fromiter(partners, dtype=np.int64)
        similarity = unit[others] @ unit[index]
        close = np.argsort(-similarity)[: consolidate.PARTNERS]
        for position in close:
            if similarity[position] >= consolidate.MIN_SIMILARITY:
                pair = tuple(sorted((index, int(others[position]))))
                pairs[(pair[0], pair[1])] = float(similarity[position])
    return [(a, b, similarity) for (a, b), similarity in pairs.items()], {
        index: found for index, found in enumerate(keys)
    }


def shorten(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= SHOWN_CHARS else flat[: SHOWN_CHARS - 3] + "..."


def labelled_pairs(items: list[Message]) -> dict[str, list[tuple[int, int]]]:
    """The evidence messages of BEAM's update and contradiction questions, two by two, as
    positions in `items`."""
    position = {(item.conversation, item.message_id): n for n, item in enumerate(items)}
    found: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for conversation in plan._beam():
        for question in conversation["questions"]:
            if question["type"] not in ("contradiction_resolution", "knowledge_update"):
                continue
            held = [
                position[(conversation["conv_id"], message_id)]
                for message_id in question["evidence"]
                if (conversation["conv_id"], message_id) in position
            ]
            found[question["type"]] += [tuple(sorted(pair)) for pair in combinations(held, 2)]
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--show", type=int, default=20, help="flagged pairs to print")
    args = parser.parse_args()
    started = time.perf_counter()
    items = messages()
    embeddings = vectors([item.content for item in items])
    pairs, keys = candidate_pairs(items, embeddings)
    common.log(f"{len(items)} messages, {len(pairs)} candidate pairs")
    parsed = {}
    judged = time.perf_counter()
    flagged = []
    for a, b, similarity in pairs:
        for index in (a, b):
            if index not in parsed:
                parsed[index] = contradictions.parse(items[index].content)
        found = contradictions.disagreement(parsed[a], parsed[b])
        if found is not None:
            flagged.append((a, b, similarity, found))
    judging_s = time.perf_counter() - judged
    same = [pair for pair in pairs if items[pair[0]].conversation == items[pair[1]].conversation]
    flagged_same = [f for f in flagged if items[f[0]].conversation == items[f[1]].conversation]
    print(f"BEAM development set, {datetime.now(UTC):%Y-%m-%d}, code {common.code_state()}")
    print(
        f"{len(items)} messages, {len(pairs)} candidate pairs "
        f"({len(same)} within a conversation), judged in {judging_s:.1f}s "
        f"({len(parsed)} texts parsed)"
    )
    print(
        f"flagged: {len(flagged)} ({len(flagged) / max(1, len(pairs)):.1%}); within a "
        f"conversation {len(flagged_same)} ({len(flagged_same) / max(1, len(same)):.1%})"
    )
    reasons = Counter(re.sub(r":.*", "", found.reason) for *_, found in flagged)
    print("by reason: " + ", ".join(f"{reason} {count}" for reason, count in reasons.items()))
    roles = Counter("/".join(sorted((items[a].role, items[b].role))) for a, b, *_ in flagged)
    print("by roles: " + ", ".join(f"{role} {count}" for role, count in roles.most_common()))
    for a, b, similarity, found in random.Random(7).sample(flagged, min(args.show, len(flagged))):
        print(f"\n-- {found.severity}: {found.reason} (cosine {similarity:.2f})")
        for index in (a, b):
            item = items[index]
            print(f"   [{item.conversation}#{item.message_id} {item.role}] {shorten(item.content)}")
        left, right = found.clauses
        print(f"   clauses: {shorten(left)!r}\n        vs  {shorten(right)!r}")
    print("\nBEAM's labelled pairs (evidence of one question, two by two)")
    candidates = {(a, b) for a, b, _ in pairs}
    for kind, labelled in labelled_pairs(items).items():
        hits = []
        for a, b in labelled:
            found = contradictions.disagreement(
                contradictions.parse(items[a].content), contradictions.parse(items[b].content)
            )
            if found is not None:
                hits.append((a, b, found))
        shared = sum(bool(keys[a] & keys[b]) for a, b in labelled)
        print(
            f"{kind}: {len(labelled)} pairs, {shared} share an entity, "
            f"{sum(pair in candidates for pair in labelled)} candidates, {len(hits)} flagged"
        )
        for _, _, found in hits:
            print(f"   {found.reason}: {[shorten(clause) for clause in found.clauses]}")
    common.log(f"done in {time.perf_counter() - started:.0f}s")


if __name__ == "__main__":
    main()
