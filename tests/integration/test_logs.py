"""The service's log, read from a real `memory-service serve` process: one JSON object per line;
each request logged with its X-Request-Id, route, user, status and duration; and nothing a user
wrote, no raw key and no embedding anywhere in it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx
import pytest

from tests.conftest import PATIENT_S
from tests.support.service_process import new_user, running_service

pytestmark = pytest.mark.slow(0.5)

SECRETS = ("Wombat-5521", "护照号码", "E1234567")
# Four or more decimals in a row: a piece of an embedding.
VECTOR = re.compile(r"-?0\.\d{5,}\s*,\s*-?0\.\d{5,}\s*,\s*-?0\.\d{5,}")


async def test_the_log_is_json_lines_with_request_ids_and_no_content(tmp_path: Path) -> None:
    async with running_service("logs", tmp_path, SCHEDULER_ENABLED="false") as service:
        async with httpx.AsyncClient(base_url=service.base_url, timeout=PATIENT_S) as http:
            user_id, raw_key = await new_user(http, "log-reader")
            user = {"Authorization": f"Bearer {raw_key}"}
            stored = await http.post(
                "/v1/memories",
                json={"content": "Wombat-5521 的护照号码是 E1234567。"},
                headers={**user, "X-Request-Id": "store-1"},
            )
            assert stored.status_code == 201, stored.text
            found = await http.post(
                "/v1/memories/retrieve", json={"query": "Wombat-5521 护照号码"}, headers=user
            )
            assert found.status_code == 200
            wrong = await http.post("/v1/memories", json={"content": 5}, headers=user)
            assert wrong.status_code == 422
            outsider = await http.get("/v1/memories", headers={"Authorization": "Bearer sk-nope"})
            assert outsider.status_code == 401
        assert service.terminate(timeout_s=PATIENT_S) == 0, service.log_tail()

    text = service.log_path.read_text(encoding="utf-8")
    entries = [json.loads(line) for line in text.splitlines() if line.strip()]  # all JSON
    requests = {entry.get("request_id"): entry for entry in entries if "status" in entry}
    store = requests["store-1"]
    assert store["route"] == "/v1/memories"
    assert store["user_id"] == user_id
    assert store["status"] == 201 and store["method"] == "POST"
    assert store["duration_ms"] > 0
    retrieve = requests[found.headers["X-Request-Id"]]
    assert retrieve["route"] == "/v1/memories/retrieve" and retrieve["status"] == 200
    assert requests[wrong.headers["X-Request-Id"]]["status"] == 422
    assert requests[outsider.headers["X-Request-Id"]]["user_id"] is None
    for secret in (*SECRETS, raw_key, "sk-nope"):
        assert secret not in text
    assert not VECTOR.search(text)
