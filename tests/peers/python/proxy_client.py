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
import re
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
            # A log: the preview's last line suggests a search as well as reading on.
            assert '"match"' in texts(first)[-1], f"{mode}: {texts(first)[-1]}"
            piece = await c.call_tool("mcpguard_more", {"ref": m["artifactRef"]})
            assert meta(piece)["estimatedTokens"] <= BUDGET, f"{mode}: {meta(piece)}"
            calls += 1
        else:
            assert m.get("outcome") == "chunked", f"{mode}: {m}"
        found = await search(c, m["artifactRef"], mode)
        text, more = await read_on(c, piece, mode)
        return text, calls + more, found


async def read_on(c, piece, mode):
    """A shrunk text from `piece` on, following nextCursor to its end: the whole text and the
    calls made after `piece`, each piece checked within budget."""
    pieces, calls = [texts(piece)[0]], 0
    while meta(piece).get("nextCursor"):
        piece = await c.call_tool("mcpguard_more", {"cursor": meta(piece)["nextCursor"]})
        assert not piece.is_error, f"{mode}: {texts(piece)}"
        assert meta(piece)["estimatedTokens"] <= BUDGET, f"{mode}: {meta(piece)}"
        pieces.append(texts(piece)[0])
        calls += 1
    return "".join(pieces), calls


PATTERN = "Traceback|ERROR"


def entries(log):
    """The log's entries as a chunker cuts them: a timestamped line and its continuation lines."""
    out = []
    for line in log.splitlines(keepends=True):
        if line[:4].isdigit() or not out:
            out.append(line)
        else:
            out[-1] += line
    return out


async def search(c, ref, mode):
    """mcpguard_more's `match`, followed to its end: the matching entries, each with its lines."""
    answer = await c.call_tool("mcpguard_more", {"ref": ref, "match": PATTERN})
    found, calls = [], 1
    while True:
        assert not answer.is_error, f"{mode}: {texts(answer)}"
        assert meta(answer)["estimatedTokens"] <= BUDGET, f"{mode}: {meta(answer)}"
        body = texts(answer)[1]
        for block in body.split("--- lines ")[1:]:
            found.append(block.split("\n", 1)[1])
        nxt = meta(answer).get("nextCursor")
        if not nxt:
            return found, calls, texts(answer)[0] if calls == 1 else None
        answer = await c.call_tool("mcpguard_more", {"cursor": nxt})
        calls += 1


async def main():
    args = sys.argv[1:]
    over_http = args[0] == "--url"
    if over_http:
        args = args[1:]
    mcpguard, server = args[0], args[1:]
    original = await direct_text(server, "read_log")
    with tempfile.TemporaryDirectory() as store:
        for mode in ["auto", "legacy"]:
            joined, calls, (found, searches, _) = await through_proxy(mode, mcpguard, server, store)
            assert joined == original, f"{mode}: the pieces differ from the original"
            want = [e for e in entries(original) if re.search(PATTERN, e)]
            assert found == want, f"{mode}: match found {len(found)} entries, the log has {len(want)}"
            assert searches <= 3, f"{mode}: {searches} calls to find {len(want)} entries"
            era = "2026-07-28" if mode == "auto" else "2025-11-25"
            how = f"{mode}: {era}{', over HTTP' if over_http else ''}"
            print(f"python sdk ({how}): read_log {len(original)} bytes in {calls} calls, byte for byte;"
                  f" match {PATTERN!r}: its {len(want)} entries, whole, in {searches} calls")


if __name__ == "__main__":
    asyncio.run(main())
