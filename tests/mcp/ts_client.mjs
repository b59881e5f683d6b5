// Drives `ask_user mcp` with the official MCP TypeScript SDK (tests/mcp.rs runs it).
// Usage: node ts_client.mjs BINARY
// Lists the tools, then calls ask_user twice: the elicitation handler accepts
// the first form (option 2) and declines the second. Prints one JSON line.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const binary = process.argv[2];
const replies = [
  { action: "accept", content: { q1: "2" } },
  { action: "decline" },
];
const forms = [];

const client = new Client({ name: "ask-user-test", version: "0" }, { capabilities: { elicitation: { form: {} } } });
client.setRequestHandler(ElicitRequestSchema, async (request) => {
  forms.push(request.params);
  return replies[forms.length - 1];
});
await client.connect(new StdioClientTransport({ command: binary, args: ["mcp"], stderr: "inherit" }));

const tools = await client.listTools();
const results = [];
for (let i = 0; i < replies.length; i++) {
  const result = await client.callTool({
    name: "ask_user",
    arguments: { question: "Which database?", options: ["PostgreSQL", "SQLite"] },
  });
  results.push({ isError: result.isError ?? false, structured: result.structuredContent });
}
console.log(JSON.stringify({ server: client.getServerVersion(), tools: tools.tools, forms, results }));
await client.close();
