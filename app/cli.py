"""The `memory-service` command: run the service, issue keys, and maintenance tasks."""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
from collections.abc import Iterator
from importlib import metadata
from typing import BinaryIO

import httpx
from pydantic import ValidationError
from tqdm import tqdm

from app.config import Settings

DEFAULT_URL = "http://127.0.0.1:8000"
GRACEFUL_TIMEOUT_S = 10  # for the requests in flight when asked to stop


def _settings() -> Settings:
    """The settings from the environment, or exit 2 with what is wrong, named by variable."""
    try:
        return Settings()
    except ValidationError as error:
        for problem in error.errors():
            variable = ".".join(str(part) for part in problem["loc"]).upper()
            print(f"{variable}: {problem['msg'].removeprefix('Value error, ')}", file=sys.stderr)
        sys.exit(2)


async def _reembed() -> int:
    # Imported by the commands that need them: the others only call a running service.
    from app.registry import Registry
    from app.services import reembed

    registry = Registry.build(_settings())
    try:
        with tqdm(unit="memory", desc="re-embedding") as bar:

            def progress(done: int, total: int) -> None:
                bar.total = total
                bar.update(done - bar.n)

            return await reembed.reembed(registry, progress)
    finally:
        await registry.close()


async def _serve(host: str, port: int) -> None:
    """The service until SIGINT or SIGTERM, then a graceful stop."""
    from app.composition import create_app
    from app.server import LifespanFailed, serve

    settings = _settings()
    app = create_app(settings)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signal_number in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signal_number, stop.set)
    try:
        await serve(app, host, port, stop.wait, GRACEFUL_TIMEOUT_S, server=settings.server)
    except LifespanFailed as error:
        print(f"the service stopped: {error}", file=sys.stderr)
        sys.exit(1)


def _create_key(url: str, user_id: str, name: str) -> int:
    """Asks the service for a new key of the user with the master key; prints the raw key."""
    master_key = os.environ.get("MASTER_KEY", "")
    if not master_key:
        print("MASTER_KEY must be set to issue keys", file=sys.stderr)
        return 2
    try:
        response = httpx.post(
            f"{url.rstrip('/')}/auth/keys",
            json={"user_id": user_id, "name": name},
            headers={"Authorization": f"Bearer {master_key}"},
            timeout=30,
        )
    except httpx.HTTPError as error:
        print(f"the service at {url} did not answer: {error}", file=sys.stderr)
        return 1
    if response.status_code != 201:
        print(f"{response.status_code}: {response.text}", file=sys.stderr)
        return 1
    print(response.json()["raw_key"])
    return 0


def _mcp(url: str) -> int:
    """MCP on stdio, each tool call a REST request to the service with MEMORY_API_KEY."""
    from app.mcp import stdio

    api_key = _user_key()
    if not api_key:
        return 2
    asyncio.run(stdio.serve(url, api_key))
    return 0


def _service_url(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--url",
        default=os.environ.get("MEMORY_SERVICE_URL", DEFAULT_URL),
        help="the running service (MEMORY_SERVICE_URL)",
    )


def _user_key() -> str:
    """The user's API key for mcp, export and import (empty, with a message, when unset)."""
    api_key = os.environ.get("MEMORY_API_KEY", "")
    if not api_key:
        print("MEMORY_API_KEY must be set to the user's API key", file=sys.stderr)
    return api_key


def _export(url: str, output: str | None) -> int:
    """Streams GET /v1/export into `output` (written whole or not at all) or stdout, counting
    lines on stderr."""
    api_key = _user_key()
    if not api_key:
        return 2
    if output is None:
        return _stream_export(url, api_key, sys.stdout.buffer)
    partial = f"{output}.part"
    with open(partial, "wb") as target:
        status = _stream_export(url, api_key, target)
    if status == 0:
        os.replace(partial, output)
    else:
        os.remove(partial)
    return status


