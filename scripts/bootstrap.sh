#!/usr/bin/env bash
# Installs what the service and its tests need: a virtualenv with the Python dependencies
# (.venv) and the Neo4j server jars (neo4j/target/lib). Safe to run again: it skips what is done.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

python=${PYTHON:-python3}
if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  echo "Python 3.11+ is needed (set PYTHON=...)" >&2
  exit 1
fi
if [ ! -x .venv/bin/python ]; then
  "$python" -m venv .venv
fi
stamp=".venv/.installed-$(sha256sum pyproject.toml | cut -c1-16)"
if [ ! -f "$stamp" ]; then
  echo "installing Python dependencies into .venv ..." >&2
  .venv/bin/pip install --quiet --upgrade pip
  .venv/bin/pip install --quiet -e ".[dev]"
  rm -f .venv/.installed-*
  touch "$stamp"
fi
neo4j/server.sh assemble
