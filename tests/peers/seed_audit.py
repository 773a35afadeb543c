# Copied unchanged (below this line) from shared/peers/seed_audit.py: the seed's size checks, a yardstick for audit.
"""A comparable pass in Python: the seed 003 testing plan's checks (size < 10 KB, arrays <= 10,
strings <= 500, depth <= 4) over every .json file of a directory. Yardstick for `mcpguard audit`."""
import json, os, sys

def walk(v, depth, acc):
    acc["depth"] = max(acc["depth"], depth)
    if isinstance(v, list):
        acc["arr"] = max(acc["arr"], len(v))
        for x in v: walk(x, depth + 1, acc)
    elif isinstance(v, dict):
        for x in v.values(): walk(x, depth + 1, acc)
    elif isinstance(v, str):
        acc["str"] = max(acc["str"], len(v))

bad = 0
for root, _, files in os.walk(sys.argv[1]):
    for f in sorted(files):
        if not f.endswith(".json"): continue
        raw = open(os.path.join(root, f), "rb").read()
        acc = {"depth": 0, "arr": 0, "str": 0}
        walk(json.loads(raw), 0, acc)
        if len(raw) > 10240 or acc["arr"] > 10 or acc["str"] > 500 or acc["depth"] > 4:
            bad += 1
print(bad)
sys.exit(1 if bad else 0)
