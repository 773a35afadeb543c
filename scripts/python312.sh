# Sourced by the scripts that make a Python 3.12 virtualenv: finds an interpreter as these
# machines provide it, `python3.12` on PATH, else pyenv's 3.12.x under $(pyenv root)/versions.
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

