"""Realistic memory texts and queries in bulk, for the speed benchmarks (seeded, deterministic).

The texts come from the quality set's worlds (hand-written facts and their seeded generators,
drawn again and again with fresh random choices); the queries mix the quality set's own
queries with templated questions over the same vocabulary.
"""

from __future__ import annotations

import random

from data import quality_set as qs


def memory_texts(count: int, seed: int = 1) -> list[str]:
    """`count` distinct memory texts, 10 to 40 words each."""
    rng = random.Random(seed)
    found: dict[str, None] = {}
    dataset = qs.build()
    hand = [m.content for m in dataset.memories if "/g" not in m.key]
    found.update(dict.fromkeys(hand))
    worlds = [*qs.WORK_VOCAB, "personal"]
    while len(found) < count:
        world = rng.choice(worlds)
        if world == "personal":
            texts, _ = qs.personal_texts(rng)
        else:
            texts, _ = qs.work_texts(world, rng)
        found.update(dict.fromkeys(text for text, _ in texts))
    texts = list(found)
    rng.shuffle(texts)
    return texts[:count]


TEMPLATES = (
    "what is {person} working on",
    "who owns {module}",
    "status of {ticket}",
    "{test} failing",
    "is {person} on holiday",
    "what did we decide about {module}",
    "disk usage on {host}",
    "load test results for {module}",
    "who covers {module} when {person} is away",
    "why is {module} blocked",
    "how much RAM does {host} have",
    "which CI runs failed for {module}",
    "what runs on {host}",
    "open tickets about {summary}",
    "has anyone fixed the {summary} problem",
    "when did {person} finish the fix for {summary}",
)
PERSONAL_TEMPLATES = (
    "when is my {event}",
    "what did {friend} recommend",
    "order from {shop}",
    "hotel booking in {city}",
    "train to {city}",
    "my blood pressure readings",
    "what do I need to {task}",
    "plans with {friend} at {place}",
)


def queries(count: int, seed: int = 2) -> list[str]:
    """`count` distinct realistic queries (the quality set's first, then templated ones)."""
    rng = random.Random(seed)
    found: dict[str, None] = dict.fromkeys(q.text for q in qs.build().queries)
    while len(found) < count:
        world = rng.choice([*qs.WORK_VOCAB, "personal"])
        if world == "personal":
            template = rng.choice(PERSONAL_TEMPLATES)
            text = template.format(
                event=rng.choice(qs.EVENTS),
                friend=rng.choice(qs.FRIENDS),
                shop=rng.choice(qs.SHOPS),
                city=rng.choice(qs.CITIES),
                task=rng.choice(qs.TASKS),
                place=rng.choice(qs.PLACES),
            )
        else:
            v = qs.WORK_VOCAB[world]
            template = rng.choice(TEMPLATES)
            text = template.format(
                person=rng.choice(v["people"]),
                module=rng.choice(v["modules"]),
                ticket=f"{rng.choice(v['prefix'])}-{rng.randint(1000, 9899)}",
                test=rng.choice(v["tests"]),
                host=rng.choice(v["hosts"]),
                summary=rng.choice(v["summaries"]),
            )
        found[text] = None
    texts = list(found)
    rng.shuffle(texts)
    return texts[:count]
