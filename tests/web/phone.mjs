// The phone (issue 39): headless Chromium in mobile emulation (360 x 740,
// touch, a mobile user agent) opens a pairing link, lands on the installed
// page, measures it (44 px targets, no horizontal scroll at 360 px, one
// question per screen, axe-core in light and dark), answers a two-question
// form (a multi-select with Other and a note, then a single select), reads
// the service worker's cache, then waits for the test to revoke its token
// and checks that the page says it must be paired again. The question comes
// first: its text ends in the screen's top half, and the switches, History
// and the filter wait behind Menu (measured and checked with axe open too).
//
//   node phone.mjs PAIR_URL REVOKED_FILE|- [PNG]
//
// Prints "answered" once the answer is sent and "unpaired" at the end;
// exits 1 with a message on stderr when the page misbehaved. With "-" for
// REVOKED_FILE it ends after reading the cache: the README's picture
// (tests/web/phone-screenshot.sh), taken as PNG with the page's text in it
// (picture.mjs).

import { chromium } from "playwright-core";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { createRequire } from "node:module";
import { savePicture } from "./picture.mjs";

const [pairUrl, revokedFile, png] = process.argv.slice(2);
const require = createRequire(import.meta.url);
const MOBILE_UA =
  "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36";

function fail(message) {
  throw new Error(message);
}

async function measure(page) {
  return page.evaluate(() => {
    const doc = document.documentElement;
    const small = [];
    const visible = (e) => {
      const r = e.getBoundingClientRect();
      return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== "hidden";
    };
    const targets = [...document.querySelectorAll("button, textarea, input, select, a[href]")].filter(visible);
    for (const t of targets) {
      // A radio or checkbox is reached by its label too: the larger counts.
      let r = t.getBoundingClientRect();
      if (t.type === "radio" || t.type === "checkbox") {
        const label = t.labels && t.labels[0];
        if (label) r = label.getBoundingClientRect();
        if (r.height < 44) small.push(`${t.id || t.type} label ${Math.round(r.width)}x${Math.round(r.height)}`);
        continue;
      }
      if (r.height < 44 || r.width < 44) small.push(`${t.id || t.tagName} ${Math.round(r.width)}x${Math.round(r.height)}`);
    }
    const shown = [...document.querySelectorAll("fieldset.question")].filter(visible).length;
    const legend = document.querySelector("fieldset.question.current legend");
    const questionAt = legend ? Math.round(legend.getBoundingClientRect().bottom + window.scrollY) : null;
    const controls = ["sound", "show-history", "filter"].filter((id) => visible(document.getElementById(id)));
    return { scrollWidth: doc.scrollWidth, clientWidth: doc.clientWidth, targets: targets.length, small, shown, questionAt, controls };
  });
}

