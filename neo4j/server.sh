#!/usr/bin/env bash
# Runs a local Neo4j Community server assembled from Maven Central (see pom.xml beside this file).
#   neo4j/server.sh start DIR BOLT_PORT HTTP_PORT   start an instance whose data and logs live in DIR
#   neo4j/server.sh stop DIR                        stop it and wait until it has exited
#   neo4j/server.sh remove DIR                      kill it (no shutdown) and delete DIR
# NEO4J_JVM_EXTRA adds java options (scripts/test.sh: a JIT that spends less CPU, for servers
# that live minutes).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

find_java() {
  local candidate version
  for candidate in "${JAVA_HOME:-}" /usr/lib/jvm/*; do
    [ -n "$candidate" ] && [ -x "$candidate/bin/java" ] || continue
    version=$("$candidate/bin/java" -XshowSettings:properties -version 2>&1 | awk -F' = ' '/java.specification.version/ {print $2}')
    if [ "${version%%.*}" -ge 21 ] 2>/dev/null; then echo "$candidate/bin/java"; return; fi
  done
  echo "no Java 21+ JDK found: set JAVA_HOME" >&2
  exit 1
}

version_of() {
  sed -n "s/^$1=//p" "$here/../.env"
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
  if [ -f "$dir/run/neo4j.pid" ] && kill -0 "$(cat "$dir/run/neo4j.pid")" 2>/dev/null; then
    echo "Neo4j already running in $dir" >&2
  else
    local java options extra; java=$(find_java)
    mapfile -t options < <(jvm_options "$dir/conf/neo4j.conf")
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

case "${1:-}" in
  start) start "$2" "$3" "$4" ;;
  stop) stop "$2" ;;
  remove) remove "$2" ;;
  assemble) assemble ;;
  *) echo "usage: $0 start DIR BOLT_PORT HTTP_PORT | stop DIR | remove DIR | assemble" >&2; exit 2 ;;
esac
