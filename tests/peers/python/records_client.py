"""Records in text through `mcpguard proxy`, with real servers nobody here wrote (issue 61).

Makes the data (a SQLite database of 3,000 orders, a DuckDB database of 6,000, a CSV file of
5 MB), asks each database for its own answers (`SELECT count(*), sum(total) ... WHERE`), then
drives `mcpguard proxy` in front of mcp-server-sqlite, mcp-server-duckdb and server-filesystem
with the Python SDK's client and checks, for each:

- the result reached the client shrunk, with the full result stored;
- `mcpguard_more` `where` + `aggregate` equals the database's (or Python's csv module's) figures;
- `match` answers whole records, as many as the database counts;
- the pages of the result end between records: ids 1..N in order, every field in every record.

Prints the figures: tokens and calls to answer "how many cancelled orders, and their total"
through the proxy, against reading the whole result. Exits 1 on the first difference.

    python records_client.py MCPGUARD SERVER_BIN_DIR FILESYSTEM_SERVER WORK_DIR
"""

import asyncio
import csv
import datetime
import json
import os
import random
import re
import sqlite3
import sys
from decimal import Decimal

import duckdb
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

STATUSES = ["pending", "paid", "shipped", "cancelled", "refunded"]
# Quoted commas, doubled quotes, a line break, a tab, Unicode, NULL: what breaks naive readers.
NOTES = ["call before, please", "O'Brien's \"rush\" order", "naïve café ☕", "line one\nline two",
         None, "gift", "tab\there"]
CUSTOMER = "customer_710"


def orders(n, seed):
    rng = random.Random(seed)
    for i in range(1, n + 1):
        yield (i, f"customer_{rng.randint(1, 900)}", rng.choice(STATUSES),
               Decimal(str(round(rng.uniform(1, 500), 2))), rng.choice(NOTES),
               datetime.date(2026, 1, 1) + datetime.timedelta(days=rng.randint(0, 300)))


def make_data(work):
    """The three sources and each one's own answers."""
    expected = {}
    path = os.path.join(work, "orders.sqlite")
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY, customer TEXT, status TEXT,"
               " total REAL, note TEXT, placed TEXT)")
    db.executemany("INSERT INTO orders VALUES (?, ?, ?, ?, ?, ?)",
                   [(i, c, s, float(t), n, str(d)) for i, c, s, t, n, d in orders(3000, 61)])
    db.commit()
    expected["sqlite"] = own_answers(db.execute)
    db.close()

    path = os.path.join(work, "orders.duckdb")
    db = duckdb.connect(path)
    db.execute("CREATE TABLE orders (id INTEGER, customer VARCHAR, status VARCHAR,"
               " total DECIMAL(10, 2), note VARCHAR, placed DATE)")
    db.executemany("INSERT INTO orders VALUES (?, ?, ?, ?, ?, ?)", list(orders(6000, 62)))
    expected["duckdb"] = own_answers(db.execute)
    db.close()

    path = os.path.join(work, "orders.csv")
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["id", "customer", "status", "total", "note", "placed"])
        for row in orders(84000, 63):
            writer.writerow(row)
    assert os.path.getsize(path) >= 5_000_000, os.path.getsize(path)
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    cancelled = [r for r in rows if r["status"] == "cancelled"]
    expected["filesystem"] = {
        "rows": len(rows),
        "count": len(cancelled),
        "sum": round(sum(Decimal(r["total"]) for r in cancelled), 2),
        "customer": sum(1 for r in rows if r["customer"] == CUSTOMER),
    }
    return expected


def own_answers(execute):
    rows = execute("SELECT count(*) FROM orders").fetchone()[0]
    count, total = execute(
        "SELECT count(*), sum(total) FROM orders WHERE status = 'cancelled'").fetchone()
    customer = execute("SELECT count(*) FROM orders WHERE customer = ?", [CUSTOMER]).fetchone()[0]
    return {"rows": rows, "count": count, "sum": round(Decimal(str(total)), 2),
            "customer": customer}


def fail(server, what):
    print(f"records_client: {server}: {what}", file=sys.stderr)
    sys.exit(1)


def texts(result):
    return [c.text for c in result.content if c.type == "text"]


