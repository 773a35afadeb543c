#!/usr/bin/env bash
# Chunking speed (chunk issue): a 1 GB log at >= 500 MB/s with peak memory <= 64 MB, and
# --lines near the end of that file in under a second.
#
#   bash scripts/bench-chunk.sh [MEGABYTES]    # default 1024; needs GNU time
set -euo pipefail
cd "$(dirname "$0")/.."
mb=${1:-1024}
cargo build --release --quiet
bin=$PWD/target/release/mcpguard
log=target/bench/app-$mb.log
if [ ! -f "$log" ]; then
  mkdir -p target/bench
  # The 2 MB application log of the examples (timestamps, levels, Java stack traces),
  # repeated to the size asked for.
  python3 -c "import json,sys; sys.stdout.write(json.load(open('contracts/examples/fail-inv003-log-2mb-text.json'))['result']['content'][0]['text'])" > target/bench/seed.log
  : > "$log"
  while [ "$(stat -c %s "$log")" -lt $((mb * 1024 * 1024)) ]; do cat target/bench/seed.log >> "$log"; done
fi
bytes=$(stat -c %s "$log")
lines=$(wc -l < "$log")
echo "log: $((bytes / 1048576)) MB, $lines lines"
export MCPGUARD_CURSOR_SECRET=bench-only-secret
run() { /usr/bin/time -f '%e s, peak %M KB' "$@" 2>&1 >/dev/null | tail -1; }
echo "index + first chunk:              $(run "$bin" chunk "$log")"
echo "every chunk (--all --format jsonl): $(run "$bin" chunk "$log" --all --format jsonl)"
echo "every chunk (--all --format text):  $(run "$bin" chunk "$log" --all --format text)"
echo "--lines near the end:             $(run "$bin" chunk "$log" --lines $((lines - 200)):$((lines - 100)))"
