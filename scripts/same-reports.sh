#!/usr/bin/env bash
# Whether two builds of mcpguard audit alike: every JSON capture the repository holds (the
# corpus, the contract examples, the fixtures, the fuzzer's regressions) audited by BASE and by
# NEW with the default flags, with the exact counter, with the heuristic and with --contract,
# and the JSON reports compared byte for byte. For a change that should make the audit faster
# and nothing else.
#
#   bash scripts/same-reports.sh /tmp/mcpguard-before target/release/mcpguard
set -euo pipefail
cd "$(dirname "$0")/.."
base=$1
new=$2
inputs=(tests/fixtures/corpus contracts/examples tests/fixtures/bookings-500.json
  tests/fixtures/filesystem-search-files.json tests/fixtures/git-log-200.json
  tests/fixtures/users-by-id-250.json)
# The corpus again, indented (findings then sit on many lines, and MG014 speaks).
pretty=$(mktemp -d)
trap 'rm -rf "$pretty"' EXIT
python3 - tests/fixtures/corpus "$pretty" <<'PY'
import json, pathlib, sys
for f in sorted(pathlib.Path(sys.argv[1]).glob("*.json")):
    pathlib.Path(sys.argv[2], f.name).write_text(json.dumps(json.loads(f.read_text()), indent=2, ensure_ascii=False))
PY
inputs+=("$pretty")
# The fuzzer's saved inputs that are JSON documents (each on its own: most are broken on purpose).
while IFS= read -r f; do inputs+=("$f"); done < <(find fuzz/regressions/input -type f 2>/dev/null | sort)
flags=("" "--tokenizer claude" "--tokenizer heuristic --client copilot-cli" "--contract contracts/response.schema.json")
differ=0
compared=0
for input in "${inputs[@]}"; do
  for f in "${flags[@]}"; do
    # shellcheck disable=SC2086
    a=$("$base" audit "$input" --format json --fail-on never $f 2>&1 || true)
    # shellcheck disable=SC2086
    b=$("$new" audit "$input" --format json --fail-on never $f 2>&1 || true)
    compared=$((compared + 1))
    if [ "$a" != "$b" ]; then
      differ=$((differ + 1))
      echo "DIFFERENT: audit $input $f"
      diff <(echo "$a") <(echo "$b") | head -10 || true  # diff exits 1: go on counting
    fi
  done
done
echo "$compared reports compared, $differ different"
[ "$differ" = 0 ]
