#!/usr/bin/env bash
# Runs the whole suite: ruff, mypy --strict, then pytest against a throwaway Neo4j
# (var/test-neo4j-PORT, Bolt TEST_NEO4J_BOLT_PORT=27687, HTTP TEST_NEO4J_HTTP_PORT=27474),
# which is stopped and removed afterwards, whatever happens. Extra arguments go to pytest.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
scripts/bootstrap.sh

.venv/bin/ruff check app tests bench
.venv/bin/ruff format --check app tests bench
.venv/bin/mypy app

bolt=${TEST_NEO4J_BOLT_PORT:-27687}
http=${TEST_NEO4J_HTTP_PORT:-27474}
dir=var/test-neo4j-$bolt
cleanup() { neo4j/server.sh stop "$dir"; rm -rf "$dir"; }
trap cleanup EXIT
cleanup
NEO4J_HEAP=${NEO4J_HEAP:-1g} neo4j/server.sh start "$dir" "$bolt" "$http"

export NEO4J_URI="bolt://127.0.0.1:$bolt" TEST_NEO4J_DIR="$root/$dir"
export TEST_NEO4J_BOLT_PORT=$bolt TEST_NEO4J_HTTP_PORT=$http
status=0
.venv/bin/python -m pytest "$@" || status=$?
if [ "$status" -eq 5 ]; then
  echo "pytest collected no tests: that is a failure here" >&2
  exit 1
fi
exit "$status"
