#!/usr/bin/env bash
# The server's process tests and the client package test on Node 24 LTS (the machine's Node 20 runs
# the whole suite). Node 24 is the npm registry's `node` package (binary and headers) in a scratch
# directory; the committed checkout is copied beside it and installed with that node, so native
# modules (better-sqlite3) are built for it. Called by .ci/run; `NODE24_WORKDIR=dir` keeps the copy.
#
# Pinned below 24.19: from 24.19.0 node::ObjectWrap removes an environment cleanup hook in its
# destructor, and better-sqlite3 12 (an ObjectWrap) built against those headers aborts the process
# (SIGABRT, "Assertion failed: (env) != nullptr" in Statement::~Statement) when the GC collects a
# statement (nodejs/node#65446). better-sqlite3 13 fixes it but needs Node 22+: docs/operations/running.md.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="${NODE24_WORKDIR:-$(mktemp -d)}"
mkdir -p "$work/node" "$work/furikomi"

npm install --prefix "$work/node" --no-audit --no-fund --silent "node@${NODE24_VERSION:-24.18.1}"
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
