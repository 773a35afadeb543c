"""The Python SDK's client (mcp 2.x, pinned in requirements-servers.txt) through `mcpguard
proxy`, in both eras: it lists the tools (the proxy's tool is last), calls a tool whose result
is oversized (a piece within budget comes back), reads the rest through the proxy's tool to the
end, and checks that the pieces add up to what the server sent without the proxy.

    python proxy_client.py MCPGUARD SERVER [SERVER ARGS...]   # the stdio proxy
    python proxy_client.py --url PROXY_URL SERVER_URL        # proxy --listen, over HTTP

Exits non-zero with the reason on the first thing that is not so. Run by
scripts/check-proxy-clients.sh.
"""

import asyncio
import json
import sys
import tempfile

from mcp import Client
from mcp.client.stdio import StdioServerParameters

BUDGET = 4000


def texts(result):
    return [b.text for b in result.content if getattr(b, "type", None) == "text"]


def meta(result):
    return (result.meta or {}).get("mcpguard/budget", {})


async def all_tools(client):
    tools, cursor = [], None
    while True:
        page = await client.list_tools(cursor=cursor)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if not cursor:
            return tools


async def direct_text(server, tool):
    target = server[0] if server[0].startswith("http") else StdioServerParameters(command=server[0], args=server[1:])
    async with Client(target, mode="legacy") as c:
        return texts(await c.call_tool(tool, {}))[0]


async def through_proxy(mode, mcpguard, server, store):
    if mcpguard.startswith("http"):
        params = mcpguard  # proxy --listen's URL: the SDK's Streamable HTTP client
    else:
        params = StdioServerParameters(
            command=mcpguard, args=["proxy", "--artifact-dir", store, "--", *server]
        )
    async with Client(params, mode=mode) as c:
        # auto discovers 2026-07-28 (stateless) through the proxy; legacy initializes a session.
        want = "2026-07-28" if mode == "auto" else "2025-11-25"
        assert c.protocol_version == want, f"{mode}: negotiated {c.protocol_version}"
        names = [t.name for t in await all_tools(c)]
        assert names[-1] == "mcpguard_more", f"{mode}: the proxy's tool is listed last: {names}"
        first = await c.call_tool("read_log", {})
        m = meta(first)
        assert m["estimatedTokens"] <= BUDGET, f"{mode}: {m}"
        piece, calls = first, 1
        if first.structured_content is not None:
            # A tool with an outputSchema (the Python SDK gives a str result one): the result is
            # summarized so that structuredContent stays valid; the text is read from its ref.
            assert m.get("outcome") == "summarized", f"{mode}: {m}"
            piece = await c.call_tool("mcpguard_more", {"ref": m["artifactRef"]})
            assert meta(piece)["estimatedTokens"] <= BUDGET, f"{mode}: {meta(piece)}"
            calls += 1
        else:
            assert m.get("outcome") == "chunked", f"{mode}: {m}"
        pieces = [texts(piece)[0]]
        while meta(piece).get("nextCursor"):
            piece = await c.call_tool("mcpguard_more", {"cursor": meta(piece)["nextCursor"]})
            assert not piece.is_error, f"{mode}: {texts(piece)}"
            assert meta(piece)["estimatedTokens"] <= BUDGET, f"{mode}: {meta(piece)}"
            pieces.append(texts(piece)[0])
            calls += 1
        return "".join(pieces), calls


async def main():
    args = sys.argv[1:]
    over_http = args[0] == "--url"
    if over_http:
        args = args[1:]
    mcpguard, server = args[0], args[1:]
    original = await direct_text(server, "read_log")
    with tempfile.TemporaryDirectory() as store:
        for mode in ["auto", "legacy"]:
            joined, calls = await through_proxy(mode, mcpguard, server, store)
            assert joined == original, f"{mode}: the pieces differ from the original"
            era = "2026-07-28" if mode == "auto" else "2025-11-25"
            how = f"{mode}: {era}{', over HTTP' if over_http else ''}"
            print(f"python sdk ({how}): read_log {len(original)} bytes in {calls} calls, byte for byte")


if __name__ == "__main__":
    asyncio.run(main())
