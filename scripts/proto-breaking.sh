#!/usr/bin/env bash
# buf breaking against a git revision (default: main). The third-party imports (.proto-deps) are
# not committed, so the old contract is unpacked beside a copy of today's.
set -euo pipefail
cd "$(dirname "$0")/.."
base=$(mktemp -d)
trap 'rm -rf "$base"' EXIT
git archive "${1:-main}" proto buf.yaml | tar -x -C "$base"
cp -r .proto-deps "$base/"
npx buf breaking --against "$base"
