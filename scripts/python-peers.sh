#!/usr/bin/env bash
# Makes the Python 3.12 virtualenv the reference checks run in (target/peers-venv), with the
# pinned packages of tests/peers/python/requirements-ctok.txt, and prints its python's path.
#
#   bash scripts/python-peers.sh            # create or update, then print the interpreter
#
# Python 3.12 is found as these machines provide it: `python3.12` on PATH, else pyenv's
# 3.12.x under $(pyenv root)/versions. Nothing is installed outside target/.
set -euo pipefail
cd "$(dirname "$0")/.."

source scripts/python312.sh

venv=target/peers-venv
venv312 "$venv" tests/peers/python/requirements-ctok.txt
echo "$PWD/$venv/bin/python"
