#!/usr/bin/env bash
# Real clients through `mcpguard proxy` (the stdio proxy issue's "done when"):
#
# - Claude Code (@anthropic-ai/claude-code, pinned in tests/peers/package.json): `claude mcp add`
#   four servers behind the proxy (server-everything, mcp-server-time, mcp-server-git, the rmcp
#   fixture) and `claude mcp list` must report each connected. Offline: list only starts them.
# - The MCP Inspector CLI (@modelcontextprotocol/inspector, pinned): reads the fixture's 385 KB
#   log through the proxy, one process per call as the CLI works, following nextCursor through
#   mcpguard_more; every piece within budget, the pieces equal to the log read without the proxy.
# - The Python SDK client (mcp 2.x, both eras) and the TypeScript SDK client: the same, each
#   from its own side (tests/peers/python/proxy_client.py, tests/peers/proxy_client.mjs).
# - Over Streamable HTTP (the HTTP proxy issue): `proxy --listen` in front of the fixture's HTTP
#   server (dual-era), and the same three clients against it: the Inspector CLI (a session per
#   call), the Python SDK in 2026-07-28 (stateless) and 2025-11-25 (session) modes, and the
#   TypeScript SDK (sessions). In front of server-everything (streamableHttp) and a dual-era
#   Python SDK server over HTTP; and in front of stdio servers (`proxy --listen -- COMMAND`):
#   the Python SDK server in both eras, the fixture with the TypeScript SDK client.
# - Two instances over one Redis (redis-server from Debian's packages: scripts/redis.sh) in front
#   of server-everything and of the Python SDK server: large results read alternating
#   instances, Redis killed mid-read and started again (tests/peers/python/redis_instances.py).
#
#   bash scripts/check-proxy-clients.sh   # after: npm ci --prefix tests/peers;
#                                         #        cargo build --release --bins --examples
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
bin=$root/target/release/mcpguard
fixture=$root/target/release/examples/fixture_server
peers=$root/tests/peers/node_modules/.bin
for need in "$bin" "$fixture"; do
  [ -x "$need" ] || { echo "missing $need: cargo build --release --bins --examples" >&2; exit 1; }
done
for need in claude mcp-inspector mcp-server-everything; do
  [ -x "$peers/$need" ] || { echo "missing $peers/$need: npm ci --prefix tests/peers" >&2; exit 1; }
done
servers=$(bash scripts/python-servers.sh)
out=$root/target/proxy-clients
rm -rf "$out" && mkdir -p "$out/home" "$out/project"

echo "-- Claude Code: claude mcp add, claude mcp list"
claude() { (cd "$out/project" && HOME="$out/home" "$peers/claude" "$@"); }
claude mcp add everything -- "$bin" proxy -- "$peers/mcp-server-everything" >/dev/null
claude mcp add time -- "$bin" proxy -- "$servers/mcp-server-time" >/dev/null
claude mcp add git -- "$bin" proxy -- "$servers/mcp-server-git" --repository "$root" >/dev/null
claude mcp add fixture -- "$bin" proxy --artifact-dir "$out/store-claude" -- "$fixture" >/dev/null
claude mcp list > "$out/claude-list.txt" 2>&1 || true
cat "$out/claude-list.txt"
for name in everything time git fixture; do
  grep -q "^$name: $bin proxy .* Connected" "$out/claude-list.txt" \
    || { echo "claude mcp list: $name is not connected" >&2; exit 1; }
done

echo "-- mcpguard install / uninstall on a project's .mcp.json, as Claude Code reads it"
mkdir -p "$out/installed" "$out/home-installed/.claude"
# Project servers need the user's approval; the user's settings give it for all of them.
echo '{"enableAllProjectMcpServers": true}' > "$out/home-installed/.claude/settings.json"
cat > "$out/installed/.mcp.json" <<JSON
{"mcpServers": {"everything": {"command": "$peers/mcp-server-everything", "args": [], "env": {}}}}
JSON
installed() { (cd "$out/installed" && HOME="$out/home-installed" "$@"); }
installed "$bin" install
installed "$peers/claude" mcp list > "$out/installed-list.txt" 2>&1 || true
grep -q "^everything: $bin proxy -- $peers/mcp-server-everything - .*Connected" "$out/installed-list.txt" \
  || { cat "$out/installed-list.txt" >&2; echo "after install, claude mcp list does not show the proxy connected" >&2; exit 1; }