async function axeCheck(page) {
  const source = readFileSync(join(dirname(require.resolve("axe-core")), "axe.min.js"), "utf8");
  await page.evaluate(source);
  const found = [];
  for (const colorScheme of ["light", "dark"]) {
    await page.emulateMedia({ colorScheme });
    const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ["violations"] }));
    if (result.passes.length < 15) fail(`axe-core passed only ${result.passes.length} rules`);
    for (const v of result.violations) {
      if (v.impact === "serious" || v.impact === "critical") {
        found.push(`${colorScheme}: ${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
      }
    }
  }
  await page.emulateMedia({ colorScheme: "light" });
  if (found.length) fail(`axe-core violations:\n${found.join("\n")}`);
}

async function main() {
  const profile = mkdtempSync(join(tmpdir(), "ask-user-phone-"));
  let context;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
      headless: true,
      viewport: { width: 360, height: 740 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
      userAgent: MOBILE_UA,
      ignoreHTTPSErrors: Boolean(process.env.PHONE_IGNORE_CERTIFICATE_ERRORS),
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-sync",
        "--disable-background-networking", "--disable-component-update",
        // The test CA's certificate (tests/phone.rs over TLS): no NSS tools here to trust the CA.
        ...(process.env.PHONE_IGNORE_CERTIFICATE_ERRORS ? ["--ignore-certificate-errors"] : [])],
    });
    const page = context.pages()[0] ?? (await context.newPage());
    const problems = [];
    page.on("pageerror", (err) => problems.push(String(err)));
    // A fresh network namespace may still be settling when Chromium starts
    // (net::ERR_NETWORK_CHANGED): the page did not load, so its single-use
    // code was not spent, and loading it again is safe.
    for (let attempt = 1; ; attempt++) {
      try {
        await page.goto(pairUrl);
        break;
      } catch (err) {
        if (attempt >= 5 || !String(err).includes("ERR_NETWORK_CHANGED")) throw err;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
    await page.waitForURL((url) => url.pathname === "/app", { timeout: 10000 });
    await page.waitForSelector('body[data-state="open"]', { timeout: 10000 });
    await page.waitForSelector("article.card", { timeout: 10000 });
    if (page.url().includes("#") || page.url().includes("token")) fail(`the address keeps a secret: ${page.url()}`);
    const kept = await page.evaluate(() => JSON.parse(localStorage.getItem("ask_user.device")));
    if (!kept || !/^[0-9a-f]{64}$/.test(kept.token)) fail("no device token in localStorage");

    const m = await measure(page);
    if (m.scrollWidth > m.clientWidth) fail(`horizontal scroll at 360 px: ${m.scrollWidth} > ${m.clientWidth}`);
    if (m.small.length) fail(`targets under 44 px: ${m.small.join(", ")}`);
    if (m.shown !== 1) fail(`${m.shown} questions on one screen, not 1`);
    process.stdout.write(`measured: ${m.targets} targets, all at least 44 px; width ${m.scrollWidth} of ${m.clientWidth}; 1 question on screen\n`);
    // The question first: its text ends in the top half of the 740 px
    // screen, and the switches and History are not above it.
    const half = 740 / 2;
    if (m.questionAt === null || m.questionAt > half) fail(`the question ends ${m.questionAt} px down, below the top half (${half} px)`);
    if (m.controls.length) fail(`shown before the question: ${m.controls.join(", ")}`);
    await axeCheck(page);
    process.stdout.write("axe: no serious or critical violations in light and dark\n");
    // Menu shows them, measured and checked as well, and hides them again.
    const menu = page.getByRole("button", { name: "Menu" });
    await menu.tap();
    if ((await menu.getAttribute("aria-expanded")) !== "true") fail("Menu does not say it is expanded");
    const open = await measure(page);
    if (open.controls.join(" ") !== "sound show-history filter") fail(`Menu shows ${open.controls.join(", ") || "nothing"}, not the sound switch, History and the filter`);
    if (open.small.length) fail(`targets under 44 px with Menu open: ${open.small.join(", ")}`);
    if (open.scrollWidth > open.clientWidth) fail(`horizontal scroll with Menu open: ${open.scrollWidth}`);
    await axeCheck(page);
    await menu.tap();
    if ((await measure(page)).controls.length) fail("Menu does not hide the switches again");
    process.stdout.write(`question first: it ends ${m.questionAt} px down; Menu shows the switches, History and the filter (${open.targets} targets, all at least 44 px; axe clean)\n`);

    // Question 1: two options, Other, and a note.
    const card = page.locator("article.card").first();
    const first = card.locator("fieldset.question.current");
    await first.locator('input[type="checkbox"]').nth(0).check();
    await first.locator('input[type="checkbox"]').nth(1).check();
    await first.locator('input[type="text"]').fill("NATS");
    await first.locator("textarea").fill("from the phone");
    if (png) await savePicture(page, png);
    await card.getByRole("button", { name: "Next" }).tap();
    const second = card.locator("fieldset.question.current");
    if ((await second.locator('input[type="radio"]').count()) === 0) fail("Next did not show question 2");
    await second.locator('input[type="radio"]').nth(1).check();
    await card.getByRole("button", { name: "Submit" }).tap();
    await page.waitForSelector("article.card", { state: "detached", timeout: 10000 });
    process.stdout.write("answered\n");

    // The service worker's cache: the shell, and nothing private.
    const cached = await page.evaluate(async () => {
      await navigator.serviceWorker.ready;
      const out = [];
      for (const name of await caches.keys()) {
        const cache = await caches.open(name);
        for (const request of await cache.keys()) {
          const response = await cache.match(request);
          out.push({ url: request.url, body: await response.text() });
        }
      }
      return out;
    });
    const paths = cached.map((c) => new URL(c.url).pathname + new URL(c.url).search);
    process.stdout.write(`cached: ${paths.join(" ")}\n`);
    if (!paths.includes("/app")) fail(`the shell is not cached: ${paths}`);
    for (const c of cached) {
      const u = new URL(c.url);
      if (u.pathname.startsWith("/api/") || u.pathname === "/pair" || u.search) fail(`cached: ${c.url}`);
      if (c.body.includes(kept.token)) fail(`the token is in the cache (${c.url})`);
      if (c.body.includes("Which transports?")) fail(`a question is in the cache (${c.url})`);
    }

    if (revokedFile === "-") {
      if (problems.length) fail(`the page threw:\n${problems.join("\n")}`);
      return;
    }
    // The test removes the token; the next request gets 401 and the page says so.
    const until = Date.now() + 30000;
    while (!existsSync(revokedFile)) {
      if (Date.now() > until) fail("the test never revoked the token");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await page.reload();
    await page.waitForSelector('body[data-state="unpaired"]', { timeout: 15000 });
    const said = await page.textContent("#unpaired-why");
    if (!said.includes("paired again")) fail(`the page says ${JSON.stringify(said)}`);
    if (await page.evaluate(() => localStorage.getItem("ask_user.device"))) fail("the revoked token is still kept");
    if (problems.length) fail(`the page threw:\n${problems.join("\n")}`);
    process.stdout.write("unpaired\n");
  } finally {
    if (context) await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  },
);
