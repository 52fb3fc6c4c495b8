"""What the tests know of the machine they run on: the repository's folder and free ports."""

from __future__ import annotations

import socket
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def free_port() -> int:
    """A TCP port nothing listens on right now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def free_ports(count: int) -> list[int]:
    """`count` distinct ports nothing listens on right now (for servers that start together)."""
    ports: list[int] = []
    while len(ports) < count:
        port = free_port()
        if port not in ports:
            ports.append(port)
    return ports


if __name__ == "__main__":
    # scripts/test.sh: `python -m tests.support.machine N` prints N free ports, two per line.
    import sys

    found = free_ports(int(sys.argv[1]))
    for bolt, http in zip(found[::2], found[1::2], strict=True):
        print(bolt, http)
