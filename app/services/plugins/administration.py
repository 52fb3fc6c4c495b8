"""Plugin administration: trusted signers, publishing signed packages, review and score, the
compatibility matrix, and the audit event every change writes in its own transaction."""

from __future__ import annotations

import base64
import hashlib
import json
from typing import Any, cast

import semver

from app.errors import Conflict, Invalid, NotFound
from app.graph import Row, Tx
from app.models.plugins import (
    Activation,
    AuditEvent,
    Binding,
    BindingList,
    Domain,
    EventPage,
    EventQuery,
    Matrix,
    MatrixRow,
    NewBinding,
    NewSigner,
    Package,
    PackageList,
    PackageQuery,
    PluginStatus,
    Publish,
    Signer,
    SignerList,
)
from app.pagination import Paging
from app.registry import Registry
from app.services.ids import time_ordered_id
from app.services.plugins import effects, packages

ACTOR = "master"  # the master key is the one administrator credential
MOVES: dict[str, frozenset[str]] = {
    "pending": frozenset({"active", "rejected"}),
    "active": frozenset({"disabled", "taken_down"}),
    "disabled": frozenset({"active", "taken_down"}),
    "rejected": frozenset({"taken_down"}),
    "taken_down": frozenset(),
}


async def _event(
    tx: Tx,
    action: str,
    target: str,
    plugin: str | None,
    before: dict[str, Any] | None,
    after: dict[str, Any] | None,
) -> None:
    await tx.run(
        "plugins/record_event",
        event_id=time_ordered_id(),
        actor=ACTOR,
        action=action,
        target=target,
        plugin=plugin,
        before=None if before is None else json.dumps(before),
        after=None if after is None else json.dumps(after),
    )


async def signers(registry: Registry) -> SignerList:
    rows = await registry.graph.read("plugins/signers")
    return SignerList(items=[Signer(**row["signer"]) for row in rows])


async def add_signer(registry: Registry, new: NewSigner) -> Signer:
    """Trusts a signer's Ed25519 key; 409 when the name or the key is known already."""
    packages.public_key(new.public_key)

    async def work(tx: Tx) -> Row:
        [row] = await tx.run("plugins/add_signer", name=new.name, public_key=new.public_key)
        if row["clash"] is not None:
            raise Conflict(f"signer {row['clash']} already has that name or key")
        await _event(tx, "signer.add", f"signer:{new.name}", None, None, {"name": new.name})
        signer: Row = row["signer"]
        return signer

    return Signer(**await registry.graph.transaction(work))


async def _packages(
    registry: Registry,
    key: str | None = None,
    version: str | None = None,
    query: PackageQuery | None = None,
) -> list[Package]:
    rows = await registry.graph.read(
        "plugins/list",
        key=key,
        version=version,
        status=query.status if query else None,
        capability=query.capability if query else None,
    )
    return [
        Package(
            **{**row["package"], "config": json.loads(row["package"]["config"])},
        )
        for row in rows
    ]


async def _package(registry: Registry, key: str, version: str) -> Package:
    found = await _packages(registry, key, version)
    if not found:
        raise NotFound(f"plugin {key} {version} not found")
    return found[0]


async def publish(registry: Registry, request: Publish) -> Package:
    """Stores a package signed by a trusted signer, as `pending`; versions are immutable."""
    package = packages.read(request.files)
    manifest = package.manifest
    rows = await registry.graph.read("plugins/signer", name=manifest.signer)
    if not rows:
        raise Invalid(f"signer {manifest.signer!r} is not trusted")
    if not packages.verify(package, rows[0]["public_key"]):
        raise Invalid(f"the manifest's signature is not valid for signer {manifest.signer!r}")
    files = [
        {
            "path": path,
            "sha256": hashlib.sha256(content).hexdigest(),
            "size": len(content),
            "content": base64.b64encode(content).decode(),
        }
        for path, content in sorted(package.files.items())
    ]

    async def work(tx: Tx) -> None:
        [row] = await tx.run(
            "plugins/create",
            key=manifest.name,
            version=manifest.version,
            capabilities=manifest.capabilities,
            compatible=manifest.compatible,
            signer=manifest.signer,
            manifest=package.canonical.decode(),
            config=manifest.config.model_dump_json(exclude_none=True),
            files=files,
        )
        if not row["created"]:
            raise Conflict(
                f"plugin {manifest.name} {manifest.version} exists: versions are immutable"
            )
        target = f"plugin:{manifest.name}@{manifest.version}"
        after = {"status": "pending", "signer": manifest.signer}
        await _event(tx, "plugin.publish", target, manifest.name, None, after)

    await registry.graph.transaction(work)
    return await _package(registry, manifest.name, manifest.version)


async def listed(registry: Registry, query: PackageQuery) -> PackageList:
    return PackageList(items=await _packages(registry, query=query))


