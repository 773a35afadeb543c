#!/usr/bin/env bash
# The tool ranker behind the tiered catalog's search (seed 004's T2): recall@1/3/5/10 and MRR on
# graded queries, and how long one query takes in process over 10,000 tools.
#
#   bash scripts/bench-find.sh [TOOLS]   # default 10000
#
# Sets (tests/fixtures/retrieval, licences beside them): mcpproxy-go's 47 graded queries over its
# 45 tools (MIT; its own BM25 measures recall@5 0.681, MRR 0.568: baseline_v1.json), and
# mcpguard's 125 agent-style queries over LiveMCPBench's 527 tools of 70 servers (Apache 2.0).
set -euo pipefail
cd "$(dirname "$0")/.."
tools=${1:-10000}
cargo build --release --quiet --example retrieval
bin=target/release/examples/retrieval
set_dir=tests/fixtures/retrieval
echo "mcpproxy-go (their BM25: recall@1 0.418, @3 0.560, @5 0.681, @10 0.791, MRR 0.568):"
"$bin" "$set_dir/mcpproxy-go-corpus_v1.tools.json" "$set_dir/mcpproxy-go-retrieval_golden_v1.json"
echo "mcpguard's queries over LiveMCPBench's catalog:"
"$bin" "$set_dir/livemcptool-tools.json" "$set_dir/livemcptool-queries.json" --scale "$tools"
