// The TypeScript SDK's client (@modelcontextprotocol/sdk, pinned in package.json) through
// `mcpguard proxy`: it lists the tools (the proxy's tool is last), calls a tool whose result is
// oversized, reads the rest through the proxy's tool, and checks that the pieces add up to what
// the server sent without the proxy. Run by scripts/check-proxy-clients.sh.
//
//   node proxy_client.mjs MCPGUARD STORE SERVER [SERVER ARGS...]   # the stdio proxy
//   node proxy_client.mjs --url PROXY_URL SERVER_URL               # proxy --listen, over HTTP
//   node proxy_client.mjs --url PROXY_URL SERVER [SERVER ARGS...]  # proxy --listen -- SERVER
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const args = process.argv.slice(2);
const overHttp = args[0] === "--url";
const BUDGET = 4000;

async function connect(command, commandArgs) {
  const client = new Client({ name: "mcpguard-proxy-check", version: "1.0.0" });
  const transport = command.startsWith("http")
    ? new StreamableHTTPClientTransport(new URL(command))
    : new StdioClientTransport({ command, args: commandArgs, stderr: "ignore" });
  await client.connect(transport);
  return client;
}

// Over HTTP: the proxy's URL and the server's; over stdio: the proxy's command and the server's.
const [mcpguard, store, ...server] = overHttp ? [args[1], null, ...args.slice(2)] : args;
const proxyArgs = overHttp ? [] : ["proxy", "--artifact-dir", store, "--", ...server];

const texts = (result) => result.content.filter((b) => b.type === "text").map((b) => b.text);
const meta = (result) => (result._meta ?? {})["mcpguard/budget"] ?? {};

const direct = await connect(server[0], server.slice(1));
const original = JSON.parse(texts(await direct.callTool({ name: "list_bookings", arguments: { status: "confirmed" } }))[0]);
await direct.close();

const proxied = await connect(mcpguard, proxyArgs);
const tools = [];
let cursor;
do {
  const page = await proxied.listTools(cursor ? { cursor } : {});
  tools.push(...page.tools.map((t) => t.name));
  cursor = page.nextCursor;
} while (cursor);
assert.equal(tools.at(-1), "mcpguard_more", `the proxy's tool is listed last: ${tools}`);

let page = await proxied.callTool({ name: "list_bookings", arguments: { status: "confirmed" } });
assert.equal(meta(page).outcome, "paginated");
const seen = [];
let calls = 1;
for (;;) {
  assert.ok(meta(page).estimatedTokens <= BUDGET, JSON.stringify(meta(page)));
  seen.push(...JSON.parse(texts(page)[0]).bookings);
  const next = meta(page).nextCursor;
  if (!next) break;
  page = await proxied.callTool({ name: "mcpguard_more", arguments: { cursor: next } });
  assert.ok(!page.isError, texts(page).join(" "));
  calls += 1;
}
assert.deepEqual(seen, original.bookings, "the pages add up to the original list");

// Finding rather than paging: the cancelled bookings among 500 and their total, asked of the
// stored result with mcpguard_more's `where` and `aggregate` (`count` and `mixed` are the
// fixture's arguments left out of its schema).
const mixedArgs = { count: 500, mixed: true };
const directAgain = await connect(server[0], server.slice(1));
const all = JSON.parse(texts(await directAgain.callTool({ name: "list_bookings", arguments: mixedArgs }))[0]).bookings;
await directAgain.close();
const cancelled = all.filter((b) => b.status === "cancelled");
const total = cancelled.reduce((sum, b) => sum + b.totalPrice.amount, 0);
const listed = await proxied.callTool({ name: "list_bookings", arguments: mixedArgs });
const ref = meta(listed).artifactRef;
assert.ok(ref, JSON.stringify(meta(listed)));
const figures = await proxied.callTool({
  name: "mcpguard_more",
  arguments: { ref, where: "status=cancelled", aggregate: "count, sum(totalPrice.amount)" },
});
assert.ok(!figures.isError, texts(figures).join(" "));
const f = JSON.parse(texts(figures)[0]);
assert.equal(f.count, cancelled.length);
assert.equal(f["sum(totalPrice.amount)"], total);
let found = await proxied.callTool({ name: "mcpguard_more", arguments: { ref, where: "status=cancelled" } });
const ids = [];
let finds = 1;
for (;;) {
  assert.ok(!found.isError, texts(found).join(" "));
  assert.ok(meta(found).estimatedTokens <= BUDGET, JSON.stringify(meta(found)));
  ids.push(...JSON.parse(texts(found)[1]).items.map((b) => b.id));
  const next = meta(found).nextCursor;
  if (!next) break;
  found = await proxied.callTool({ name: "mcpguard_more", arguments: { cursor: next } });
  finds += 1;
}
assert.deepEqual(ids, cancelled.map((b) => b.id), "every cancelled booking, once, in order");
assert.ok(finds <= 3, `${finds} calls`);
await proxied.close();
console.log(`typescript sdk${overHttp ? " over HTTP" : ""}: list_bookings ${seen.length} bookings in ${calls} calls, all of them, in order;` +
  ` ${cancelled.length} cancelled of ${all.length} (total ${total}) in 1 call, their records in ${finds}`);
