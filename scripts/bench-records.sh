#!/usr/bin/env bash
# Records in text at scale (records issue): a 100 MB CSV, a 100 MB `str(rows)` of dicts and a
# 100 MB repr of tuples holding Decimal and datetime.date, made from the captured orders of
# tests/fixtures/records; for each, `paginate --where --aggregate` checked against Python's own
# count and sum, `paginate --where --order-by`, `summarize` and `chunk --match`, with time and
# peak memory. The rows are indexed, not held as one tree: peak memory is a few times the
# text, never the ~35 times its records as JSON values would take.
#
#   bash scripts/bench-records.sh [MEGABYTES]    # default 100; needs GNU time
set -euo pipefail
cd "$(dirname "$0")/.."
mb=${1:-100}
cargo build --release --quiet
bin=$PWD/target/release/mcpguard
dir=target/bench/records-$mb
mkdir -p "$dir"
# Each file, and the expected figures beside it: "count sum".
python3 - "$mb" "$dir" <<'EOF'
import csv, datetime, io, json, os, sys
from decimal import Decimal

mb, out = int(sys.argv[1]), sys.argv[2]
target = mb * 1_000_000


def text_of(name):
    doc = json.load(open(f"tests/fixtures/records/{name}.result.json"))
    return doc.get("result", doc)["content"][0]["text"]


def write(name, rows, head, render, sep, tail):
    """Writes rows (renumbered from 1, cycling) until the file passes the target size."""
    path = f"{out}/{name}"
    if os.path.exists(path + ".expected"):
        return
    count, total, size, i = 0, Decimal(0), 0, 0
    with open(path, "w") as f:
        f.write(head)
        while size < target:
            row = rows[i % len(rows)]
            i += 1
            line = render(i, row)
            f.write((sep if i > 1 else "") + line)
            size += len(line) + len(sep)
            if row["status"] == "cancelled":
                count += 1
                total += Decimal(str(row["total"]))
        f.write(tail)
    open(path + ".expected", "w").write(f"{count} {total}\n")


orders = list(csv.DictReader(io.StringIO(text_of("orders-csv"))))
for r in orders:
    r["total"] = float(r["total"])


def csv_line(i, r):
    s = io.StringIO()
    csv.writer(s, lineterminator="\n").writerow([i, r["customer"], r["status"], r["total"], r["note"]])
    return s.getvalue()


write("orders.csv", orders, "id,customer,status,total,note\n", csv_line, "", "")
write("orders-dicts.repr", orders, "[", lambda i, r: repr({**r, "id": i}), ", ", "]")
tuples = eval(text_of("duckdb-orders"), {"Decimal": Decimal, "datetime": datetime})
rows = [{"t": t, "status": t[2], "total": t[3]} for t in tuples]
write("orders-tuples.repr", rows, "[", lambda i, r: repr((i,) + r["t"][1:]), ", ", "]")
EOF
export MCPGUARD_CURSOR_SECRET=bench-only-secret
run() { /usr/bin/time -f '%e s, peak %M KB' "$@" 2>&1 >/dev/null | tail -1; }
for file in orders.csv:status:total orders-dicts.repr:status:total orders-tuples.repr:3:4; do
  IFS=: read -r name status total <<<"$file"
  path=$dir/$name
  read -r count sum < "$path.expected"
  echo "$name: $(($(stat -c %s "$path") / 1048576)) MB; Python counts $count cancelled, total $sum"
  got=$("$bin" paginate "$path" --where "$status=cancelled" --aggregate "count, sum($total)")
  python3 - "$got" "$count" "$sum" "$total" <<'EOF'
import json, sys
got, count, total, field = json.loads(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
assert got["count"] == count, (got, count)
assert abs(got[f"sum({field})"] - total) < 1e-6 * max(1, total), (got, total)
print(f"  mcpguard agrees: {got['count']} of {got['of']}, sum {got[f'sum({field})']}")
EOF
  echo "  where + aggregate:    $(run "$bin" paginate "$path" --where "$status=cancelled" --aggregate "count, sum($total)")"
  echo "  where + order-by:     $(run "$bin" paginate "$path" --where "$status=cancelled" --order-by "$total:desc" --limit 20)"
  echo "  summarize:            $(run "$bin" summarize "$path" --no-artifact)"
  echo "  chunk --match:        $(run "$bin" chunk "$path" --match customer_4)"
done
