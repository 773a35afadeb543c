#!/usr/bin/env bash
# Builds every package of this machine's target into target/dist/, all from the one release
# build (maturin and the archive reuse target/release; nothing is compiled twice):
#
# - the PyPI wheel (maturin, `bindings = "bin"`: pyproject.toml), carrying the shell completions
#   and the man page under share/ (packaging/wheel-data: copies of completions/), its manylinux
#   tag checked by auditwheel;
# - the npm packages, packed: `mcpguard` (packaging/npm/mcpguard: a launcher that runs the binary
#   of the user's platform) and `@mcpguard/cli-PLATFORM-ARCH` with this target's binary;
# - the crate (`cargo package`: what crates.io would take, checked under its 10 MB);
# - this target's release archive (`mcpguard-TARGET.tar.gz`: the binary, completions, man page
#   and README) and its SHA-256, as .github/workflows/release.yml makes them for every target.
#
#   bash scripts/package.sh      # needs Python 3.12 (pyenv's will do), node and npm
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/python312.sh

version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -1)
target=$(rustc -vV | sed -n 's/^host: //p')
dist=target/dist
rm -rf "$dist" target/npm && mkdir -p "$dist"
cargo build --release --quiet --bin mcpguard
bin=target/release/mcpguard

echo "-- the wheel (maturin)" >&2
venv312 target/package-venv tests/peers/python/requirements-package.txt
target/package-venv/bin/maturin build --release --quiet --out "$dist" >&2
wheel=$(ls "$dist"/mcpguard-"$version"-*.whl)
target/package-venv/bin/auditwheel show "$wheel" | grep -q 'consistent with' || {
  echo "auditwheel: $wheel does not meet the platform tag it carries" >&2
  target/package-venv/bin/auditwheel show "$wheel" >&2
  exit 1
}

echo "-- this target's archive and npm package (scripts/package-binary.sh)" >&2
bash scripts/package-binary.sh "$target" "$bin" "$dist"
npm pack --silent --pack-destination "$PWD/$dist" ./target/npm/mcpguard >/dev/null

echo "-- the crate (cargo package)" >&2
cargo package --quiet --no-verify --allow-dirty
crate=target/package/mcpguard-$version.crate
size=$(stat -c %s "$crate")
if [ "$size" -gt 10000000 ]; then
  echo "$crate is $size bytes, over crates.io's 10 MB: exclude more in Cargo.toml's include" >&2
  exit 1
fi
cp "$crate" "$dist/"

ls -l "$dist" >&2
