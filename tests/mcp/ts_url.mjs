// A client that declares ONLY url-mode elicitation (`elicitation: {url: {}}`),
// built on the official MCP TypeScript SDK, drives `ask_user mcp` (tests/mcp_url.rs).
// Usage: node ts_url.mjs < scenario.json
// The scenario: {"binary": PATH, "server_args": ["mcp", ...],
//   "sdk": "v1" | "v2",       // v1: @modelcontextprotocol/sdk (initialize era);
//                             // v2: @modelcontextprotocol/client, pinned to "pin" (default 2026-07-28)
//   "pin": "2026-07-28",
//   "watch": URL_FILE,        // the first url elicitation's URL is written there (whole, by rename)
//   "calls": [{"arguments": {...}, "reply": {"action": "accept"|"decline"|"cancel"},
//              "go": true,          // after this call, create URL_FILE.go (the browser's cue)
//              "resume": true}]}    // arguments: {"resume": the previous result's inboxId},
//                                   // again while the result is pending (at most 60 times)
// Each url elicitation is answered with the call's reply at once (the
// person's consent to open the page; the page itself holds the answer).
// Prints one JSON line: the protocol version and per call {isError,
// structured, texts, elicitations, completions} or {thrown}.
import { renameSync, writeFileSync, existsSync } from "node:fs";

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const scenario = JSON.parse(Buffer.concat(chunks).toString("utf8"));

const elicitations = []; // the params of every elicitation/create, in order
const completions = []; // the params of every notifications/elicitation/complete
let current = null;

function publish(url) {
  if (!scenario.watch || existsSync(scenario.watch)) return;
  writeFileSync(`${scenario.watch}.part`, url);
  renameSync(`${scenario.watch}.part`, scenario.watch);
}

async function onElicit(request) {
  const params = request.params;
  elicitations.push(params);
  if (params.mode === "url") publish(params.url);
  return current?.reply ?? { action: "cancel" };
}

const capabilities = { elicitation: { url: {} } };
const transportOptions = {
  command: scenario.binary,
  args: scenario.server_args ?? ["mcp"],
  stderr: "inherit",
};
let client;
let version;
if (scenario.sdk === "v2") {
  const { Client } = await import("@modelcontextprotocol/client");
  const { StdioClientTransport } = await import("@modelcontextprotocol/client/stdio");
  client = new Client(
    { name: "ask-user-url-test", version: "0" },
    { capabilities, versionNegotiation: { mode: { pin: scenario.pin ?? "2026-07-28" } } },
  );
  client.setRequestHandler("elicitation/create", onElicit);
  client.setNotificationHandler("notifications/elicitation/complete", (n) => completions.push(n.params));
  await client.connect(new StdioClientTransport(transportOptions));
  version = client.getNegotiatedProtocolVersion();
} else {
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
  const { ElicitRequestSchema, ElicitationCompleteNotificationSchema } = await import(
    "@modelcontextprotocol/sdk/types.js"
  );
  client = new Client({ name: "ask-user-url-test", version: "0" }, { capabilities });
  client.setRequestHandler(ElicitRequestSchema, onElicit);
  client.setNotificationHandler(ElicitationCompleteNotificationSchema, (n) => completions.push(n.params));
  const transport = new StdioClientTransport(transportOptions);
  // The SDK hands the negotiated version to transports that take it.
  transport.setProtocolVersion = (negotiated) => {
    version = negotiated;
  };
  await client.connect(transport);
}

await client.listTools();
const results = [];
for (const call of scenario.calls) {
  current = call;
  const before = { e: elicitations.length, c: completions.length };
  const args = call.resume ? { resume: results.at(-1)?.structured?.inboxId } : call.arguments;
  try {
    const once = () =>
      client.callTool({ name: call.name ?? "ask_user", arguments: args }, undefined, { timeout: 120000 });
    let result = await once();
    for (let round = 1; call.resume && result.structuredContent?.pending && round < 60; round++) {
      result = await once();
    }
    // The complete notification precedes the result on the wire; let its handler run.
    await new Promise((resolve) => setTimeout(resolve, 50));
    results.push({
      isError: result.isError ?? false,
      structured: result.structuredContent ?? null,
      texts: (result.content ?? []).filter((block) => block.type === "text").map((block) => block.text),
      elicitations: elicitations.slice(before.e),
      completions: completions.slice(before.c),
    });
  } catch (error) {
    results.push({ thrown: String(error), elicitations: elicitations.slice(before.e) });
  }
  if (call.go) writeFileSync(`${scenario.watch}.go`, "");
}
console.log(JSON.stringify({ protocolVersion: version, results }));
await client.close();
