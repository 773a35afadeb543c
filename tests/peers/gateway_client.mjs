// The TypeScript SDK's client (@modelcontextprotocol/sdk, pinned in package.json) through the
// gateway, `mcpguard proxy --mcp-config FILE` in front of several real servers: it lists every
// tool (each server's under SERVER__, the gateway's own tool last), calls one tool of each
// server, and reads a file server-filesystem returns whole (shrunk by the gateway) back
// through mcpguard_more, byte for byte. Run by scripts/check-gateway-clients.sh.
//
//   node gateway_client.mjs MCPGUARD CONFIG CACHE BIGFILE REPO   # stdio
//   node gateway_client.mjs --url GATEWAY_URL BIGFILE REPO       # proxy --listen --mcp-config
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const args = process.argv.slice(2);
const overHttp = args[0] === "--url";
const BUDGET = 4000;
const [big, repo] = overHttp ? args.slice(2) : args.slice(3);
const calls = {
  everything: ["echo", { message: "through the gateway" }],
  filesystem: ["list_allowed_directories", {}],
  memory: ["read_graph", {}],
  time: ["get_current_time", { timezone: "UTC" }],
  git: ["git_status", { repo_path: repo }],
  fixture: ["get_report", {}],
};

const client = new Client({ name: "mcpguard-gateway-check", version: "1.0.0" });
await client.connect(
  overHttp
    ? new StreamableHTTPClientTransport(new URL(args[1]))
    : new StdioClientTransport({
        command: args[0],
        args: ["proxy", "--mcp-config", args[1], "--catalog-cache", args[2]],
        // The check's environment (MCPGUARD_CATALOG=full): the SDK passes only a few by default.
        env: process.env,
        stderr: "ignore",
      }),
);
const texts = (result) => result.content.filter((b) => b.type === "text").map((b) => b.text);
const meta = (result) => (result._meta ?? {})["mcpguard/budget"] ?? {};

const names = [];
let cursor;
do {
  const page = await client.listTools(cursor ? { cursor } : {});
  names.push(...page.tools.map((t) => t.name));
  cursor = page.nextCursor;
} while (cursor);
assert.equal(names.at(-1), "mcpguard_more", "the gateway's tool is listed last");
for (const [server, [tool, toolArgs]] of Object.entries(calls)) {
  const name = `${server}__${tool}`;
  assert.ok(names.includes(name), `${name} is not listed`);
  const result = await client.callTool({ name, arguments: toolArgs });
  assert.ok(!result.isError, `${name}: ${texts(result).join(" ")}`);
}

const first = await client.callTool({ name: "filesystem__read_text_file", arguments: { path: big } });
const m = meta(first);
assert.ok(m.artifactRef, `the big file was not shrunk: ${JSON.stringify(m)}`);
let piece = m.outcome === "chunked" ? first : await client.callTool({ name: "mcpguard_more", arguments: { ref: m.artifactRef } });
const pieces = [texts(piece)[0]];
let reads = 2;
while (meta(piece).nextCursor) {
  piece = await client.callTool({ name: "mcpguard_more", arguments: { cursor: meta(piece).nextCursor } });
  assert.ok(!piece.isError, texts(piece).join(" "));
  assert.ok(meta(piece).estimatedTokens <= BUDGET, JSON.stringify(meta(piece)));
  pieces.push(texts(piece)[0]);
  reads += 1;
}
const original = readFileSync(big, "utf8");
assert.equal(pieces.join(""), original, "the pieces add up to the file");
await client.close();
console.log(`typescript sdk${overHttp ? " over HTTP" : ""}: ${names.length} tools from ${Object.keys(calls).length} servers, one call each;` +
  ` a ${original.length}-byte file read back in ${reads} calls, byte for byte`);
