#!/usr/bin/env python3
"""Differential check of mcpguard's `claude` and `claude-v3` against ctok on adversarial strings.

Writes target/ctok-differential.json: a seeded sample of short strings built from the characters
that steer the reconstruction's rules (case, apostrophes, digits of several scripts, marks,
selectors, emoji, CJK, whitespace, controls, private use, literal marker codepoints), and of long
lines of mostly ASCII with a few of the others (the counter writes a long ASCII span of such a
line apart from the rest, which short strings never reach), each with ctok's content counts. `cargo test --test tokenizers -- --ignored differential` compares.

    $(bash scripts/python-peers.sh) scripts/ctok-differential.py [N]
"""
import json
import random
import sys
from pathlib import Path

from ctok import token_count

ROOT = Path(__file__).resolve().parent.parent
ALPHABET = (
    list("aAbBzZeEiIoOsStTlLdDmMrRvV") + ["the", "The", "THE", "NASA", "ing", "tion", "JSON", "id"]
    + list("0123456789") + ["١٢٣", "۴۵", "१२", "½", "²", "①"]
    + list(" \t\n\r\n  ") + ["  ", "    ", "\n\n", "\u00a0", "\u3000", "\u2009"]
    + list(".,;:!?'\"()[]{}<>-_=+*/\\|@#$%^&~`") + ["'s", "'ll", "'t", "'re", "'ve", "'d", "'m"]
    + list("—»«•°„–−£§€…√→（）№†│·─═█「」。、？！")
    + list("éÉçÇßẞİıΣσςϴΘθЖжЯяΩω") + ["ǅ", "ǆ", "Ǆ", "ℂ", "ℳ", "Ⅻ", "ⅻ", "Ⓐ", "ⓐ"]
    + ["\u0301", "\u0300", "\u0308", "\u0327", "\u093f", "\u094d", "\u0e31", "\u0e48", "\u0711", "\u0732",
       "\ufe0f", "\ufe0e", "\u200d", "\u200b", "\u00ad"]
    + list("日本語中文字東京한국어テストカタカナひらがなー々〆") + list("ไทยกขค") + ["\u0e4d\u0e32", "\u0e33"]
    + ["😀", "🚀", "👍🏽", "🇫🇷", "❤️", "⚖️", "𝐀", "𝟘", "𐍈"]
    + ["\x00", "\x01", "\x1b", "\x7f", "\x85", "\ue000", "\uf8ff", "\ufdd0", "\ufdd1", "\ufdd3", "\ufdd4", "\ufffd"]
    + ["http://", "https://example.com/a?b=c", "0x1F", "1e10", "3.14", "2026-11-23T09:00:00Z", "a1b2c3d4e5f6"]
)


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 4000
    rng = random.Random(20261123)
    cases = []
    empty = {fam: token_count("", fam) for fam in ("4.7", "3.0")}
    for _ in range(n):
        text = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 24)))
        cases.append({"text": text,
                      "claude": token_count(text, "4.7") - empty["4.7"],
                      "claude-v3": token_count(text, "3.0") - empty["3.0"]})
    # After the short strings, so that they stay the same sample.
    ascii_parts = [a for a in ALPHABET if a.isascii() and "\n" not in a and "\r" not in a]
    other_parts = [a for a in ALPHABET if not a.isascii()]
    for _ in range(n // 40):
        text = "".join(rng.choice(other_parts) if rng.random() < 0.04 else rng.choice(ascii_parts)
                       for _ in range(rng.randint(100, 400)))
        cases.append({"text": text,
                      "claude": token_count(text, "4.7") - empty["4.7"],
                      "claude-v3": token_count(text, "3.0") - empty["3.0"]})
    out = ROOT / "target" / "ctok-differential.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(cases, ensure_ascii=False), encoding="utf-8")
    print(f"wrote {out.relative_to(ROOT)}: {n} strings and {n // 40} long lines with ctok's counts")


if __name__ == "__main__":
    main()
