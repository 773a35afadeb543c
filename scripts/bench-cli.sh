#!/usr/bin/env bash
# Whole-process timings of the release binary, the way a CI step or a pipe runs it.
# Targets: `mcpguard estimate` on a 100 KB file <= 10 ms wall (foundation issue); the first
# page of a 100,000-item file close to the cost of parsing it (cursor issue).
# Uses hyperfine when it is installed (apt-get install hyperfine), else a plain loop.
#
#   bash scripts/bench-cli.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
bin=target/release/mcpguard
doc=tests/fixtures/git-log-200.json   # a real 106 KB capture

big=target/bench/bookings-100k.json  # 100,000 bookings, 24 MB
mkdir -p target/bench
[ -f "$big" ] || python3 scripts/make-bookings.py 100000 > "$big"
export MCPGUARD_CURSOR_SECRET=bench-only-secret

cases=(
  "$bin estimate $doc --top 0"
  "$bin estimate $doc"
  "$bin estimate $doc --top 0 --tokenizer claude"
  "$bin estimate contracts/examples --top 0"
  "$bin paginate $big --limit 50"
  "$bin paginate $big --limit 200 --all"
)

if command -v hyperfine >/dev/null; then
  hyperfine --warmup 3 --shell=none --style basic "${cases[@]}"
  exit 0
fi

runs=50
for c in "${cases[@]}"; do
  $c >/dev/null
  start=$(date +%s%N)
  for _ in $(seq $runs); do $c >/dev/null; done
  end=$(date +%s%N)
  printf '%8.2f ms  %s\n' "$(echo "($end - $start) / $runs / 1000000" | bc -l)" "$c"
done
