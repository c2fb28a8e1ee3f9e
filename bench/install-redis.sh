#!/usr/bin/env bash
# Installs what the Redis rows need when it is missing: Debian's redis-tools
# (redis-benchmark, redis-cli) and redis-server. Debian pins the version with the
# release; the rows print the version they ran. Run as root (or through sudo).
set -euo pipefail

missing=()
command -v redis-benchmark >/dev/null 2>&1 || missing+=(redis-tools)
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)

if [ ${#missing[@]} -gt 0 ]; then
  command -v apt-get >/dev/null 2>&1 || {
    echo "install-redis: ${missing[*]} missing and there is no apt-get here;"
    echo "install redis-benchmark and redis-server (Redis 7) by hand"
    exit 1
  }
  echo "install-redis: installing ${missing[*]}"
  apt-get update -qq || true
  # The package's own service is not wanted: each row starts its own server.
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
redis-benchmark --version
redis-server --version
