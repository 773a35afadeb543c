#!/usr/bin/env bash
# Makes the Python 3.12 virtualenv the real-server checks run in (target/servers-venv), with
# the pinned packages of tests/peers/python/requirements-servers.txt, and prints its bin
# directory (mcp-server-time and mcp-server-git are there).
#
#   bash scripts/python-servers.sh            # create or update, then print the bin directory
#
# Nothing is installed outside target/.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/python312.sh

venv=target/servers-venv
venv312 "$venv" tests/peers/python/requirements-servers.txt
echo "$PWD/$venv/bin"
