#!/usr/bin/env bash
# Runs the whole suite: ruff, mypy --strict, then pytest on TEST_WORKERS pytest-xdist workers
# (default 4; 0 runs it in this one process) against throwaway Neo4j servers, one per worker,
# started here while ruff and mypy run (mypy keeps one core busy, the servers take the other):
# the first worker's is var/test-neo4j-PORT (Bolt TEST_NEO4J_BOLT_PORT=27687, HTTP
# TEST_NEO4J_HTTP_PORT=27474), every other worker's var/test-workers/gwN on free ports, named to
# it by TEST_NEO4J_GWN="BOLT HTTP DIR" (tests/conftest.py), and the fault tests' own
# (TEST_NEO4J_FAULTS, var/test-workers/faults). Each has the service's migrations applied and
# its start-up statements planned before pytest starts. All are stopped and removed
# afterwards, whatever happens. Extra arguments go to pytest. See docs/testing.md.
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
# Four, on two cores: a fourth worker's tests fill the time the others wait for outages,
# leases and service processes (docs/testing.md, "Measured and not kept").
workers=${TEST_WORKERS:-4}
dir=var/test-neo4j-$bolt
starting=()
cleanup() {
  for pid in "${starting[@]}"; do wait "$pid" 2>/dev/null || true; done  # starts under way
  neo4j/server.sh remove "$dir"
  for worker in var/test-workers/*/; do  # the other workers' (and any a killed run left)
    [ -d "$worker" ] && neo4j/server.sh remove "$worker"
  done
  return 0
}
trap cleanup EXIT
cleanup
# A server, then the service's migrations and start-up warm-up on it (the workload Neo4j's
# ahead-of-time cache is trained on): the first app of each worker then finds both done.
prepare() {
  neo4j/server.sh start "$1" "$2" "$3" >/dev/null &&
    .venv/bin/python scripts/neo4j_training.py "bolt://127.0.0.1:$2"
}
NEO4J_HEAP=${NEO4J_HEAP:-1g} prepare "$dir" "$bolt" "$http" &
starting+=($!)
# Free ports, two per server: the other workers', then the fault tests'.
mapfile -t ports < <(.venv/bin/python -m tests.support.machine "$((2 * (workers > 1 ? workers : 1)))")
for ((n = 1; n < ${#ports[@]}; n++)); do
  read -r worker_bolt worker_http <<< "${ports[n - 1]}"
  worker_dir="$root/var/test-workers/gw$n"
  export "TEST_NEO4J_GW$n=$worker_bolt $worker_http $worker_dir"
  NEO4J_HEAP=${NEO4J_HEAP:-768m} NEO4J_PAGECACHE=256m \
    prepare "$worker_dir" "$worker_bolt" "$worker_http" &
  starting+=($!)
done
# The fault tests' own server (tests/integration/test_faults.py, which stops, kills and starts
# it), prepared here too, with Neo4j's defaults and the heap that module gives it: its start,
# migrations and plans then cost the mypy phase, not the longest module's setup.
read -r faults_bolt faults_http <<< "${ports[-1]}"
export TEST_NEO4J_FAULTS="$faults_bolt $faults_http $root/var/test-workers/faults"
NEO4J_CONF_EXTRA="" NEO4J_HEAP=512m NEO4J_PAGECACHE=256m \
  prepare "$root/var/test-workers/faults" "$faults_bolt" "$faults_http" &
starting+=($!)

.venv/bin/ruff check app tests bench scripts
.venv/bin/ruff format --check app tests bench scripts
.venv/bin/mypy app
for pid in "${starting[@]}"; do wait "$pid"; done
starting=()

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
