#!/usr/bin/env bash
# The action's install step: mcpguard from PyPI as a uv tool (a binary wheel: nothing is
# compiled), at $VERSION or the version of the action's own checkout (its Cargo.toml).
set -euo pipefail
version=${VERSION:-$(sed -n 's/^version = "\(.*\)"$/\1/p' "$ACTION_PATH/Cargo.toml" | head -1)}
uv tool install --quiet "mcpguard==$version"
echo "$(uv tool dir --bin)" >> "${GITHUB_PATH:-/dev/null}"
"$(uv tool dir --bin)/mcpguard" --version
