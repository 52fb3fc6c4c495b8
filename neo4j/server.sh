#!/usr/bin/env bash
# Runs a local Neo4j Community server assembled from Maven Central (see pom.xml beside this file).
#   neo4j/server.sh start DIR BOLT_PORT HTTP_PORT   start an instance whose data and logs live in DIR
#   neo4j/server.sh stop DIR                        stop it and wait until it has exited
#   neo4j/server.sh remove DIR                      kill it (no shutdown) and delete DIR
#   neo4j/server.sh train                           make the ahead-of-time cache (see below)
# NEO4J_JVM_EXTRA adds java options (scripts/test.sh: a JIT that spends less CPU, for servers
# that live minutes); NEO4J_CONF_EXTRA adds neo4j.conf settings, `name=value` separated by
# spaces (scripts/test.sh: plans kept as the data grows, but for those made on a count of 0).
#
# On Java 25+, servers start from an ahead-of-time cache (JEP 483/514: classes loaded and
# linked, method profiles) that `train` records from one server's start and the service's
# warm-up (scripts/neo4j_training.py): a start costs about 6 s of CPU instead of 10, planning
# every statement 14 instead of 20. It lives in the user's cache folder, one per Java and Neo4j
# version, and is made once (scripts/bootstrap.sh); without it servers start as before.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"

