#!/usr/bin/env bash
# Both eras against real dual-era servers: mcp-server-time and mcp-server-git (the Python
# SDK's reference servers on `mcp` 2.x, pinned in tests/peers/python/requirements-servers.txt)
# audited over stdio under --protocol auto, which must speak 2026-07-28 and find them
# dual-era, and under --protocol 2025-11-25, which must still work. The legacy run's findings
# must all be in the modern run, which may add only the 2026-07-28 rules (MG024 and up).
#
#   bash scripts/check-python-servers.sh      # after: cargo build --release
set -euo pipefail
cd "$(dirname "$0")/.."
bin=target/release/mcpguard
servers=$(bash scripts/python-servers.sh)
out=target/live-python
rm -rf "$out" && mkdir -p "$out"

# A small repository for mcp-server-git, the same on every run.
repo="$PWD/$out/repo"
git init -q -b main "$repo"
for i in 1 2 3; do
  printf 'booking %s\n' "$i" > "$repo/bookings-$i.txt"
  git -C "$repo" add . >/dev/null
  GIT_AUTHOR_DATE="2026-11-0${i}T12:00:00Z" GIT_COMMITTER_DATE="2026-11-0${i}T12:00:00Z" \
    git -C "$repo" -c user.name=fixture -c user.email=fixture@example.com \
    commit -q -m "booking $i"
done

cat > "$out/time-calls.yaml" <<'YAML'
- tool: get_current_time
  arguments: {timezone: Etc/UTC}
  expect: {isError: false, contains: day_of_week}
- tool: convert_time
  arguments: {source_timezone: Europe/Paris, time: "09:30", target_timezone: Asia/Tokyo}
  expect: {isError: false, contains: time_difference}
YAML
cat > "$out/git-calls.yaml" <<YAML
- tool: git_status
  arguments: {repo_path: "$repo"}
  expect: {isError: false, contains: main}
- tool: git_log
  arguments: {repo_path: "$repo", max_count: 3}
  expect: {isError: false, contains: booking 3}
YAML

audit() { # name, calls, protocol, server command...: exit 0 or 1 (findings), never 2
  local name=$1 calls=$2 protocol=$3; shift 3
  local status=0
  local ask=()
  [ "$protocol" = auto ] && ask=(--ask-legacy)
  "$bin" audit --protocol "$protocol" "${ask[@]}" --calls "$calls" --timeout 30 --format json \
    --save "$out/saved-$protocol" --name "$name" --server "$*" > "$out/$name-$protocol.json" || status=$?
  if [ "$status" -gt 1 ]; then
    echo "$name --protocol $protocol exited $status" >&2
    cat "$out/$name-$protocol.json" >&2
    exit 1
  fi
}

for server in time git; do
  case $server in
    time) cmd="$servers/mcp-server-time" ;;
    git) cmd="$servers/mcp-server-git --repository $repo" ;;
  esac
  echo "-- mcp-server-$server: auto, then --protocol 2025-11-25"
  audit "$server" "$out/$server-calls.yaml" auto $cmd
  audit "$server" "$out/$server-calls.yaml" 2025-11-25 $cmd
  python3 - "$out/$server-auto.json" "$out/$server-2025-11-25.json" <<'PY'
import json, sys
modern, legacy = (json.load(open(p)) for p in sys.argv[1:3])
def server(r):
    s = r["servers"][0]
    assert not r["errors"], r["errors"]
    return s
m, l = server(modern), server(legacy)
assert m["protocolVersion"] == "2026-07-28", m
assert m["dualEra"] is True, m
assert m["eraDetection"] == "server/discover", m
assert l["protocolVersion"] == "2025-11-25", l
assert m["calls"] == l["calls"] == 2, (m["calls"], l["calls"])
def found(r):
    out = {(f["code"], f["pointer"]) for d in r["documents"] for f in d["findings"]}
    return out | {(f["code"], "") for f in r["corpusFindings"]}
fm, fl = found(modern), found(legacy)
missing = fl - fm
extra = {f for f in fm - fl if f[0] < "MG024"}
assert not missing, f"legacy findings the modern run lacks: {missing}"
assert not extra, f"modern findings beyond the 2026-07-28 rules: {extra}"
codes = lambda f: sorted({c for c, _ in f})
print(f"   {m['server']}: 2026-07-28 (dual-era) {codes(fm)}; 2025-11-25 {codes(fl)}")
PY
done
