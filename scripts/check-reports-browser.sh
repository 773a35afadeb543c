#!/usr/bin/env bash
# The HTML reports in a real browser: `audit contracts/examples --format html` and
# `audit --from-metrics RECORDS --format html` (RECORDS: a real `proxy --metrics` file, made by
# tests/browser/proxy_records.py through the stdio proxy in front of the rmcp fixture), opened
# in Debian's Chromium (scripts/chromium.sh) by playwright-core (pinned in tests/peers):
# no console errors, the charts with the right counts, filters, sorting, dark mode. Writes the
# screenshots to target/report-screenshots/; with --update-docs also to docs/ (the README's).
#
#   bash scripts/check-reports-browser.sh [--update-docs]   # after npm ci --prefix tests/peers
set -euo pipefail
cd "$(dirname "$0")/.."
chromium_bin=$(bash scripts/chromium.sh)
[ -d tests/peers/node_modules/playwright-core ] || { echo "missing playwright-core: npm ci --prefix tests/peers" >&2; exit 1; }
cargo build --release --quiet --bins --examples
bin=target/release/mcpguard
out=target/report-screenshots
rm -rf "$out" && mkdir -p "$out"
# The examples hold failing responses on purpose: exit 1 is the audit's verdict.
status=0
"$bin" audit contracts/examples --format html -o "$out/audit.html" || status=$?
[ "$status" -eq 1 ] || { echo "audit contracts/examples --format html exited $status, not 1" >&2; exit 1; }
"$bin" audit contracts/examples --format json --fail-on never -o "$out/audit.json"
python3 tests/browser/proxy_records.py "$bin" target/release/examples/fixture_server "$out/records.jsonl"
"$bin" audit --from-metrics "$out/records.jsonl" --format html -o "$out/metrics.html"
node tests/peers/check_reports.mjs "$chromium_bin" "$out/audit.html" "$out/audit.json" \
  "$out/metrics.html" "$out/records.jsonl" "$out"
if [ "${1:-}" = "--update-docs" ]; then
  mkdir -p docs
  cp "$out/audit-report-top.png" docs/audit-report.png
  cp "$out/metrics-report.png" docs/
  echo "docs/audit-report.png, docs/metrics-report.png updated"
fi
