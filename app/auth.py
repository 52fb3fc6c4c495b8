"""Credentials per request: the master key, API keys, X-User-Id, and rate-limit declarations."""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import wraps
from typing import Literal, ParamSpec, TypeVar

from quart import g, request

from app.api.context import registry
from app.errors import Forbidden, Invalid, Unauthenticated
from app.ratelimit import OperationClass
from app.services import keys
from app.services.scope import MAIN, Caller

# Who may call a route: the master key only, or a user (an API key, or the master key for one).
Access = Literal["master", "user"]
P = ParamSpec("P")
R = TypeVar("R")


@dataclass(frozen=True)
class Principal:
    """Who is calling: the user acted for, the API key used (None for the master key)."""

    user_id: str | None
    key_id: str | None
    is_master: bool
    active_branch: str = MAIN


def _bearer_token() -> str:
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthenticated("missing credential: send Authorization: Bearer <key>")
    return token.strip()


def _is_master(token: str) -> bool:
    master = registry().settings.master_key.get_secret_value()
    return hmac.compare_digest(token.encode(), master.encode())


async def authenticate(access: Access) -> Principal:
    """Resolves the caller for a route of the given access, or raises 401/403/422."""
    token = _bearer_token()
    if _is_master(token):
        if access == "master":
            return Principal(user_id=None, key_id=None, is_master=True)
        user_id = request.headers.get("X-User-Id", "").strip()
        if not user_id:
            raise Invalid("the master key acts for a user named in the X-User-Id header")
        acted_for = await keys.acting_for(registry(), user_id)
        return Principal(
            user_id=user_id, key_id=None, is_master=True, active_branch=acted_for.active_branch
        )
    owner = await keys.verify(registry(), token)
    if access == "master":
        raise Forbidden("this route needs the master key")
    return Principal(
        user_id=owner.user_id,
        key_id=owner.key_id,
        is_master=False,
        active_branch=owner.active_branch,
    )


def require(access: Access) -> Callable[[], Awaitable[None]]:
    """A before_request hook that authenticates every route of a blueprint."""

    async def hook() -> None:
        g.principal = await authenticate(access)

    return hook


def principal() -> Principal:
    found: Principal = g.principal
    return found


def current_user() -> str:
    """The user a /v1 or /auth request acts for."""
    user_id = principal().user_id
    assert user_id is not None, "user routes always resolve a user"
    return user_id


def caller() -> Caller:
    """The user a /v1 request acts for, with their checked-out branch."""
    return Caller(user_id=current_user(), active_branch=principal().active_branch)


def limited(
    operation: OperationClass,
) -> Callable[[Callable[P, Awaitable[R]]], Callable[P, Awaitable[R]]]:
    """Declares a handler's rate-limit class; the hit is counted before the handler runs."""

    def decorate(handler: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
        @wraps(handler)
        async def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            await registry().limiter.hit(operation, principal().key_id)
            return await handler(*args, **kwargs)

        return wrapper

    return decorate
