"""A freshly started service, as its own process: the first request that writes Chinese does not
hold up the requests beside it (the segmenter's dictionary is loaded at startup, off the event
loop)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import httpx

from tests.support.service_process import new_user, running_service

# Loading jieba's dictionary blocks for about half a second; a liveness probe answers in a few
# milliseconds.
HELD_UP_S = 0.3


async def test_the_first_chinese_write_does_not_hold_up_other_requests(tmp_path: Path) -> None:
    async with running_service("first-requests", tmp_path, SCHEDULER_ENABLED="false") as service:
        async with httpx.AsyncClient(base_url=service.base_url, timeout=60) as http:
            _, raw_key = await new_user(http, "first")
            headers = {"Authorization": f"Bearer {raw_key}"}
            english = await http.post(
                "/v1/memories", json={"content": "Maria leads the billing team."}, headers=headers
            )
            assert english.status_code == 201, english.text
            chinese = asyncio.ensure_future(
                http.post(
                    "/v1/memories",
                    json={"content": "王芳负责计费团队。计费团队维护 invoice-api。"},
                    headers=headers,
                )
            )
            probes: list[float] = []
            while not chinese.done():
                began = time.perf_counter()
                alive = await http.get("/health")
                assert alive.status_code == 200
                probes.append(time.perf_counter() - began)
                await asyncio.sleep(0.005)
            assert (await chinese).status_code == 201
        assert probes and max(probes) < HELD_UP_S, (max(probes), service.log_tail())
