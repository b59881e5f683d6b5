// Drives `ask_user mcp` with the official MCP TypeScript SDK (tests/mcp.rs runs it).
// Usage: node ts_client.mjs < scenario.json
// The scenario: {"binary": PATH, "server_args": ["mcp", ...], "elicit": true,
//   "calls": [{"arguments": {...}, "reply": <elicitation response or null>, "name"?: TOOL}]}.
// With "elicit" (the default) the client declares form elicitation and answers
// each call's form with its "reply". Lists the tools (so that the SDK validates
// structuredContent against the outputSchema, as it does once it knows the
// tool), then makes each call. Prints one JSON line: the server, the tools,
// and per call either {isError, structured, texts, forms} or {thrown} when the
// SDK rejected the result.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const scenario = JSON.parse(Buffer.concat(chunks).toString("utf8"));
const elicit = scenario.elicit ?? true;

let current = null;
const forms = [];
const client = new Client(
  { name: "ask-user-test", version: "0" },
  { capabilities: elicit ? { elicitation: { form: {} } } : {} },
);
if (elicit) {
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    forms.push(request.params);
    return current.reply ?? { action: "cancel" };
  });
}
await client.connect(
  new StdioClientTransport({
    command: scenario.binary,
    args: scenario.server_args ?? ["mcp"],
    stderr: "inherit",
  }),
);

const tools = await client.listTools();
const results = [];
for (const call of scenario.calls) {
  current = call;
  const before = forms.length;
  try {
    const result = await client.callTool({ name: call.name ?? "ask_user", arguments: call.arguments });
    results.push({
      isError: result.isError ?? false,
      structured: result.structuredContent ?? null,
      texts: result.content.filter((block) => block.type === "text").map((block) => block.text),
      forms: forms.slice(before),
    });
  } catch (error) {
    results.push({ thrown: String(error), forms: forms.slice(before) });
  }
}
console.log(JSON.stringify({ server: client.getServerVersion(), tools: tools.tools, results }));
await client.close();
