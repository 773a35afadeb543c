"""Two `mcpguard proxy --listen` instances over one Redis, in front of real servers: the
TypeScript SDK's server-everything (streamableHttp, 2025-11-25 sessions) and the Python SDK's
dual-era server (tests/peers/python/http_server.py, here in 2026-07-28 stateless requests).

Each large result is shrunk by one instance and read to its end alternating instances, and the
pieces must add up to what the server sends without the proxy. Then Redis is killed: a result
over budget is still never passed whole (a preview without a reference), a cursor into the
store gets an error, /health says not ready. Redis is started again on its port: references
come back without a restart of either proxy, and a result is read to its end again.

    python redis_instances.py EVERYTHING_URL A B PYTHON_URL A B REDIS_PID REDIS_PORT

where A and B after each server's URL are the two instances in front of it.

Standard library only. Run by scripts/check-proxy-clients.sh, which starts Redis, the servers
and the proxies, and stops them; the Redis this script starts again it stops itself.
"""

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

BUDGET = 4000
MODERN = "2026-07-28"


def post(url, body, headers=None):
    """The status, the response headers and the JSON-RPC messages (a JSON body, or every
    event of a stream)."""
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        method="POST",
        headers={
            "content-type": "application/json",
            "accept": "application/json, text/event-stream",
            **(headers or {}),
        },
    )
    try:
        response = urllib.request.urlopen(request, timeout=60)
    except urllib.error.HTTPError as e:
        response = e
    text = response.read().decode()
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        messages = []
        for event in text.split("\n\n"):
            data = [l[5:].lstrip(" ") for l in event.splitlines() if l.startswith("data:")]
            # An event with empty data (a priming event for resumption) carries no message.
            if "".join(data).strip():
                messages.append(json.loads("\n".join(data)))
    else:
        messages = [json.loads(text)] if text.strip() else []
    return response.status, response.headers, messages


def answer(messages):
    for m in reversed(messages):
        if "id" in m and "method" not in m:
            return m
    sys.exit(f"no response among {messages}")


def health(proxy):
    url = proxy.rsplit("/mcp", 1)[0] + "/health"
    try:
        return urllib.request.urlopen(url, timeout=10).status
    except urllib.error.HTTPError as e:
        return e.status


class Legacy:
    """A 2025-11-25 session with a server, through whichever URL each call names: the session
    is the server's, so either instance carries it."""

    def __init__(self, url):
        status, headers, messages = post(url, {
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                       "clientInfo": {"name": "redis_instances", "version": "1"}}})
        assert status == 200, (status, messages)
        self.headers = {"mcp-session-id": headers["mcp-session-id"],
                        "mcp-protocol-version": "2025-11-25"}
        status, _, _ = post(url, {"jsonrpc": "2.0", "method": "notifications/initialized"},
                            self.headers)
        assert status == 202, status
        self.next_id = 1

    def call(self, url, tool, arguments):
        self.next_id += 1
        body = {"jsonrpc": "2.0", "id": self.next_id, "method": "tools/call",
                "params": {"name": tool, "arguments": arguments}}
        status, _, messages = post(url, body, self.headers)
        assert status == 200, (status, messages)
        return answer(messages)["result"]


class Stateless:
    """2026-07-28 requests: each whole, no session."""

    next_id = 1

    def call(self, url, tool, arguments):
        Stateless.next_id += 1
        body = {"jsonrpc": "2.0", "id": self.next_id, "method": "tools/call",
                "params": {"name": tool, "arguments": arguments, "_meta": {
                    "io.modelcontextprotocol/protocolVersion": MODERN,
                    "io.modelcontextprotocol/clientInfo": {"name": "redis_instances", "version": "1"},
                    "io.modelcontextprotocol/clientCapabilities": {}}}}
        headers = {"mcp-protocol-version": MODERN, "mcp-method": "tools/call", "mcp-name": tool}
        status, _, messages = post(url, body, headers)
        assert status == 200, (status, messages)
        return answer(messages)["result"]


def budget(result):
    return (result.get("_meta") or {}).get("mcpguard/budget", {})


def text(result):
    """The first text block: the piece itself (the proxy's note on how to read on follows it)."""
    return next(b["text"] for b in result["content"] if b.get("type") == "text")


