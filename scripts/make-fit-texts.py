#!/usr/bin/env python3
"""Writes tests/fixtures/claude-fast-texts.jsonl: multilingual texts of the shapes tools return,
on which `claude-fast` is fitted and measured (examples/fit_claude_fast.rs).

Faker (pinned in tests/peers/python/requirements-ctok.txt) gives real words and names in 27
languages: prose paragraphs, and the JSON records, CSV rows and log lines a tool would build from
them. Seeded: run it again and nothing changes. Run in the virtualenv of scripts/python-peers.sh:

    $(bash scripts/python-peers.sh) scripts/make-fit-texts.py
"""
import json
import os
import sys
from datetime import datetime
from pathlib import Path

# Some of Faker's word lists are built from sets, whose order follows the string hash seed.
if os.environ.get("PYTHONHASHSEED") != "0":
    os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, "PYTHONHASHSEED": "0"})

from faker import Faker  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "fixtures" / "claude-fast-texts.jsonl"
# (locale, kind): prose where faker has a word list for the language, else names and addresses.
LOCALES = {
    "en_US": "prose", "de_DE": "prose", "fr_FR": "prose", "es_ES": "prose", "it_IT": "prose",
    "nl_NL": "prose", "pl_PL": "prose", "cs_CZ": "prose", "da_DK": "prose", "az_AZ": "prose",
    "vi_VN": "prose", "fil_PH": "prose", "ru_RU": "non-Latin prose", "uk_UA": "non-Latin prose",
    "mk_MK": "non-Latin prose", "el_GR": "non-Latin prose", "hy_AM": "non-Latin prose",
    "he_IL": "non-Latin prose", "ar_AA": "non-Latin prose", "fa_IR": "non-Latin prose",
    "bn_BD": "non-Latin prose", "th_TH": "non-Latin prose", "ja_JP": "non-Latin prose",
    "zh_CN": "non-Latin prose", "zh_TW": "non-Latin prose", "ko_KR": "non-Latin names",
    "hi_IN": "non-Latin names", "ka_GE": "non-Latin names",
}


def prose(fake: Faker, kind: str, size: int) -> str:
    if kind.endswith("names"):
        parts = []
        while sum(map(len, parts)) < size:
            parts.append(f"{call(fake, 'name')}, {call(fake, 'address')}, {call(fake, 'company')}")
        return "\n".join(parts)
    return "\n\n".join(fake.paragraphs(nb=max(1, size // 300)))


FALLBACK = Faker("en_US")
FALLBACK.seed_instance(20261123)


def call(fake: Faker, provider: str) -> str:
    """The locale's own provider where it has one, else the English one."""
    try:
        return getattr(fake, provider)()
    except AttributeError:
        return getattr(FALLBACK, provider)()


def stamp(fake: Faker) -> str:
    """A timestamp from the seeded stream (Faker's iso8601() moves with today's date)."""
    return fake.date_time_between(datetime(2000, 1, 1), datetime(2026, 1, 1)).isoformat()


def record(fake: Faker, i: int) -> dict:
    return {
        "id": f"cust_{i:05d}",
        "name": call(fake, "name"),
        "address": call(fake, "address"),
        "phone": call(fake, "phone_number"),
        "email": call(fake, "email"),
        "createdAt": stamp(fake),
        "note": call(fake, "sentence"),
    }


def main() -> None:
    # Instances are seeded below; a few providers (it_IT's cities) draw from the shared
    # generator, so that is seeded too.
    Faker.seed(20261123)
    lines = []
    for locale, kind in LOCALES.items():
        fake = Faker(locale)
        fake.seed_instance(20261123)
        for size in (200, 700, 2500):
            lines.append({"kind": kind, "source": f"faker {locale} text {size}", "text": prose(fake, kind, size)})
        records = [record(fake, i) for i in range(8)]
        lines.append({"kind": "JSON, MCP", "source": f"faker {locale} records, pretty",
                      "text": json.dumps(records, indent=2, ensure_ascii=False)})
        lines.append({"kind": "JSON, MCP", "source": f"faker {locale} records, minified",
                      "text": json.dumps(records, separators=(",", ":"), ensure_ascii=False)})
        lines.append({"kind": "JSON, MCP", "source": f"faker {locale} records, ASCII-escaped",
                      "text": json.dumps(records[:3], indent=1)})
        lines.append({"kind": "logs", "source": f"faker {locale} log lines",
                      "text": "\n".join(f"{stamp(fake)} INFO user={call(fake, 'user_name')} ip={fake.ipv4()} "
                                        f"action=update name=\"{call(fake, 'name')}\" took={fake.random_int(1, 900)}ms"
                                        for _ in range(12))})
        lines.append({"kind": "JSON, MCP", "source": f"faker {locale} CSV",
                      "text": "id,name,city,phone\n" + "\n".join(
                          f"{i},{call(fake, 'name')},{call(fake, 'city')},{call(fake, 'phone_number')}" for i in range(15))})
    with open(OUT, "w", encoding="utf-8", newline="\n") as f:
        for line in lines:
            f.write(json.dumps(line, ensure_ascii=False) + "\n")
    print(f"wrote {OUT.relative_to(ROOT)}: {len(lines)} texts")


if __name__ == "__main__":
    main()
