"""Fixtures of the integration tests: service processes started for a test and gone after it.

(The driver on the test database, `neo4j_driver`, which these tests share with the HTTP tests,
is in tests/conftest.py.)"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.support.service_process import ServiceProcess, start_service

StartService = Callable[..., ServiceProcess]


@pytest.fixture
def service_processes(tmp_path: Path) -> Iterator[StartService]:
    """Starts `memory-service serve` processes (instance id, then extra environment as keyword
    arguments; not yet ready), each logging into the test's folder; kills those still running
    when the test is done."""
    started: list[ServiceProcess] = []

    def start(instance_id: str, **env: str) -> ServiceProcess:
        service = start_service(instance_id, tmp_path, **env)
        started.append(service)
        return service

    yield start
    for service in started:
        service.kill()
