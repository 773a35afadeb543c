#!/usr/bin/env bash
# Whether two builds of mcpguard audit alike: every JSON capture the repository holds (the
# corpus, the contract examples, the fixtures, the fuzzer's regressions) audited by BASE and by
# NEW with the default flags, with the exact counter, with the heuristic and with --contract,
# and the JSON reports compared byte for byte. For a change that should make the audit faster
# and nothing else.
#
#   bash scripts/same-reports.sh /tmp/mcpguard-before target/release/mcpguard
set -euo pipefail
cd "$(dirname "$0")/.."
base=$1
new=$2
inputs=(tests/fixtures/corpus contracts/examples tests/fixtures/bookings-500.json
  tests/fixtures/filesystem-search-files.json tests/fixtures/git-log-200.json
  tests/fixtures/users-by-id-250.json)
# The corpus again, indented (findings then sit on many lines, and MG014 speaks).
pretty=$(mktemp -d)
transcript=$(mktemp --suffix=.jsonl)
trap 'rm -rf "$pretty" "$transcript"' EXIT
python3 - tests/fixtures/corpus "$pretty" <<'PY'
import json, pathlib, sys
for f in sorted(pathlib.Path(sys.argv[1]).glob("*.json")):
    pathlib.Path(sys.argv[2], f.name).write_text(json.dumps(json.loads(f.read_text()), indent=2, ensure_ascii=False))
PY
inputs+=("$pretty")
# The corpus again as one JSONL transcript: each capture answering a request (a tools/call
# naming its tool, a tools/list page asked twice in another order), with a notification, a
# response no request asked for, a lone surrogate, a line that is not JSON and a blank line
# among them (transcripts are read line by line, apart from whole files).
python3 - tests/fixtures/corpus "$transcript" <<'PY'
import json, pathlib, sys
lines, n = [], 0
def send(message):
    lines.append(json.dumps(message, ensure_ascii=False, separators=(",", ":")))
for f in sorted(pathlib.Path(sys.argv[1]).glob("*.json")):
    capture = json.loads(f.read_text())
    if not isinstance(capture, dict) or "result" not in capture and "error" not in capture:
        continue
    n += 1
    server, method = f.stem.split("__")[:2]
    params = {"name": f.stem.split("__")[2]} if method == "tools_call" else {}
    send({"jsonrpc": "2.0", "id": n, "method": method.replace("_", "/"), "params": params})
    send({**capture, "id": n})
    tools = capture.get("result", {}).get("tools")
    if tools:
        n += 1
        send({"jsonrpc": "2.0", "id": n, "method": "tools/list", "params": {}})
        send({"jsonrpc": "2.0", "id": n, "result": {"tools": tools[::-1]}})
send({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progress": 1}})
send({"jsonrpc": "2.0", "id": "nobody-asked", "result": {"content": [{"type": "text", "text": "late"}]}})
lines.append('{"jsonrpc":"2.0","id":"s","result":{"content":[{"type":"text","text":"cut \\ud83d"}]}}')
lines += ["not json at all", ""]
pathlib.Path(sys.argv[2]).write_text("\n".join(lines) + "\n")
PY
inputs+=("$transcript")
# The fuzzer's saved inputs that are JSON documents (each on its own: most are broken on purpose).
while IFS= read -r f; do inputs+=("$f"); done < <(find fuzz/regressions/input -type f 2>/dev/null | sort)
flags=("" "--tokenizer claude" "--tokenizer heuristic --client copilot-cli" "--contract contracts/response.schema.json")
differ=0
compared=0
for input in "${inputs[@]}"; do
  for f in "${flags[@]}"; do
    # shellcheck disable=SC2086
    a=$("$base" audit "$input" --format json --fail-on never $f 2>&1 || true)
    # shellcheck disable=SC2086
    b=$("$new" audit "$input" --format json --fail-on never $f 2>&1 || true)
    compared=$((compared + 1))
    if [ "$a" != "$b" ]; then
      differ=$((differ + 1))
      echo "DIFFERENT: audit $input $f"
      diff <(echo "$a") <(echo "$b") | head -10 || true  # diff exits 1: go on counting
    fi
  done
done
echo "$compared reports compared, $differ different"
[ "$differ" = 0 ]
