#!/usr/bin/env bash
# The action's audit step: `mcpguard audit` on $PATHS with the action's inputs, its exit code
# kept as the step's (and as the `exit-code` output); with $SARIF true, the same audit written as
# SARIF to mcpguard.sarif for the upload step. Run here by scripts/check-action.sh.
set -uo pipefail
read -r -a paths <<< "$PATHS"
args=(audit "${paths[@]}" --format "${FORMAT:-github}" --fail-on "${FAIL_ON:-error}")
[ -n "${BASELINE:-}" ] && args+=(--baseline "$BASELINE")
[ -n "${CONFIG:-}" ] && args=(--config "$CONFIG" "${args[@]}")
mcpguard "${args[@]}"
status=$?
if [ "${SARIF:-false}" = "true" ]; then
  sarif=(audit "${paths[@]}" --format sarif --fail-on never)
  [ -n "${BASELINE:-}" ] && sarif+=(--baseline "$BASELINE")
  [ -n "${CONFIG:-}" ] && sarif=(--config "$CONFIG" "${sarif[@]}")
  mcpguard "${sarif[@]}" > mcpguard.sarif || status=2
fi
echo "exit-code=$status" >> "${GITHUB_OUTPUT:-/dev/null}"
exit "$status"
