#!/usr/bin/env bash
# What the test suite needs from the machine (Debian), checked before every `npm test` (the pretest
# step) and by .ci/run, so the two cannot drift apart. Fast when everything is there: one dpkg-query,
# one pg_isready. Run as root, it installs the missing packages and starts PostgreSQL; otherwise it
# says exactly what to run and exits non-zero.
set -euo pipefail

# Package → what needs it.
declare -A needs=(
  [chromium]="browser tests (test/browser/)"
  [fonts-noto-cjk]="readable Japanese in browser screenshots"
  [protobuf-compiler]="Python client test (protoc)"
  [protobuf-compiler-grpc]="Python client test (grpc_python_plugin)"
  [python3-grpcio]="Python client test"
  [python3-protobuf]="Python client test"
  [openssl]="TLS tests (self-signed certificates)"
  [openssh-server]="SFTP tests"
  [prometheus]="alert rules check (promtool)"
)

missing=()
installed=$(dpkg-query -W -f='${Package} ${db:Status-Status}\n' "${!needs[@]}" 2>/dev/null || true)
for package in "${!needs[@]}"; do
  grep -qx "$package installed" <<<"$installed" || missing+=("$package")
done

if ((${#missing[@]})); then
  if [ "$(id -u)" = 0 ]; then
    echo "provision: installing ${missing[*]}" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "The test suite needs these Debian packages:" >&2
    for package in "${missing[@]}"; do echo "  $package: ${needs[$package]}" >&2; done
    echo "Install them (or run npm test as root, which does):" >&2
    echo "  sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
fi

# PostgreSQL on 127.0.0.1:5432 (user postgres, trust): every suite also runs on it.
if ! pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; then
  cluster=$(ls /etc/postgresql 2>/dev/null | head -n 1)
  if [ "$(id -u)" = 0 ] && [ -n "$cluster" ]; then
    echo "provision: starting PostgreSQL $cluster" >&2
    pg_ctlcluster --skip-systemctl-redirect "$cluster" main start
    for _ in $(seq 1 30); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 1; done
  fi
  if ! pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; then
    echo "PostgreSQL does not answer on 127.0.0.1:5432. Start it, as root:" >&2
    echo "  pg_ctlcluster --skip-systemctl-redirect ${cluster:-<version>} main start" >&2
    echo "(or install the postgresql package first; the suite connects as user postgres to database test)" >&2
    exit 1
  fi
fi
