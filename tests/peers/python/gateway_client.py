"""The Python SDK's client (mcp 2.x, both eras) through the gateway, `mcpguard proxy
--mcp-config FILE` in front of several real servers: it lists every tool (each server's under
SERVER__, the gateway's own tool last), calls one tool of each server, and reads a file that
server-filesystem returns whole (shrunk by the gateway) back through `mcpguard_more`, byte for
byte.

    python gateway_client.py MCPGUARD CONFIG CACHE BIGFILE    # stdio
    python gateway_client.py --url GATEWAY_URL BIGFILE        # proxy --listen --mcp-config

Exits non-zero with the reason on the first thing that is not so. Run by
scripts/check-gateway-clients.sh, which writes CONFIG (servers named as CALLS below).
"""

import asyncio
import os
import sys

from mcp import Client
from mcp.client.stdio import StdioServerParameters

from proxy_client import BUDGET, all_tools, meta, read_on, texts

# One call per server: a tool every one of these servers has, with arguments that work.
CALLS = {
    "everything": ("echo", {"message": "through the gateway"}),
    "filesystem": ("list_allowed_directories", {}),
    "memory": ("read_graph", {}),
    "time": ("get_current_time", {"timezone": "UTC"}),
    "git": ("git_status", {"repo_path": os.environ.get("GATEWAY_REPO", ".")}),
    "fixture": ("get_report", {}),
}


async def read_whole(c, first, mode):
    """A shrunk text result read to its end through mcpguard_more: the whole text."""
    m = meta(first)
    assert m.get("artifactRef"), f"{mode}: the big file was not shrunk: {m}"
    assert m["estimatedTokens"] <= BUDGET, f"{mode}: {m}"
    if m.get("outcome") == "chunked":
        piece = first
    else:
        # Summarized (a tool with an outputSchema keeps structuredContent valid): read the
        # stored text from its ref.
        piece = await c.call_tool("mcpguard_more", {"ref": m["artifactRef"]})
    text, more = await read_on(c, piece, mode)
    return text, 2 + more


async def session(mode, target, big):
    async with Client(target, mode=mode) as c:
        want = "2026-07-28" if mode == "auto" else "2025-11-25"
        assert c.protocol_version == want, f"{mode}: negotiated {c.protocol_version}"
        names = [t.name for t in await all_tools(c)]
        assert names[-1] == "mcpguard_more", f"{mode}: the gateway's tool is listed last: {names[-5:]}"
        for server, (tool, arguments) in CALLS.items():
            assert f"{server}__{tool}" in names, f"{mode}: {server}__{tool} is not listed"
            listed = [n for n in names if n.startswith(f"{server}__")]
            result = await c.call_tool(f"{server}__{tool}", arguments)
            assert not result.is_error, f"{mode}: {server}__{tool}: {texts(result)}"
            print(f"  {mode}: {server}: {len(listed)} tools; {tool} answered")
        first = await c.call_tool("filesystem__read_text_file", {"path": big})
        joined, calls = await read_whole(c, first, mode)
        with open(big, encoding="utf-8") as f:
            original = f.read()
        assert joined == original, f"{mode}: the pieces ({len(joined)}) differ from the file ({len(original)})"
        return len(names), calls, len(original)


async def main():
    args = sys.argv[1:]
    if args[0] == "--url":
        target, big, how = args[1], args[2], "over HTTP"
    else:
        mcpguard, config, cache, big = args
        target = StdioServerParameters(
            command=mcpguard,
            args=["proxy", "--mcp-config", config, "--catalog-cache", cache],
            # The check's environment (MCPGUARD_CATALOG=full): the SDK passes only a few by default.
            env=dict(os.environ),
        )
        how = "stdio"
    for mode in ["auto", "legacy"]:
        tools, calls, size = await session(mode, target, big)
        era = "2026-07-28" if mode == "auto" else "2025-11-25"
        print(f"python sdk ({era}, {how}): {tools} tools from {len(CALLS)} servers, one call each;"
              f" a {size}-byte file read back in {calls} calls, byte for byte")


if __name__ == "__main__":
    asyncio.run(main())
