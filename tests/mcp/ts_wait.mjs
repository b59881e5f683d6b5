// A host with a short timer, played by the official MCP TypeScript SDK
// (tests/mcp_wait.rs drives it): a stdio client that declares no
// elicitation, sends no progress token, and gives up on a request after
// `timeout_ms` (the SDK's own request timeout).
//
// Reads JSON lines on stdin. The first is the setup:
//   {"binary": PATH, "server_args": [...], "server_env": {...}, "timeout_ms": 5000}
// then one command per line:
//   {"call": {...arguments}}  → one line: {isError, structured, texts, urls} or {thrown}
//   {"close": true}           → closes the client and exits.
// `urls` are the answer pages' addresses the server printed on its stderr
// so far (a person reads them there, or in the host's MCP log).
import { createInterface } from "node:readline";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";

const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
const next = async () => {
  const { value, done } = await lines.next();
  return done ? null : JSON.parse(value);
};

const setup = await next();
const urls = [];
let stderr = "";
const transport = new StdioClientTransport({
  command: setup.binary,
  args: setup.server_args,
  env: setup.server_env,
  stderr: "pipe",
});
transport.stderr.on("data", (chunk) => {
  stderr += chunk.toString("utf8");
  process.stderr.write(chunk);
  for (const url of stderr.match(/http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]+/g) ?? []) {
    if (!urls.includes(url)) urls.push(url);
  }
});
// No capabilities: no forms (no elicitation), as Claude Desktop.
const client = new Client({ name: "short-timer-host", version: "0" }, { capabilities: {} });
await client.connect(transport);
// Listed first, so that the SDK validates structuredContent against the outputSchema.
await client.listTools();

for (let command = await next(); command && !command.close; command = await next()) {
  let line;
  try {
    // No onprogress: the SDK sends no progress token, and its timer is not reset.
    const result = await client.callTool(
      { name: "ask_user", arguments: command.call },
      CallToolResultSchema,
      { timeout: setup.timeout_ms },
    );
    line = {
      isError: result.isError ?? false,
      structured: result.structuredContent ?? null,
      texts: result.content.filter((block) => block.type === "text").map((block) => block.text),
      urls,
    };
  } catch (error) {
    line = { thrown: String(error), urls };
  }
  console.log(JSON.stringify(line));
}
await client.close();
