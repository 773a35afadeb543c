#!/usr/bin/env bash
# Installs redis-server from Debian's packages when it is missing, and prints its path. The
# tests that need Redis (the HTTP proxy's shared store) start their own on a free 127.0.0.1
# port and stop it (they also kill it mid-run), so nothing is left running.
set -euo pipefail
if ! command -v redis-server > /dev/null; then
  echo "redis.sh: installing redis-server from Debian's packages" >&2
  if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
  $sudo apt-get update -qq > /dev/null
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends redis-server > /dev/null
  # Debian's package starts a system instance; the tests run their own.
  $sudo service redis-server stop > /dev/null 2>&1 || true
fi
command -v redis-server
redis-server --version >&2
