"""How long a sync session summary takes to fail against an LLM that hangs or errs, against its
bound LLM_TIMEOUT_S + 1 s (the deadline covers the whole request, retries included).

The service runs as its own process (`serve`, as deployed) with its LLM pointed at the tests'
stand-in OpenAI-compatible server on loopback (tests/support/fake_llm.py), set to hang, to
answer HTTP 500, to refuse structured outputs, or to answer at once. Figures are printed, not
asserted. About 2 minutes.
"""

from __future__ import annotations

import sys
import time
import uuid

import httpx
from common import (
    MASTER_KEY,
    ROOT,
    code_state,
    load_line,
    log,
    median,
    neo4j_database,
    service_process,
    table,
    verdict,
)

sys.path.insert(0, str(ROOT))  # the tests' stand-in LLM and session
from tests.support.fake_llm import FakeLlm
from tests.support.summaries import FULL, SESSION

CONFIGS = [(3.0, 2), (10.0, 2)]  # (LLM_TIMEOUT_S, LLM_MAX_RETRIES)
HANGING_RUNS = 3
SLACK_S = 1.0


def _user(http: httpx.Client) -> dict[str, str]:
    user_id = f"bench-llm-{uuid.uuid4().hex[:8]}"
    issued = http.post(
        "/auth/keys",
        json={"user_id": user_id, "name": "bench"},
        headers={"Authorization": f"Bearer {MASTER_KEY}"},
    )
    issued.raise_for_status()
    headers = {"Authorization": f"Bearer {issued.json()['raw_key']}"}
    for text in SESSION:
        stored = http.post(
            "/v1/memories", json={"content": text, "session_id": "deploy"}, headers=headers
        )
        stored.raise_for_status()
    return headers


def _summary(http: httpx.Client, headers: dict[str, str]) -> tuple[int, float, str]:
    started = time.perf_counter()
    response = http.post(
        "/v1/sessions/deploy/summary", json={"mode": "full", "sync": True}, headers=headers
    )
    seconds = time.perf_counter() - started
    detail = response.json().get("detail", "") if response.status_code != 200 else ""
    return response.status_code, seconds, detail


def main() -> None:
    print(code_state())
    print(load_line("at start"))
    fake = FakeLlm().start()
    rows = []
    details = set()
    try:
        with neo4j_database(heap="1g", pagecache="256m") as database:
            for timeout_s, retries in CONFIGS:
                env = {
                    "LLM_API_KEY": "bench",
                    "LLM_BASE_URL": fake.base_url,
                    "LLM_TIMEOUT_S": str(timeout_s),
                    "LLM_MAX_RETRIES": str(retries),
                }
                with (
                    service_process(database.uri, env=env) as service,
                    httpx.Client(base_url=service.base_url, timeout=120) as http,
                ):
                    bound = timeout_s + SLACK_S
                    cases: list[tuple[str, dict[str, object]]] = [
                        *(("hanging", {}) for _ in range(HANGING_RUNS)),
                        ("HTTP 500", {"status": 500}),
                        ("json_schema refused", {"refused": {"json_schema"}, "reply": FULL}),
                        ("correct", {"reply": FULL}),
                    ]
                    timings: dict[str, list[float]] = {}
                    statuses: dict[str, set[int]] = {}
                    asked: dict[str, int] = {}
                    for name, setup in cases:
                        fake.clear()
                        for attribute, value in setup.items():
                            setattr(fake, attribute, value)
                        if name == "hanging":
                            fake.hold()  # answers only when cleared, after the summary gave up
                        headers = _user(http)
                        log(f"LLM_TIMEOUT_S={timeout_s:g} retries={retries}: {name}")
                        status, seconds, detail = _summary(http, headers)
                        timings.setdefault(name, []).append(seconds)
                        statuses.setdefault(name, set()).add(status)
                        asked[name] = len(fake.requests)
                        if detail:
                            details.add(detail)
                    fake.clear()
                    for name, seconds in timings.items():
                        worst = max(seconds)
                        rows.append(
                            [
                                name,
                                f"{timeout_s:g}",
                                retries,
                                "/".join(str(s) for s in sorted(statuses[name])),
                                median(seconds),
                                worst,
                                bound,
                                worst / bound,
                                verdict(worst, bound, higher_is_better=False),
                                asked[name],
                            ]
                        )
    finally:
        fake.stop()
    print(
        table(
            "Sync full summary against the stand-in LLM (seconds; bound = LLM_TIMEOUT_S + 1 s)",
            [
                "LLM answers",
                "LLM_TIMEOUT_S",
                "retries",
                "status",
                "median s",
                "max s",
                "bound s",
                "max/bound",
                "within",
                "LLM requests",
            ],
            rows,
        )
    )
    print("\nWhat the 503s said:")
    for detail in sorted(details):
        print(f"  {detail}")
    print(load_line("at end"))


if __name__ == "__main__":
    main()
