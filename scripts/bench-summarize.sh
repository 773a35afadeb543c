#!/usr/bin/env bash
# Summarize speed and memory (summarize issue), side by side with the seed's reference
# algorithms on the same inputs: shared/peers/seed_ref.py `truncate` (copied to tests/peers)
# and seed_ref.js. Targets: a 1 MB response in <= 20 ms, a 100 MB one in <= 2 s with peak
# memory <= 3x the input; >= 10x faster than the Python reference, >= 3x than the JavaScript.
#
#   bash scripts/bench-summarize.sh      # needs python3, node, hyperfine and GNU time
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
bin=$PWD/target/release/mcpguard
dir=target/bench
mkdir -p "$dir"
# Realistic inputs: booking lists (scripts/make-bookings.py, the fixture's generator) of 1 MB
# and 100 MB, the 2 MB log tool result of the examples, and a 100 MB single string.
[ -f $dir/bookings-1mb.json ] || python3 scripts/make-bookings.py 4300 > $dir/bookings-1mb.json
[ -f $dir/bookings-100mb.json ] || python3 scripts/make-bookings.py 430000 > $dir/bookings-100mb.json
[ -f $dir/string-100mb.json ] || python3 -c "import json; print(json.dumps({'id': 'doc-1', 'body': 'The quick brown fox jumps over the lazy dog. ' * 2272727}))" > $dir/string-100mb.json
cp contracts/examples/fail-inv003-log-2mb-text.json $dir/log-2mb.json
store=$(mktemp -d)
trap 'rm -rf "$store"' EXIT

for input in bookings-1mb log-2mb bookings-100mb string-100mb; do
  f=$dir/$input.json
  size=$(stat -c %s "$f")
  echo "== $input ($((size / 1000)) KB)"
  runs=30; [ "$size" -gt 50000000 ] && runs=5
  hyperfine --warmup 1 --runs $runs -N --style basic --export-json "$dir/summarize-$input.json" \
    -n mcpguard "$bin summarize $f --no-artifact" \
    -n "mcpguard+artifact" "$bin summarize $f --artifact-dir $store" \
    -n seed_ref.py "python3 tests/peers/seed_ref.py truncate $f" \
    -n seed_ref.js "node tests/peers/seed_ref.js $f" 2>/dev/null \
    | grep -E "^(Benchmark|  Time)"
  python3 - "$dir/summarize-$input.json" <<'PY'
import json, sys
r = {x["command"]: x["mean"] for x in json.load(open(sys.argv[1]))["results"]}
m = r["mcpguard"]
print(f"   mcpguard {m*1000:.1f} ms; seed_ref.py {r['seed_ref.py']/m:.1f}x slower, seed_ref.js {r['seed_ref.js']/m:.1f}x slower")
PY
  for cmd in "$bin summarize $f --no-artifact" "python3 tests/peers/seed_ref.py truncate $f" "node tests/peers/seed_ref.js $f"; do
    kb=$(/usr/bin/time -f %M $cmd 2>&1 >/dev/null | tail -1)
    echo "   peak $((kb / 1024)) MB ($(( kb * 1024 * 100 / size ))% of the input): ${cmd%% *} $(basename "${cmd#* }" | cut -d' ' -f1-2)"
  done
done
