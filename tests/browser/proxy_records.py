"""Makes a realistic `mcpguard proxy --metrics` file for the HTML report checks: the stdio
proxy in front of the rmcp fixture server, a client that calls its tools (a 300-booking list,
a 385 KB log, a report, a screenshot, small answers) and reads some shrunk results on with
mcpguard_more, following nextCursor, as a model would.

    python3 tests/browser/proxy_records.py MCPGUARD FIXTURE_SERVER OUT.jsonl
"""

import json
import os
import subprocess
import sys
import tempfile


def main() -> None:
    mcpguard, fixture, out = sys.argv[1:4]
    if os.path.exists(out):
        os.remove(out)
    store = tempfile.mkdtemp(prefix="mcpguard-records-")
    proc = subprocess.Popen(
        [mcpguard, "proxy", "--quiet", "--metrics", out, "--artifact-dir", store, "--", fixture],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        env={k: v for k, v in os.environ.items() if not k.startswith("MCPGUARD_")},
    )
    next_id = 0

    def request(method, params):
        nonlocal next_id
        next_id += 1
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": next_id, "method": method, "params": params}) + "\n")
        proc.stdin.flush()
        while True:
            message = json.loads(proc.stdout.readline())
            if message.get("id") == next_id and "method" not in message:
                return message

    request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                           "clientInfo": {"name": "records", "version": "1"}})
    proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
    proc.stdin.flush()
    request("tools/list", {})
    calls = [("list_bookings", {}), ("read_log", {}), ("get_report", {"format": "json"}),
             ("screenshot", {}), ("list_bookings", {}), ("read_log", {})]
    for round_ in range(3):
        for i, (tool, arguments) in enumerate(calls):
            answer = request("tools/call", {"name": tool, "arguments": arguments})
            result = answer.get("result", {})
            # The model reads on from some of the shrunk results, a few pages deep.
            reads = (round_ + i) % 3
            while reads and result.get("nextCursor"):
                result = request("tools/call", {"name": "mcpguard_more",
                                                "arguments": {"cursor": result["nextCursor"]}}).get("result", {})
                reads -= 1
            # And finds in some: the errors of the log, the figures of the bookings.
            ref = answer.get("result", {}).get("_meta", {}).get("mcpguard/budget", {}).get("artifactRef")
            if ref and round_ == i % 3:
                question = {"match": "ERROR"} if tool == "read_log" else {"aggregate": "count", "group_by": "status"}
                found = request("tools/call", {"name": "mcpguard_more", "arguments": {"ref": ref, **question}})
                while found.get("result", {}).get("nextCursor"):
                    found = request("tools/call", {"name": "mcpguard_more",
                                                   "arguments": {"cursor": found["result"]["nextCursor"]}})
    proc.stdin.close()
    proc.wait(timeout=30)


if __name__ == "__main__":
    main()
