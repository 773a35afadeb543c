#!/usr/bin/env bash
# The README's test command in a clone of HEAD with nothing beside it, as a user's `git clone`
# has it (CI's checkout has the steering folder shared/ beside it; a user's does not). The
# crates.io dependencies are built once for both: the clone shares this checkout's target
# directory. Cargo names a workspace's own crate by its path relative to the workspace, so the
# clone's test binaries would take the names of this checkout's (and later runs here would run
# the clone's); a profile setting for the crate alone (codegen-units, which does not change
# what is tested) gives the clone's builds names of their own. The clone builds without
# incremental state (it is never built again), and its test binaries are removed afterwards:
# a CI machine's disk is not ours to fill twice.
#
#   bash scripts/check-fresh-clone.sh
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git clone --quiet --no-hardlinks "$root" "$tmp/mcpguard"
cd "$tmp/mcpguard"
if [ "$(ls -A ..)" != mcpguard ]; then
  echo "the clone at $tmp/mcpguard has something beside it" >&2
  exit 1
fi
echo "clone of $(git rev-parse --short HEAD) at $tmp/mcpguard, nothing beside it"
stamp=$tmp/before-build
touch "$stamp"
CARGO_INCREMENTAL=0 CARGO_TARGET_DIR=$root/target \
  cargo test --config 'profile.dev.package.mcpguard.codegen-units=255'
# Only the clone's own crate was built (the dependencies are this checkout's): what is newer
# than the stamp is the clone's.
find "$root/target/debug/deps" -maxdepth 1 -type f -newer "$stamp" -delete
