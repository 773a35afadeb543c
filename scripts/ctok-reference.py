#!/usr/bin/env python3
"""Reference counts for mcpguard's `claude` and `claude-v3` tokenizers, from ctok itself.

A count is the content's tokens, ctok's `token_count(text) - token_count("")` for the family:
v4.7 for `claude`, v3 for `claude-v3`. Run in the virtualenv of scripts/python-peers.sh:

    py=$(bash scripts/python-peers.sh)
    $py scripts/ctok-reference.py            # rewrite tests/fixtures/ctok-counts.json
    $py scripts/ctok-reference.py --check    # exit 1 if it differs from ctok's counts
"""
import json
import sys
from importlib.metadata import version
from pathlib import Path

from ctok import token_count

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "ctok-counts.json"
FILES = sorted((ROOT / "tests" / "fixtures" / "tokens").iterdir()) + [
    ROOT / "contracts" / "examples" / "fail-inv001-bookings-60kb.json",
    ROOT / "contracts" / "examples" / "fail-inv003-base64-screenshot.json",
    ROOT / "tests" / "fixtures" / "unicode-mix.txt",
]
FAMILIES = {"claude": "4.7", "claude-v3": "3.0"}


def content(text: str, family: str) -> int:
    return token_count(text, family) - token_count("", family)


def main() -> int:
    counts = {}
    for path in FILES:
        # newline="" keeps CRLF: mcpguard reads bytes, not universal newlines.
        with open(path, encoding="utf-8", newline="") as f:
            text = f.read()
        counts[str(path.relative_to(ROOT))] = {name: content(text, fam) for name, fam in FAMILIES.items()}
    doc = json.dumps({"ctok": version("ctok"), "counts": counts}, indent=2, ensure_ascii=False) + "\n"
    if "--check" in sys.argv[1:]:
        if not FIXTURE.exists() or FIXTURE.read_text(encoding="utf-8") != doc:
            print(f"{FIXTURE.relative_to(ROOT)} differs from ctok {version('ctok')}'s counts:\n{doc}",
                  file=sys.stderr)
            return 1
        print(f"ctok-counts.json matches ctok {version('ctok')} on {len(counts)} documents")
        return 0
    FIXTURE.write_text(doc, encoding="utf-8")
    print(f"wrote {FIXTURE.relative_to(ROOT)}: {len(counts)} documents")
    return 0


if __name__ == "__main__":
    sys.exit(main())