async def check(mcpguard, name, command, tool, arguments, fields, expected, env):
    """One server behind the proxy; returns its figures."""
    status, total = fields
    # Run in the work directory: the proxy's store (.mcpguard/artifacts) is made there.
    params = StdioServerParameters(command=mcpguard, args=["proxy", "--", *command], env=env,
                                   cwd=env["XDG_CACHE_HOME"].rsplit("/", 1)[0])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            first = await session.call_tool(tool, arguments)
            budget = (first.meta or {}).get("mcpguard/budget") or fail(name, f"not shrunk: {first}")
            reference = budget.get("artifactRef") or fail(name, f"no artifact: {budget}")
            if budget["originalTokens"] <= budget["estimatedTokens"] * 10:
                fail(name, f"the result was not large: {budget}")

            answer = await session.call_tool("mcpguard_more", {
                "ref": reference, "where": f"{status}=cancelled",
                "aggregate": f"count, sum({total})"})
            figures = json.loads(texts(answer)[0])
            got = (figures["count"], round(Decimal(str(figures[f"sum({total})"])), 2))
            want = (expected["count"], expected["sum"])
            if got != want:
                fail(name, f"where + aggregate gave {got}, the source says {want}")

            matched = await session.call_tool("mcpguard_more", {"ref": reference,
                                                                "match": f"{CUSTOMER}\\b"})
            said = " ".join(texts(matched))
            m = re.search(r"([\d,]+) of ([\d,]+) records match", said)
            if not m:
                fail(name, f"match did not answer with records: {said[:400]}")
            if int(m.group(1).replace(",", "")) != expected["customer"]:
                fail(name, f"match counted {m.group(1)}, the source {expected['customer']}")
            found = next(json.loads(t) for t in texts(matched) if t.startswith("{"))
            width = len(found["items"][0])
            for record in found["items"]:
                if len(record) != width or CUSTOMER not in json.dumps(record):
                    fail(name, f"a matched record is not whole: {record}")

            # Reading on: pages end between records, every record whole, none lost.
            pages, page = await read_pages(session, name, first, reference, width, 3)

            print(f"{name}: {expected['rows']:,} rows; the result {budget['originalBytes']:,} bytes,"
                  f" {budget['originalTokens']:,} tokens; shrunk to {budget['estimatedTokens']:,}"
                  f" ({budget['outcome']}); where + aggregate = {got[0]:,}, {got[1]} as the source;"
                  f" match {CUSTOMER}: {m.group(1)} whole records; {pages} pages read on, whole")
            return {"server": name, "firstTokens": budget["estimatedTokens"],
                    "answerTokens": len(texts(answer)[0]) // 4 + 1,
                    "wholeTokens": budget["originalTokens"], "outcome": budget["outcome"],
                    "pages": -(-expected["rows"] // len(page["items"]))}


async def read_pages(session, name, first, reference, width, count):
    """Reads `count` pages on from the first answer (or from the start of the stored result,
    when the first answer was a preview) and checks the ids run on without a gap."""
    page = next((json.loads(t) for t in texts(first) if t.startswith('{"items"')), None)
    if page is None:
        answer = await session.call_tool("mcpguard_more", {"ref": reference, "where": "id>0"})
        page = next(json.loads(t) for t in texts(answer) if t.startswith("{"))
    seen = []
    for _ in range(count):
        for record in page["items"]:
            if len(record) != width:
                fail(name, f"a record on a page is not whole: {record}")
            seen.append(record.get("id", record.get("1")))
        cursor = page.get("nextCursor")
        if not cursor:
            break
        answer = await session.call_tool("mcpguard_more", {"cursor": cursor})
        page = next(json.loads(t) for t in texts(answer) if t.startswith("{"))
    if seen != list(range(1, len(seen) + 1)):
        fail(name, f"the pages' ids do not run on: {seen[:5]}...{seen[-5:]}")
    return count, page


async def main():
    mcpguard, servers, filesystem, work = sys.argv[1:5]
    os.makedirs(work, exist_ok=True)
    expected = make_data(work)
    env = {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", work),
           "XDG_CACHE_HOME": os.path.join(work, "cache"),
           "XDG_CONFIG_HOME": os.path.join(work, "config"),
           "MCPGUARD_CURSOR_SECRET": "records-check-" + "0" * 32}
    runs = [
        ("sqlite", [f"{servers}/mcp-server-sqlite", "--db-path", f"{work}/orders.sqlite"],
         "read_query", {"query": "SELECT * FROM orders"}, ("status", "total")),
        # A list of tuples: its fields have no names, so they are 1, 2, ...
        ("duckdb", [f"{servers}/mcp-server-duckdb", "--db-path", f"{work}/orders.duckdb",
                    "--readonly"],
         "query", {"query": "SELECT * FROM orders ORDER BY id"}, ("3", "4")),
        ("filesystem", [filesystem, work], "read_text_file", {"path": f"{work}/orders.csv"},
         ("status", "total")),
    ]
    figures = []
    for name, command, tool, arguments, fields in runs:
        figures.append(await check(mcpguard, name, command, tool, arguments, fields,
                                   expected[name], env))
    for f in figures:
        through = f["firstTokens"] + f["answerTokens"]
        print(f"{f['server']}: 'how many cancelled, and their total' through the proxy: 2 calls,"
              f" about {through:,} tokens; reading the whole result: {f['wholeTokens']:,} tokens"
              f" ({f['wholeTokens'] // max(through, 1):,}x), or {f['pages']:,} pages of records")


asyncio.run(main())
