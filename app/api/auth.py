"""Credentials per request: the master key, API keys, X-User-Id, and rate-limit declarations."""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import wraps
from typing import Any, Literal, ParamSpec, TypeVar

from pydantic import TypeAdapter, ValidationError
from quart import g, request

from app import logs
from app.api.context import registry
from app.errors import Forbidden, Invalid, Unauthenticated
from app.models.common import MAX_NAME_CHARS, Name
from app.ratelimit import OperationClass
from app.registry import Registry
from app.services import keys
from app.services.scope import MAIN, Caller

# Who may call a route: the master key only, or a user (an API key, or the master key for one).
Access = Literal["master", "user"]
P = ParamSpec("P")
RATE_LIMIT_ATTRIBUTE = "rate_limit_class"
USER_ID = TypeAdapter(Name)  # X-User-Id names a user as POST /auth/keys does
R = TypeVar("R")


@dataclass(frozen=True)
class Principal:
    """Who is calling: the user acted for, the API key used (None for the master key)."""

    user_id: str | None
    key_id: str | None
    is_master: bool
    active_branch: str = MAIN

    def as_caller(self) -> Caller:
        """The user a /v1 request (or MCP tool call) acts for, with their checked-out branch."""
        assert self.user_id is not None, "user routes always resolve a user"
        return Caller(user_id=self.user_id, active_branch=self.active_branch)


def _bearer_token(authorization: str) -> str:
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthenticated("missing credential: send Authorization: Bearer <key>")
    return token.strip()


async def resolve(
    registry: Registry, access: Access, authorization: str, acting_for: str
) -> Principal:
    """The caller of a request with these `Authorization` and `X-User-Id` headers (REST and
    MCP alike), or 401/403/422."""
    token = _bearer_token(authorization)
    master = registry.settings.master_key.get_secret_value()
    if hmac.compare_digest(token.encode(), master.encode()):
        if access == "master":
            return Principal(user_id=None, key_id=None, is_master=True)
        try:
            user_id = USER_ID.validate_python(acting_for)
        except ValidationError:
            raise Invalid(
                "the master key acts for the user named in the X-User-Id header "
                f"(1 to {MAX_NAME_CHARS} characters)"
            ) from None
        acted_for = await keys.acting_for(registry, user_id)
        return Principal(
            user_id=user_id, key_id=None, is_master=True, active_branch=acted_for.active_branch
        )
    owner = await keys.verify(registry, token)
    if access == "master":
        raise Forbidden("this route needs the master key")
    return Principal(
        user_id=owner.user_id,
        key_id=owner.key_id,
        is_master=False,
        active_branch=owner.active_branch,
    )


async def authenticate(access: Access) -> Principal:
    """Resolves the caller of the current request for a route of the given access."""
    return await resolve(
        registry(),
        access,
        request.headers.get("Authorization", ""),
        # Memoria's clients may name the user as X-Impersonate-User or ?user_id=.
        request.headers.get("X-User-Id")
        or request.headers.get("X-Impersonate-User")
        or request.args.get("user_id", ""),
    )


def require(access: Access) -> Callable[[], Awaitable[None]]:
    """A before_request hook that authenticates every route of a blueprint."""

    async def hook() -> None:
        g.principal = await authenticate(access)
        logs.note_user(g.principal.user_id)

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
    return principal().as_caller()


def limited(
    operation: OperationClass,
) -> Callable[[Callable[P, Awaitable[R]]], Callable[P, Awaitable[R]]]:
    """Declares a handler's rate-limit class; the hit is counted before the handler runs."""

    def decorate(handler: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
        @wraps(handler)
        async def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            await registry().limiter.hit(operation, principal().key_id)
            return await handler(*args, **kwargs)

        setattr(wrapper, RATE_LIMIT_ATTRIBUTE, operation)  # the decorators above copy it along
        return wrapper

    return decorate


def rate_limit_of(view: Callable[..., Any]) -> OperationClass | None:
    """The rate-limit class a route's view declared with @limited, if any."""
    declared: OperationClass | None = getattr(view, RATE_LIMIT_ATTRIBUTE, None)
    return declared
