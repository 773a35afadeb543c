#!/usr/bin/env bash
# The client the conformance suite starts for each client scenario: `mcpguard audit --url URL`
# as a user runs it (default --protocol auto, no flag that names an era), with the tool calls a
# scenario's server expects: tests/conformance/calls/SCENARIO.yaml when there is one, else the
# toolCalls the suite hands over in MCP_CONFORMANCE_CONTEXT. The
# suite appends the server's URL and sets MCP_CONFORMANCE_SCENARIO. The audit's own findings do
# not matter here (--fail-on never); exit 2 (it could not talk to the server) does.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${MCPGUARD_BIN:-$here/../../target/release/mcpguard}
url=${!#}
scenario=${MCP_CONFORMANCE_SCENARIO:-}
calls=() oauth=()
if [[ $scenario == auth/* ]]; then
  # Sign in as a user would, headless: the suite's authorization server redirects at once, so
  # a BROWSER that fetches the URL and follows redirects brings the code to the loopback
  # listener. The client metadata URL is the one the suite's CIMD scenario expects; a
  # pre-registered client comes in the context (its secret only ever in the environment).
  export BROWSER="curl -sSL -o /dev/null --max-time 20"
  # A fresh OAuth store per run (each scenario is a first login), never the user's own.
  MCPGUARD_OAUTH_STORE=$(mktemp -d)
  export MCPGUARD_OAUTH_STORE
  trap 'rm -rf "$MCPGUARD_OAUTH_STORE"' EXIT
  oauth=(--oauth --oauth-client-metadata-url https://conformance-test.local/client-metadata.json)
  if [ -n "${MCP_CONFORMANCE_CONTEXT:-}" ]; then
    id=$(python3 -c 'import json,os; print(json.loads(os.environ["MCP_CONFORMANCE_CONTEXT"]).get("client_id", ""))')
    secret=$(python3 -c 'import json,os; print(json.loads(os.environ["MCP_CONFORMANCE_CONTEXT"]).get("client_secret", ""))')
    [ -n "$id" ] && oauth+=(--oauth-client-id "$id")
    [ -n "$secret" ] && export MCPGUARD_OAUTH_CLIENT_SECRET="$secret"
  fi
  calls=(--calls "$here/calls/auth.yaml")
elif [ -f "$here/calls/${MCP_CONFORMANCE_SCENARIO:-}.yaml" ]; then
  calls=(--calls "$here/calls/$MCP_CONFORMANCE_SCENARIO.yaml")
elif [ -n "${MCP_CONFORMANCE_CONTEXT:-}" ]; then
  # The scenario names the calls itself: {"toolCalls": [{"name", "arguments"}]}.
  file=$(mktemp --suffix .json)
  trap 'rm -f "$file"' EXIT
  python3 - "$file" <<'PY'
import json, os, sys
context = json.loads(os.environ["MCP_CONFORMANCE_CONTEXT"])
calls = [{"tool": c["name"], "arguments": c.get("arguments", {})} for c in context.get("toolCalls", [])]
json.dump(calls, open(sys.argv[1], "w"))
PY
  calls=(--calls "$file")
fi
"$bin" audit --fail-on never --format json --timeout 20 "${oauth[@]}" "${calls[@]}" --url "$url"
