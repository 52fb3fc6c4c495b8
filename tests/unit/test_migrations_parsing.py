"""Migration files: statement splitting and the file-name rules of discover()."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

from app.migrations import MIGRATIONS_DIR, MigrationError, discover, split_statements


def test_statements_split_at_semicolons_ending_a_line() -> None:
    text = "CREATE INDEX a IF NOT EXISTS FOR (n:A) ON (n.x);\nCREATE INDEX b FOR (n:B) ON (n.y);\n"
    assert split_statements(text) == [
        "CREATE INDEX a IF NOT EXISTS FOR (n:A) ON (n.x)",
        "CREATE INDEX b FOR (n:B) ON (n.y)",
    ]


def test_last_statement_needs_no_semicolon() -> None:
    assert split_statements("RETURN 1;\nRETURN 2") == ["RETURN 1", "RETURN 2"]


def test_trailing_whitespace_after_semicolon_still_splits() -> None:
    assert split_statements("RETURN 1;   \t\nRETURN 2;  ") == ["RETURN 1", "RETURN 2"]


def test_comment_lines_are_dropped() -> None:
    text = "// header\n  // indented comment\nRETURN 1;\n// between\nRETURN 2;\n// the end\n"
    assert split_statements(text) == ["RETURN 1", "RETURN 2"]


def test_multi_line_statement_is_kept_whole() -> None:
    text = "CREATE CONSTRAINT c IF NOT EXISTS\nFOR (n:N)\n  REQUIRE n.id IS UNIQUE;\nRETURN 1;"
    assert split_statements(text) == [
        "CREATE CONSTRAINT c IF NOT EXISTS\nFOR (n:N)\n  REQUIRE n.id IS UNIQUE",
        "RETURN 1",
    ]


def test_semicolon_inside_a_line_does_not_split() -> None:
    assert split_statements("RETURN 'a;b' AS x;\n") == ["RETURN 'a;b' AS x"]


def test_url_in_string_is_not_a_comment() -> None:
    text = "RETURN 'http://example.com' AS url;\n"
    assert split_statements(text) == ["RETURN 'http://example.com' AS url"]


@pytest.mark.parametrize("text", ["", "\n\n", "// only a comment\n", ";\n;\n", "  ;  "])
def test_nothing_to_run(text: str) -> None:
    assert split_statements(text) == []


def test_windows_line_endings() -> None:
    assert split_statements("RETURN 1;\r\nRETURN 2;\r\n") == ["RETURN 1", "RETURN 2"]


def _write(directory: Path, name: str, text: str = "RETURN 1;\n") -> Path:
    path = directory / name
    path.write_text(text, encoding="utf-8")
    return path


def test_discover_orders_by_version_and_reads_files(tmp_path: Path) -> None:
    _write(tmp_path, "V0010__tenth.cypher", "RETURN 10;\n")
    _write(tmp_path, "V0002__second_one.cypher", "// two statements\nRETURN 2;\nRETURN 22;\n")
    _write(tmp_path, "V0001__first.cypher", "RETURN 1;\n")
    _write(tmp_path, "README.md", "not a migration")
    _write(tmp_path, "notes.txt", "not a migration")

    found = discover(tmp_path)
    assert [(m.version, m.name) for m in found] == [
        (1, "first"),
        (2, "second_one"),
        (10, "tenth"),
    ]
    assert found[1].statements == ["RETURN 2", "RETURN 22"]
    text = (tmp_path / "V0002__second_one.cypher").read_text(encoding="utf-8")
    assert found[1].checksum == hashlib.sha256(text.encode()).hexdigest()


def test_checksum_changes_with_any_edit(tmp_path: Path) -> None:
    path = _write(tmp_path, "V0001__first.cypher", "RETURN 1;\n")
    before = discover(tmp_path)[0].checksum
    path.write_text("// a comment changes the file too\nRETURN 1;\n", encoding="utf-8")
    after = discover(tmp_path)[0]
    assert after.checksum != before
    assert after.statements == ["RETURN 1"]


def test_empty_directory_has_no_migrations(tmp_path: Path) -> None:
    assert discover(tmp_path) == []


@pytest.mark.parametrize(
    "name",
    [
        "V1__short_version.cypher",
        "V00001__long_version.cypher",
        "v0001__lower_v.cypher",
        "V0001_single_underscore.cypher",
        "V0001__Upper_Case.cypher",
        "V0001__with-dash.cypher",
        "V0001__.cypher",
        "0001__no_v.cypher",
        "V0001__spaces here.cypher",
    ],
)
def test_misnamed_file_is_an_error(tmp_path: Path, name: str) -> None:
    _write(tmp_path, "V0001__fine.cypher")
    _write(tmp_path, name)
    with pytest.raises(MigrationError, match="file name"):
        discover(tmp_path)


def test_repeated_version_is_an_error(tmp_path: Path) -> None:
    _write(tmp_path, "V0003__one.cypher")
    _write(tmp_path, "V0003__other.cypher")
    with pytest.raises(MigrationError, match="share a version"):
        discover(tmp_path)


def test_shipped_migrations_are_well_formed() -> None:
    found = discover(MIGRATIONS_DIR)
    versions = [m.version for m in found]
    assert versions == list(range(1, len(found) + 1)), "versions must be 1, 2, 3, ... without gaps"
    for migration in found:
        assert migration.statements, f"V{migration.version:04d} has no statements"
        for statement in migration.statements:
            assert not statement.endswith(";")
            # A comment after a statement's ';' would glue it to the next statement.
            assert not re.search(r";\s*//", statement), statement