installed "$bin" uninstall
installed "$peers/claude" mcp list > "$out/uninstalled-list.txt" 2>&1 || true
grep -q "^everything: $peers/mcp-server-everything  - .*Connected\|^everything: $peers/mcp-server-everything - .*Connected" "$out/uninstalled-list.txt" \
  || { cat "$out/uninstalled-list.txt" >&2; echo "after uninstall, the server is not back on its own command" >&2; exit 1; }
echo "install: claude mcp list shows everything connected through the proxy; uninstall: back on its own"

echo "-- mcpguard install --client claude-code --scope all, after claude mcp add in each scope"
scoped=$out/scoped && mkdir -p "$scoped/home/.claude" "$scoped/app"
echo '{"enableAllProjectMcpServers": true}' > "$scoped/home/.claude/settings.json"
in_app() { (cd "$scoped/app" && HOME="$scoped/home" "$@"); }
for scope in local user project; do
  in_app "$peers/claude" mcp add --scope "$scope" "evu-$scope" -- "$peers/mcp-server-everything" > /dev/null
done
cp "$scoped/home/.claude.json" "$scoped/claude.json.before"
cp "$scoped/app/.mcp.json" "$scoped/mcp.json.before"
in_app "$bin" install --client claude-code --scope all > "$scoped/install.txt"
in_app "$peers/claude" mcp list > "$scoped/list.txt" 2>&1 || true
for scope in local user project; do
  grep -q "^evu-$scope: $bin proxy -- $peers/mcp-server-everything - .*Connected" "$scoped/list.txt" \
    || { cat "$scoped/install.txt" "$scoped/list.txt" >&2; echo "evu-$scope is not connected through the proxy" >&2; exit 1; }
done
in_app "$peers/claude" mcp get evu-local > "$scoped/get.txt" 2>&1
grep -q "Args: proxy -- $peers/mcp-server-everything" "$scoped/get.txt" \
  || { cat "$scoped/get.txt" >&2; echo "claude mcp get evu-local does not show mcpguard proxy" >&2; exit 1; }
in_app "$bin" install --list > "$scoped/clients.txt"
in_app "$bin" uninstall --client claude-code --scope all > /dev/null
# Claude Code may have written its own keys since (it does on every start): only our servers
# must be as they were. The project's .mcp.json is ours alone: byte for byte.
cmp "$scoped/app/.mcp.json" "$scoped/mcp.json.before" \
  || { echo "uninstall did not give .mcp.json back byte for byte" >&2; exit 1; }
python3 - "$scoped/claude.json.before" "$scoped/home/.claude.json" <<'PY'
import json, sys
before, after = (json.load(open(p)) for p in sys.argv[1:3])
for doc in (before, after):
    assert "evu-user" in doc["mcpServers"], doc["mcpServers"]
assert before["mcpServers"]["evu-user"] == after["mcpServers"]["evu-user"], after["mcpServers"]
# The local scope is keyed by the project Claude Code chose (the git root around the directory).
local = lambda d: next(p["mcpServers"] for p in d["projects"].values() if "evu-local" in p.get("mcpServers", {}))
assert local(before) == local(after), local(after)
PY
echo "install --client claude-code --scope all: $(grep -c 'now starts through' "$scoped/install.txt") servers (local, user, project) connected through the proxy in claude mcp list; uninstall: back as they were"

echo "-- mcpguard install on a remote entry: claude mcp add --transport http, then the stdio bridge"
# The remote server is tests/oauth/server.py (the Python SDK's authorization server in front of
# an MCP server); Claude Code starts the bridge, which signs in headless (BROWSER fetches the
# sign-in page, which redirects at once) the first time the server answers 401.
remote=$out/remote && mkdir -p "$remote/home/.claude" "$remote/app" "$remote/store"
echo '{"enableAllProjectMcpServers": true}' > "$remote/home/.claude/settings.json"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$servers/python" tests/oauth/server.py --port "$port" > "$remote/server.log" 2>&1 &
oauth_server=$!
trap 'kill $oauth_server 2>/dev/null || true' EXIT
for _ in $(seq 100); do curl -fs "http://127.0.0.1:$port/admin/stats" > /dev/null && break; sleep 0.1; done
in_remote() { (cd "$remote/app" && HOME="$remote/home" MCPGUARD_OAUTH_STORE="$remote/store" \
  BROWSER="curl -sSL -o /dev/null --max-time 20" "$@"); }
