#!/usr/bin/env bash
# Seed 004's tiers across servers: what a client is given at start by the gateway, full against
# tiered, by the exact Claude count (mcpguard estimate --tokenizer claude), on LiveMCPBench's 70
# recorded servers (527 tools, tests/fixtures/retrieval, Apache 2.0) and on 100 generated servers
# of 100 tools each (10,000 tools): the tiered list costs the same whatever the number.
#
#   bash scripts/bench-tiers.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet --bins --examples
bin=$PWD/target/release/mcpguard
catalog_server=$PWD/target/release/examples/catalog_server
recorded=$PWD/tests/fixtures/retrieval/livemcptool-tools.json
work=$PWD/target/bench/tiers
rm -rf "$work" && mkdir -p "$work"
export XDG_CONFIG_HOME=$work/config

python3 - "$recorded" "$catalog_server" "$work" <<'PY'
import json, sys
recorded, server, work = sys.argv[1:]
names = sorted({row["server"] for row in json.load(open(recorded))["tools"]})
live = {n: {"command": server, "args": ["--name", n, "--recorded", recorded]} for n in names}
json.dump({"mcpServers": live}, open(f"{work}/livemcp.json", "w"))
generated = {f"s{i:03}": {"command": server, "args": ["--name", f"s{i:03}", "--tools", "100"]} for i in range(100)}
json.dump({"mcpServers": generated}, open(f"{work}/generated.json", "w"))
PY

# The tools/list a client gets at start, written to FILE.
list_at_start() { # CONFIG CATALOG FILE
  MCPGUARD_CATALOG=$2 python3 - "$bin" "$1" "$work/cache" "$3" <<'PY'
import json, subprocess, sys
bin, config, cache, out = sys.argv[1:]
p = subprocess.Popen([bin, "proxy", "--mcp-config", config, "--catalog-cache", cache, "--quiet"],
                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
def rpc(i, method, params):
    p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}) + "\n")
    p.stdin.flush()
    while True:
        m = json.loads(p.stdout.readline())
        if m.get("id") == i:
            return m
rpc(1, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}})
tools, cursor = [], None
while True:
    page = rpc(2, "tools/list", {"cursor": cursor} if cursor else {})["result"]
    tools += page["tools"]
    cursor = page.get("nextCursor")
    if not cursor:
        break
json.dump({"tools": tools}, open(out, "w"))
p.stdin.close()
p.wait()
print(len(tools), end="")
PY
}
tokens() { "$bin" estimate --tokenizer claude "$1" | sed -n 's/.*(\([0-9,]*\) tokens).*/\1/p' | head -1; }

for set in livemcp generated; do
  full_n=$(list_at_start "$work/$set.json" full "$work/$set-full.json")
  tiered_n=$(list_at_start "$work/$set.json" tiered "$work/$set-tiered.json")
  servers=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['mcpServers']))" "$work/$set.json")
  echo "$set: $servers servers; full: $full_n tools, $(tokens "$work/$set-full.json") tokens; tiered: $tiered_n tools, $(tokens "$work/$set-tiered.json") tokens (exact Claude count)"
done
