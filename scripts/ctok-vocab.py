#!/usr/bin/env python3
"""Converts ctok's measured vocabularies into the files mcpguard embeds (data/claude/ctok-*.json).

Run in the virtualenv of scripts/python-peers.sh:

    $(bash scripts/python-peers.sh) scripts/ctok-vocab.py           # write the files
    $(bash scripts/python-peers.sh) scripts/ctok-vocab.py --check   # exit 1 if they differ

Each file keeps what the count needs and drops the witness records: the family's switches, the
pieces in ctok's internal form (a marker is one codepoint, U+FDD0..U+FDD4, as in the stream
mcpguard builds), the contraction suffixes and the byte prefixes of the UTF-8 floor.
"""
import json
import sys
from importlib.metadata import version
from importlib.resources import files
from pathlib import Path

from ctok.notation import parse_marked

ROOT = Path(__file__).resolve().parent.parent
FAMILIES = {"v3": "pieces_v3.json", "v4.7": "pieces_v4_7.json"}


def convert(family: str, filename: str) -> str:
    doc = json.loads(files("ctok").joinpath("data", filename).read_text(encoding="utf-8"))
    meta, tokens = doc["meta"], doc["tokens"]
    pieces = sorted({parse_marked(p) for group, ps in tokens.items()
                     if group != "bytes_fallback" for p in ps})
    out = {
        "source": f"ctok {version('ctok')} data/{filename} (MIT, Copyright (c) 2026 Sander Land)",
        "family": family,
        "sourceModel": meta["source_model"],
        "foldQuotes": meta["fold_quotes"],
        "allcapsMin": meta["allcaps_min"],
        "contractions": sorted(parse_marked(c) for c in tokens["contractions"]),
        "bytePrefixes": sorted(tokens["bytes_fallback"]),
        "pieces": pieces,
    }
    return json.dumps(out, ensure_ascii=False, indent=0) + "\n"


def main() -> int:
    check = "--check" in sys.argv[1:]
    stale = []
    for family, filename in FAMILIES.items():
        path = ROOT / "data" / "claude" / f"ctok-{family.replace('.', '_')}.json"
        text = convert(family, filename)
        if check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(str(path.relative_to(ROOT)))
        else:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path.relative_to(ROOT)} ({len(text.encode()):,} bytes)")
    if stale:
        print("differs from ctok's data, run scripts/ctok-vocab.py: " + ", ".join(stale),
              file=sys.stderr)
        return 1
    if check:
        print(f"data/claude/ctok-*.json match ctok {version('ctok')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