in_remote "$peers/claude" mcp add --scope project --transport http linear "http://127.0.0.1:$port/mcp" > /dev/null
cp "$remote/app/.mcp.json" "$remote/mcp.json.before"
in_remote "$bin" install --client claude-code --scope project > "$remote/install.txt"
grep -q "linear: now reaches its URL through mcpguard proxy --url" "$remote/install.txt" \
  || { cat "$remote/install.txt" >&2; exit 1; }
in_remote "$peers/claude" mcp list > "$remote/list.txt" 2>&1 || true
grep -q "^linear: $bin proxy --remote-entry url:http --url http://127.0.0.1:$port/mcp - .*Connected" "$remote/list.txt" \
  || { cat "$remote/list.txt" >&2; echo "the remote server is not connected through the bridge" >&2; exit 1; }
in_remote "$bin" auth status --url "http://127.0.0.1:$port/mcp" > /dev/null \
  || { echo "the bridge's login was not kept" >&2; exit 1; }
in_remote "$bin" uninstall --client claude-code --scope project > /dev/null
python3 - "$remote/mcp.json.before" "$remote/app/.mcp.json" <<'PY'
import json, sys
before, after = (json.load(open(p)) for p in sys.argv[1:3])
assert before == after, (before, after)
PY
stats=$(curl -s "http://127.0.0.1:$port/admin/stats")
kill $oauth_server 2>/dev/null || true
trap - EXIT
echo "install on claude mcp add --transport http: claude mcp list shows it connected through the bridge, signed in ($stats); uninstall: the same entry back"

echo "-- MCP Inspector CLI: a 385 KB result read through the proxy"
# The Inspector takes everything after the server's command as its arguments, so the proxy is
# named in a config file; each call is its own process, so cursors are signed with a secret
# shared through the environment.
python3 - "$peers/mcp-inspector" "$bin" "$fixture" "$out" <<'PY'
import json, os, subprocess, sys
inspector, mcpguard, fixture, out = sys.argv[1:]
config = os.path.join(out, "inspector.json")
env = {"MCPGUARD_CURSOR_SECRET": "inspector-check-" + os.urandom(16).hex()}
servers = {
    "direct": {"command": fixture, "args": []},
    "guarded": {"command": mcpguard, "env": env,
                "args": ["proxy", "--quiet", "--artifact-dir", os.path.join(out, "store-inspector"), "--", fixture]},
}
with open(config, "w") as f:
    json.dump({"mcpServers": servers}, f)

def call(server, *args):
    done = subprocess.run([inspector, "--cli", "--config", config, "--server", server, *args],
                          capture_output=True, text=True, timeout=120)
    try:
        return json.loads(done.stdout)
    except json.JSONDecodeError:
        sys.exit(f"inspector {server} {args}: not JSON:\n{done.stdout}\n{done.stderr}")

tools = call("guarded", "--method", "tools/list")["tools"]
assert tools[-1]["name"] == "mcpguard_more", [t["name"] for t in tools]
original = call("direct", "--method", "tools/call", "--tool-name", "read_log")["content"][0]["text"]
piece = call("guarded", "--method", "tools/call", "--tool-name", "read_log")
pieces, largest = [], 0
while True:
    meta = piece["_meta"]["mcpguard/budget"]
    assert not piece.get("isError"), piece
    assert meta["estimatedTokens"] <= meta["tokenBudget"], meta
    largest = max(largest, meta["estimatedTokens"])
    pieces.append(piece["content"][0]["text"])
    if "nextCursor" not in piece:
        break
    piece = call("guarded", "--method", "tools/call", "--tool-name", "mcpguard_more",
                 "--tool-arg", f"cursor={piece['nextCursor']}")
assert "".join(pieces) == original, "the pieces differ from the original"
print(f"inspector cli: read_log {len(original)} bytes in {len(pieces)} calls "
      f"(largest {largest} tokens), byte for byte")
PY

echo "-- Python SDK client, both eras"
"$servers/python" tests/peers/python/proxy_client.py "$bin" "$fixture" 2>"$out/python-sdk.log"