find_java() {
  local candidate version
  for candidate in "${JAVA_HOME:-}" /usr/lib/jvm/*; do
    [ -n "$candidate" ] && [ -x "$candidate/bin/java" ] || continue
    version=$(java_major "$candidate/bin/java")
    if [ "${version%%.*}" -ge 21 ] 2>/dev/null; then echo "$candidate/bin/java"; return; fi
  done
  echo "no Java 21+ JDK found: set JAVA_HOME" >&2
  exit 1
}

version_of() {
  sed -n "s/^$1=//p" "$here/../.env"
}

java_major() {
  "$1" -XshowSettings:properties -version 2>&1 | awk -F' = ' '/java.specification.version/ {print $2}'
}

# The cache's file for this Java and these jars (the JVM refuses a cache made by another).
aot_cache() {
  local key
  key=$( { "$1" -version 2>&1; version_of NEO4J_VERSION; version_of NEO4J_BROWSER_VERSION; } \
    | sha256sum | cut -c1-16)
  echo "${XDG_CACHE_HOME:-$HOME/.cache}/memory-service/neo4j-$key.aot"
}

assemble() {
  local neo4j browser stamp
  neo4j=$(version_of NEO4J_VERSION)
  browser=$(version_of NEO4J_BROWSER_VERSION)
  stamp="$here/target/lib/.complete-$neo4j-$browser"
  if [ ! -f "$stamp" ]; then
    echo "assembling Neo4j $neo4j (Browser $browser) from Maven Central into $here/target/lib ..." >&2
    rm -rf "$here/target/lib"
    mvn -q -B -f "$here/pom.xml" dependency:copy-dependencies -DincludeScope=runtime \
      -Dneo4j.version="$neo4j" -Dneo4j.browser.version="$browser" \
      -DoutputDirectory="$here/target/lib" >&2
    touch "$stamp"
  fi
}

wait_for_port() {
  local port=$1 seconds=$2 log=$3
  for _ in $(seq 1 "$seconds"); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then return 0; fi
    sleep 1
  done
  echo "Neo4j did not answer on port $port within ${seconds}s; last lines of $log:" >&2
  tail -n 30 "$log" >&2
  return 1
}

# The server class does not read its own JVM settings (Neo4j's launcher script does), so the
# heap sizes and every server.jvm.additional line of the instance's neo4j.conf become java's
# options here.
jvm_options() {
  local conf=$1
  sed -n -e 's/^server\.memory\.heap\.initial_size=/-Xms/p' -e 's/^server\.memory\.heap\.max_size=/-Xmx/p' \
    -e 's/^server\.jvm\.additional=//p' "$conf"
}

start() {
  local dir=$1 bolt=$2 http=$3
  assemble
  mkdir -p "$dir"/{conf,data,logs,run,plugins,import}
  dir="$(cd "$dir" && pwd)"
  ln -sfn "$here/target/lib" "$dir/lib"
  sed -e "s/@BOLT_PORT@/$bolt/g" -e "s/@HTTP_PORT@/$http/g" \
    -e "s/@HEAP@/${NEO4J_HEAP:-1g}/g" -e "s/@PAGECACHE@/${NEO4J_PAGECACHE:-512m}/g" \
    "$here/neo4j.conf.template" > "$dir/conf/neo4j.conf"
  if [ -n "${NEO4J_CONF_EXTRA:-}" ]; then
    tr ' ' '\n' <<< "$NEO4J_CONF_EXTRA" >> "$dir/conf/neo4j.conf"
  fi
  if [ -f "$dir/run/neo4j.pid" ] && kill -0 "$(cat "$dir/run/neo4j.pid")" 2>/dev/null; then
    echo "Neo4j already running in $dir" >&2
  else
    local java options extra cache; java=$(find_java)
    mapfile -t options < <(jvm_options "$dir/conf/neo4j.conf")
    cache=$(aot_cache "$java")
    if [ -n "${NEO4J_AOT_RECORD:-}" ]; then
      options+=("-XX:AOTCacheOutput=$NEO4J_AOT_RECORD")
    elif [ -f "$cache" ]; then
      # A cache the JVM cannot use (another build of the same version) is passed over; its
      # warnings about that would only fill the console log.
      options+=("-XX:AOTCache=$cache" "-Xlog:aot*=error")
    fi
    if [ -n "${NEO4J_JVM_EXTRA:-}" ]; then
      read -ra extra <<< "$NEO4J_JVM_EXTRA"
      options+=("${extra[@]}")
    fi
    nohup "$java" "${options[@]}" -cp "$dir/lib/*" org.neo4j.server.Neo4jCommunity \
      --home-dir="$dir" --config-dir="$dir/conf" > "$dir/logs/console.log" 2>&1 &
    echo $! > "$dir/run/neo4j.pid"
  fi
  wait_for_port "$bolt" 120 "$dir/logs/console.log"
  wait_for_port "$http" 60 "$dir/logs/console.log"
}

stop() {
  local dir=$1 pid
  [ -f "$dir/run/neo4j.pid" ] || return 0
  pid=$(cat "$dir/run/neo4j.pid")
  if kill -0 "$pid" 2>/dev/null; then
    kill "$pid"
    for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$dir/run/neo4j.pid"
}

# A throwaway server (the tests'): its data goes, so a clean shutdown would only spend time.
remove() {
  local dir=$1 pid
  if [ -f "$dir/run/neo4j.pid" ]; then
    pid=$(cat "$dir/run/neo4j.pid")
    kill -9 "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  fi
  rm -rf "$dir"
}

# Records the ahead-of-time cache (Java 25+, once per Java and Neo4j version): a throwaway
# server on free ports runs the training workload, and writes the cache as it shuts down.
train() {
  local java cache dir bolt http
  java=$(find_java)
  [ "$(java_major "$java")" -ge 25 ] 2>/dev/null || return 0
  cache=$(aot_cache "$java")
  [ -f "$cache" ] && return 0
  assemble
  echo "recording Neo4j's ahead-of-time cache into $cache ..." >&2
  mkdir -p "$(dirname "$cache")"
  dir=$(mktemp -d)
  read -r bolt http < <(cd "$root" && .venv/bin/python -c \
    'from tests.support.machine import free_port; print(free_port(), free_port())')
  # A failed recording costs only the cache: servers then start without one.
  if NEO4J_AOT_RECORD="$cache.$$.tmp" start "$dir" "$bolt" "$http" >/dev/null &&
    "$root/.venv/bin/python" "$root/scripts/neo4j_training.py" "bolt://127.0.0.1:$bolt"; then
    stop "$dir"
    if [ -f "$cache.$$.tmp" ]; then mv "$cache.$$.tmp" "$cache"; fi
  else
    echo "the ahead-of-time cache could not be recorded: Neo4j starts without it" >&2
    stop "$dir"
  fi
  rm -rf "$dir" "$cache.$$.tmp"
}

case "${1:-}" in
  start) start "$2" "$3" "$4" ;;
  stop) stop "$2" ;;
  remove) remove "$2" ;;
  assemble) assemble ;;
  train) train ;;
  *) echo "usage: $0 start DIR BOLT_PORT HTTP_PORT | stop DIR | remove DIR | assemble | train" >&2; exit 2 ;;
esac
