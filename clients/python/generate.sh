#!/usr/bin/env bash
# Generates the Python modules (messages and gRPC stubs) of the furikomi contract into $1
# (default: clients/python/gen, git-ignored), with Debian's protobuf compiler and gRPC plugin:
#   apt-get install protobuf-compiler protobuf-compiler-grpc python3-grpcio python3-protobuf
# (python3-grpc-tools is not used: Debian bookworm's bundles protoc 3.5, older than proto3 `optional`.)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="${1:-$root/clients/python/gen}"
plugin="$(command -v grpc_python_plugin || true)"
if [ -z "$plugin" ] || ! command -v protoc >/dev/null; then
  echo "protoc and grpc_python_plugin are required: apt-get install protobuf-compiler protobuf-compiler-grpc" >&2
  exit 1
fi
if [ ! -d "$root/.proto-deps" ]; then
  echo ".proto-deps/ is missing: run npm install first (it gathers the third-party imports)" >&2
  exit 1
fi
mkdir -p "$out"
cd "$root"
# Our contract, and the imports its generated code needs at run time (google.rpc.Status and
# ErrorInfo for reading error details).
protoc -I proto -I .proto-deps \
  --python_out="$out" --grpc_python_out="$out" --plugin=protoc-gen-grpc_python="$plugin" \
  $(cd proto && find payments -name '*.proto' | sort) \
  buf/validate/validate.proto google/api/annotations.proto google/api/http.proto \
  google/rpc/status.proto google/rpc/error_details.proto
echo "$out"
