#!/usr/bin/env bash
# The packages of scripts/package.sh (target/dist/), installed and run as a user would on a
# machine with only Python or only Node, offline, nothing else on the path:
#
# - the wheel, in a fresh virtualenv: `mcpguard --version`, the README's main job on the bundled
#   examples (exit 1: they hold failing responses), the completions and man page under share/;
#   then `uvx --from WHEEL mcpguard audit ...` (uv pinned in tests/peers/python);
# - the npm tarballs, installed into an empty project: `npx mcpguard --version`, the main job,
#   and a proxy session through the launcher: the MCP Inspector CLI calls server-everything's
#   `echo` through `npx mcpguard proxy -- ...`;
# - the crate: `cargo package` builds the unpacked package (its own verify step, debug), and that
#   build runs the main job.
#
#   bash scripts/check-packages.sh   # after: bash scripts/package.sh; npm ci --prefix tests/peers
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
source scripts/python312.sh
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -1)
dist=$root/target/dist
out=$root/target/package-check
rm -rf "$out" && mkdir -p "$out"
wheel=$(ls "$dist"/mcpguard-"$version"-*.whl)
examples=$root/contracts/examples
peers=$root/tests/peers/node_modules/.bin

# Every package carries both licence texts: its file list, as `tar tzf` or Python's zipfile prints it.
echo "-- the licence texts in every package"
for package in "$wheel" "$dist"/*.tgz "$dist"/*.tar.gz "$dist"/mcpguard-"$version".crate; do
  case $package in
    *.whl) listing=$(python3 -m zipfile -l "$package") ;;
    *) listing=$(tar tzf "$package") ;;
  esac
  for licence in LICENSE-MIT LICENSE-APACHE; do
    grep -q "$licence" <<< "$listing" || { echo "$package holds no $licence" >&2; exit 1; }
  done
done

# main_job CMD...: the README's main command must find the failing examples (exit 1).
main_job() {
  local status=0
  "$@" audit "$examples" > "$out/main-job.txt" || status=$?
  if [ "$status" -ne 1 ]; then
    echo "$* audit contracts/examples exited $status (expected 1)" >&2
    cat "$out/main-job.txt" >&2
    exit 1
  fi
  tail -1 "$out/main-job.txt"
}

echo "-- the wheel in a fresh virtualenv"
python=$(find_python312)
"$python" -m venv "$out/venv"
"$out/venv/bin/pip" install --quiet --no-index --disable-pip-version-check "$wheel"
"$out/venv/bin/mcpguard" --version
main_job "$out/venv/bin/mcpguard"
for pair in man/man1/mcpguard.1:mcpguard.1 bash-completion/completions/mcpguard:mcpguard.bash \
  zsh/site-functions/_mcpguard:_mcpguard fish/vendor_completions.d/mcpguard.fish:mcpguard.fish; do
  cmp -s "$out/venv/share/${pair%%:*}" "completions/${pair##*:}" \
    || { echo "the wheel did not install share/${pair%%:*} as completions/${pair##*:}" >&2; exit 1; }
done

echo "-- uvx --from the wheel"
UV_CACHE_DIR=$out/uv-cache UV_NO_CONFIG=1 main_job "$root/target/package-venv/bin/uvx" \
  --offline --from "$wheel" mcpguard

# installed CONFIG COMMAND ARGS_JSON: `mcpguard install` run from a runner's cache wrote the
# runner's command (the cache may be emptied), and uninstall gives the entry back.
installed() {
  python3 - "$@" <<'PY'
import json, sys
path, command, args = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
entry = json.load(open(path))["mcpServers"]["everything"]
assert entry["command"] == command and entry["args"][:len(args)] == args, entry
assert entry["args"][len(args):len(args) + 2] == ["proxy", "--"], entry
print(f"install from the {command} cache wrote: {command} {' '.join(entry['args'][:len(args) + 1])} ...")
PY
}
config() { echo '{"mcpServers": {"everything": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"]}}}' > "$1"; }

echo "-- mcpguard install, run through uvx"
config "$out/uvx-config.json"
UV_CACHE_DIR=$out/uv-cache UV_NO_CONFIG=1 "$root/target/package-venv/bin/uvx" --offline --from "$wheel" \
  mcpguard install "$out/uvx-config.json" > /dev/null
installed "$out/uvx-config.json" uvx '["mcpguard"]'

echo "-- the npm tarballs in an empty project (offline)"
mkdir -p "$out/project"
(cd "$out/project" && echo '{"name": "user-project", "private": true}' > package.json \
  && npm install --offline --no-audit --no-fund --loglevel=error \
       "$dist/mcpguard-$version.tgz" "$dist"/mcpguard-cli-*-"$version".tgz > /dev/null)
npx_mcpguard() { (cd "$out/project" && npx --offline --no-install mcpguard "$@"); }
npx_mcpguard --version
main_job npx_mcpguard
# npx's cache: a tarball run with `npx --package` is unpacked under _npx.
config "$out/npx-config.json"
(cd "$out" && npm_config_cache=$out/npm-cache npx --yes --offline \
  --package "$dist/mcpguard-$version.tgz" --package "$(ls "$dist"/mcpguard-cli-*-"$version".tgz)" \
  mcpguard install "$out/npx-config.json" > /dev/null)
installed "$out/npx-config.json" npx '["-y", "mcpguard"]'
(cd "$out/project" && npx --offline --no-install mcpguard uninstall "$out/npx-config.json" > /dev/null)
grep -q '"command": "npx"' "$out/npx-config.json" && grep -q 'server-everything' "$out/npx-config.json" \
  && ! grep -q '"proxy"' "$out/npx-config.json" || { echo "uninstall did not give the entry back" >&2; exit 1; }
# One tool call through the launcher's proxy, by a real client.
cat > "$out/inspector.json" <<JSON
{"mcpServers": {"npx": {"command": "npx", "args": ["--offline", "--no-install", "mcpguard", "proxy",
  "--quiet", "--artifact-dir", "$out/store", "--", "$peers/mcp-server-everything"]}}}
JSON
(cd "$out/project" && MCP_INSPECTOR_SECRET_STORE=memory timeout 120 "$peers/mcp-inspector" --cli \
  --config "$out/inspector.json" --server npx --method tools/call --tool-name echo \
  --tool-arg message=through-npx) > "$out/npx-call.json" 2> "$out/inspector.log" || {
  cat "$out/inspector.log" >&2
  exit 1
}
python3 - "$out/npx-call.json" <<'PY'
import json, sys
result = json.load(open(sys.argv[1]))
text = result["content"][0]["text"]
assert "through-npx" in text, result
print(f"npx mcpguard proxy: server-everything's echo answered {text!r}")
PY
# No launcher or binary left running.
if pgrep -f "$out/project/node_modules" > /dev/null; then
  echo "a process of the npm install outlived its client:" >&2
  pgrep -af "$out/project/node_modules" >&2
  exit 1
fi

echo "-- the crate: cargo package builds the unpacked package, and that build runs"
# A target directory of its own: the unpacked package is the same crate at another path, and
# cargo would take its build and the checkout's for each other (a debug build of it, ~5 min).
crate_target=$out/crate-target
CARGO_TARGET_DIR=$crate_target cargo package --quiet --allow-dirty
"$crate_target/debug/mcpguard" --version
main_job "$crate_target/debug/mcpguard"
echo "packages: the wheel, uvx, npx and the crate all run mcpguard $version"
