"""The Python SDK's client (mcp 2.x, both eras) through the gateway under its default catalog
(auto, which tiers a catalog this size for any client but Claude Code): mcpguard's four tools
and the hot ones are listed; it finds a tool of a server it was never listed (memory),
describes it, lists again and sees it, and calls it both ways, directly and through
`mcpguard_call_tool`.

    python tiered_client.py MCPGUARD CONFIG CACHE

Exits non-zero with the reason on the first thing that is not so. Run by
scripts/check-gateway-clients.sh.
"""

import asyncio
import json
import os
import sys

from mcp import Client
from mcp.client.stdio import StdioServerParameters

from proxy_client import all_tools, texts

OWN = ["mcpguard_more", "mcpguard_find_tools", "mcpguard_describe_tools", "mcpguard_call_tool"]
WANTED = "memory__create_relations"


async def session(mode, target):
    async with Client(target, mode=mode) as c:
        names = [t.name for t in await all_tools(c)]
        for own in OWN:
            assert own in names, f"{mode}: {own} is not listed: {names}"
        assert len(names) <= 15 + 4, f"{mode}: tiered lists at most 15 hot tools: {len(names)}"
        found = await c.call_tool("mcpguard_find_tools", {"query": "add a relation between two entities of the knowledge graph", "limit": 3})
        lines = texts(found)[0].split("\n")[:3]
        assert any(line.startswith(f"{WANTED}: ") for line in lines), f"{mode}: {lines}"
        described = await c.call_tool("mcpguard_describe_tools", {"names": [WANTED]})
        assert json.loads(texts(described)[0])[0]["name"] == WANTED, f"{mode}: {texts(described)}"
        after = [t.name for t in await all_tools(c)]
        assert WANTED in after, f"{mode}: described, so listed: {after}"
        arguments = {"relations": [{"from": "mcpguard", "to": "MCP", "relationType": "guards"}]}
        direct = await c.call_tool(WANTED, arguments)
        assert not direct.is_error, f"{mode}: {texts(direct)}"
        through = await c.call_tool("mcpguard_call_tool", {"name": WANTED, "arguments": arguments})
        assert not through.is_error, f"{mode}: {texts(through)}"
        never = await c.call_tool("mcpguard_call_tool", {"name": "time__get_current_time", "arguments": {"timezone": "UTC"}})
        assert not never.is_error and "UTC" in texts(never)[0], f"{mode}: {texts(never)}"
        return len(names)


async def main():
    mcpguard, config, cache = sys.argv[1:]
    target = StdioServerParameters(
        command=mcpguard,
        args=["proxy", "--mcp-config", config, "--catalog-cache", cache],
        # The check's environment (its XDG_CONFIG_HOME keeps the pins with the run): the SDK
        # passes only a few variables by default.
        env=dict(os.environ),
    )
    for mode in ["auto", "legacy"]:
        listed = await session(mode, target)
        era = "2026-07-28" if mode == "auto" else "2025-11-25"
        print(f"python sdk ({era}), tiered: {listed} tools listed at first; found, described and"
              f" called {WANTED} both ways; called time__get_current_time unlisted")


if __name__ == "__main__":
    asyncio.run(main())
