"""The console's sign-in session: a signed cookie that names who signed in (an API key's id, or
the master key's fingerprint, never a key), the user shown, the token every form carries, and
one-shot notices."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass, field, replace
from typing import Any

from itsdangerous import BadSignature, URLSafeTimedSerializer

from app.config import Settings

COOKIE = "memory_console"
SIGN_IN_COOKIE = "memory_console_sign_in"  # the token of the sign-in form, before any session
COOKIE_PATH = "/console"
SIGN_IN_MAX_AGE_S = 3600
MAX_NOTICES = 3
MAX_NOTICE_CHARS = 300
_DERIVATION = b"memory-console/session-secret/v1"


def signing_secret(settings: Settings) -> bytes:
    """The setting CONSOLE_SECRET, or a secret derived from the master key (so that several
    instances agree without another setting, and a new master key signs everyone out)."""
    given = settings.console_secret.get_secret_value()
    if given:
        return given.encode()
    master = settings.master_key.get_secret_value().encode()
    return hmac.new(master, _DERIVATION, hashlib.sha256).digest()


def new_token() -> str:
    return secrets.token_urlsafe(32)


@dataclass(frozen=True)
class Session:
    """Who is signed in. `key_id`: the API key signed in with (None for the master key);
    `master`: the fingerprint of the master key signed in with; `user_id`: the user shown
    (the key's owner, or the user an operator views; None until an operator picks one)."""

    user_id: str | None
    key_id: str | None
    master: str | None
    csrf: str
    notices: tuple[str, ...] = field(default=())

    def noting(self, notice: str) -> Session:
        kept = (*self.notices, notice[:MAX_NOTICE_CHARS])[-MAX_NOTICES:]
        return replace(self, notices=kept)

    def as_payload(self) -> dict[str, Any]:
        return {
            "u": self.user_id,
            "k": self.key_id,
            "m": self.master,
            "c": self.csrf,
            "n": list(self.notices),
        }

    @classmethod
    def from_payload(cls, payload: Any) -> Session | None:
        if not isinstance(payload, dict):
            return None
        try:
            return cls(
                user_id=payload["u"],
                key_id=payload["k"],
                master=payload["m"],
                csrf=payload["c"],
                notices=tuple(str(notice) for notice in payload["n"]),
            )
        except (KeyError, TypeError):
            return None


class Cookies:
    """Signs and reads the console's cookies with the signing secret; a cookie older than the
    session's lifetime, or signed with another secret, reads as none."""

    def __init__(self, settings: Settings) -> None:
        secret = signing_secret(settings)
        self._sessions = URLSafeTimedSerializer(secret, salt="memory-console-session")
        self._sign_in = URLSafeTimedSerializer(secret, salt="memory-console-sign-in")
        self._master = settings.master_key.get_secret_value().encode()
        self._secret = secret
        self.max_age_s = int(settings.console_session_hours * 3600)
        self.always_secure = settings.console_cookie_secure

    def master_fingerprint(self) -> str:
        """Names the master key in a session without holding it: a session signed in with a
        master key that has been changed since is no session (even under a set CONSOLE_SECRET)."""
        return hmac.new(self._secret, self._master, hashlib.sha256).hexdigest()[:32]

    def session(self, cookie: str | None) -> Session | None:
        if not cookie:
            return None
        try:
            payload = self._sessions.loads(cookie, max_age=self.max_age_s)
        except BadSignature:  # includes SignatureExpired
            return None
        return Session.from_payload(payload)

    def session_cookie(self, session: Session) -> str:
        return self._sessions.dumps(session.as_payload())

    def sign_in_token(self, cookie: str | None) -> str | None:
        if not cookie:
            return None
        try:
            token = self._sign_in.loads(cookie, max_age=SIGN_IN_MAX_AGE_S)
        except BadSignature:
            return None
        return token if isinstance(token, str) else None

    def sign_in_cookie(self, token: str) -> str:
        return self._sign_in.dumps(token)


def same_token(given: str | None, expected: str) -> bool:
    """Whether a form (or session) carries the expected token; no token matches nothing."""
    if not expected or given is None:
        return False
    return hmac.compare_digest(given.encode(), expected.encode())
