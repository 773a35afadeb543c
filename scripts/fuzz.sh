#!/usr/bin/env bash
# Runs the fuzz targets of fuzz/ (cargo-fuzz, libFuzzer; pinned by scripts/install-cargo-fuzz.sh)
# on seed corpora made from contracts/examples and tests/fixtures (with its corpus/), two at a
# time (both cores), and prints the executions and findings of each.
#
#   bash scripts/fuzz.sh                       # the six that read untrusted bytes 600 s each,
#                                              # every other target 180 s
#   bash scripts/fuzz.sh 60 cursor sse_parser  # chosen targets, 60 s each
#
# A finding (crash, timeout over 10 s, more than 2 GB) is left in fuzz/artifacts/TARGET/;
# minimize it (cargo fuzz tmin), fix the bug, and keep the input in fuzz/regressions/TARGET/,
# which `cargo test --test fuzz_regressions` replays.
set -euo pipefail
cd "$(dirname "$0")/.."
PATH="$(bash scripts/install-cargo-fuzz.sh):$PATH"

untrusted=(jsonrpc_reader sse_parser cursor input config proxy_result)
others=(live_inputs measure_tokens chunk summarize paginate proxy_policy lean_paging proxy_http_request)
if [ $# -gt 0 ]; then
  seconds=$1; shift
  plan=()
  for t in "${@:-${untrusted[@]} ${others[@]}}"; do plan+=("$t:$seconds"); done
else
  plan=()
  for t in "${untrusted[@]}"; do plan+=("$t:600"); done
  for t in "${others[@]}"; do plan+=("$t:180"); done
fi

# Seeds: real responses and transcripts, configs, and the same JSON as SSE events.
seed() { # target, files...
  local dir=fuzz/corpus/$1; shift
  mkdir -p "$dir"
  for f in "$@"; do [ -f "$f" ] && cp "$f" "$dir/$(basename "$f")"; done
  return 0
}
json=(contracts/examples/*.json tests/fixtures/*.json tests/fixtures/corpus/*.json)
yaml=(contracts/*.yaml)
# A transcript: every captured response on a line of its own, each after a request for it.
mkdir -p target/fuzz-seeds
python3 - "${json[@]}" > target/fuzz-seeds/transcript.jsonl <<'PY2'
import json, sys
for i, path in enumerate(sys.argv[1:]):
    try:
        doc = json.load(open(path, encoding="utf-8"))
    except ValueError:
        continue
    print(json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": "t"}}))
    if isinstance(doc, dict) and "jsonrpc" in doc:
        doc["id"] = i
    print(json.dumps(doc, ensure_ascii=False, separators=(",", ":")))
PY2
cargo run --quiet --release -- validate-config --print-defaults > target/fuzz-seeds/mcpguard.yaml 2>/dev/null || true
printf '%s\n' '{"mcpServers":{"a":{"command":"npx","args":["-y","x","${HOME:-/tmp}"],"env":{"K":"${TOKEN}"}},"b":{"type":"http","url":"http://127.0.0.1:3001/mcp","headers":{"Authorization":"Bearer ${TOKEN}"}}}}' \
  > target/fuzz-seeds/servers.mcp.json
printf -- '- tool: list_bookings\n  arguments: {status: confirmed}\n  expect: {maxBytes: 10240, isError: false, contains: total}\n' \
  > target/fuzz-seeds/calls.yaml
jsonl=(target/fuzz-seeds/transcript.jsonl)
yaml+=(target/fuzz-seeds/mcpguard.yaml target/fuzz-seeds/calls.yaml)
seed input "${json[@]}" "${jsonl[@]}"
seed measure_tokens "${json[@]}"
seed summarize "${json[@]}"
seed paginate "${json[@]}"
seed lean_paging "${json[@]}"
seed chunk tests/fixtures/unicode-mix.txt README.md "${jsonl[@]}"
seed config "${yaml[@]}" contracts/config.schema.json
seed live_inputs "${yaml[@]}" target/fuzz-seeds/servers.mcp.json
seed jsonrpc_reader "${jsonl[@]}"
# Results the parser refuses, about 300 KB each once the target repeats them.
seed proxy_result fuzz/regressions/proxy_result/*
# A conversation through the proxy: the transcript with each line marked by its side.
mkdir -p fuzz/corpus/proxy_policy
awk 'NR % 2 { print ">" $0; next } { print "<" $0 }' "${jsonl[@]}" > fuzz/corpus/proxy_policy/transcript
printf '>{"jsonrpc":"2.0","id":1,"method":"tools/list"}\n<{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{}}]}}\n?{"ref":"ax://a/0123456789abcdef","lines":"1-9"}\n' \
  > fuzz/corpus/proxy_policy/more
# Requests as clients send them to proxy --listen: headers, a blank line, the body.
mkdir -p fuzz/corpus/proxy_http_request
printf 'MCP-Protocol-Version: 2026-07-28\nMcp-Method: tools/call\nMcp-Name: list_bookings\nAuthorization: Bearer t0k3n\n\n{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_bookings","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}' \
  > fuzz/corpus/proxy_http_request/modern-call
printf 'Mcp-Session-Id: 3f2a\nMcp-Method: resources/read\nMcp-Name: =?base64?ZmlsZTovLy90bXAvYQ==?=\n\n{"jsonrpc":"2.0","id":"x","method":"resources/read","params":{"uri":"file:///tmp/a"}}' \
  > fuzz/corpus/proxy_http_request/sentinel-name
mkdir -p fuzz/corpus/sse_parser fuzz/corpus/cursor
for f in "${jsonl[@]}"; do
  sed 's/^/data: /; s/$/\n/' "$f" > "fuzz/corpus/sse_parser/$(basename "$f").sse"
done
printf 'id: 0\nretry: 3000\ndata:\n\n' > fuzz/corpus/sse_parser/priming.sse
# Cursors as paginate issues them.
secret=fuzz-secret-one
for limit in 1 7 50; do
  MCPGUARD_CURSOR_SECRET=$secret cargo run --quiet --release -- paginate \
    tests/fixtures/bookings-500.json --limit "$limit" --order-by checkInDate:asc 2>/dev/null |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["nextCursor"], end="")' \
    > "fuzz/corpus/cursor/limit-$limit" || true
done

run() { # target:seconds
  local target=${1%%:*} seconds=${1##*:}
  local log=fuzz/artifacts/$target.log
  mkdir -p "fuzz/artifacts/$target"
  (cd fuzz && cargo fuzz run --sanitizer none -O "$target" "corpus/$target" -- \
      -max_total_time="$seconds" -dict=mcp.dict -timeout=10 -rss_limit_mb=2048 \
      -max_len=262144 -print_final_stats=1) > "$log" 2>&1 || true
  local execs findings
  execs=$(grep -m1 'stat::number_of_executed_units' "$log" | awk '{print $2}')
  findings=$(find "fuzz/artifacts/$target" -type f | wc -l)
  printf '%-15s %5s s  %12s executions  %s findings\n' "$target" "$seconds" "${execs:-?}" "$findings"
  if [ "$findings" -gt 0 ]; then
    grep -m3 -E 'panicked|ERROR|SUMMARY' "$log" | sed 's/^/    /'
  fi
}

(cd fuzz && cargo fuzz build --sanitizer none -O) >&2
echo "target          time        executions  findings"
i=0
while [ $i -lt ${#plan[@]} ]; do
  run "${plan[$i]}" &
  if [ $((i + 1)) -lt ${#plan[@]} ]; then run "${plan[$((i + 1))]}" & fi
  wait
  i=$((i + 2))
done
