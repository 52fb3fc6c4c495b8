#!/usr/bin/env bash
# Runs the whole suite: ruff, mypy --strict, then pytest on TEST_WORKERS pytest-xdist workers
# (default 3; 0 runs it in this one process) against throwaway Neo4j servers: the first worker
# uses var/test-neo4j-PORT (Bolt TEST_NEO4J_BOLT_PORT=27687, HTTP TEST_NEO4J_HTTP_PORT=27474),
# started here while ruff and mypy run; every other worker starts one of its own on free ports
# (tests/conftest.py). All are stopped and removed afterwards, whatever happens. Extra arguments
# go to pytest. See docs/testing.md.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
scripts/bootstrap.sh

# Test servers live minutes: HotSpot's first JIT tier only halves the CPU they spend (most of
# it compiling for a peak speed they never need).
export NEO4J_JVM_EXTRA=${NEO4J_JVM_EXTRA:--XX:TieredStopAtLevel=1}
# A test database grows from nothing, and Neo4j plans a statement again whenever the counts it
# was planned on have changed by 75 %: every statement several times per server. At 1, only a
# plan made on a count of zero is made again (the whole suite: 492 s of Neo4j CPU against 524,
# pytest 531 s against 551); the fault tests' server and the service's own keep the default.
# Set it empty for Neo4j's defaults everywhere.
export NEO4J_CONF_EXTRA=${NEO4J_CONF_EXTRA-dbms.cypher.statistics_divergence_threshold=1.0}
bolt=${TEST_NEO4J_BOLT_PORT:-27687}
http=${TEST_NEO4J_HTTP_PORT:-27474}
workers=${TEST_WORKERS:-3}
dir=var/test-neo4j-$bolt
starting=
cleanup() {
  if [ -n "$starting" ]; then wait "$starting" 2>/dev/null || true; fi  # a start under way
  neo4j/server.sh remove "$dir"
  for worker in var/test-workers/*/; do  # left by workers that were killed
    [ -d "$worker" ] && neo4j/server.sh remove "$worker"
  done
  return 0
}
trap cleanup EXIT
cleanup
NEO4J_HEAP=${NEO4J_HEAP:-1g} neo4j/server.sh start "$dir" "$bolt" "$http" &
starting=$!

.venv/bin/ruff check app tests bench scripts
.venv/bin/ruff format --check app tests bench scripts
.venv/bin/mypy app
wait "$starting"
starting=

export NEO4J_URI="bolt://127.0.0.1:$bolt" TEST_NEO4J_DIR="$root/$dir"
export TEST_NEO4J_BOLT_PORT=$bolt TEST_NEO4J_HTTP_PORT=$http
parallel=()
if [ "$workers" -gt 0 ]; then
  # A test module goes to one worker whole, so that its fixtures (an app, a service process, a
  # Neo4j of its own) are made once; modules go out in the order collected (the slowest first,
  # see tests/conftest.py), not by their number of tests.
  parallel=(-n "$workers" --dist loadfile --no-loadscope-reorder)
fi
status=0
.venv/bin/python -m pytest "${parallel[@]}" "$@" || status=$?
if [ "$status" -eq 5 ]; then
  echo "pytest collected no tests: that is a failure here" >&2
  exit 1
fi
exit "$status"
