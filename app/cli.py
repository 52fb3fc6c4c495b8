"""The `memory-service` command: maintenance tasks run against the configured Neo4j."""

from __future__ import annotations

import argparse
import asyncio

from tqdm import tqdm

from app.config import Settings
from app.registry import Registry
from app.services import reembed


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


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="memory-service", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser(
        "reembed",
        help="re-encode every memory with EMBEDDING_MODEL and recreate the vector index "
        "(resumable: run it again after an interruption)",
    )
    arguments = parser.parse_args(argv)
    if arguments.command == "reembed":
        count = asyncio.run(_reembed())
        print(f"re-embedded {count} memory nodes")


if __name__ == "__main__":
    main()
