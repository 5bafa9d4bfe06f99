#!/usr/bin/env bash
# The server's process tests and the client package test on Node 24 LTS (the machine's Node 20 runs
# the whole suite). Node 24 is the npm registry's `node` package (binary and headers) in a scratch
# directory; the committed checkout is copied beside it and installed with that node, so native
# modules (better-sqlite3) are built for it. Called by .ci/run; `NODE24_WORKDIR=dir` keeps the copy.
#
# The default is the newest Node 24 release when this was last checked. On Node 22+ the server
# loads better-sqlite3 13, not 12, which aborts on Node 24.19+ (src/storage/sqlite-driver.ts).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="${NODE24_WORKDIR:-$(mktemp -d)}"
mkdir -p "$work/node" "$work/furikomi"

npm install --prefix "$work/node" --no-audit --no-fund --silent "node@${NODE24_VERSION:-24.21.0}"
package="$work/node/node_modules/node"
api_header="$(find "$package/node_modules" -path '*/include/node/node_api.h' | head -n 1)"
export PATH="$package/bin:$PATH"
# Build native modules against Node 24's headers (not a machine-wide nodedir set for Node 20).
export npm_config_nodedir="${api_header%/include/node/node_api.h}"
echo "node $(node --version) from $package"

git -C "$root" archive HEAD | tar -x -C "$work/furikomi"
cd "$work/furikomi"
npm ci --no-audit --no-fund
npx vitest run --project sqlite test/process test/api/client.test.ts
