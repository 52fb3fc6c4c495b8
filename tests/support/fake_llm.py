"""A small OpenAI-compatible chat-completions server on 127.0.0.1 for tests.

It answers POST <prefix>/chat/completions with one canned assistant message and records every
request it receives. It runs in a thread, so it serves while the test's event loop waits on
the service that calls it. No model is involved: the canned answer is what the test sets.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Recorded:
    """One request the fake LLM received."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any


class FakeLlm:
    """Start it, point LLM_BASE_URL at `base_url`, set `reply`; read `requests` afterwards.

    `reply` is the assistant message content: a dict or list is sent as its JSON text, a str
    as it is (so a test can send garbage). `status` other than 200 answers with an error body.
    `delay_s` holds every answer back that long (a slow or timing-out LLM).
    """

    def __init__(self) -> None:
        self.reply: Any = {"facts": []}
        self.status = 200
        self.delay_s = 0.0
        self.requests: list[Recorded] = []
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        assert self._server is not None, "not started"
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> FakeLlm:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    body: Any = json.loads(raw)
                except ValueError:
                    body = raw.decode("utf-8", "replace")
                with fake._lock:
                    fake.requests.append(
                        Recorded("POST", self.path, dict(self.headers.items()), body)
                    )
                    reply, status, delay_s = fake.reply, fake.status, fake.delay_s
                if delay_s:
                    time.sleep(delay_s)
                if self.path.rstrip("/") != "/v1/chat/completions":
                    self._send(404, {"error": {"message": f"no route {self.path}"}})
                elif status != 200:
                    self._send(status, {"error": {"message": "fake failure"}})
                else:
                    content = reply if isinstance(reply, str) else json.dumps(reply)
                    model = body.get("model", "fake") if isinstance(body, dict) else "fake"
                    self._send(200, completion(content, model))

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                # A client that gave up waiting (a timeout test) has closed the connection.
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                return

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="fake-llm", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    async def asked(self, seen: int, timeout_s: float = 10.0) -> None:
        """Waits until more than `seen` requests came in: the service now waits for an answer
        (held back `delay_s`), so a test can change things meanwhile."""
        deadline = time.monotonic() + timeout_s
        while len(self.requests) <= seen:
            if time.monotonic() > deadline:
                raise AssertionError(f"the LLM was not asked within {timeout_s}s")
            await asyncio.sleep(0.02)

    def clear(self) -> None:
        with self._lock:
            self.requests.clear()
        self.reply, self.status, self.delay_s = {"facts": []}, 200, 0.0


def completion(content: str, model: str) -> dict[str, Any]:
    """A chat.completion object with one assistant message."""
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
    }
