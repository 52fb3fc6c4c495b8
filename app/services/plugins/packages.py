"""Reading a published plugin package (pure): its files, its manifest, their integrity, the
Ed25519 signature over the canonical manifest, and semver ranges."""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
from dataclasses import dataclass
from importlib import metadata
from typing import Any, get_args

import semver
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from pydantic import BaseModel, Field, ValidationError

from app.errors import Invalid, TooLarge
from app.models.plugins import Capability, PluginConfig

MANIFEST = "manifest.json"
SERVICE_VERSION = metadata.version("memory-service")
MAX_PACKAGE_BYTES = 1024 * 1024
CAPABILITIES: tuple[str, ...] = get_args(Capability)
_KEY = r"^[a-z0-9][a-z0-9._-]{0,63}$"
_SHA256 = r"^[0-9a-f]{64}$"
_COMPARISON = re.compile(r"^(>=|<=|==|!=|>|<)?\s*(\S+)$")
_PATH_PART = re.compile(r"^[A-Za-z0-9._-]{1,100}$")


class Manifest(BaseModel):
    """manifest.json: what the package is, what it needs, and its integrity and signature."""

    name: str = Field(pattern=_KEY)
    version: str
    capabilities: list[str] = Field(min_length=1)
    compatible: str = Field(min_length=1, max_length=200)
    files: dict[str, str]
    signer: str = Field(min_length=1, max_length=64)
    signature: str = Field(min_length=1, max_length=200)
    config: PluginConfig = Field(default_factory=PluginConfig)


@dataclass(frozen=True)
class Package:
    manifest: Manifest
    files: dict[str, bytes]  # every file but the manifest
    canonical: bytes  # the signed bytes: the manifest without its signature, canonical JSON


def _safe_path(path: str) -> bool:
    """A relative path of plain names: no absolute path, drive, backslash or '..'."""
    parts = path.split("/")
    return all(_PATH_PART.match(part) and part not in (".", "..") for part in parts)


def _decoded(path: str, data: str) -> bytes:
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError) as error:
        raise Invalid(f"file {path!r} is not valid base64") from error


def decode_files(encoded: dict[str, str]) -> dict[str, bytes]:
    """The package's files by path; 422 for an unsafe path or bad base64, 413 when too big."""
    for path in encoded:
        if not _safe_path(path):
            raise Invalid(f"file name {path!r} must be a relative path of plain names")
    files = {path: _decoded(path, data) for path, data in encoded.items()}
    if sum(len(content) for content in files.values()) > MAX_PACKAGE_BYTES:
        raise TooLarge(f"the package is over {MAX_PACKAGE_BYTES} bytes")
    return files


def canonical(manifest: dict[str, Any]) -> bytes:
    """The bytes a signer signs: the manifest without `signature`, as JSON with sorted keys,
    no spaces, UTF-8."""
    unsigned = {key: value for key, value in manifest.items() if key != "signature"}
    return json.dumps(unsigned, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def _parse_version(text: str, what: str) -> semver.Version:
    try:
        return semver.Version.parse(text)
    except (ValueError, TypeError) as error:
        raise Invalid(f"{what} {text!r} is not a semantic version such as 1.2.0") from error


def check_range(spec: str) -> None:
    """422 unless `spec` is `*`, a version, or comparisons joined by commas (>=1.0.0,<2.0.0)."""
    if spec.strip() == "*":
        return
    for part in spec.split(","):
        found = _COMPARISON.match(part.strip())
        if found is None:
            raise Invalid(f"version range {spec!r} is not comparisons such as >=1.0.0,<2.0.0")
        _parse_version(found.group(2), "version range bound")


def satisfies(version: str, spec: str) -> bool:
    """Whether a version lies in a range (see check_range)."""
    if spec.strip() == "*":
        return True
    parsed = semver.Version.parse(version)
    for part in spec.split(","):
        found = _COMPARISON.match(part.strip())
        assert found is not None  # ranges are checked when they are stored
        if not parsed.match(f"{found.group(1) or '=='}{found.group(2)}"):
            return False
    return True


def read(encoded: dict[str, str]) -> Package:
    """The package as published, checked except for its signature (see verify)."""
    files = decode_files(encoded)
    if MANIFEST not in files:
        raise Invalid(f"the package has no {MANIFEST}")
    try:
        raw = json.loads(files.pop(MANIFEST))
        manifest = Manifest.model_validate(raw)
        signed = canonical(raw)  # UTF-8, which a lone surrogate ("\udc00") is not
    except (ValueError, RecursionError) as error:
        detail = error.errors()[0] if isinstance(error, ValidationError) else None
        where = ".".join(str(part) for part in detail["loc"]) if detail else ""
        raise Invalid(f"{MANIFEST} is invalid{': ' + where if where else ''}") from error
    _parse_version(manifest.version, "version")
    check_range(manifest.compatible)
    unknown = [name for name in manifest.capabilities if name not in CAPABILITIES]
    if unknown:
        raise Invalid(f"unknown capability {unknown[0]!r}; known: {', '.join(CAPABILITIES)}")
    if set(manifest.files) != set(files):
        missing = sorted(set(manifest.files) - set(files))
        extra = sorted(set(files) - set(manifest.files))
        raise Invalid(f"the manifest and the files disagree: missing {missing}, unlisted {extra}")
    for path, content in files.items():
        expected = manifest.files[path].lower()
        if not re.match(_SHA256, expected) or hashlib.sha256(content).hexdigest() != expected:
            raise Invalid(f"sha256 of {path!r} does not match the manifest")
    return Package(manifest=manifest, files=files, canonical=signed)


def public_key(text: str) -> Ed25519PublicKey:
    """An Ed25519 public key from 32 raw bytes in base64; 422 otherwise."""
    try:
        raw = base64.b64decode(text, validate=True)
        return Ed25519PublicKey.from_public_bytes(raw)
    except (binascii.Error, ValueError) as error:
        raise Invalid("public_key must be an Ed25519 public key: 32 bytes, base64") from error


def verify(package: Package, key_text: str) -> bool:
    """Whether the manifest's signature is the signer's over the canonical manifest."""
    try:
        signature = base64.b64decode(package.manifest.signature, validate=True)
        public_key(key_text).verify(signature, package.canonical)
    except (binascii.Error, ValueError, InvalidSignature, Invalid):
        return False
    return True
