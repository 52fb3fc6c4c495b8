"""`memory-service export` and `memory-service import` move a user through a running service."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import httpx
import pytest

from tests.conftest import PATIENT_S
from tests.support.machine import REPO
from tests.support.service_process import COMMAND, new_user, running_service

pytestmark = pytest.mark.slow(1)


def _run(*arguments: str, api_key: str, url: str) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "MEMORY_SERVICE_URL": url, "MEMORY_API_KEY": api_key}
    return subprocess.run(
        [*COMMAND, *arguments],
        cwd=REPO,
        env=environment,
        capture_output=True,
        text=True,
        timeout=PATIENT_S,
        check=False,
    )


async def test_export_to_a_file_and_import_it_into_another_user(tmp_path: Path) -> None:
    async with running_service("cli-transfer", tmp_path, SCHEDULER_ENABLED="false") as service:
        url = service.base_url
        async with httpx.AsyncClient(base_url=url, timeout=PATIENT_S) as http:
            (_, source), (_, target) = (
                await new_user(http, "cli-source"),
                await new_user(http, "cli-target"),
            )
            for content in ("Carol rides to work by bike", "Carol's team ships on Mondays"):
                stored = await http.post(
                    "/v1/memories",
                    json={"content": content},
                    headers={"Authorization": f"Bearer {source}"},
                )
                assert stored.status_code == 201, stored.text

        path = tmp_path / "carol.jsonl"
        exported = _run("export", "-o", str(path), api_key=source, url=url)
        assert exported.returncode == 0, exported.stderr
        assert "exporting" in exported.stderr  # the progress bar
        lines = [json.loads(line) for line in path.read_text().splitlines()]
        assert lines[0]["kind"] == "header" and lines[-1]["kind"] == "end"

        imported = _run("import", str(path), api_key=target, url=url)
        assert imported.returncode == 0, imported.stderr
        assert "importing" in imported.stderr
        assert json.loads(imported.stdout)["imported"]["memories"] == 2
        again = _run("import", str(path), api_key=target, url=url)
        assert again.returncode == 0, again.stderr
        assert json.loads(again.stdout)["imported"]["memories"] == 0

        # The target's own export, to stdout, holds Carol's memories now.
        shown = _run("export", api_key=target, url=url)
        assert shown.returncode == 0, shown.stderr
        contents = {
            record["props"]["content"]
            for record in map(json.loads, shown.stdout.splitlines())
            if record["kind"] == "memory"
        }
        assert contents == {"Carol rides to work by bike", "Carol's team ships on Mondays"}

        broken = tmp_path / "broken.jsonl"
        broken.write_text(path.read_text().replace('"kind":"end"', '"kind":"ending"'))
        refused = _run("import", str(broken), api_key=target, url=url)
        assert refused.returncode == 1 and "422" in refused.stderr
