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
if [ ! -x "$venv/bin/python" ]; then
  python=$(find_python312) || {
    echo "python-servers.sh: Python 3.12 not found: tried python3.12 on PATH and pyenv's" \
         "versions/3.12*. Install one (pyenv install 3.12) and run again." >&2
    exit 2
  }
  "$python" -m venv "$venv" >&2
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
  -r tests/peers/python/requirements-servers.txt >&2
echo "$PWD/$venv/bin"
