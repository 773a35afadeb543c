#!/usr/bin/env bash
# The stdio proxy's figures (its issue's speed targets), loopback only, bounded:
#
# - pass-through overhead per message: N small tools/call round trips (default 10,000), one at
#   a time, to the rmcp fixture directly and through `mcpguard proxy`; p50 and p99 of each and
#   their difference;
# - shrinking one result of 1 MB and 100 MB (a list of records, a log), timed warm (the median
#   and the fastest of 21; the first, cold, too) with the peak memory above the process's
#   start, the result itself included;
# - the bundled corpus replayed through the proxy (tests/proxy_replay.rs): token reduction of
#   the oversized results, all within budget.
#
#   bash scripts/bench-proxy.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-10000}
cargo build --release --quiet --bins --examples
bench=target/release/examples/proxy_bench
work=target/bench-proxy
mkdir -p "$work"

echo "-- pass-through overhead, $n calls"
"$bench" overhead "$n" target/release/mcpguard target/release/examples/fixture_server

echo "-- shrinking one result"
for mb in 1 100; do
  for kind in list text; do
    "$bench" make "$mb" "$kind" "$work/result.json"
    "$bench" shrink "$work/result.json"
  done
done
rm -f "$work/result.json"

echo "-- the bundled corpus through the proxy"
cargo test --release --quiet --test proxy_replay -- --nocapture 2>&1 | grep -E "shrunk|passed|FAILED"
