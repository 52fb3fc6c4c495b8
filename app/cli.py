"""The `memory-service` command: run the service, issue keys, and maintenance tasks."""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
from importlib import metadata

import httpx
from tqdm import tqdm

from app.config import Settings
from app.registry import Registry
from app.services import reembed

DEFAULT_URL = "http://127.0.0.1:8000"


async def _reembed() -> int:
    registry = Registry.build(Settings())
    try:
        with tqdm(unit="memory", desc="re-embedding") as bar:

            def progress(done: int, total: int) -> None:
                bar.total = total
                bar.update(done - bar.n)

            return await reembed.reembed(registry, progress)
    finally:
        await registry.close()


async def _serve(host: str, port: int) -> None:
    """hypercorn on the app until SIGINT or SIGTERM, then a graceful stop."""
    from hypercorn.asyncio import serve
    from hypercorn.config import Config

    from app import create_app

    config = Config()
    config.bind = [f"{host}:{port}"]
    config.graceful_timeout = 10
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signal_number in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signal_number, stop.set)
    await serve(create_app(), config, shutdown_trigger=stop.wait)


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


def parser() -> argparse.ArgumentParser:
    main_parser = argparse.ArgumentParser(prog="memory-service", description=__doc__)
    commands = main_parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser(
        "serve", help="run the service (settings from the environment, see the README)"
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on")
    serve.add_argument(
        "--port", type=int, default=int(os.environ.get("PORT", "8000")), help="port (PORT)"
    )
    keys = commands.add_parser("keys", help="API keys")
    key_commands = keys.add_subparsers(dest="keys_command", required=True)
    create = key_commands.add_parser(
        "create", help="issue a key for a user through a running service (uses MASTER_KEY)"
    )
    create.add_argument("user_id", help="the user the key acts for")
    create.add_argument("--name", default="cli", help="a name for the key")
    create.add_argument(
        "--url",
        default=os.environ.get("MEMORY_SERVICE_URL", DEFAULT_URL),
        help="the service (MEMORY_SERVICE_URL)",
    )
    commands.add_parser(
        "reembed",
        help="re-encode every memory with EMBEDDING_MODEL and recreate the vector index "
        "(resumable: run it again after an interruption)",
    )
    commands.add_parser("version", help="print the service's version")
    return main_parser


def main(argv: list[str] | None = None) -> None:
    arguments = parser().parse_args(argv)
    if arguments.command == "serve":
        asyncio.run(_serve(arguments.host, arguments.port))
    elif arguments.command == "keys":
        sys.exit(_create_key(arguments.url, arguments.user_id, arguments.name))
    elif arguments.command == "reembed":
        count = asyncio.run(_reembed())
        print(f"re-embedded {count} memory nodes")
    else:
        print(metadata.version("memory-service"))


if __name__ == "__main__":
    main()
