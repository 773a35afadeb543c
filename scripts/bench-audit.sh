#!/usr/bin/env bash
# Audit throughput, side by side with jq and the seed's Python checker over the same corpus.
# Targets (audit issue): >= 200 MB/s per core (tokenizer issue: with the default auto counter at
# >= 80% of the throughput with heuristic); linear in corpus size; peak memory independent of
# corpus size (JSONL streams); >= 5x faster than jq doing a comparable pass; >= 20x faster than
# shared/peers/seed_audit.py.
#
#   bash scripts/bench-audit.sh [MEGABYTES]    # default 200
# Needs jq and GNU time (apt-get install jq time); uses hyperfine when installed.
set -euo pipefail
cd "$(dirname "$0")/.."
mb=${1:-200}
cargo build --release --quiet
bin=$PWD/target/release/mcpguard
dir=target/bench/audit-corpus-$mb
seed=tests/peers/seed_audit.py

# A corpus of real captures, copied until it reaches the size asked for, as files and as one
# JSONL transcript: the published servers' responses bundled in tests/fixtures/corpus.
src=(tests/fixtures/corpus/*.json)
dir=$dir-real
if [ ! -d "$dir" ]; then
  mkdir -p "$dir/files"
  i=0
  while [ "$(du -sm "$dir/files" | cut -f1)" -lt "$mb" ]; do
    for f in "${src[@]}"; do cp "$f" "$dir/files/r$(printf %06d $i)-$(basename "$f")"; i=$((i + 1)); done
  done
  for f in "$dir"/files/*.json; do tr -d '\n' < "$f"; echo; done > "$dir/transcript.jsonl"
fi
bytes=$(du -sb "$dir/files" | cut -f1)
files=$(ls "$dir/files" | wc -l)
echo "corpus: $files files, $((bytes / 1000000)) MB ($dir: copies of the ${#src[@]} captures in tests/fixtures/corpus)"

# jq doing a comparable pass: parse every document and walk every value once.
jq_pass="jq -c '[paths] | length' $dir/files/*.json > /dev/null"

time_of() { /usr/bin/time -f '%e s, peak %M KB' bash -c "$1" 2>&1 >/dev/null | tail -1; }
echo "mcpguard audit, 1 thread:   $(time_of "RAYON_NUM_THREADS=1 $bin audit $dir/files --format jsonl --fail-on never")"
# The token counter's share (tokenizer issue: auto at >= 80% of the heuristic's throughput).
for t in heuristic auto claude-fast claude; do
  echo "mcpguard audit, 1 thread, --tokenizer $t: $(time_of "RAYON_NUM_THREADS=1 $bin audit $dir/files --format jsonl --fail-on never --tokenizer $t")"
done
echo "mcpguard audit, 2 threads:  $(time_of "$bin audit $dir/files --format jsonl --fail-on never")"
echo "mcpguard audit, JSONL:      $(time_of "$bin audit $dir/transcript.jsonl --format jsonl --fail-on never")"
echo "jq (parse + walk every value): $(time_of "$jq_pass")"
echo "seed_audit.py:              $(time_of "python3 $seed $dir/files")"
