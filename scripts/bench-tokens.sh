#!/usr/bin/env bash
# Hostile and large inputs through the exact tokenizers: time and peak memory per input, at two
# sizes each, so linear growth shows (double the input, double the time). Figures, not a test.
#
#   bash scripts/bench-tokens.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
bin=target/release/mcpguard
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

python3 - "$dir" <<'PY'
import base64, json, os, sys, random
d = sys.argv[1]
rnd = random.Random(7)
def write(name, text):
    with open(os.path.join(d, name), "w", encoding="utf-8") as f:
        json.dump({"content": [{"type": "text", "text": text}]}, f, ensure_ascii=False)
for scale, tag in ((1, "1x"), (2, "2x")):
    write(f"no-space-{tag}.json", "x" * (5_000_000 * scale))
    write(f"emoji-{tag}.json", "\U0001F600" * (500_000 * scale))
    write(f"combining-{tag}.json", "a" + "\u0301" * (50_000 * scale))
    write(f"nul-{tag}.json", "a\u0000b " * (250_000 * scale))
    write(f"base64-{tag}.json", base64.b64encode(rnd.randbytes(3_000_000 * scale)).decode())
    write(f"newlines-{tag}.json", "." * (2_500_000 * scale) + "\n" * (2_500_000 * scale))
    write(f"prose-{tag}.json", ("All human beings are born free and equal in dignity and rights. " * (60_000 * scale)))
PY

printf '%-22s %-10s %10s %10s %12s\n' input tokenizer seconds "peak MB" tokens
for name in no-space emoji combining nul base64 newlines prose; do
  for tag in 1x 2x; do
    for t in claude claude-v3 claude-fast; do
      file="$dir/$name-$tag.json"
      out=$( { /usr/bin/time -f '%e %M' "$bin" estimate "$file" --top 0 --tokenizer "$t" --format json > "$dir/out.json"; } 2>&1 )
      tokens=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["documents"][0]["tokens"])' "$dir/out.json")
      read -r secs kb <<< "$out"
      printf '%-22s %-10s %10s %10d %12s\n' "$name-$tag" "$t" "$secs" "$((kb / 1024))" "$tokens"
    done
  done
done
