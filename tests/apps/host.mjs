// A minimal MCP Apps host, built on the official SDKs: the MCP TypeScript
// SDK client (@modelcontextprotocol/client) talks to `ask_user mcp` over
// stdio, and ext-apps' own host side (AppBridge, @modelcontextprotocol/ext-apps)
// runs the app protocol with the View, which headless Chromium renders in a
// sandboxed iframe under the spec's default CSP. tests/mcp_app.rs drives it.
//
// Usage: node host.mjs < scenario.json
// The scenario: {"binary": PATH, "server_args": [...], "server_env": {...},
//   "extension": true|false,   // declare io.modelcontextprotocol/ui
//   "pin": "legacy" | "2026-07-28", // optional: the initialize era, or a pinned revision
//   "arguments": {...},        // ask_user's input
//   "person": {"choose": "LABEL", "submit_empty": true?} | {"cancel": true},
//   "chromium": PATH, "playwright": PATH (playwright-core's index.mjs)}
// Prints one JSON report on stdout (see `report` below).
import { pathToFileURL } from "node:url";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import {
  AppBridge,
  RESOURCE_MIME_TYPE,
  getToolUiResourceUri,
  isToolVisibilityAppOnly,
} from "@modelcontextprotocol/ext-apps/app-bridge";
import { EXTENSION_ID } from "@modelcontextprotocol/ext-apps/server";

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const scenario = JSON.parse(Buffer.concat(chunks).toString("utf8"));

// Everything the Rust test asserts on.
const report = { events: [] };
const event = (what) => report.events.push(what);
const limit = setTimeout(() => {
  process.stdout.write(JSON.stringify({ ...report, thrown: "the host's time limit (120 s) passed" }) + "\n");
  process.exit(3);
}, 120_000);

// The spec's default CSP for a View that declares none (apps.mdx, "Host Behavior").
const DEFAULT_CSP =
  "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; " +
  "img-src 'self' data:; media-src 'self' data:; connect-src 'none'; object-src 'none'; " +
  "frame-src 'none'; base-uri 'self'";

const capabilities = scenario.extension
  ? { extensions: { [EXTENSION_ID]: { mimeTypes: [RESOURCE_MIME_TYPE] } } }
  : {};
const options = { capabilities };
// "legacy": the initialize era (2025-11-25); else a pinned modern revision.
if (scenario.pin === "legacy") options.versionNegotiation = { mode: "legacy" };
else if (scenario.pin) options.versionNegotiation = { mode: { pin: scenario.pin } };
const client = new Client({ name: "ask-user-apps-host", version: "0" }, options);

const resultOf = (result) => ({
  isError: result.isError ?? false,
  structured: result.structuredContent ?? null,
  texts: (result.content ?? []).filter((c) => c.type === "text").map((c) => c.text),
  meta: result._meta ?? null,
});

async function attempt(what, run) {
  try {
    return { ok: await run() };
  } catch (e) {
    return { thrown: String(e?.message ?? e), code: e?.code ?? null };
  }
}