echo "-- TypeScript SDK client"
(cd tests/peers && node proxy_client.mjs "$bin" "$out/store-ts" "$fixture" 2>"$out/ts-sdk.log")
echo "-- Over Streamable HTTP: proxy --listen in front of the fixture's HTTP server"
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT
# Waits up to 60 s for LOG to show PATTERN (under load the proxy takes over 10 s to start).
wait_for() { # pattern log
  for _ in $(seq 600); do
    grep -qs "$1" "$2" && return 0
    sleep 0.1
  done
  cat "$2" >&2
  echo "$2: no \"$1\" after 60 s" >&2
  return 1
}
# Starts proxy --listen with ARGS (the upstream: --url URL, or -- COMMAND), artifacts in STORE,
# its log in LOG, cursors signed with a fresh secret; sets proxy_url to where it listens.
listen_with() { # store log args...
  local store=$1 log=$2
  shift 2
  : > "$log"  # a log from an earlier run must not be read as this one
  MCPGUARD_CURSOR_SECRET="${shared_secret:-http-clients-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')}" \
    "$bin" proxy --listen 127.0.0.1:0 --store "$store" "$@" 2>"$log" &
  pids+=("$!")
  wait_for "listening on" "$log"
  proxy_url=$(sed -n 's/.*listening on \(http[^,]*\),.*/\1/p' "$log" | head -1)
}
listen_in_front_of() { # url store log
  listen_with "$2" "$3" --url "$1"
}
coproc FIXTURE { exec "$fixture" --http 127.0.0.1:0 2>"$out/fixture-http.log"; }
pids+=("$FIXTURE_PID")
read -r -t 20 address <&"${FIXTURE[0]}" || { echo "the fixture's HTTP server did not start" >&2; exit 1; }
server_url=http://$address/mcp
listen_in_front_of "$server_url" "$out/store-http" "$out/proxy-http.log"
python3 - "$peers/mcp-inspector" "$proxy_url" "$server_url" <<'PY'
import json, subprocess, sys
inspector, proxy, server = sys.argv[1:]

def call(url, *args):
    done = subprocess.run([inspector, "--cli", url, "--transport", "http", *args],
                          capture_output=True, text=True, timeout=120)
    try:
        return json.loads(done.stdout)
    except json.JSONDecodeError:
        sys.exit(f"inspector {url} {args}: not JSON:\n{done.stdout}\n{done.stderr}")

tools = call(proxy, "--method", "tools/list")["tools"]
assert tools[-1]["name"] == "mcpguard_more", [t["name"] for t in tools]
original = call(server, "--method", "tools/call", "--tool-name", "read_log")["content"][0]["text"]
piece = call(proxy, "--method", "tools/call", "--tool-name", "read_log")
pieces, largest = [], 0
while True:
    meta = piece["_meta"]["mcpguard/budget"]
    assert not piece.get("isError"), piece
    assert meta["estimatedTokens"] <= meta["tokenBudget"], meta
    largest = max(largest, meta["estimatedTokens"])
    pieces.append(piece["content"][0]["text"])
    if "nextCursor" not in piece:
        break
    piece = call(proxy, "--method", "tools/call", "--tool-name", "mcpguard_more",
                 "--tool-arg", f"cursor={piece['nextCursor']}")
assert "".join(pieces) == original, "the pieces differ from the original"
print(f"inspector cli over HTTP: read_log {len(original)} bytes in {len(pieces)} calls "
      f"(largest {largest} tokens), byte for byte")
PY
"$servers/python" tests/peers/python/proxy_client.py --url "$proxy_url" "$server_url" 2>"$out/python-sdk-http.log"
(cd tests/peers && node proxy_client.mjs --url "$proxy_url" "$server_url" 2>"$out/ts-sdk-http.log")

echo "-- Over Streamable HTTP: proxy --listen in front of server-everything (streamableHttp)"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
: > "$out/everything-http.log"
PORT=$port "$peers/mcp-server-everything" streamableHttp >"$out/everything-http.log" 2>&1 &
pids+=("$!")
wait_for "listening on port" "$out/everything-http.log"
everything_url=http://127.0.0.1:$port/mcp
listen_in_front_of "$everything_url" "$out/store-everything" "$out/proxy-everything.log"
python3 - "$peers/mcp-inspector" "$proxy_url" "$everything_url" <<'PY'
import json, subprocess, sys
inspector, proxy, server = sys.argv[1:]

