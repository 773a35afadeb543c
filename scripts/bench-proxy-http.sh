#!/usr/bin/env bash
# The HTTP proxy's load figures (issue 14), loopback only, bounded in time:
#
# - 50 legacy sessions call the rmcp fixture at a steady 1,000 requests/s in all for 60 s,
#   directly and then through `mcpguard proxy --listen`; p50/p90/p99 of each and the proxy's
#   overhead (the difference), of the steady state, with each run's first second (sessions
#   made, connections opened) printed apart; the CPU each process used;
# - every answer checked against the direct run's for the same query: lost, duplicated,
#   reordered or different answers counted;
# - then a soak (default 600 s) at the same load with the proxy's resident memory sampled.
#
#   bash scripts/bench-proxy-http.sh [CLIENTS RATE SECONDS SOAK_SECONDS]
#   bash scripts/bench-proxy-http.sh 50 1000 60 0      # no soak
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet --bins --examples
target/release/examples/http_load target/release/mcpguard target/release/examples/fixture_server \
  "${1:-50}" "${2:-1000}" "${3:-60}" "${4:-600}"
