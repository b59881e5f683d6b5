// A host like Claude Desktop, played by the official MCP TypeScript SDK
// (tests/mcp_form_wait.rs drives it): a stdio client that declares form
// elicitation but leaves every form unanswered (until told otherwise),
// sends no progress token, and gives up on a call after `timeout_ms` (the
// SDK's own request timeout, which sends notifications/cancelled for it).
//
// Reads JSON lines on stdin. The first is the setup:
//   {"binary": PATH, "server_args": [...], "server_env": {...}, "timeout_ms": 60000}
// then one command per line:
//   {"call": {...arguments}}  → starts the call and reads on; when it ends, one line:
//       {"call": N, "elapsedMs", isError, structured, texts, urls} or {"call": N, "elapsedMs", thrown, urls}
//   {"answer_form": {"action": "accept"|"decline"|"cancel", "value": V}}
//       → answers the oldest open form (its first field set to V on accept);
//         one line: {"answeredForm": true} (or false when no form is open)
//   {"forms": true}           → one line: {"forms": received, "withdrawn": withdrawn by the server}
//   {"close": true}           → closes the client and exits.
// `urls` are the answer pages' addresses the server printed on its stderr
// so far (a person reads them there, or in the host's MCP log).
import { createInterface } from "node:readline";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  CallToolResultSchema,
  CancelledNotificationSchema,
  ElicitRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";

const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
const next = async () => {
  const { value, done } = await lines.next();
  return done ? null : JSON.parse(value);
};
const say = (line) => console.log(JSON.stringify(line));

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

// Declares forms, as Claude Desktop does; shows none.
const client = new Client(
  { name: "forms-never-shown", version: "0" },
  { capabilities: { elicitation: { form: {} } } },
);
let received = 0;
let withdrawn = 0;
const open = [];
client.setRequestHandler(ElicitRequestSchema, (request, extra) => {
  received += 1;
  return new Promise((resolve) => {
    open.push({ id: extra.requestId, schema: request.params.requestedSchema, resolve });
  });
});
// The server's notifications/cancelled for a form: the form closes, and no
// reply is sent. (The SDK's own handler skips a request id of 0, rmcp's first.)
client.setNotificationHandler(CancelledNotificationSchema, (notification) => {
  const at = open.findIndex((form) => form.id === notification.params.requestId);
  if (at >= 0) {
    withdrawn += 1;
    open.splice(at, 1);
  }
});
await client.connect(transport);
// Listed first, so that the SDK validates structuredContent against the outputSchema.
await client.listTools();

let calls = 0;
const running = [];
for (let command = await next(); command && !command.close; command = await next()) {
  if (command.call) {
    const call = ++calls;
    const started = Date.now();
    running.push(
      client
        // No onprogress: the SDK sends no progress token, and its timer is not reset.
        .callTool({ name: "ask_user", arguments: command.call }, CallToolResultSchema, {
          timeout: setup.timeout_ms,
        })
        .then(
          (result) =>
            say({
              call,
              elapsedMs: Date.now() - started,
              isError: result.isError ?? false,
              structured: result.structuredContent ?? null,
              texts: result.content
                .filter((block) => block.type === "text")
                .map((block) => block.text),
              urls,
            }),
          (error) => say({ call, elapsedMs: Date.now() - started, thrown: String(error), urls }),
        ),
    );
  } else if (command.answer_form) {
    const form = open.shift();
    if (form) {
      const { action, value } = command.answer_form;
      const key = Object.keys(form.schema.properties)[0];
      form.resolve(action === "accept" ? { action, content: { [key]: value } } : { action });
    }
    say({ answeredForm: Boolean(form) });
  } else if (command.forms) {
    say({ forms: received, withdrawn });
  }
}
await Promise.allSettled(running);
await client.close();
// stdin (the readline above) would keep node alive.
process.exit(0);
