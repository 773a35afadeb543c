#!/usr/bin/env bash
# Issue 26, point 4 ("benchmark and choose"): how fast the audit's measuring pass could go
# without building serde_json trees. Over the same real captures, in memory, on one core:
# today's parse and walk, sonic-rs's own tree, simd-json's tape and a hand-written scan, each
# finding the seed's figures (depth, longest array, longest string) in the response and in the
# JSON of its text blocks, checked equal on every file before anything is timed.
#
#   bash scripts/bench-parse.sh [DIR]     # default: bench-perf.sh's 165 MB corpus (made if missing)
# Figures, not a test: nothing here fails on a number. The candidates are built apart from
# mcpguard (scripts/parse-choice is a workspace of its own, its versions pinned).
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=target/bench/audit-corpus-165-real/files
if [ $# -gt 0 ]; then corpus=$1; else bash scripts/copy-corpus.sh "$corpus" 165; fi
CARGO_TARGET_DIR=target/parse-choice cargo run --release --quiet \
  --manifest-path scripts/parse-choice/Cargo.toml -- "$corpus"
