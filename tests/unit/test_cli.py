"""The console entry point: every subcommand explains itself, and `version` prints ours."""

from __future__ import annotations

from importlib import metadata

import pytest

from app.cli import main, parser

SUBCOMMANDS = (
    ["serve"],
    ["mcp"],
    ["keys"],
    ["keys", "create"],
    ["export"],
    ["import"],
    ["reembed"],
    ["version"],
)


@pytest.mark.parametrize("words", SUBCOMMANDS)
def test_every_subcommand_has_help(words: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        parser().parse_args([*words, "--help"])
    assert exited.value.code == 0
    assert f"usage: memory-service {' '.join(words)}" in capsys.readouterr().out


def test_version_prints_the_package_version(capsys: pytest.CaptureFixture[str]) -> None:
    main(["version"])
    assert capsys.readouterr().out.strip() == metadata.version("memory-service")


def test_keys_create_needs_the_master_key(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("MASTER_KEY", raising=False)
    with pytest.raises(SystemExit) as exited:
        main(["keys", "create", "alice"])
    assert exited.value.code == 2
    assert "MASTER_KEY" in capsys.readouterr().err


def test_mcp_names_its_service_and_needs_the_users_api_key(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        parser().parse_args(["mcp", "--help"])
    assert "MEMORY_SERVICE_URL" in capsys.readouterr().out
    monkeypatch.delenv("MEMORY_API_KEY", raising=False)
    with pytest.raises(SystemExit) as exited:
        main(["mcp"])
    assert exited.value.code == 2
    assert "MEMORY_API_KEY" in capsys.readouterr().err
