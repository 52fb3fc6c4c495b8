"""The console's session cookie: what it names, how long it holds, and what unmakes it."""

from __future__ import annotations

from typing import Any

import pytest

from app.config import Settings
from app.console.session import MAX_NOTICES, Cookies, Session, same_token, signing_secret

MASTER = "a-master-key-of-sixteen-chars-or-more"


def _settings(**overrides: Any) -> Settings:
    return Settings(master_key=overrides.pop("master_key", MASTER), **overrides)


SESSION = Session(user_id="ann", key_id="key-1", master=None, csrf="token-1")


def test_a_session_reads_back_as_it_was_signed() -> None:
    cookies = Cookies(_settings())
    assert cookies.session(cookies.session_cookie(SESSION)) == SESSION


def test_a_tampered_cookie_reads_as_no_session() -> None:
    cookies = Cookies(_settings())
    signed = cookies.session_cookie(SESSION)
    forged = Cookies(_settings(master_key="another-master-key-0123456789"))
    for cookie in (
        signed[:-2] + ("aa" if not signed.endswith("aa") else "bb"),
        forged.session_cookie(Session("mallory", "key-2", None, "t")),
        "not a cookie",
        "",
    ):
        assert cookies.session(cookie) is None


def test_a_new_master_key_signs_everyone_out() -> None:
    before = Cookies(_settings())
    after = Cookies(_settings(master_key="the-master-key-was-rotated"))
    assert after.session(before.session_cookie(SESSION)) is None
    assert before.master_fingerprint() != after.master_fingerprint()


def test_a_set_console_secret_signs_and_the_master_key_is_still_checked() -> None:
    secret = "s" * 40
    before = Cookies(_settings(console_secret=secret))
    after = Cookies(_settings(console_secret=secret, master_key="the-master-key-was-rotated"))
    assert signing_secret(_settings(console_secret=secret)) == secret.encode()
    assert after.session(before.session_cookie(SESSION)) == SESSION  # key sessions hold
    assert before.master_fingerprint() != after.master_fingerprint()  # master sessions do not


def test_the_derived_secret_is_not_the_master_key() -> None:
    derived = signing_secret(_settings())
    assert MASTER.encode() not in derived and len(derived) == 32


def test_a_short_console_secret_is_refused() -> None:
    with pytest.raises(ValueError, match="32 characters"):
        _settings(console_secret="too-short")


def test_an_expired_session_reads_as_none() -> None:
    cookies = Cookies(_settings(console_session_hours=1))
    signed = cookies.session_cookie(SESSION)
    cookies.max_age_s = -1  # as if the hour had passed
    assert cookies.session(signed) is None


def test_notices_are_kept_short_and_few() -> None:
    session = SESSION
    for number in range(MAX_NOTICES + 2):
        session = session.noting(f"notice {number} " + "x" * 1000)
    assert len(session.notices) == MAX_NOTICES
    assert session.notices[-1].startswith(f"notice {MAX_NOTICES + 1}")
    assert all(len(notice) <= 300 for notice in session.notices)


def test_no_token_matches_nothing() -> None:
    assert same_token("abc", "abc")
    assert not same_token("", "")
    assert not same_token(None, "abc")
    assert not same_token("abd", "abc")
