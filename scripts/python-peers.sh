#!/usr/bin/env bash
# Makes the Python 3.12 virtualenv the reference checks run in (target/peers-venv), with the
# pinned packages of tests/peers/python/requirements-*.txt, and prints its python's path.
#
#   bash scripts/python-peers.sh            # create or update, then print the interpreter
#
# Python 3.12 is found as these machines provide it: `python3.12` on PATH, else pyenv's
# 3.12.x under $(pyenv root)/versions. Nothing is installed outside target/.
set -euo pipefail
cd "$(dirname "$0")/.."

source scripts/python312.sh

venv=target/peers-venv
if [ ! -x "$venv/bin/python" ]; then
  python=$(find_python312) || {
    echo "python-peers.sh: Python 3.12 not found (ctok needs >= 3.12): tried python3.12 on PATH" \
         "and pyenv's versions/3.12*. Install one (pyenv install 3.12) and run again." >&2
    exit 2
  }
  "$python" -m venv "$venv" >&2
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
  -r tests/peers/python/requirements-ctok.txt >&2
echo "$PWD/$venv/bin/python"
