#!/usr/bin/env bash
# Refreshes the memory console's browser scripts (app/console/static/vendor/) from the npm
# packages pinned in app/console/package.json and package-lock.json. A maintainer's step when
# upgrading them: the built files are kept in the repository, so neither the bootstrap nor a
# user needs node or npm, and nothing is built when the service starts.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
console="$root/app/console"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp "$console/package.json" "$console/package-lock.json" "$work/"
(cd "$work" && npm ci --ignore-scripts --no-audit --no-fund)
cp "$work/node_modules/htmx.org/dist/htmx.min.js" \
   "$work/node_modules/cytoscape/dist/cytoscape.min.js" \
   "$console/static/vendor/"
echo "vendored: $(cd "$console/static/vendor" && ls)"
