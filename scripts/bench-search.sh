#!/usr/bin/env bash
# Search inside a stored result (the mcpguard_more `match` issue): a 100 MB artifact answers its
# first page within budget in under a second, streamed from the store (memory flat in its size),
# against reading it in order and against grep over the same text; then questions of 100 MB of
# records (430,000 bookings): `where`, `aggregate`, `order_by`.
#
#   bash scripts/bench-search.sh [MEGABYTES] [PATTERN]   # default 100, 'ERROR'; needs GNU time
#
# Prints: the first page of `match` through a running proxy (wall time of the call, the proxy's
# peak memory), the same for the first chunk of reading in order, `artifacts show --match` (every
# match, for a person), and `grep -c` over the bare text for scale.
set -euo pipefail
cd "$(dirname "$0")/.."
mb=${1:-100}
pattern=${2:-ERROR}
cargo build --release --quiet --bins --examples
bin=$PWD/target/release/mcpguard
fixture=$PWD/target/release/examples/fixture_server
bench=$PWD/target/bench/search
store=$bench/store
mkdir -p "$bench"
log=$bench/app-$mb.log
if [ ! -f "$log" ]; then
  # The 2 MB application log of the examples (timestamps, levels, stack traces), repeated.
  python3 -c "import json,sys; sys.stdout.write(json.load(open('contracts/examples/fail-inv003-log-2mb-text.json'))['result']['content'][0]['text'])" > "$bench/seed.log"
  : > "$log"
  while [ "$(stat -c %s "$log")" -lt $((mb * 1024 * 1024)) ]; do cat "$bench/seed.log" >> "$log"; done
fi
# An artifact as the proxy stores it: a tool result whose text is FILE, under DOMAIN, named by
# its SHA-256; prints its reference.
store_artifact() { # domain file
  python3 - "$1" "$2" "$store" <<'PY'
import hashlib, json, os, sys
domain, source, store = sys.argv[1:4]
body = json.dumps({"content": [{"type": "text", "text": open(source).read()}]}).encode()
ident = hashlib.sha256(body).hexdigest()[:16]
os.makedirs(os.path.join(store, domain), exist_ok=True)
path = os.path.join(store, domain, ident + ".json")
if not os.path.exists(path):
    open(path, "wb").write(body)
print(f"ax://{domain}/{ident}")
PY
}
ref=$(store_artifact read_log "$log")
echo "artifact: $ref, $(( $(stat -c %s "$store/read_log/${ref##*/}.json") / 1048576 )) MB, $(wc -l < "$log") lines; pattern: $pattern"

# 430,000 bookings (about 100 MB), stored the same way.
records=$bench/bookings-430000.json
[ -f "$records" ] || python3 scripts/make-bookings.py 430000 > "$records"
list_ref=$(store_artifact list_bookings "$records")

# One fresh proxy per measurement: its peak memory is the call's alone.
through_proxy() {
  python3 - "$bin" "$fixture" "$store" "$1" <<'PY'
import json, subprocess, sys, time
bin, fixture, store, arguments = sys.argv[1:5]
p = subprocess.Popen([bin, "proxy", "--artifact-dir", store, "--", fixture],
                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
def ask(i, method, params):
    p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}) + "\n")
    p.stdin.flush()
    while True:
        m = json.loads(p.stdout.readline())
        if m.get("id") == i:
            return m
ask(1, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}})
p.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n'); p.stdin.flush()
start = time.perf_counter()
answer = ask(2, "tools/call", {"name": "mcpguard_more", "arguments": json.loads(arguments)})
took = time.perf_counter() - start
hwm = next(l.split()[1] for l in open(f"/proc/{p.pid}/status") if l.startswith("VmHWM"))
result = answer["result"]
meta = result["_meta"]["mcpguard/budget"]
head = " ".join(result["content"][0]["text"].split())[:110]
p.stdin.close(); p.wait()
print(f"{took:6.3f} s, {meta['estimatedTokens']:>5} of {meta['tokenBudget']} tokens, proxy peak {int(hwm) // 1024} MB | {head}")
PY
}
echo "match, first page (proxy):         $(through_proxy "{\"ref\": \"$ref\", \"match\": \"$pattern\"}")"
echo "match + context 2 (proxy):         $(through_proxy "{\"ref\": \"$ref\", \"match\": \"$pattern\", \"context\": 2}")"
echo "read in order, first chunk (proxy): $(through_proxy "{\"ref\": \"$ref\"}")"
echo "records: $list_ref, $(( $(stat -c %s "$store/list_bookings/${list_ref##*/}.json") / 1048576 )) MB, 430,000 bookings"
echo "where + aggregate (proxy):         $(through_proxy "{\"ref\": \"$list_ref\", \"where\": \"status=cancelled\", \"aggregate\": \"count, sum(totalPrice.amount)\"}")"
echo "where, first page (proxy):         $(through_proxy "{\"ref\": \"$list_ref\", \"where\": \"status=cancelled\"}")"
echo "where + order_by + fields (proxy): $(through_proxy "{\"ref\": \"$list_ref\", \"where\": \"status=cancelled\", \"order_by\": \"totalPrice.amount:desc\", \"fields\": \"id,totalPrice.amount\"}")"
run() { /usr/bin/time -f '%e s, peak %M KB' "$@" 2>&1 >/dev/null | tail -1; }
echo "artifacts show --match (all):      $(run "$bin" artifacts show "$ref" --artifact-dir "$store" --match "$pattern")"
echo "grep -c over the bare log:         $(run grep -c "$pattern" "$log")"
