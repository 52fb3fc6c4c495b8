"""What bound plugins change for a user: the retrieval configuration and the governance
thresholds their manifests declare. Plugin files are never executed; a manifest's `config` is
the whole effect.

A domain's bindings apply in order (the activation, then by priority): the first that selects
the user (its subject, and its rollout by a stable hash of binding and user id) and has an
active, supported version matching its selector decides, with the highest such version. The
bindings are read at most every CACHE_S seconds per instance (at once after a change made on
this instance).
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass
from typing import Any

import semver

from app.graph import Row
from app.models.plugins import Domain, PluginConfig
from app.registry import Registry
from app.services.plugins import packages
from app.services.retrieval.config import DEFAULT, RetrievalConfig, overridden, recipe

CACHE_S = 5.0
_cache: dict[tuple[int, str], tuple[float, list[Row], set[str]]] = {}


@dataclass(frozen=True)
class Effect:
    """The plugin version in effect (`key@version`) and its declared configuration."""

    plugin: str
    config: PluginConfig


def bucket(binding_id: str, user_id: str) -> int:
    """A user's place in a binding's rollout, 0..99: the same for the same user, every time."""
    digest = hashlib.sha256(f"{binding_id}\0{user_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % 100


def selects(subject: str, user_id: str) -> bool:
    if subject == "*":
        return True
    kind, _, value = subject.partition(":")
    return user_id == value if kind == "user" else user_id.startswith(value)


def matches(version: str, selector: str) -> bool:
    """An exact version selects itself; anything else is a range (see plugin_packages)."""
    if semver.Version.is_valid(selector):
        return version == selector
    return packages.satisfies(version, selector)


def pick(rows: list[Row], user_id: str, trusted: set[str]) -> Effect | None:
    """The effect a domain's bindings give a user (pure; see the module docstring)."""
    for row in rows:
        binding = row["binding"]
        if not selects(binding["subject"], user_id):
            continue
        if bucket(binding["binding_id"], user_id) >= binding["rollout_percent"]:
            continue
        usable = [
            version
            for version in row["versions"]
            if matches(version["version"], binding["version"])
            and version["signer"] in trusted
            and packages.satisfies(packages.SERVICE_VERSION, version["compatible"])
        ]
        if usable:
            best = max(usable, key=lambda version: semver.Version.parse(version["version"]))
            return Effect(
                plugin=f"{binding['plugin']}@{best['version']}",
                config=PluginConfig.model_validate(json.loads(best["config"])),
            )
    return None


def invalidate() -> None:
    """Forgets the bindings read so far (after a change of plugins on this instance)."""
    _cache.clear()


async def effect(registry: Registry, domain: Domain, user_id: str) -> Effect | None:
    key = (id(registry.graph), domain)
    cached = _cache.get(key)
    if cached is None or cached[0] < time.monotonic():
        rows = await registry.graph.read("plugins/bindings", domain=domain)
        signers = await registry.graph.read("plugins/signers") if rows else []
        cached = (time.monotonic() + CACHE_S, rows, {row["signer"]["name"] for row in signers})
        _cache[key] = cached
    return pick(cached[1], user_id, cached[2])


def retrieval_config(found: Effect | None, requested: str | None = None) -> RetrievalConfig:
    """The retrieval configuration in effect: the recipe the request names, else the one the
    user's retrieval plugin names, else the default; then the fields the plugin overrides."""
    settings = found.config if found is not None else None
    chosen = settings.retrieval if settings is not None else None
    name = requested or (chosen.recipe if chosen is not None else None)
    config = recipe(name) if name else DEFAULT
    if settings is None:
        return config
    sections: dict[str, dict[str, Any]] = {}
    if settings.ranking is not None:  # earlier manifests' form
        legacy = settings.ranking.model_dump(exclude_none=True)
        if "vector_weight" in legacy:
            sections["fusion"] = {"vector_weight": legacy.pop("vector_weight")}
        sections["features"] = legacy
    if settings.graph is not None:
        sections["graph"] = settings.graph.model_dump(exclude_none=True)
    if chosen is not None:
        for name in ("candidates", "fusion", "features", "graph", "floor"):
            section = getattr(chosen, name)
            if section is not None:
                sections[name] = {
                    **sections.get(name, {}),
                    **section.model_dump(exclude_none=True),
                }
    return overridden(config, sections)
