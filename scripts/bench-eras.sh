#!/usr/bin/env bash
# Live-audit speed in both eras, against the rmcp fixture (examples/fixture_server, built in
# release). Targets (both-eras issue): era detection adds at most one round trip per server;
# a full live audit of a dual-era stdio server (lists, cursor check, probe calls) stays under
# 1 s wall; client overhead per request stays under 1 ms.
#
#   bash scripts/bench-eras.sh [RUNS]        # default 20
#
# Prints, per era: wall time per audit (mean and max over RUNS), the round trips before the
# first tools/list (era detection), the requests of one audit and their p50 latency, which
# is the whole round trip (mcpguard, the pipe and rmcp) and so bounds mcpguard's own share.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-20}
cargo build --release --quiet --bin mcpguard --example fixture_server
bin=$PWD/target/release/mcpguard
fx=$PWD/target/release/examples/fixture_server
out=target/bench/eras
rm -rf "$out" && mkdir -p "$out"

bench() { # label, mcpguard args..., -- fixture args...
  local label=$1; shift
  local total=0 max=0 start end ms
  for i in $(seq "$runs"); do
    start=$(date +%s%N)
    "$bin" audit --probe --format json --save "$out/$label" "$@" > "$out/$label.json" || [ $? -eq 1 ]
    end=$(date +%s%N)
    ms=$(( (end - start) / 1000000 ))
    total=$(( total + ms )); [ "$ms" -gt "$max" ] && max=$ms
  done
  python3 - "$label" "$out/$label.json" "$out/$label/fixture_server.jsonl" $(( total / runs )) "$max" <<'PY'
import json, sys
label, report, saved, mean, peak = sys.argv[1], json.load(open(sys.argv[2])), sys.argv[3], sys.argv[4], sys.argv[5]
s = report["servers"][0]
methods = [json.loads(l).get("method") for l in open(saved)]
requests = [m for m in methods if m and not m.startswith("notifications/")]
before = requests.index("tools/list")
print(f"{label:<22} wall {mean:>4} ms mean, {peak:>4} ms max | era by {before} round trip(s) before tools/list "
      f"| {len(requests)} requests, p50 {s['latencyP50Ms']:.2f} ms, max {s['latencyMaxMs']:.2f} ms | {s['protocolVersion']}"
      + (", dual-era" if s.get("dualEra") else ""))
PY
}

echo "live audit of the rmcp fixture over stdio, $runs runs each (--probe: lists, cursor check, 3 calls)"
bench auto-dual --ask-legacy -- "$fx" --era dual
bench auto-legacy -- "$fx" --era legacy
bench forced-2025-11-25 --protocol 2025-11-25 -- "$fx" --era dual
bench forced-2026-07-28 --protocol 2026-07-28 -- "$fx" --era dual