async def _change(
    registry: Registry, key: str, version: str, action: str, changes: dict[str, Any]
) -> Package:
    """Applies a status or score change with its audit event, in one transaction."""
    current = await _package(registry, key, version)
    if "status" in changes:
        status: PluginStatus = changes["status"]
        if status not in MOVES[current.status]:
            allowed = ", ".join(sorted(MOVES[current.status])) or "none"
            raise Conflict(
                f"plugin {key} {version} cannot go from {current.status} to {status} "
                f"(allowed: {allowed})"
            )
    before = {name: getattr(current, name) for name in changes}

    async def work(tx: Tx) -> None:
        await tx.run(
            "plugins/update",
            key=key,
            version=version,
            status=changes.get("status"),
            score=changes.get("score"),
        )
        await _event(tx, action, f"plugin:{key}@{version}", key, before, changes)

    await registry.graph.transaction(work)
    effects.invalidate()
    return await _package(registry, key, version)


async def review(registry: Registry, key: str, version: str, status: PluginStatus) -> Package:
    """Moves a package version to a review status along the allowed moves (409 otherwise)."""
    return await _change(registry, key, version, "plugin.review", {"status": status})


async def score(registry: Registry, key: str, version: str, value: float) -> Package:
    return await _change(registry, key, version, "plugin.score", {"score": value})


def support(package: Package, trusted: dict[str, str]) -> tuple[bool, str]:
    """Whether a package version can take effect here, and why (or why not)."""
    if not packages.satisfies(packages.SERVICE_VERSION, package.compatible):
        return (
            False,
            f"needs service {package.compatible}, this is {packages.SERVICE_VERSION}",
        )
    if package.signer not in trusted:
        return False, f"signer {package.signer} is no longer trusted"
    if package.status != "active":
        return False, f"status is {package.status}"
    return (
        True,
        f"active, signed by {package.signer}, compatible with {packages.SERVICE_VERSION}",
    )


async def matrix(registry: Registry) -> Matrix:
    trusted = {signer.name: signer.public_key for signer in (await signers(registry)).items}
    rows = []
    for package in await _packages(registry):
        supported, reason = support(package, trusted)
        rows.append(
            MatrixRow(
                key=package.key,
                version=package.version,
                status=package.status,
                supported=supported,
                reason=reason,
            )
        )
    return Matrix(service_version=packages.SERVICE_VERSION, items=rows)


async def events(registry: Registry, query: EventQuery) -> EventPage:
    paging = Paging.of(query.cursor, query.limit)
    rows = await registry.graph.read(
        "plugins/events",
        plugin=query.plugin,
        action=query.action,
        before=paging.after,
        limit=paging.fetch,
    )
    fetched = [
        AuditEvent(
            **{
                **row["event"],
                "before": json.loads(row["event"]["before"]) if row["event"]["before"] else None,
                "after": json.loads(row["event"]["after"]) if row["event"]["after"] else None,
            }
        )
        for row in rows
    ]
    items, next_cursor = paging.page(fetched, lambda event: event.event_id)
    return EventPage(items=items, next_cursor=next_cursor)


CAPABILITY_OF: dict[str, str] = {"retrieval": "retrieval.rerank", "governance": "governance.plan"}


def _domain(domain: str) -> Domain:
    if domain not in CAPABILITY_OF:
        raise NotFound(f"unknown domain {domain!r}; domains: {', '.join(CAPABILITY_OF)}")
    return cast(Domain, domain)


async def bindings(registry: Registry, domain: str) -> BindingList:
    rows = await registry.graph.read("plugins/bindings", domain=_domain(domain))
    return BindingList(items=[Binding(**row["binding"]) for row in rows])


async def _bind(registry: Registry, domain: str, rule: NewBinding, *, activation: bool) -> Binding:
    """Adds a rule (or the activation) after checking that an active version of the plugin,
    with the domain's capability, matches its version selector (409 otherwise)."""
    known = _domain(domain)
    if not semver.Version.is_valid(rule.version):
        packages.check_range(rule.version)
    capability = CAPABILITY_OF[known]
    bindable = [
        package
        for package in await _packages(registry, key=rule.plugin)
        if package.status == "active"
        and capability in package.capabilities
        and effects.matches(package.version, rule.version)
    ]
    if not bindable:
        raise Conflict(
            f"no active {capability} version of {rule.plugin} matches {rule.version}: "
            "only active packages can be bound"
        )

    async def work(tx: Tx) -> Row:
        [row] = await tx.run(
            "plugins/create_binding",
            binding_id=time_ordered_id(),
            domain=known,
            activation=activation,
            **rule.model_dump(),
        )
        action = "domain.activate" if activation else "binding.create"
        target = f"domain:{known}"
        await _event(tx, action, target, rule.plugin, row["replaced"], rule.model_dump())
        binding: Row = row["binding"]
        return binding

    created = Binding(**await registry.graph.transaction(work))
    effects.invalidate()
    return created


async def add_binding(registry: Registry, domain: str, rule: NewBinding) -> Binding:
    return await _bind(registry, domain, rule, activation=False)


async def activate(registry: Registry, domain: str, chosen: Activation) -> Binding:
    """Binds one version for everyone in the domain, ahead of every rule."""
    if not semver.Version.is_valid(chosen.version):
        raise Invalid(f"activate needs an exact version, not {chosen.version!r}")
    rule = NewBinding(plugin=chosen.plugin, version=chosen.version, priority=1000)
    return await _bind(registry, domain, rule, activation=True)
