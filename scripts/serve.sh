#!/usr/bin/env bash
# Runs the memory service on 127.0.0.1 (PORT, default 8000). With no NEO4J_URI set it starts a
# local Neo4j (data in var/neo4j, Bolt NEO4J_BOLT_PORT=7687, Browser NEO4J_HTTP_PORT=7474).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
scripts/bootstrap.sh

mkdir -p var
if [ -z "${MASTER_KEY:-}" ]; then
  [ -f var/dev-master-key ] || .venv/bin/python -c 'import secrets; print("dev-" + secrets.token_hex(24))' > var/dev-master-key
  MASTER_KEY=$(cat var/dev-master-key)
  export MASTER_KEY
  echo "development master key: $MASTER_KEY (kept in var/dev-master-key)"
fi

if [ -z "${NEO4J_URI:-}" ]; then
  bolt=${NEO4J_BOLT_PORT:-7687}
  http=${NEO4J_HTTP_PORT:-7474}
  trap 'neo4j/server.sh stop var/neo4j' EXIT
  neo4j/server.sh start var/neo4j "$bolt" "$http"
  export NEO4J_URI="bolt://127.0.0.1:$bolt"
  echo "Neo4j Browser: http://127.0.0.1:$http/browser/ (connect to $NEO4J_URI, no authentication)"
fi

port=${PORT:-8000}
echo "memory service: http://127.0.0.1:$port (OpenAPI at /openapi.json)"
.venv/bin/memory-service serve --port "$port"
