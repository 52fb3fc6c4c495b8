"""Keep-alive connections of the served service (its real HTTP server): a request answered
before its body was read (refused by authentication, or the database is down) tells the client
that the connection closes, so the client's next request never lands on a connection the server
is dropping (it saw "server disconnected without sending a response" under a database outage)."""

from __future__ import annotations

import asyncio
from urllib.parse import urlsplit

import httpx

BODY = b'{"content": "a note the server answers before it reads"}'


async def _head_of_answer(served: str, request: bytes) -> tuple[int, dict[str, str]]:
    """Sends raw bytes on a fresh connection; the answer's status and headers."""
    address = urlsplit(served)
    reader, writer = await asyncio.open_connection(address.hostname, address.port)
    try:
        writer.write(request)
        await writer.drain()
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)
    finally:
        writer.close()
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {
        name.strip().lower(): value.strip()
        for name, _, value in (line.partition(":") for line in lines if line)
    }
    return int(status_line.split()[1]), headers


async def test_an_answer_given_before_the_body_arrived_closes_the_connection(
    served: str,
) -> None:
    # Only the head: the body has not arrived when authentication refuses the key.
    head = (
        b"POST /v1/memories HTTP/1.1\r\nHost: service\r\nAuthorization: Bearer sk-unknown\r\n"
        b"Content-Type: application/json\r\nContent-Length: "
        + str(len(BODY)).encode()
        + b"\r\n\r\n"
    )
    status, headers = await _head_of_answer(served, head)
    assert status == 401
    assert headers.get("connection") == "close"


async def test_answers_to_whole_requests_keep_the_connection_for_the_next(served: str) -> None:
    async with httpx.AsyncClient(base_url=served, timeout=30) as http:
        for _ in range(3):
            answer = await http.post(
                "/v1/memories", content=BODY, headers={"Authorization": "Bearer sk-unknown"}
            )
            assert answer.status_code == 401
            assert answer.headers.get("connection") != "close"
