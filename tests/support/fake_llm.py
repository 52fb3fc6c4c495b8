"""A small OpenAI-compatible chat-completions server on 127.0.0.1 for tests.

It answers POST <prefix>/chat/completions with one canned assistant message and records every
request it receives. It runs in a thread, so it serves while the test's event loop waits on
the service that calls it. No model is involved: the canned answer is what the test sets.
"""

from __future__ import annotations

import contextlib
import json
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.support.waiting import wait_for

HOLD_GUARD_S = 300.0  # how long a held answer waits at most for release()


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
    `hold()` keeps every answer back until `release()` (an LLM that is slow, or times out): a
    test changes things while the service waits, or lets a time limit of the service run out,
    without racing a clock.
    """

    def __init__(self) -> None:
        self.reply: Any = {"facts": []}
        self.status = 200
        self._released = threading.Event()
        self._released.set()
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
                    reply, status = fake.reply, fake.status
                # A guard only: a test releases what it holds (clear() does, at the latest).
                fake._released.wait(timeout=HOLD_GUARD_S)
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

    def hold(self) -> None:
        """Answers from now on wait until release()."""
        self._released.clear()

    def release(self) -> None:
        """Sends the answers held back, and every later one at once."""
        self._released.set()

    async def asked(self, seen: int, timeout_s: float = 60.0) -> None:
        """Waits until more than `seen` requests came in: the service now waits for an answer
        (held back by hold()), so a test can change things meanwhile."""

        async def more() -> bool:
            return len(self.requests) > seen

        await wait_for(f"request {seen + 1} to the LLM", more, timeout_s)

    def clear(self) -> None:
        self.release()
        with self._lock:
            self.requests.clear()
        self.reply, self.status = {"facts": []}, 200


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
