"""API keys: issue, verify, list, rotate and revoke; only hashes are stored."""

from __future__ import annotations

import hashlib
import secrets
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from app.errors import Conflict, Forbidden, NotFound, Unauthenticated
from app.graph import Row
from app.models.keys import ApiKey, CreateKey, IssuedKey, RevokedKeys
from app.registry import Registry
from app.services.scope import MAIN

PREFIX_LENGTH = 12
TOUCH_INTERVAL = timedelta(seconds=60)


@dataclass(frozen=True)
class KeyOwner:
    key_id: str | None  # None for the master key acting for the user
    user_id: str
    active_branch: str


def new_raw_key() -> str:
    return "sk-" + secrets.token_hex(16)


def hash_key(raw_key: str) -> str:
    return hashlib.sha256(raw_key.encode()).hexdigest()


def _secret_fields(raw_key: str) -> dict[str, str]:
    return {"prefix": raw_key[:PREFIX_LENGTH], "hash": hash_key(raw_key)}


async def create(registry: Registry, request: CreateKey) -> IssuedKey:
    raw_key = new_raw_key()
    rows = await registry.graph.write(
        "keys/create",
        user_id=request.user_id,
        key_id=str(uuid.uuid4()),
        name=request.name,
        expires_at=request.expires_at,
        **_secret_fields(raw_key),
    )
    if not rows[0]["user_active"]:
        raise Conflict(f"user {request.user_id} is deactivated")
    return IssuedKey(**rows[0]["key"], raw_key=raw_key)


async def warm(registry: Registry) -> None:
    """Plans the lookup that every request with a key makes, and the touch of a key's first
    use (rolled back), at startup rather than in the first requests."""
    await registry.graph.read("keys/verify", hash=hash_key(""))
    await registry.graph.rehearse(lambda tx: tx.run("keys/touch", key_id=""))


async def verify(registry: Registry, raw_key: str) -> KeyOwner:
    """The owner of a live key; Unauthenticated for unknown, revoked, expired or deactivated."""
    return await _live(registry, await registry.graph.read("keys/verify", hash=hash_key(raw_key)))


async def verify_id(registry: Registry, key_id: str) -> KeyOwner:
    """The owner of the key with this id, checked as `verify` checks a raw key: what the console
    does on every request of a session signed in with that key (it keeps the id, never the key)."""
    return await _live(registry, await registry.graph.read("keys/verify_id", key_id=key_id))


async def _live(registry: Registry, rows: list[Row]) -> KeyOwner:
    if not rows:
        raise Unauthenticated("invalid API key")
    row = rows[0]
    now = datetime.now(UTC)
    if row["revoked_at"] is not None:
        raise Unauthenticated("API key has been revoked")
    if row["expires_at"] is not None and row["expires_at"] <= now:
        raise Unauthenticated("API key has expired")
    if not row["user_active"]:
        raise Unauthenticated("user is deactivated")
    if row["last_used_at"] is None or now - row["last_used_at"] > TOUCH_INTERVAL:
        await registry.graph.write("keys/touch", key_id=row["key_id"])
    return KeyOwner(
        key_id=row["key_id"], user_id=row["user_id"], active_branch=row["active_branch"]
    )


async def acting_for(registry: Registry, user_id: str) -> KeyOwner:
    """The user the master key acts for (X-User-Id): Forbidden when deactivated; a user not
    seen yet is on main."""
    rows = await registry.graph.read("users/state", user_id=user_id)
    if rows and not rows[0]["active"]:
        raise Forbidden(f"user {user_id} is deactivated")
    return KeyOwner(
        key_id=None, user_id=user_id, active_branch=rows[0]["active_branch"] if rows else MAIN
    )


async def list_for(registry: Registry, user_id: str) -> list[ApiKey]:
    return [ApiKey(**row["key"]) for row in await registry.graph.read("keys/list", user_id=user_id)]


async def get(registry: Registry, user_id: str, key_id: str) -> ApiKey:
    rows = await registry.graph.read("keys/get", user_id=user_id, key_id=key_id)
    if not rows:
        raise NotFound("API key not found")
    return ApiKey(**rows[0]["key"])


async def rotate(registry: Registry, user_id: str, key_id: str) -> IssuedKey:
    raw_key = new_raw_key()
    rows = await registry.graph.write(
        "keys/rotate",
        user_id=user_id,
        key_id=key_id,
        new_key_id=str(uuid.uuid4()),
        **_secret_fields(raw_key),
    )
    if not rows:
        await get(registry, user_id, key_id)  # 404 when unknown or foreign
        raise Conflict("API key is already revoked")
    return IssuedKey(**rows[0]["key"], raw_key=raw_key)


async def revoke(registry: Registry, user_id: str, key_id: str) -> ApiKey:
    rows = await registry.graph.write("keys/revoke", user_id=user_id, key_id=key_id)
    if not rows:
        raise NotFound("API key not found")
    return ApiKey(**rows[0]["key"])


async def revoke_all(registry: Registry, user_id: str) -> RevokedKeys:
    row = (await registry.graph.write("keys/revoke_all", user_id=user_id))[0]
    if not row["found"]:
        raise NotFound("user not found")
    return RevokedKeys(user_id=user_id, revoked=row["revoked"])
