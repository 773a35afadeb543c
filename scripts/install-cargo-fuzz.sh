#!/usr/bin/env bash
# Installs the pinned cargo-fuzz into target/tools (nothing outside the project) and prints
# the directory to put on PATH.
#
#   PATH="$(bash scripts/install-cargo-fuzz.sh):$PATH" cargo fuzz list
set -euo pipefail
cd "$(dirname "$0")/.."
version=0.13.2
root=$PWD/target/tools
if ! "$root/bin/cargo-fuzz" --version 2>/dev/null | grep -q " $version"; then
  cargo install --quiet --locked --version "$version" --root "$root" cargo-fuzz >&2
fi
echo "$root/bin"
