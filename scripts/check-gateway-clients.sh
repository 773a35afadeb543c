#!/usr/bin/env bash
# Real servers through one gateway, driven by real clients (the gateway issue's "done when"):
# server-everything, server-filesystem and server-memory (npm), mcp-server-time and
# mcp-server-git (PyPI), and the rmcp fixture behind one `mcpguard proxy --mcp-config FILE`.
#
# - The TypeScript SDK client (2025-11-25) and the Python SDK client in both eras list every
#   tool, call one tool of each server, and read a 300 KB file that server-filesystem returns
#   whole back through mcpguard_more, byte for byte (tests/peers/gateway_client.mjs,
#   tests/peers/python/gateway_client.py); over stdio, then the same over `--listen`
#   (catalog: full).
# - The TypeScript and Python SDK clients under the gateway's default catalog (auto, tiered
#   here): find, describe and call a tool they were never listed (tests/peers/tiered_client.mjs,
#   tests/peers/python/tiered_client.py).
# - Claude Code: `claude mcp add` of the gateway, `claude mcp list` shows it connected.
#
#   bash scripts/check-gateway-clients.sh   # after: npm ci --prefix tests/peers;
#                                           #        cargo build --release --bins --examples
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
bin=${MCPGUARD_BIN:-$root/target/release/mcpguard}
fixture=$(dirname "$bin")/examples/fixture_server
peers=$root/tests/peers/node_modules/.bin
for need in "$bin" "$fixture"; do
  [ -x "$need" ] || { echo "missing $need: cargo build --release --bins --examples" >&2; exit 1; }
done
for need in claude mcp-server-everything mcp-server-filesystem mcp-server-memory; do
  [ -x "$peers/$need" ] || { echo "missing $peers/$need: npm ci --prefix tests/peers" >&2; exit 1; }
done
servers=$(bash scripts/python-servers.sh)
out=$root/target/gateway-clients
rm -rf "$out" && mkdir -p "$out/home" "$out/project" "$out/files" "$out/cache"
# The gateway's pins (pins: warn, the default) go with this run, not into the user's config.
export XDG_CONFIG_HOME=$out/config
python3 - "$out/files/big.log" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    for i in range(3000):
        f.write(f"2026-11-30T10:{i // 60 % 60:02d}:{i % 60:02d}Z worker-{i % 7} handled request {i} in {i % 97} ms\n")
PY
config=$out/servers.json
cat > "$config" <<JSON
{"mcpServers": {
  "everything": {"command": "$peers/mcp-server-everything", "args": []},
  "filesystem": {"command": "$peers/mcp-server-filesystem", "args": ["$out/files"]},
  "memory": {"command": "$peers/mcp-server-memory", "args": [], "env": {"MEMORY_FILE_PATH": "$out/memory.jsonl"}},
  "time": {"command": "$servers/mcp-server-time", "args": []},
  "git": {"command": "$servers/mcp-server-git", "args": ["--repository", "$root"]},
  "fixture": {"command": "$fixture", "args": []}
}}
JSON

# The SDK clients list every tool: catalog full (the gateway's default, auto, tiers a catalog
# this size for clients other than Claude Code).
export MCPGUARD_CATALOG=full
echo "-- the TypeScript SDK client through the gateway (stdio)"
node tests/peers/gateway_client.mjs "$bin" "$config" "$out/cache" "$out/files/big.log" "$root" 2>"$out/ts.log" \
  || { cat "$out/ts.log" >&2; exit 1; }
echo "-- the Python SDK client through the gateway (stdio, both eras)"
GATEWAY_REPO=$root "$servers/python" tests/peers/python/gateway_client.py "$bin" "$config" "$out/cache" \
  "$out/files/big.log" 2>"$out/python.log" || { cat "$out/python.log" >&2; exit 1; }

echo "-- the same clients through the gateway over --listen"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
MCPGUARD_CURSOR_SECRET=$(python3 -c 'import secrets; print(secrets.token_hex(32))') \
  "$bin" proxy --listen "127.0.0.1:$port" --mcp-config "$config" --catalog-cache "$out/cache" \
  --store "$out/store" 2>"$out/listen.log" &
