#!/usr/bin/env bash
# The client the conformance suite starts for each authorization scenario in the `bridge` role:
# the stdio bridge `mcpguard proxy --url URL`, started and driven over stdio by the Python SDK's
# own client (tests/oauth/drive_bridge.py: connect, tools/list, tools/call test-tool, which is
# what a scope step-up answers to), signing in headless as audit-client.sh does. A fresh OAuth
# store per run: each scenario is a first login.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${MCPGUARD_BIN:-$here/../../target/release/mcpguard}
python=${SERVER_PYTHON:-$here/../../target/servers-venv/bin/python}
url=${!#}
export BROWSER="curl -sSL -o /dev/null --max-time 20"
MCPGUARD_OAUTH_STORE=$(mktemp -d)
export MCPGUARD_OAUTH_STORE
trap 'rm -rf "$MCPGUARD_OAUTH_STORE"' EXIT
flags=(--proxy-arg=--oauth-client-metadata-url=https://conformance-test.local/client-metadata.json)
if [ -n "${MCP_CONFORMANCE_CONTEXT:-}" ]; then
  id=$(python3 -c 'import json,os; print(json.loads(os.environ["MCP_CONFORMANCE_CONTEXT"]).get("client_id", ""))')
  secret=$(python3 -c 'import json,os; print(json.loads(os.environ["MCP_CONFORMANCE_CONTEXT"]).get("client_secret", ""))')
  [ -n "$id" ] && flags+=("--proxy-arg=--oauth-client-id=$id")
  [ -n "$secret" ] && export MCPGUARD_OAUTH_CLIENT_SECRET="$secret"
fi
"$python" "$here/../oauth/drive_bridge.py" --mcpguard "$bin" --url "$url" --call test-tool "${flags[@]}"
