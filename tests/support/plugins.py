"""Signed plugin packages for tests: Ed25519 keys, manifests with the sha256 of every file,
signed over the canonical manifest as a publisher would."""

from __future__ import annotations

import base64
import hashlib
import json
import uuid
from dataclasses import dataclass, field
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from quart.typing import TestClientProtocol

from tests.conftest import MASTER


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


@dataclass
class Publisher:
    """A signer: its name and key pair."""

    name: str = field(default_factory=lambda: f"signer-{uuid.uuid4().hex[:8]}")
    key: Ed25519PrivateKey = field(default_factory=Ed25519PrivateKey.generate)

    @property
    def public_key(self) -> str:
        return b64(self.key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw))

    def manifest(
        self,
        name: str,
        version: str,
        files: dict[str, bytes],
        *,
        capabilities: list[str] | None = None,
        compatible: str = ">=0.1.0,<1.0.0",
        config: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """A signed manifest for the files."""
        manifest: dict[str, Any] = {
            "name": name,
            "version": version,
            "capabilities": capabilities or ["retrieval.rerank"],
            "compatible": compatible,
            "files": {path: hashlib.sha256(content).hexdigest() for path, content in files.items()},
            "signer": self.name,
            "config": config or {"ranking": {"vector_weight": 0.9}},
        }
        canonical = json.dumps(manifest, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        manifest["signature"] = b64(self.key.sign(canonical.encode()))
        return manifest

    def package(self, name: str, version: str = "1.0.0", **options: Any) -> dict[str, str]:
        """The publish body's files: a rules file and the signed manifest, base64."""
        files = {"rules/rerank.toml": b"[ranking]\nvector_weight = 0.9\n"}
        manifest = self.manifest(name, version, files, **options)
        return {
            **{path: b64(data) for path, data in files.items()},
            "manifest.json": b64(json.dumps(manifest).encode()),
        }


def plugin_name() -> str:
    return f"rerank-{uuid.uuid4().hex[:8]}"


async def trust(client: TestClientProtocol, publisher: Publisher) -> None:
    response = await client.post(
        "/admin/plugins/signers",
        json={"name": publisher.name, "public_key": publisher.public_key},
        headers=MASTER,
    )
    assert response.status_code == 201, await response.get_data(as_text=True)


async def trusted_publisher(client: TestClientProtocol) -> Publisher:
    """A new publisher whose key the service trusts."""
    publisher = Publisher()
    await trust(client, publisher)
    return publisher


async def review(client: TestClientProtocol, key: str, version: str, status: str) -> Any:
    """Sets a plugin version's review status (the response, whatever it is)."""
    return await client.post(
        f"/admin/plugins/{key}/{version}/review", json={"status": status}, headers=MASTER
    )


async def publish(client: TestClientProtocol, files: dict[str, str]) -> Any:
    return await client.post("/admin/plugins", json={"files": files}, headers=MASTER)
