#!/usr/bin/env bash
# The gateway's scale figures (its issue's "done when"), loopback only, bounded: 100 catalog
# servers (examples/catalog_server, 100 tools each, start-up 0-290 ms) behind one
# `mcpguard proxy --mcp-config`:
#
# - cold cache: initialize + tools/list ready in about the slowest server's start, not the sum;
# - warm cache: initialize + tools/list with no server process running, the gateway's peak
#   memory;
# - a call's round trip through the gateway against the single-server proxy (p50, p99).
#
#   bash scripts/bench-gateway.sh [SERVERS] [CALLS]
set -euo pipefail
cd "$(dirname "$0")/.."
# The whole list, as the figures have always been taken (the gateway's default, auto, tiers a
# catalog this size: `MCPGUARD_CATALOG=auto bash scripts/bench-gateway.sh` measures that).
export MCPGUARD_CATALOG=${MCPGUARD_CATALOG:-full}
servers=${1:-100}
calls=${2:-5000}
cargo build --release --quiet --bins --examples
work=$PWD/target/bench-gateway
# Pins are on (the default), kept with the bench rather than in the user's config.
export XDG_CONFIG_HOME=$work/config
target/release/examples/proxy_bench gateway "$servers" "$calls" "$PWD/target/release/mcpguard" \
  "$PWD/target/release/examples/catalog_server" "$work"
