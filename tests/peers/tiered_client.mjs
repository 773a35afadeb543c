// The TypeScript SDK's client through the gateway under its default catalog (auto, which tiers
// a catalog this size for any client but Claude Code): the hot tools and mcpguard's four are
// listed; it finds a tool of a server it has never listed (memory), describes it, hears
// tools/list_changed and sees it listed, and calls it both ways, directly and through
// mcpguard_call_tool, with the same answer. Run by scripts/check-gateway-clients.sh.
//
//   node tiered_client.mjs MCPGUARD CONFIG CACHE
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

const [bin, config, cache] = process.argv.slice(2);
const client = new Client({ name: "mcpguard-tiered-check", version: "1.0.0" });
let changed = 0;
client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
  changed += 1;
});
await client.connect(
  new StdioClientTransport({
    command: bin,
    args: ["proxy", "--mcp-config", config, "--catalog-cache", cache],
    // The check's environment (its XDG_CONFIG_HOME keeps the pins with the run): the SDK
    // passes only a few variables by default.
    env: process.env,
    stderr: "ignore",
  }),
);
const text = (result) => result.content.filter((b) => b.type === "text").map((b) => b.text).join("\n");
const listed = async () => (await client.listTools()).tools.map((t) => t.name);

const before = await listed();
for (const own of ["mcpguard_more", "mcpguard_find_tools", "mcpguard_describe_tools", "mcpguard_call_tool"]) {
  assert.ok(before.includes(own), `${own} is not listed: ${before}`);
}
assert.ok(before.length <= 15 + 4, `tiered: at most 15 hot tools, got ${before.length}`);
const wanted = "memory__create_relations";
assert.ok(!before.some((n) => n.startsWith("memory__")), `memory's tools are not hot yet: ${before}`);

const overview = text(await client.callTool({ name: "mcpguard_find_tools", arguments: {} }));
assert.match(overview, /^\d+ tools of 6 servers:/, overview);
assert.match(overview, /\nmemory: 9 tools \(/, overview);

const found = text(await client.callTool({
  name: "mcpguard_find_tools",
  arguments: { query: "connect two entities in my knowledge graph with a relation", limit: 3 },
}));
assert.ok(found.split("\n").slice(0, 3).some((l) => l.startsWith(`${wanted}: `)), found);

const described = await client.callTool({ name: "mcpguard_describe_tools", arguments: { names: [wanted] } });
const definitions = JSON.parse(described.content[0].text);
assert.equal(definitions[0].name, wanted);
for (let i = 0; i < 100 && changed === 0; i++) await new Promise((r) => setTimeout(r, 20));
assert.ok(changed > 0, "no notifications/tools/list_changed after describing");
assert.ok((await listed()).includes(wanted), "described, so listed");

const args = { relations: [{ from: "mcpguard", to: "MCP", relationType: "guards" }] };
const direct = await client.callTool({ name: wanted, arguments: args });
assert.ok(!direct.isError, text(direct));
const through = await client.callTool({ name: "mcpguard_call_tool", arguments: { name: wanted, arguments: args } });
assert.ok(!through.isError, text(through));
// Relations are a set: the second call adds nothing and answers the same way.
assert.deepEqual(through.content.length, direct.content.length);
const never = await client.callTool({
  name: "mcpguard_call_tool",
  arguments: { name: "time__get_current_time", arguments: { timezone: "UTC" } },
});
assert.ok(!never.isError && text(never).includes("UTC"), text(never));
await client.close();
console.log(`typescript sdk, tiered: ${before.length} tools listed at first; found, described and called ${wanted} both ways; called time__get_current_time unlisted`);
