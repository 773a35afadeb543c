# Sourced by the scripts that make a Python 3.12 virtualenv (python-peers.sh, python-servers.sh):
# finds an interpreter as these machines provide it, `python3.12` on PATH, else pyenv's 3.12.x
# under $(pyenv root)/versions, and makes or updates a virtualenv with pinned requirements.
find_python312() {
  local candidate
  if candidate=$(command -v python3.12 2>/dev/null) && "$candidate" --version >/dev/null 2>&1; then
    echo "$candidate"; return 0
  fi
  local root="${PYENV_ROOT:-$HOME/.pyenv}"
  if command -v pyenv >/dev/null 2>&1; then root=$(pyenv root); fi
  for candidate in "$root"/versions/3.12*/bin/python3.12; do
    if [ -x "$candidate" ] && "$candidate" --version >/dev/null 2>&1; then
      echo "$candidate"; return 0
    fi
  done
  return 1
}


# venv312 DIR REQUIREMENTS: creates DIR with Python 3.12 if it is not there, then installs the
# pinned REQUIREMENTS into it. Output goes to stderr; exits 2 when there is no Python 3.12.
venv312() {
  local venv=$1 requirements=$2 python
  if [ ! -x "$venv/bin/python" ]; then
    python=$(find_python312) || {
      echo "$(basename "$0"): Python 3.12 not found: tried python3.12 on PATH and pyenv's" \
           "versions/3.12*. Install one (pyenv install 3.12) and run again." >&2
      exit 2
    }
    "$python" -m venv "$venv" >&2
  fi
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$requirements" >&2
}
