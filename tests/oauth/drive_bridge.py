"""Drives `mcpguard proxy --url URL` (the stdio bridge) with the Python SDK's own client, over
stdio, as a stdio-only client such as Claude Desktop would: connect (in --mode: auto probes
server/discover and falls back to initialize; legacy initializes), list the tools, call each
tool named with --call, then each of --calls FILE (a YAML or JSON list of {tool, arguments}, as
tests/conformance/calls/ has them). Prints one JSON object: the tools listed, and per call whether it was
an error and its text content (so a test can see a shrunk result and its way back).

    python tests/oauth/drive_bridge.py --mcpguard target/debug/mcpguard --url URL \
        --call whoami --call 'big_log={"lines": 3000}' [--mode legacy] [--proxy-arg=--quiet ...]

The OAuth store and BROWSER come from the environment, which the bridge inherits.
"""

import argparse
import asyncio
import json
import os
import sys

import yaml

from mcp import Client
from mcp.client.stdio import StdioServerParameters


async def drive(args: argparse.Namespace) -> dict:
    server = StdioServerParameters(
        command=args.mcpguard,
        args=["proxy", "--url", args.url, *args.proxy_arg],
        env=dict(os.environ),
    )
    out: dict = {"calls": []}
    async with Client(server, mode=args.mode, read_timeout_seconds=60) as client:
        tools = await client.list_tools()
        out["tools"] = [t.name for t in tools.tools]
        calls = []
        for spec in args.call:
            name, _, arguments = spec.partition("=")
            calls.append((name, json.loads(arguments) if arguments else {}))
        for path in args.calls:
            with open(path) as f:
                calls += [(c["tool"], c.get("arguments") or {}) for c in yaml.safe_load(f) or []]
        for name, arguments in calls:
            result = await client.call_tool(name, arguments)
            texts = [c.text for c in getattr(result, "content", []) if getattr(c, "type", "") == "text"]
            out["calls"].append({"tool": name, "isError": bool(getattr(result, "is_error", False)), "text": texts})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mcpguard", required=True)
    parser.add_argument("--url", required=True)
    parser.add_argument("--call", action="append", default=[], help="NAME or NAME=JSON arguments")
    parser.add_argument("--calls", action="append", default=[], help="a file of calls")
    parser.add_argument("--mode", default="auto")
    parser.add_argument("--proxy-arg", action="append", default=[], help="a flag for `mcpguard proxy`")
    args = parser.parse_args()
    json.dump(asyncio.run(drive(args)), sys.stdout)
    print()


if __name__ == "__main__":
    main()
