#!/usr/bin/env bash
# The client the conformance suite starts for each scenario in the `bridge` role: the stdio
# bridge `mcpguard proxy --url URL`, started and driven over stdio by the Python SDK's own client
# (tests/oauth/drive_bridge.py: connect, tools/list, then the calls: test-tool for an
# authorization scenario, which is what a scope step-up answers to; else the scenario's
# calls/SCENARIO.yaml or the toolCalls of MCP_CONFORMANCE_CONTEXT, as audit-client.sh takes
# them). Authorization scenarios sign in headless as audit-client.sh does, with a fresh OAuth
# store per run: each is a first login.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${MCPGUARD_BIN:-$here/../../target/release/mcpguard}
python=${SERVER_PYTHON:-$here/../../target/servers-venv/bin/python}
url=${!#}
scenario=${MCP_CONFORMANCE_SCENARIO:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export BROWSER="curl -sSL -o /dev/null --max-time 20"
export MCPGUARD_OAUTH_STORE=$work/oauth
flags=(--proxy-arg=--quiet)
if [[ $scenario != auth/* ]]; then
  if [ -f "$here/calls/$scenario.yaml" ]; then
    flags+=(--calls "$here/calls/$scenario.yaml")
  elif [ -n "${MCP_CONFORMANCE_CONTEXT:-}" ]; then
    python3 - "$work/calls.json" <<'PY'
import json, os, sys
context = json.loads(os.environ["MCP_CONFORMANCE_CONTEXT"])
calls = [{"tool": c["name"], "arguments": c.get("arguments", {})} for c in context.get("toolCalls", [])]
json.dump(calls, open(sys.argv[1], "w"))
PY
    flags+=(--calls "$work/calls.json")
  fi
  "$python" "$here/../oauth/drive_bridge.py" --mcpguard "$bin" --url "$url" "${flags[@]}"
  exit 0
fi
flags+=(--call test-tool --proxy-arg=--oauth-client-metadata-url=https://conformance-test.local/client-metadata.json)
if [ -n "${MCP_CONFORMANCE_CONTEXT:-}" ]; then
  id=$(python3 -c 'import json,os; print(json.loads(os.environ["MCP_CONFORMANCE_CONTEXT"]).get("client_id", ""))')
  secret=$(python3 -c 'import json,os; print(json.loads(os.environ["MCP_CONFORMANCE_CONTEXT"]).get("client_secret", ""))')
  [ -n "$id" ] && flags+=("--proxy-arg=--oauth-client-id=$id")
  [ -n "$secret" ] && export MCPGUARD_OAUTH_CLIENT_SECRET="$secret"
fi
"$python" "$here/../oauth/drive_bridge.py" --mcpguard "$bin" --url "$url" "${flags[@]}"
