// Calls `ask_user` on the inbox's /mcp (MCP over Streamable HTTP) with the
// official MCP TypeScript SDK (tests/mcp_http.rs runs it).
// Usage: node ts_http.mjs < scenario.json
// The scenario: {"url": "http://127.0.0.1:PORT/mcp", "token": TOKEN or null,
//   "sdk": "v1" | "v2",   // v1: @modelcontextprotocol/sdk 1.32.2 (initialize era);
//                         // v2: @modelcontextprotocol/client 2.4.0 pinned to 2026-07-28
//   "headers": {...},     // optional: more request headers (an Origin, say)
//   "calls": [{"arguments": {...}}]}
// The token goes in `Authorization: Bearer` (requestInit headers), as a
// host's `--header` would send it. No elicitation is declared.
// Prints one JSON line: the protocol version, the server, the tools and per
// call {isError, structured, texts} or {thrown}; a failed connection prints
// {connectError, status} (the HTTP status the SDK saw) and exits 0, so the
// test can assert on it.
const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const scenario = JSON.parse(Buffer.concat(chunks).toString("utf8"));

const headers = { ...(scenario.headers ?? {}) };
if (scenario.token) headers.Authorization = `Bearer ${scenario.token}`;
const url = new URL(scenario.url);
const info = { name: "ask-user-http-test", version: "0" };

let client;
let version;
try {
  if (scenario.sdk === "v2") {
    const { Client, StreamableHTTPClientTransport } = await import("@modelcontextprotocol/client");
    client = new Client(info, { capabilities: {}, versionNegotiation: { mode: { pin: "2026-07-28" } } });
    await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
    version = client.getNegotiatedProtocolVersion();
  } else {
    const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
    const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
    client = new Client(info, { capabilities: {} });
    const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers } });
    await client.connect(transport);
    version = transport.protocolVersion;
  }
} catch (error) {
  console.log(JSON.stringify({ connectError: String(error), status: error?.code ?? null }));
  process.exit(0);
}

const tools = await client.listTools();
const results = [];
for (const call of scenario.calls ?? []) {
  try {
    // The person may take a while: no SDK timer shorter than the test's own.
    const result = await client.callTool(
      { name: call.name ?? "ask_user", arguments: call.arguments },
      undefined,
      { timeout: 600000 },
    );
    results.push({
      isError: result.isError ?? false,
      structured: result.structuredContent ?? null,
      texts: result.content.filter((block) => block.type === "text").map((block) => block.text),
    });
  } catch (error) {
    results.push({ thrown: String(error) });
  }
}
console.log(JSON.stringify({ version, server: client.getServerVersion(), tools: tools.tools, results }));
await client.close();