def call(url, *args):
    done = subprocess.run([inspector, "--cli", url, "--transport", "http", *args],
                          capture_output=True, text=True, timeout=120)
    try:
        return json.loads(done.stdout)
    except json.JSONDecodeError:
        sys.exit(f"inspector {url} {args}: not JSON:\n{done.stdout}\n{done.stderr}")

direct = [t["name"] for t in call(server, "--method", "tools/list")["tools"]]
proxied = [t["name"] for t in call(proxy, "--method", "tools/list")["tools"]]
assert proxied == direct + ["mcpguard_more"], (direct, proxied)
for tool, args in [("get-sum", ["a=2", "b=3"]), ("echo", ["message=through the proxy"])]:
    flags = [f for a in args for f in ("--tool-arg", a)]
    want = call(server, "--method", "tools/call", "--tool-name", tool, *flags)
    got = call(proxy, "--method", "tools/call", "--tool-name", tool, *flags)
    assert got == want, (tool, want, got)
print(f"inspector cli over HTTP: server-everything's {len(direct)} tools and mcpguard_more "
      "listed; small results pass unchanged")
PY

echo "-- Over Streamable HTTP: proxy --listen in front of a dual-era Python SDK server"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
: > "$out/python-http.log"
"$servers/python" tests/peers/python/http_server.py "$port" >"$out/python-http.log" 2>&1 &
pids+=("$!")
wait_for "Uvicorn running" "$out/python-http.log"
python_url=http://127.0.0.1:$port/mcp
listen_in_front_of "$python_url" "$out/store-python" "$out/proxy-python.log"
"$servers/python" tests/peers/python/proxy_client.py --url "$proxy_url" "$python_url" 2>"$out/python-sdk-python-http.log"

echo "-- Two proxy instances over one Redis, in front of server-everything and the Python SDK server"
# redis-server from Debian's packages (bash scripts/redis.sh, which .ci/run calls first).
command -v redis-server > /dev/null \
  || { echo "redis-server is missing: run bash scripts/redis.sh (Debian's redis-server package)" >&2; exit 1; }
redis_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
: > "$out/redis.log"
redis-server --port "$redis_port" --bind 127.0.0.1 --save "" --appendonly no > "$out/redis.log" 2>&1 &
redis_pid=$!
disown "$redis_pid"  # killed on purpose mid-run: no job notice
pids+=("$redis_pid")
wait_for "Ready to accept connections" "$out/redis.log"
shared_secret="redis-instances-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
instances=()
for upstream in "$everything_url" "$python_url"; do
  instances+=("$upstream")
  for _ in a b; do
    n=${#instances[@]}
    listen_with "redis://127.0.0.1:$redis_port/0" "$out/proxy-redis-$n.log" --url "$upstream"
    instances+=("$proxy_url")
  done
done
unset shared_secret
python3 tests/peers/python/redis_instances.py "${instances[@]}" "$redis_pid" "$redis_port"

echo "-- Over Streamable HTTP: proxy --listen in front of stdio servers (a command)"
# The dual-era Python SDK server over stdio: the SDK client's auto mode (2026-07-28) is served
# by the shared server, its legacy mode by a server of the session's own.
listen_with "$out/store-python-stdio" "$out/proxy-python-stdio.log" \
  -- "$servers/python" "$root/tests/peers/python/http_server.py" --stdio
"$servers/python" tests/peers/python/proxy_client.py --url "$proxy_url" \
  "$servers/python" "$root/tests/peers/python/http_server.py" --stdio 2>"$out/python-sdk-stdio-behind-http.log"
# The rmcp fixture: the TypeScript SDK client (a session) pages through 300 bookings.
listen_with "$out/store-fixture-stdio" "$out/proxy-fixture-stdio.log" -- "$fixture"
(cd tests/peers && node proxy_client.mjs --url "$proxy_url" "$fixture" 2>"$out/ts-sdk-stdio-behind-http.log")
# The servers behind: the shared one for the stateless client, one per session for the others.
for want in "proxy-python-stdio.log:(shared)" "proxy-python-stdio.log:(session " "proxy-fixture-stdio.log:(session "; do
  grep -q "started the server .*${want#*:}" "$out/${want%%:*}" \
    || { cat "$out/${want%%:*}" >&2; echo "${want%%:*}: no server started for ${want#*:}" >&2; exit 1; }
done
echo "proxy --listen -- COMMAND: a shared server for 2026-07-28 requests, a server per 2025-11-25 session"
echo "proxy clients: ok"
