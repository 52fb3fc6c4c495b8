"""The console entry point: every subcommand explains itself, `version` prints ours, and a bad
setting stops a command with its variable named."""

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


@pytest.mark.parametrize("command", [["serve"], ["reembed"]])
@pytest.mark.parametrize(
    ("variable", "value", "problem"),
    [
        ("MASTER_KEY", "short", "at least 16 characters"),
        ("GC_CRON", "0 99 * * *", ""),
        ("NEO4J_URI", "http://127.0.0.1:7474", "scheme"),
        ("WARM_CHECK_S", "0", "greater than 0"),
        ("SERVER", "gunicorn", "'hypercorn' or 'uvicorn'"),
    ],
)
def test_a_bad_setting_stops_the_command_with_its_variable_named(
    command: list[str],
    variable: str,
    value: str,
    problem: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("MASTER_KEY", "a-master-key-of-16+")
    monkeypatch.setenv(variable, value)
    with pytest.raises(SystemExit) as exited:
        main(command)
    assert exited.value.code == 2
    error = capsys.readouterr().err
    assert error.startswith(f"{variable}: ") and problem in error
    assert "Traceback" not in error


def test_a_port_that_is_no_number_fails_serve_only(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PORT", "abc")
    main(["version"])
    assert capsys.readouterr().out.strip() == metadata.version("memory-service")
    with pytest.raises(SystemExit) as exited:
        parser().parse_args(["serve"])
    assert exited.value.code == 2
    assert "--port: invalid int value: 'abc'" in capsys.readouterr().err
