#!/usr/bin/env bash
# The HTML report of a large audit: N responses (default 100,000) in one JSONL transcript, 24
# tools, sizes from a few hundred bytes to 60 KB (some over every limit), audited with
# `--format html`; prints the audit's time, the page's size, and the time Debian's Chromium
# takes to load it (median of 3). Issue 28's targets: under 5 MB, open in under 2 s.
#
#   bash scripts/bench-report.sh [N]        # after npm ci --prefix tests/peers
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-100000}
chromium_bin=$(bash scripts/chromium.sh 2>/dev/null)
cargo build --release --quiet
out=target/bench-report && mkdir -p "$out"
python3 - "$n" "$out/transcript.jsonl" <<'PY'
import json, random, sys
n, path = int(sys.argv[1]), sys.argv[2]
rng = random.Random(28)
tools = [f"tool_{i:02d}" for i in range(24)]
with open(path, "w") as f:
    for i in range(n):
        tool = tools[i % len(tools)]
        f.write(json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": tool, "arguments": {}}}) + "\n")
        size = int(rng.lognormvariate(6.3, 1.1)) if i % 50 else rng.randint(12_000, 60_000)
        items = [{"id": f"r{j}", "name": f"row {j} of {tool}", "value": rng.randint(0, 10**6)} for j in range(max(1, size // 60))]
        f.write(json.dumps({"jsonrpc": "2.0", "id": i, "result": {"content": [{"type": "text", "text": json.dumps(items)}]}}) + "\n")
PY
echo "transcript: $n responses, $(du -h "$out/transcript.jsonl" | cut -f1)"
start=$(date +%s.%N)
target/release/mcpguard audit "$out/transcript.jsonl" --format html --fail-on never -o "$out/report.html"
end=$(date +%s.%N)
echo "audit --format html: $(python3 -c "print(f'{$end - $start:.2f}')") s"
echo "page: $(stat -c %s "$out/report.html" | python3 -c 'import sys; print(f"{int(sys.stdin.read())/1e6:.2f} MB")')"
for _ in 1 2 3; do node tests/peers/open_report.mjs "$chromium_bin" "$out/report.html"; done
