"""A dual-era Python SDK server (mcp 2.x MCPServer) over Streamable HTTP or stdio, for the
HTTP proxy's client checks: it answers 2025-11-25 sessions and 2026-07-28 stateless requests as
the SDK does, and its `read_log` result (about 300 KB of log lines) is over any budget.

    python http_server.py PORT       # Streamable HTTP on 127.0.0.1:PORT
    python http_server.py --stdio    # stdio, for proxy --listen in front of a command

Run by scripts/check-proxy-clients.sh, which stops it.
"""

import sys

from mcp.server.mcpserver import MCPServer

server = MCPServer("mcpguard-python-http")


@server.tool()
def read_log() -> str:
    """The worker's log: 4,000 lines, with a stack trace every 100."""
    lines = []
    for i in range(4000):
        lines.append(f"2026-11-23T10:{i // 60 % 60:02d}:{i % 60:02d}Z INFO worker-{i % 7} job {i} done in {i % 97} ms")
        if i % 100 == 99:
            lines.append(f"Traceback (most recent call last):\n  File \"worker.py\", line {i}, in run\nValueError: job {i}")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    if sys.argv[1] == "--stdio":
        server.run("stdio")
    else:
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[1]))
