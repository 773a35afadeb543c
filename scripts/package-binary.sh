#!/usr/bin/env bash
# One target's release binary packaged, as the release workflow does on each of its runners and
# scripts/package.sh does here (so the workflow's packaging is run on every CI run):
#
# - mcpguard-TARGET.tar.gz (.zip on Windows): the binary, README, licences, man page and completions, in a
#   folder of that name, and its SHA-256;
# - the npm package of the platform, @mcpguard/cli-PLATFORM-ARCH, packed;
# - the npm launcher `mcpguard` staged in target/npm/mcpguard with the version of Cargo.toml
#   (packed once, by whoever publishes: it is the same for every target).
#
#   bash scripts/package-binary.sh TARGET BINARY DIST
set -euo pipefail
cd "$(dirname "$0")/.."
target=$1 bin=$2 dist=$3
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -1)
mkdir -p "$dist"
exe=mcpguard
case $target in
  x86_64-unknown-linux-gnu) os=linux arch=x64 ;;
  aarch64-unknown-linux-gnu) os=linux arch=arm64 ;;
  x86_64-apple-darwin) os=darwin arch=x64 ;;
  aarch64-apple-darwin) os=darwin arch=arm64 ;;
  x86_64-pc-windows-msvc) os=win32 arch=x64 exe=mcpguard.exe ;;
  *) echo "package-binary.sh: no npm platform is known for $target" >&2; exit 1 ;;
esac

# The archive.
name=mcpguard-$target
stage=target/archive/$name
rm -rf "$stage" && mkdir -p "$stage/completions"
cp "$bin" "$stage/$exe"
cp README.md LICENSE-MIT LICENSE-APACHE completions/mcpguard.1 "$stage/"
cp completions/_mcpguard completions/_mcpguard.ps1 completions/mcpguard.bash \
  completions/mcpguard.elv completions/mcpguard.fish "$stage/completions/"
if [ "$os" = win32 ]; then
  archive=$name.zip
  (cd target/archive && 7z a -tzip -bso0 "$OLDPWD/$dist/$archive" "$name")
else
  archive=$name.tar.gz
  tar -C target/archive -czf "$dist/$archive" "$name"
fi
(cd "$dist" && shasum -a 256 "$archive" > "$archive.sha256")  # sha256sum -c reads it

# The platform's npm package.
platform=target/npm/cli-$os-$arch
rm -rf "$platform" && mkdir -p "$platform/bin"
sed -e "s/@PLATFORM@/$os/g" -e "s/@ARCH@/$arch/g" -e "s/@VERSION@/$version/g" \
  packaging/npm/platform/package.json.in > "$platform/package.json"
cp "$bin" "$platform/bin/$exe"
cp packaging/npm/mcpguard/README.md LICENSE-MIT LICENSE-APACHE "$platform/"
npm pack --silent --pack-destination "$PWD/$dist" "./$platform" >/dev/null

# The launcher, its version and its platform packages' following Cargo.toml's.
rm -rf target/npm/mcpguard && mkdir -p target/npm && cp -r packaging/npm/mcpguard target/npm/
cp LICENSE-MIT LICENSE-APACHE target/npm/mcpguard/
node -e '
  const fs = require("fs"), [file, version] = process.argv.slice(1);
  const pkg = JSON.parse(fs.readFileSync(file, "utf8"));
  pkg.version = version;
  for (const dep of Object.keys(pkg.optionalDependencies)) pkg.optionalDependencies[dep] = version;
  fs.writeFileSync(file, JSON.stringify(pkg, null, 2) + "\n");
' target/npm/mcpguard/package.json "$version"