let browser = null;
let profile = null;
try {
  await client.connect(
    new StdioClientTransport({
      command: scenario.binary,
      args: scenario.server_args,
      env: { ...process.env, ...(scenario.server_env ?? {}) },
      stderr: "inherit",
    }),
  );
  report.protocol = client.getNegotiatedProtocolVersion?.() ?? null;
  report.serverCapabilities = client.getServerCapabilities() ?? null;

  // What the server lists; the model gets only tools it may see.
  const tools = (await client.listTools()).tools;
  report.tools = tools.map((t) => ({ name: t.name, meta: t._meta ?? null }));
  report.modelTools = tools.filter((t) => !isToolVisibilityAppOnly(t)).map((t) => t.name);
  report.resources = (await attempt("list", () => client.listResources())).ok?.resources ?? null;

  const tool = tools.find((t) => t.name === "ask_user");
  const uri = getToolUiResourceUri(tool);
  report.resourceUri = uri ?? null;

  if (!scenario.extension) {
    report.read = await attempt("read", () => client.readResource({ uri: "ui://ask_user/form.html" }));
    report.submit = await attempt("submit", () =>
      client.callTool({ name: "ask_user_submit", arguments: { id: "0", cancel: true } }),
    );
    report.call = resultOf(await client.callTool({ name: "ask_user", arguments: scenario.arguments }));
  } else {
    // The host may fetch the template before the call (the spec's prefetch).
    const read = await client.readResource({ uri });
    const content = read.contents[0];
    report.resource = { uri: content.uri, mimeType: content.mimeType, meta: content._meta ?? null, bytes: content.text.length };

    // The model's call: it must come back at once, before any View exists.
    const started = Date.now();
    const call = await client.callTool({ name: "ask_user", arguments: scenario.arguments });
    event("tool call returned");
    report.call = resultOf(call);
    report.callMs = Date.now() - started;
    const id = call.structuredContent?.inboxId;

    // The View, in a sandboxed iframe of a blank host page.
    const { chromium } = await import(pathToFileURL(scenario.playwright).href);
    profile = mkdtempSync(join(tmpdir(), "ask-user-apps-chromium-"));
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: scenario.chromium,
      headless: true,
      viewport: { width: 800, height: 900 },
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--no-first-run", "--disable-sync"],
    });
    report.chromium = browser.browser()?.version() ?? null;
    const page = browser.pages()[0] ?? (await browser.newPage());
    report.console = [];
    page.on("console", (msg) => {
      if (msg.type() === "error" || /Content.Security.Policy/i.test(msg.text())) report.console.push(msg.text());
    });
    page.on("pageerror", (err) => report.console.push(String(err)));

    // The bridge's transport: postMessage between the host page and the
    // View's frame, carried to and from this process.
    const transport = {
      async start() {},
      async send(message) {
        await page.evaluate((m) => window.__toView(m), message);
      },
      async close() {
        this.onclose?.();
      },
    };
    report.fromView = [];
    await page.exposeFunction("__fromView", (message) => {
      report.fromView.push(message.method ?? `response ${message.id}`);
      transport.onmessage?.(message);
    });
    await page.setContent(`<!doctype html><html><body style="margin:0">
      <iframe id="view" sandbox="allow-scripts" style="width:760px;height:300px;border:0"></iframe>
      <script>
        const frame = document.getElementById("view");
        window.addEventListener("message", (e) => { if (e.source === frame.contentWindow) window.__fromView(e.data); });
        window.__toView = (m) => frame.contentWindow.postMessage(m, "*");
        window.__load = (html) => { frame.srcdoc = html; };
        window.__size = (h) => { frame.style.height = h + "px"; };
      </script></body></html>`);

    const bridge = new AppBridge(
      client,
      { name: "ask-user-apps-host", version: "0" },
      { serverTools: {}, serverResources: {}, logging: {}, message: { text: {} }, updateModelContext: { text: {} } },
      { hostContext: { theme: "light", displayMode: "inline", platform: "desktop", toolInfo: { tool } } },
    );
    report.messages = [];
    report.contexts = [];
    report.appCalls = [];
    bridge.onmessage = async (params) => {
      report.messages.push(params);
      event("ui/message");
      return {};
    };
    bridge.onupdatemodelcontext = async (params) => {
      report.contexts.push(params);
      return {};
    };
    // Every size the View reports, in order, and which came after the person's last click.
    report.sizes = [];
    bridge.addEventListener("sizechange", ({ height }) => {
      report.sizes.push({ height: height ?? null, afterSubmit: report.events.includes("person acted") });
      if (height) page.evaluate((h) => window.__size(h), height).catch(() => {});
    });
    const initialized = new Promise((resolve) => bridge.addEventListener("initialized", resolve));
    await bridge.connect(transport);
    // The spec: a host MUST reject an app's tools/call of a tool whose
    // visibility leaves out "app". AppBridge forwards; this host checks.
    const forward = bridge.oncalltool;
    bridge.oncalltool = async (params, extra) => {
      const called = tools.find((t) => t.name === params.name);
      const visibility = called?._meta?.ui?.visibility ?? ["model", "app"];
      if (!visibility.includes("app")) throw new Error(`${params.name} is not visible to apps`);
      report.appCalls.push(params);
      event(`app called ${params.name}`);
      const result = await forward(params, extra);
      report.appResults = [...(report.appResults ?? []), resultOf(result)];
      return result;
    };

    const html = content.text.replace(
      /<head>/i,
      `<head><meta http-equiv="Content-Security-Policy" content="${DEFAULT_CSP}">`,
    );
    await page.evaluate((h) => window.__load(h), html);
    await initialized;
    event("view initialized");
    await bridge.sendToolInput({ arguments: scenario.arguments });
    await bridge.sendToolResult(call);

    // The person, in the rendered form.
    const view = page.frameLocator("#view");
    await view.locator('body[data-state="open"]').waitFor({ timeout: 30_000 });
    event("form shown");
    report.shown = {
      title: await view.locator("#title").textContent(),
      labels: await view.locator("fieldset.question label .label").allTextContents(),
    };
    const person = scenario.person ?? {};
    if (person.cancel) {
      event("person acted");
      await view.locator("#cancel").click();
      await view.locator('body[data-state="cancelled"]').waitFor({ timeout: 30_000 });
    } else {
      if (person.submit_empty) {
        await view.locator("#submit").click();
        await view.locator('fieldset.question[aria-invalid="true"]').first().waitFor({ timeout: 30_000 });
        report.refused = await view.locator(".error:not([hidden])").first().textContent();
        event("empty submit refused");
      }
      await view.getByLabel(person.choose, { exact: false }).first().check();
      event("person acted");
      await view.locator("#submit").click();
      await view.locator('body[data-state="answered"]').waitFor({ timeout: 30_000 });
    }
    event("form finished");
    await view.locator("body[data-told]").waitFor({ timeout: 30_000 });
    report.told = await view.locator("body").getAttribute("data-told");
    report.finalText = await view.locator("#final").textContent();
    // The frame as the host left it, and where the View's last box ends in it.
    report.frame = {
      height: await page.evaluate(() => document.getElementById("view").getBoundingClientRect().height),
      finalBottom: await view.locator("#final").evaluate((e) => e.getBoundingClientRect().bottom),
    };

    // A second submission of the same question (a second View, a replay) is refused.
    report.replay = resultOf(
      await client.callTool({ name: "ask_user_submit", arguments: { id, cancel: true } }),
    );

    // The model collects the answer.
    report.resume = resultOf(await client.callTool({ name: "ask_user", arguments: { resume: id } }));
    event("resumed");
  }
} catch (e) {
  report.thrown = String(e?.stack ?? e);
} finally {
  clearTimeout(limit);
  if (browser) await browser.close().catch(() => {});
  if (profile) rmSync(profile, { recursive: true, force: true });
  await client.close().catch(() => {});
}
process.stdout.write(JSON.stringify(report) + "\n");
