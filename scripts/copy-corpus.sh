#!/usr/bin/env bash
# A corpus of real captures as large as a benchmark asks: tests/fixtures/corpus copied into DIR
# (as r000000-<capture>.json, r000001-..., in rounds of every capture) until DIR holds MB
# megabytes. A DIR that is already there is left as it is.
#
#   bash scripts/copy-corpus.sh DIR MB      # DIR relative to the repository's root
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$1
mb=$2
[ -d "$dir" ] && exit 0
mkdir -p "$dir"
i=0
until [ "$(du -sm "$dir" | cut -f1)" -ge "$mb" ]; do
  for f in tests/fixtures/corpus/*.json; do cp "$f" "$dir/r$(printf %06d $i)-$(basename "$f")"; i=$((i + 1)); done
done
