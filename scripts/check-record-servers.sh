#!/usr/bin/env bash
# Records in text through `mcpguard proxy`, with real servers (issue 61): the MCP project's
# mcp-server-sqlite (`str(rows)`: a Python list of dicts), mcp-server-duckdb (a Python list of
# tuples with dates and Decimals), both on the Python SDK `mcp` 1.x in their own pinned
# virtualenv (tests/peers/python/requirements-records.txt), and server-filesystem (npm, pinned
# by tests/peers/package-lock.json) reading a 5 MB CSV. tests/peers/python/records_client.py
# drives them with the Python SDK's client and compares every answer with the source's own.
#
#   bash scripts/check-record-servers.sh     # after: cargo build --release; npm ci --prefix tests/peers
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/python312.sh

bin="$PWD/target/release/mcpguard"
filesystem="$PWD/tests/peers/node_modules/.bin/mcp-server-filesystem"
for need in "$bin" "$filesystem"; do
  [ -x "$need" ] || { echo "check-record-servers: $need is missing (cargo build --release; npm ci --prefix tests/peers)" >&2; exit 2; }
done
venv=target/records-venv
venv312 "$venv" tests/peers/python/requirements-records.txt
work="$PWD/target/record-servers"
rm -rf "$work" && mkdir -p "$work"
"$venv/bin/python" tests/peers/python/records_client.py "$bin" "$PWD/$venv/bin" "$filesystem" "$work"