def read_on(client, instances, first, until=None):
    """The pieces of a shrunk result, read through `instances` in turn from `first` (a
    summary with a reference, or the first chunk with a cursor); stops after `until` reads
    when given. Returns the pieces and the cursor left, if any."""
    meta = budget(first)
    assert meta.get("estimatedTokens", 0) <= BUDGET, meta
    piece, reads = first, 0
    if meta.get("outcome") == "summarized":
        # structuredContent kept valid: the text is read from the reference.
        piece = client.call(instances[0], "mcpguard_more", {"ref": meta["artifactRef"]})
        reads = 1
    pieces = [text(piece)]
    cursor = budget(piece).get("nextCursor")
    while cursor and (until is None or reads < until):
        through = instances[reads % len(instances)]
        piece = client.call(through, "mcpguard_more", {"cursor": cursor})
        assert not piece.get("isError"), text(piece)
        assert budget(piece)["estimatedTokens"] <= BUDGET, budget(piece)
        pieces.append(text(piece))
        cursor = budget(piece).get("nextCursor")
        reads += 1
    return pieces, cursor, reads


def read_whole(client, instances, first, original, what):
    """Reads a shrunk result to its end alternating `instances`; it must equal `original`.
    Returns the calls it took."""
    pieces, cursor, reads = read_on(client, instances, first)
    assert cursor is None
    assert "".join(pieces) == original, f"{what}: the pieces differ"
    return reads + 1


def wait_for_port(port):
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)
    sys.exit(f"redis-server did not come back on port {port}")


def main():
    everything, a, b, python, pa, pb, redis_pid, redis_port = sys.argv[1:]
    redis_port = int(redis_port)

    # server-everything's echo of 1,500 log lines: chunked by A, read alternating B, A, ...
    message = "".join(f"line {i}: worker-{i % 7} finished job {i} in {i % 97} ms\n" for i in range(1500))
    direct = Legacy(everything)
    original_echo = text(direct.call(everything, "echo", {"message": message}))
    session = Legacy(a)
    first = session.call(a, "echo", {"message": message})
    assert budget(first)["outcome"] == "chunked", budget(first)
    calls = read_whole(session, [b, a], first, original_echo, "server-everything")
    print(f"two instances, one Redis: server-everything's echo ({len(original_echo)} bytes) "
          f"read in {calls} calls alternating instances, byte for byte")

    # The Python SDK server's read_log in stateless requests: summarized by B (its outputSchema),
    # its text read from the reference alternating A, B, ...
    stateless = Stateless()
    original_log = stateless.call(python, "read_log", {})["structuredContent"]["result"]
    first = stateless.call(pb, "read_log", {})
    assert budget(first)["outcome"] == "summarized", budget(first)
    calls = read_whole(stateless, [pa, pb], first, original_log, "python server")
    print(f"two instances, one Redis: the Python SDK server's read_log ({len(original_log)} bytes, "
          f"2026-07-28) read in {calls} calls alternating instances, byte for byte")

    # Redis killed mid-read.
    first = session.call(a, "echo", {"message": message})
    _, cursor, _ = read_on(session, [b, a], first, until=2)
    assert cursor
    os.kill(int(redis_pid), signal.SIGKILL)
    time.sleep(0.2)
    broken = session.call(b, "mcpguard_more", {"cursor": cursor})
    assert broken.get("isError"), broken
    degraded = stateless.call(pa, "read_log", {})
    meta = budget(degraded)
    assert "artifactRef" not in meta, meta
    assert meta["estimatedTokens"] <= BUDGET, meta
    assert len(json.dumps(degraded)) < 40_000, "an oversize result passed with Redis down"
    assert all(health(p) == 503 for p in (a, b, pa, pb)), "ready with Redis down"
    print(f"Redis down: a cursor into the store gets an error ({text(broken)[:80]}...); "
          f"a new oversized result is a preview without a reference ({meta['estimatedTokens']} "
          "tokens); /health 503 on all four instances")

    # Redis back on its port: references again, no proxy restarted.
    redis = subprocess.Popen(["redis-server", "--port", str(redis_port), "--bind", "127.0.0.1",
                              "--save", "", "--appendonly", "no"], stdout=subprocess.DEVNULL)
    try:
        wait_for_port(redis_port)
        first = session.call(b, "echo", {"message": message})
        assert "artifactRef" in budget(first), budget(first)
        calls = read_whole(session, [a, b], first, original_echo, "after Redis came back")
        assert all(health(p) == 200 for p in (a, b, pa, pb)), "not ready with Redis back"
        print(f"Redis back: references again, echo read in {calls} calls alternating "
              "instances; /health 200 on all four")
    finally:
        redis.kill()
        redis.wait()


if __name__ == "__main__":
    main()