def _stream_export(url: str, api_key: str, target: BinaryIO) -> int:
    """Writes the export to `target`; fails when the stream does not end with its end line."""
    tail = b""  # the end of the stream, where its end line is
    try:
        with (
            httpx.stream(
                "GET",
                f"{url.rstrip('/')}/v1/export",
                headers={"Authorization": f"Bearer {api_key}"},
                timeout=httpx.Timeout(30.0, read=None),
            ) as response,
            tqdm(unit=" lines", desc="exporting", file=sys.stderr) as bar,
        ):
            if response.status_code != 200:
                response.read()
                print(f"{response.status_code}: {response.text}", file=sys.stderr)
                return 1
            for chunk in response.iter_bytes():
                target.write(chunk)
                bar.update(chunk.count(b"\n"))
                tail = (tail + chunk)[-4096:]
    except httpx.HTTPError as error:
        print(f"the service at {url} did not answer: {error}", file=sys.stderr)
        return 1
    if b'"kind":"end"' not in tail.rstrip(b"\n").rsplit(b"\n", 1)[-1]:
        print("the export was cut short: run it again", file=sys.stderr)
        return 1
    return 0


def _import(url: str, path: str) -> int:
    """Uploads a file to POST /v1/import as it is read, counting bytes on stderr; prints the
    report (or the service's answer and the bad lines)."""
    api_key = _user_key()
    if not api_key:
        return 2
    try:
        size = os.path.getsize(path)
        with (
            open(path, "rb") as source,
            tqdm(total=size, unit="B", unit_scale=True, desc="importing", file=sys.stderr) as bar,
        ):

            def chunks() -> Iterator[bytes]:
                while chunk := source.read(1 << 20):
                    bar.update(len(chunk))
                    yield chunk

            response = httpx.post(
                f"{url.rstrip('/')}/v1/import",
                content=chunks(),
                headers={
                    "Authorization": f"Bearer {api_key}",
                    "Content-Type": "application/x-ndjson",
                    "Content-Length": str(size),
                },
                timeout=httpx.Timeout(30.0, read=None),
            )
    except OSError as error:
        print(f"cannot read {path}: {error}", file=sys.stderr)
        return 2
    except httpx.HTTPError as error:
        print(f"the service at {url} did not answer: {error}", file=sys.stderr)
        return 1
    if response.status_code != 200:
        print(f"{response.status_code}: {response.text}", file=sys.stderr)
        return 1
    print(response.text)
    return 0


def parser() -> argparse.ArgumentParser:
    main_parser = argparse.ArgumentParser(prog="memory-service", description=__doc__)
    commands = main_parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser(
        "serve", help="run the service (settings from the environment, see the README)"
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on")
    serve.add_argument(
        "--port", type=int, default=os.environ.get("PORT", "8000"), help="port (PORT)"
    )
    mcp = commands.add_parser(
        "mcp",
        help="serve MCP on stdio for a desktop agent, calling a running service with "
        "MEMORY_API_KEY",
    )
    _service_url(mcp)
    keys = commands.add_parser("keys", help="API keys")
    key_commands = keys.add_subparsers(dest="keys_command", required=True)
    create = key_commands.add_parser(
        "create", help="issue a key for a user through a running service (uses MASTER_KEY)"
    )
    create.add_argument("user_id", help="the user the key acts for")
    create.add_argument("--name", default="cli", help="a name for the key")
    _service_url(create)
    commands.add_parser(
        "reembed",
        help="re-encode every memory with EMBEDDING_MODEL and recreate the vector index "
        "(resumable: run it again after an interruption)",
    )
    export = commands.add_parser(
        "export",
        help="write the user's memories, history, entities, feedback, snapshots and branches "
        "as JSON Lines, through a running service with MEMORY_API_KEY",
    )
    export.add_argument("-o", "--output", help="the file to write (default: stdout)")
    _service_url(export)
    import_ = commands.add_parser(
        "import",
        help="load a file of `export` into the user of MEMORY_API_KEY (a new user, or one "
        "holding only this file's data), through a running service",
    )
    import_.add_argument("file", help="a file written by `memory-service export`")
    _service_url(import_)
    commands.add_parser("version", help="print the service's version")
    return main_parser


def main(argv: list[str] | None = None) -> None:
    arguments = parser().parse_args(argv)
    if arguments.command == "serve":
        asyncio.run(_serve(arguments.host, arguments.port))
    elif arguments.command == "mcp":
        sys.exit(_mcp(arguments.url))
    elif arguments.command == "keys":
        sys.exit(_create_key(arguments.url, arguments.user_id, arguments.name))
    elif arguments.command == "export":
        sys.exit(_export(arguments.url, arguments.output))
    elif arguments.command == "import":
        sys.exit(_import(arguments.url, arguments.file))
    elif arguments.command == "reembed":
        count = asyncio.run(_reembed())
        print(f"re-embedded {count} memory nodes")
    else:
        print(metadata.version("memory-service"))


if __name__ == "__main__":
    main()
