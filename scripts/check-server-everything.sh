#!/usr/bin/env bash
# The live-audit issue's real-server check: @modelcontextprotocol/server-everything (pinned in
# tests/peers/package.json, installed there by `npm ci`) audited over stdio and over Streamable
# HTTP (its streamableHttp mode on a free port of 127.0.0.1). Both must report the same real
# findings, and a saved session must audit again to the same findings.
#
#   bash scripts/check-server-everything.sh      # after: npm ci --prefix tests/peers; cargo build --release
set -euo pipefail
cd "$(dirname "$0")/.."
bin=target/release/mcpguard
server=tests/peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js
out=target/live-check
rm -rf "$out" && mkdir -p "$out"

expect_findings() { # exit code 1: findings, as this server has
  local status=0
  "$@" || status=$?
  if [ "$status" -ne 1 ]; then
    echo "expected exit 1 (findings), got $status: $*" >&2
    exit 1
  fi
}

echo "-- stdio"
expect_findings "$bin" audit --probe --timeout 30 --format json --save "$out/saved" \
  --server "node $server stdio" > "$out/stdio.json"

echo "-- Streamable HTTP"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
PORT=$port node "$server" streamableHttp > "$out/http-server.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
python3 - "$port" <<'PY'
import socket, sys, time
for _ in range(200):
    try:
        socket.create_connection(("127.0.0.1", int(sys.argv[1])), 0.1).close()
        sys.exit(0)
    except OSError:
        time.sleep(0.05)
sys.exit("server-everything did not start listening")
PY
expect_findings "$bin" audit --probe --timeout 30 --format json \
  --url "http://127.0.0.1:$port/mcp" > "$out/http.json"

echo "-- the saved stdio session, audited again"
expect_findings "$bin" audit "$out/saved" --format json > "$out/saved.json"

python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
def load(name):
    return json.load(open(f"{out}/{name}.json"))
def findings(r):
    return sorted((f["code"], f["pointer"], f["message"]) for d in r["documents"] for f in d["findings"])
def by_tool(r):
    return {d["tool"]: d for d in r["documents"]}
stdio, http, saved = load("stdio"), load("http"), load("saved")
for name, r in [("stdio", stdio), ("http", http)]:
    s = r["servers"][0]
    assert s["server"].startswith("mcp-servers/everything"), s
    assert s["protocolVersion"] == "2025-11-25", s
    assert s["toolCount"] >= 10 and s["catalogTokens"] > 2000, s
    codes = {f[0] for f in findings(r)}
    # Real findings of this server: it pages nothing and accepts a cursor it never issued
    # (MG020), its catalog is over the 2,000-token start budget (MG016), get-structured-content
    # sends its JSON twice (MG013), get-env pretty-prints (MG014), its instructions are long (MG003).
    for code in ["MG020", "MG016", "MG013", "MG014", "MG003"]:
        assert code in codes, (name, code, codes)
    # get-tiny-image's base64 PNG is an image block of 20 x 20 pixels: one 28-pixel patch,
    # one token (Claude's vision rule), not 5 KB of text nor a flat 1,600.
    image = by_tool(r)["get-tiny-image"]
    assert image["wireBytes"] > 5000 and 10 <= image["tokens"] < 40, image
    assert not image["findings"], image
    print(f"{name}: {s['toolCount']} tools, {s['catalogTokens']} catalog tokens, "
          f"{len(r['documents'])} responses, findings {sorted(codes)}, {s['elapsedMs']:.0f} ms")
# Messages may differ in numbers: get-env prints the server's own environment (PORT...).
assert [f[:2] for f in findings(stdio)] == [f[:2] for f in findings(http)], "stdio and HTTP disagree"
assert findings(saved) == findings(stdio), "the saved session audits differently"
print("stdio, Streamable HTTP and the saved session agree")
PY