listener=$!
trap 'kill $listener 2>/dev/null || true' EXIT
for _ in $(seq 100); do curl -fs "http://127.0.0.1:$port/health" > /dev/null && break; sleep 0.1; done
url=http://127.0.0.1:$port/mcp
node tests/peers/gateway_client.mjs --url "$url" "$out/files/big.log" "$root" 2>>"$out/ts.log" \
  || { cat "$out/ts.log" "$out/listen.log" >&2; exit 1; }
GATEWAY_REPO=$root "$servers/python" tests/peers/python/gateway_client.py --url "$url" \
  "$out/files/big.log" 2>>"$out/python.log" || { cat "$out/python.log" "$out/listen.log" >&2; exit 1; }
kill $listener; wait $listener 2>/dev/null || true

unset MCPGUARD_CATALOG
echo "-- the TypeScript SDK client through the gateway's default catalog (auto: tiered)"
node tests/peers/tiered_client.mjs "$bin" "$config" "$out/cache" 2>>"$out/ts.log" \
  || { cat "$out/ts.log" >&2; exit 1; }
echo "-- the Python SDK client through the gateway's default catalog (auto: tiered, both eras)"
"$servers/python" tests/peers/python/tiered_client.py "$bin" "$config" "$out/cache" 2>>"$out/python.log" \
  || { cat "$out/python.log" >&2; exit 1; }

echo "-- Claude Code: claude mcp add the gateway, claude mcp list"
claude() { (cd "$out/project" && HOME="$out/home" "$peers/claude" "$@"); }
claude mcp add gateway -- "$bin" proxy --mcp-config "$config" --catalog-cache "$out/cache" >/dev/null
claude mcp list > "$out/claude-list.txt" 2>&1 || true
cat "$out/claude-list.txt"
grep -q "^gateway: $bin proxy --mcp-config .* Connected" "$out/claude-list.txt" \
  || { echo "claude mcp list: the gateway is not connected" >&2; exit 1; }

echo "-- install --client claude-code --gateway: three servers of the local scope behind one entry"
gw=$out/install && mkdir -p "$gw/home/.claude" "$gw/app"
in_app() { (cd "$gw/app" && HOME="$gw/home" "$@"); }
in_app "$peers/claude" mcp add --scope local everything -- "$peers/mcp-server-everything" > /dev/null
in_app "$peers/claude" mcp add --scope local time -- "$servers/mcp-server-time" > /dev/null
in_app "$peers/claude" mcp add --scope local fixture -- "$fixture" > /dev/null
cp "$gw/home/.claude.json" "$gw/claude.json.before"
in_app "$bin" install --client claude-code --gateway > "$gw/install.txt"
cat "$gw/install.txt"
in_app "$peers/claude" mcp list > "$gw/list.txt" 2>&1 || true
cat "$gw/list.txt"
grep -q "^mcpguard: $bin proxy --mcp-config .* Connected" "$gw/list.txt" \
  || { echo "after install --gateway, claude mcp list does not show the gateway connected" >&2; exit 1; }
if grep -qE "^(everything|time|fixture):" "$gw/list.txt"; then
  echo "after install --gateway, the servers are still listed on their own" >&2; exit 1
fi
in_app "$bin" uninstall --client claude-code > /dev/null
# Claude Code rewrites ~/.claude.json on every start: the servers must be as they were.
python3 - "$gw/claude.json.before" "$gw/home/.claude.json" <<'PY'
import json, sys
before, after = (json.load(open(p)) for p in sys.argv[1:3])
local = lambda d: next(p["mcpServers"] for p in d["projects"].values() if "everything" in p.get("mcpServers", {}))
assert local(before) == local(after), (local(before), local(after))
assert list(local(before)) == list(local(after)), "the servers' order"
PY
echo "install --gateway: three local servers behind one entry, connected in claude mcp list; uninstall: back as they were"
