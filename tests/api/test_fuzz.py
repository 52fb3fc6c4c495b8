"""Schemathesis fuzzing of the whole API, as a user's key and the master key, on a real process."""

from __future__ import annotations

import os
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
import pytest_asyncio
import schemathesis
from schemathesis import Case, CheckContext, Response
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_schema_conformance,
    status_code_conformance,
)

from app import create_app
from app.errors import NO_LLM
from tests.conftest import MASTER, PATIENT_S, STARTUP_TIMEOUT_S, User, make_settings
from tests.support.embedders import no_embedder
from tests.support.http import bearer
from tests.support.service_process import ServiceProcess, start_service

pytestmark = pytest.mark.slow(2)

# Cases per operation and identity in the random (fuzzing) phase, valid and invalid inputs; the
# coverage phase adds a fixed set of boundary and wrong-type cases (about 3,300 in all).
MAX_EXAMPLES = int(os.environ.get("FUZZ_MAX_EXAMPLES", "6"))
REQUEST_TIMEOUT_S = PATIENT_S  # a guard: a slow answer is no finding


def error_body(ctx: CheckContext, response: Response, case: Case) -> None:
    """Every error is {"detail": "<string>"}; a 422 may add a list of field problems."""
    if response.status_code < 400:
        return
    body = response.json()
    assert isinstance(body, dict), f"error body is not an object: {response.text[:200]}"
    assert isinstance(body.get("detail"), str), f"no string detail: {response.text[:200]}"
    assert body["detail"], "empty detail"


def no_server_error(ctx: CheckContext, response: Response, case: Case) -> None:
    """No 5xx, except the 503 the spec asks of an LLM feature when no LLM is configured (the
    fuzzed service has none)."""
    if response.status_code == 503 and NO_LLM in str(response.json().get("detail")):
        return
    not_a_server_error(ctx, response, case)


CHECKS = [
    no_server_error,
    error_body,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    negative_data_rejection,
]


@dataclass
class Tally:
    """What the fuzzing sent and got back, printed at the end of the module."""

    cases: Counter[str] = field(default_factory=Counter)
    statuses: Counter[int] = field(default_factory=Counter)
    failed: int = 0

    def summary(self) -> str:
        # 503 is what an LLM feature answers without an LLM (no_server_error checks each).
        server_errors = sum(
            n for status, n in self.statuses.items() if status >= 500 and status != 503
        )
        by_status = ", ".join(f"{status}: {n}" for status, n in sorted(self.statuses.items()))
        return (
            f"fuzz: {sum(self.cases.values())} cases ({dict(self.cases)}), "
            f"{server_errors} 5xx (503 without an LLM aside), {self.failed} failing checks; "
            f"statuses {by_status}"
        )


@pytest.fixture(scope="module")
def tally(request: pytest.FixtureRequest) -> Iterator[Tally]:
    found = Tally()
    yield found
    plugins = request.config.pluginmanager
    with plugins.get_plugin("capturemanager").global_and_fixture_disabled():
        plugins.get_plugin("terminalreporter").write_line(found.summary())


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def service(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[ServiceProcess]:
    process = start_service("fuzz", tmp_path_factory.mktemp("fuzz"), SCHEDULER_ENABLED="false")
    try:
        await process.wait_ready(STARTUP_TIMEOUT_S)
        yield process
    finally:
        process.terminate()


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def fuzz_user(service: ServiceProcess) -> User:
    user_id = f"fuzz-{uuid.uuid4().hex[:12]}"
    async with httpx.AsyncClient(base_url=service.base_url) as http:
        response = await http.post(
            "/auth/keys", json={"user_id": user_id, "name": "fuzz"}, headers=MASTER
        )
    assert response.status_code == 201, response.text
    body = response.json()
    return User(user_id=user_id, key_id=body["key_id"], raw_key=body["raw_key"])


def _exercise(
    case: Case, service: ServiceProcess, headers: dict[str, str], tally: Tally, identity: str
) -> None:
    response = case.call(base_url=service.base_url, headers=headers)
    tally.cases[identity] += 1
    tally.statuses[response.status_code] += 1
    try:
        case.validate_response(response, checks=CHECKS, headers=headers)
    except BaseExceptionGroup:  # how schemathesis reports the failed checks
        tally.failed += 1
        raise


def _served_document() -> dict[str, Any]:
    """What /openapi.json serves, from an app that is built but not started.

    Built at import because pytest parametrizes by operation at collection time (schemathesis's
    from_fixture loader, which would load it from the running service, fails on pytest 9.2).
    """
    app = create_app(make_settings(), embedder=no_embedder())
    document: dict[str, Any] = app.extensions["QUART_SCHEMA"].openapi_provider.schema()
    return document


schema = schemathesis.openapi.from_dict(
    _served_document(),
    config=schemathesis.Config.from_dict(
        {
            "seed": 9,  # the same cases on every run: CI fails only when the code changes
            "request-timeout": REQUEST_TIMEOUT_S,
            # The credentials are the test's own (an API key, the master key): the document's
            # bearer scheme is not a parameter to generate.
            "generation": {
                "mode": "all",
                "max-examples": MAX_EXAMPLES,
                "with-security-parameters": False,
            },
            "phases": {
                "examples": {"enabled": False},
                # A method a path does not serve is refused by one handler: one such method per
                # path shows it (all eight of them sent 600 requests that found nothing more).
                "coverage": {"enabled": True, "unexpected-methods": ["PATCH"]},
                "stateful": {"enabled": False},
            },
        }
    ),
)


# An API key gets 403 on the master's routes whatever the input: its cases go elsewhere.
@schema.exclude(path_regex="^/admin/").exclude(method="POST", path="/auth/keys").parametrize()
def test_fuzz_as_an_api_key(
    case: Case, service: ServiceProcess, fuzz_user: User, tally: Tally
) -> None:
    _exercise(case, service, bearer(fuzz_user.raw_key), tally, "api key")


@schema.parametrize()
def test_fuzz_as_the_master_key(
    case: Case, service: ServiceProcess, fuzz_user: User, tally: Tally
) -> None:
    _exercise(case, service, {**MASTER, "X-User-Id": fuzz_user.user_id}, tally, "master key")
