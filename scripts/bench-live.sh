#!/usr/bin/env bash
# Live-audit speed (live-audit issue): client overhead per request under 1 ms beyond the
# server's own time, and a full live audit of server-everything over stdio in under 2 s wall,
# side by side with the MCP Inspector CLI making the same calls.
#
#   bash scripts/bench-live.sh     # needs node, npm, hyperfine; installs the Inspector CLI
#                                  # (pinned) under target/bench/inspector
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet --bin mcpguard --example fixture_server
bin=$PWD/target/release/mcpguard
fixture=$PWD/target/release/examples/fixture_server
server=$PWD/tests/peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js
[ -f "$server" ] || npm ci --prefix tests/peers --no-audit --no-fund --loglevel=error
dir=$PWD/target/bench/live
mkdir -p "$dir"
inspector=$PWD/target/bench/inspector/node_modules/.bin/mcp-inspector
if [ ! -x "$inspector" ]; then
  mkdir -p target/bench/inspector
  echo '{"private": true}' > target/bench/inspector/package.json
  npm install --prefix target/bench/inspector --no-audit --no-fund --loglevel=error @modelcontextprotocol/inspector@2.12.0
fi

echo "== client overhead: 1,000 tool calls to the rmcp fixture over stdio"
python3 -c "print('\n'.join('- tool: get_report' for _ in range(1000)))" > "$dir/calls-1000.yaml"
python3 -c "print('\n'.join('- tool: get_report' for _ in range(1)))" > "$dir/calls-1.yaml"
hyperfine -N --warmup 2 --runs 10 --style basic --export-json "$dir/overhead.json" \
  -n "1 call" "$bin audit --calls $dir/calls-1.yaml --fail-on never --format json -- $fixture" \
  -n "1000 calls" "$bin audit --calls $dir/calls-1000.yaml --fail-on never --format json -- $fixture" \
  | grep -E "^(Benchmark|  Time)"
python3 - "$dir/overhead.json" <<'PY'
import json, sys
r = {x["command"]: x["mean"] for x in json.load(open(sys.argv[1]))["results"]}
per = (r["1000 calls"] - r["1 call"]) / 999
print(f"   per request, round trip included (client + rmcp server + two pipes): {per * 1e6:.0f} µs")
PY
"$bin" audit --calls "$dir/calls-1000.yaml" --fail-on never --format json -- "$fixture" \
  | python3 -c "import json,sys; s=json.load(sys.stdin)['servers'][0]; print(f\"   latency p50 {s['latencyP50Ms']*1000:.0f} µs, max {s['latencyMaxMs']:.2f} ms over {s['calls']} calls\")"

echo "== a full live audit of server-everything over stdio (every list, the cursor check, 6 tools)"
cat > "$dir/everything-calls.yaml" <<'YAML'
- {tool: get-annotated-message, arguments: {messageType: error}}
- {tool: get-env}
- {tool: get-resource-links}
- {tool: get-resource-reference}
- {tool: get-structured-content, arguments: {location: New York}}
- {tool: get-tiny-image}
YAML
cli() { "$inspector" --cli node "$server" stdio "$@" > /dev/null; }
inspector_same_calls() {
  for m in tools/list resources/list resources/templates/list prompts/list; do cli --method "$m"; done
  cli --method tools/call --tool-name get-annotated-message --tool-arg messageType=error
  cli --method tools/call --tool-name get-env
  cli --method tools/call --tool-name get-resource-links
  cli --method tools/call --tool-name get-resource-reference
  cli --method tools/call --tool-name get-structured-content --tool-arg location="New York"
  cli --method tools/call --tool-name get-tiny-image
}
export -f cli inspector_same_calls
export inspector server
hyperfine --shell bash --warmup 1 --runs 5 --style basic --export-json "$dir/everything.json" \
  -n mcpguard "$bin audit --calls $dir/everything-calls.yaml --fail-on never -- node $server stdio" \
  -n "inspector --cli (10 invocations)" "inspector_same_calls" \
  | grep -E "^(Benchmark|  Time)"
