// Drives the ask_user answer page in headless Chromium, one scenario per run.
// Started by tests/web.rs, which runs the binary and checks its answer document
// and exit code; this script only plays the person at the browser.
//
//   node drive.mjs SCENARIO URL_FILE [PNG]
//
// It starts the browser, prints "ready", then waits for URL_FILE to hold the
// page's URL (so a short timeout only starts once the browser is up; stdin is
// not used because the browser launch takes it over). Exits 0 when the
// page behaved, 1 with a message on stderr when it did not.

import { chromium } from "playwright-core";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { createRequire } from "node:module";
import { savePicture } from "./picture.mjs";

const [scenario, urlFile, png] = process.argv.slice(2);
const require = createRequire(import.meta.url);

const scenarios = {
  // A one-question link (tests/inbox_links.rs): the page opens without a
  // token, shows that one question, and answers it with the second option.
  async "link-answer"(page) {
    await expectText(page, "#title", "A question for you");
    await expectText(page, "#q0 legend .text", "Which database?");
    await page.check("#q0-o2");
    await page.click("#submit");
    await page.waitForSelector('body[data-state="answered"]');
    await expectText(page, "#final-title", "Answer sent");
  },

  // The same on a paired phone: the device token the pairing page kept
  // (set by the setup below) goes with the answer, so history names the device.
  async "link-answer-paired"(page) {
    await scenarios["link-answer"](page);
  },

  // A single select, a multi select with Other, a text and a confirm in one form;
  // the first submission leaves the text empty and must be refused beside it.
  async "every-kind"(page) {
    await expectChecked(page, "#q0-o2", true, "the recommended option is pre-selected");
    await expectChecked(page, "#q0-o1", false, "only the recommended option is pre-selected");
    await expectText(page, "#q0 .badge", "Recommended");
    // A pre-selected option is not an answer until the person confirms it.
    await expectText(page, "#progress", "0 of 4 answered");
    await page.check("#q1-o1");
    await page.fill("#q1-other-text", "NATS");
    await expectChecked(page, "#q1-other", true, "typing in Other ticks Other");
    await page.check("#q3-yes");
    // A note beside the choice: the choice stays chosen, and a note alone
    // does not count as an answer.
    await page.fill("#q0-note", "but keep SQLite for tests");
    await expectChecked(page, "#q0-o2", true, "a note keeps the choice");
    await page.fill("#q2-note", "my note is no name");
    await expectText(page, "#progress", "2 of 4 answered");
    // Clicking the pre-selected option confirms it (no change event).
    await page.click("#q0-o2");
    await expectText(page, "#progress", "3 of 4 answered");
    await page.click("#submit");
    await page.waitForSelector("#q2-error:not([hidden])");
    const error = await page.textContent("#q2-error");
    if (error !== "This question needs an answer. Type your answer.") fail(`the refusal is not for a person: ${error}`);
    if ((await page.getAttribute("#q2", "aria-invalid")) !== "true") fail("the refused question is not marked invalid");
    await page.fill("#q2-input", "Ada Lovelace");
    await page.click("#submit");
    await expectFinal(page, "answered", "Answer sent");
  },

  // Keyboard only: arrows move the radio choice, Tab reaches Submit, Enter sends.
  async keyboard(page) {
    const focused = await page.evaluate(() => document.activeElement.id);
    if (focused !== "q0-o1") fail(`focus starts on ${focused}, not on the pre-selected option`);
    await page.keyboard.press("ArrowDown");
    await expectChecked(page, "#q0-o2", true, "ArrowDown selects the next option");
    // Tab reaches the question's note field; typing there keeps the choice.
    await page.keyboard.press("Tab");
    const onNote = await page.evaluate(() => ({
      id: document.activeElement.id,
      label: document.activeElement.labels[0]?.textContent,
    }));
    if (onNote.id !== "q0-note") fail(`Tab went to ${onNote.id}, not the note field`);
    if (onNote.label !== "Note") fail(`the note field's label is ${onNote.label}`);
    await page.keyboard.type("staging first");
    await expectChecked(page, "#q0-o2", true, "typing a note keeps the choice");
    await page.keyboard.press("Tab");
    const onSubmit = await page.evaluate(() => {
      const el = document.activeElement;
      return { id: el.id, outline: getComputedStyle(el).outlineStyle };
    });
    if (onSubmit.id !== "submit") fail(`Tab went to ${onSubmit.id}, not Submit`);
    if (onSubmit.outline === "none") fail("the focused button shows no focus outline");
    await page.keyboard.press("Enter");
    await expectFinal(page, "answered", "Answer sent");
  },

  // `ask_user mcp --fallback web` (tests/mcp_web.rs): the second option and a text.
  async "select-and-text"(page) {
    await page.check("#q0-o2");
    await page.fill("#q1-input", "Ship it");
    await page.click("#submit");
    await expectFinal(page, "answered", "Answer sent");
  },

  // URL-mode elicitation (tests/mcp_url.rs): the page an MCP client sent the
  // person to offers Decline; the second option and a text are sent.
  async "url-answer"(page) {
    if (await page.isHidden("#decline")) fail("the page of a url elicitation offers no Decline");
    await axeCheck(page);
    await page.emulateMedia({ colorScheme: "light" });
    await page.check("#q0-o2");
    await page.fill("#q1-input", "Ship it");
    await page.click("#submit");
    await expectFinal(page, "answered", "Answer sent");
  },

  // URL-mode elicitation past `--wait`: the page stays up after the call
  // returned pending; the person answers once the test says go.
  async "url-answer-later"(page) {
    await handshake("waiting");
    await scenarios["url-answer"](page);
  },

  // URL-mode elicitation: the person declines on the page.
  async "url-decline"(page) {
    // Decline is a POST: a GET of it is "method not allowed" on this page
    // (on a page without Decline it is not found: tests/web.rs).
    const status = await page.evaluate(async () => {
      const token = new URLSearchParams(location.search).get("token");
      const init = { headers: { Authorization: "Bearer " + token }, cache: "no-store" };
      return (await fetch("/decline", init)).status;
    });
    if (status !== 405) fail(`GET /decline gave ${status}, not 405`);
    await page.click("#decline");
    await expectFinal(page, "declined", "Declined");
  },

  async cancel(page) {
    // Only a page an MCP client sent the person to offers Decline.
    if (!(await page.isHidden("#decline"))) fail("this page offers Decline");
    await page.click("#cancel");
    await expectFinal(page, "cancelled", "Cancelled");
  },

  async expire(page) {
    if (await page.isHidden("#countdown")) fail("no countdown is shown");
    await expectFinal(page, "expired", "Time is up", 30000);
  },

  // axe-core in light and dark: no serious or critical violation.
  async axe(page) {
    await axeCheck(page);
    await page.click("#cancel");
    await expectFinal(page, "cancelled", "Cancelled");
  },

  // Hostile text from the input is shown as text and runs nothing.
  async hostile(page) {
    const script = "<script>window.pwned=1</script>";
    const img = "\"><img src=x onerror=window.pwned=1>";
    await expectText(page, "#title", script);
    await expectText(page, "#q0-text", img);
    await expectText(page, "label[for=q0-o1] .label", script);
    await expectText(page, "label[for=q0-o2] .label", img);
    await expectText(page, "#q0-o2-desc", script);
    const planted = await page.evaluate(() => ({
      pwned: window.pwned,
      images: document.querySelectorAll("img").length,
      scripts: document.querySelectorAll("script").length,
    }));
    if (planted.pwned !== undefined) fail("a hostile label ran code");
    if (planted.images !== 0) fail("a hostile label made an <img> element");
    if (planted.scripts !== 1) fail(`the page has ${planted.scripts} script elements, not 1`);
    await page.click("#cancel");
    await expectFinal(page, "cancelled", "Cancelled");
  },

  // The inbox (tests/inbox.rs): three askers' questions arrive while the page
  // is open, oldest first, and are answered newest first.
  async "inbox-three"(page) {
    await waitForCards(page, 3);
    const asked = await page.$$eval("article.card legend .text", (nodes) => nodes.map((n) => n.textContent));
    const order = ["Which database?", "Which extras?", "Name the service"];
    if (JSON.stringify(asked) !== JSON.stringify(order)) fail(`cards in the wrong order: ${asked}`);
    if ((await page.title()) !== "(3) ask_user inbox") fail(`title ${await page.title()}`);
    const cards = page.locator("article.card");
    await answerCard(page, cards.nth(2), async (card) => {
      await card.locator('textarea[id$="-input"]').fill("billing");
    });
    await answerCard(page, cards.nth(1), async (card) => {
      await card.locator('input[value="o1"]').check();
      await card.locator('input[value="o3"]').check();
      await card.locator('textarea[id$="-note"]').fill("search can wait");
    });
    await answerCard(page, cards.nth(0), async (card) => {
      await card.locator('input[value="o2"]').check();
    });
    await page.waitForSelector("#empty:not([hidden])");
    if ((await page.title()) !== "ask_user inbox") fail(`title ${await page.title()}`);
  },

  // Addressing (tests/inbox_team.rs): signed in as Ada (group ops), the
  // questions to "Ada" and to "ops" are under "For you", the one to "db"
  // and the one to nobody under the others; "For me only" hides the others.
  async "inbox-for-you"(page) {
    await waitForCards(page, 4);
    await page.waitForSelector("#for-you:not([hidden])");
    const texts = (selector) => page.$$eval(`${selector} article.card .to`, (nodes) => nodes.map((n) => n.textContent));
    const mine = await texts("#mine-cards");
    if (JSON.stringify(mine) !== JSON.stringify(["to ops", "to Ada"])) fail(`for you: ${mine}`);
    const others = await page.$$eval("#cards article.card", (nodes) => nodes.length);
    if (others !== 2) fail(`${others} other cards, not 2`);
    if (await page.isHidden("#others-heading")) fail("no Others heading");
    await page.selectOption("#filter", "mine");
    if (!(await page.isHidden("#others"))) fail("For me only still shows the others");
    if (await page.isHidden("#for-you")) fail("For me only hides For you");
    await page.selectOption("#filter", "all");
    if (await page.isHidden("#others")) fail("All hides the others");
  },

  // Keyboard only: Tab to the second card's choice, ArrowDown, Tab, Enter;
  // then Tab to the first card's Decline, Enter. axe-core first, light and dark.
  async "inbox-keyboard-axe"(page) {
    await waitForCards(page, 2);
    // The away switch shows once the page has read the state: checked with the rest.
    await page.locator("#away-box").waitFor({ state: "visible", timeout: 10000 });
    await axeCheck(page);
    await page.emulateMedia({ colorScheme: "light" });
    const [first, second] = await page.$$eval("article.card", (nodes) => nodes.map((n) => n.getAttribute("data-inbox-id")));
    await tabTo(page, `c-${second}-q0-o1`);
    await page.keyboard.press("ArrowDown");
    await expectChecked(page, `#c-${second}-q0-o2`, true, "ArrowDown selects the next option");
    await page.keyboard.press("Tab");
    const onNote = await page.evaluate(() => document.activeElement.id);
    if (onNote !== `c-${second}-q0-note`) fail(`Tab went to ${onNote}, not the note field`);
    await page.keyboard.press("Tab");
    const onSubmit = await page.evaluate(() => {
      const el = document.activeElement;
      return { id: el.id, outline: getComputedStyle(el).outlineStyle };
    });
    if (onSubmit.id !== `c-${second}-submit`) fail(`Tab went to ${onSubmit.id}, not Submit`);
    if (onSubmit.outline === "none") fail("the focused button shows no focus outline");
    // The answer's response is held back until the stream's "closed" event
    // has removed the card: focus must still move on (a race CI once lost).
    let released;
    const held = new Promise((resolve) => { released = resolve; });
    await page.route(`**/api/questions/${second}/answer`, async (route) => {
      const response = await route.fetch();
      await held;
      await route.fulfill({ response });
    });
    await page.keyboard.press("Enter");
    await page.waitForSelector(`#c-${second}`, { state: "detached" });
    released();
    await page.waitForFunction(() => document.getElementById("announce").textContent === "Answer sent.", null, { timeout: 10000 })
      .catch(() => fail("the held answer's response was never announced"));
    await page.unroute(`**/api/questions/${second}/answer`);
    const focused = await page.evaluate(() => document.activeElement.id);
    if (!focused.startsWith(`c-${first}-`)) fail(`after the answer, focus is on ${focused}, not the next card`);
    await tabTo(page, `c-${first}-decline`);
    await page.keyboard.press("Enter");
    await page.waitForSelector("#empty:not([hidden])");
    const end = await page.evaluate(() => document.activeElement.id);
    if (end !== "heading") fail(`after the last card, focus is on ${end}, not the heading`);
  },

  // The team inbox (tests/team_inbox.rs): the page of replica B is open and
  // empty; the test then asks "Which database?" on replica A. The card
  // arrives without a reload (B heard A), the person picks the second
  // option and submits, and B's History shows the answer.
  async "inbox-replica"(page) {
    await page.waitForSelector("#empty:not([hidden])");
    await handshake("empty");
    await waitForCards(page, 1);
    await expectText(page, "article.card legend .text", "Which database?");
    const cards = page.locator("article.card");
    await answerCard(page, cards.nth(0), async (card) => {
      await card.locator('input[value="o2"]').check();
    });
    await page.waitForSelector("#empty:not([hidden])");
    await page.click("#show-history");
    await page.waitForSelector('body[data-history="loaded"]');
    const shown = await page.$$eval("#history-list li", (nodes) =>
      nodes.map((n) => `${n.getAttribute("data-outcome")}: ${n.querySelector("h3").textContent} -> ${n.querySelector(".answer").textContent}`));
    const want = ["answered: Which database? -> SQLite"];
    if (JSON.stringify(shown) !== JSON.stringify(want)) fail(`History shows ${JSON.stringify(shown)}, not ${JSON.stringify(want)}`);
  },

  // Quorum (tests/team_inbox.rs): Ada's page on replica B; a question asked
  // on A needs 2 approvals. Her vote keeps the card, which says "1 of 2";
  // Bob's vote through A then closes it on her page.
  async "inbox-quorum"(page) {
    await waitForCards(page, 1);
    await expectText(page, "article.card .approvals", "0 of 2 approvals");
    const card = page.locator("article.card").nth(0);
    await card.locator('input[value="o1"]').check();
    await card.locator("button.primary").click();
    await page.waitForFunction(
      () => document.querySelector("article.card .approvals").textContent === "1 of 2 approvals · voted: ada",
      null, { timeout: 10000 },
    ).catch(async () => fail(`the card says ${JSON.stringify(await page.textContent("article.card .approvals"))}`));
    // The stream may show the vote before the vote's own response arrives;
    // the card is busy until then, so wait for that response, not a moment.
    await page.waitForFunction(
      () => !document.querySelector("article.card button.primary").disabled,
      null, { timeout: 10000 },
    ).catch(() => fail("the card stays busy after a vote"));
    await handshake("voted");
    await page.waitForSelector("#empty:not([hidden])", { timeout: 30000 });
  },

  // Escalation (tests/inbox_escalation.rs): the page is open and empty; the
  // test asks a question whose ladder escalates to oncall after 2 s. The
  // card arrives without the line, gets "Escalated to oncall at HH:MM" when
  // the step fires (over the stream), and History keeps it once answered.
  async "inbox-escalation"(page) {
    await page.waitForSelector("#empty:not([hidden])");
    await handshake("empty");
    await waitForCards(page, 1);
    const line = page.locator("article.card .escalations");
    if (!(await line.isHidden())) fail(`an escalation is shown before its time: ${await line.textContent()}`);
    const shown = /^Escalated to oncall at \d{1,2}:\d{2}( [AP]M)?$/;
    await line.waitFor({ state: "visible", timeout: 15000 });
    const text = await line.textContent();
    if (!shown.test(text)) fail(`the card says ${JSON.stringify(text)}`);
    const cards = page.locator("article.card");
    await answerCard(page, cards.nth(0), async (card) => {
      await card.locator('input[value="o1"]').check();
    });
    await page.waitForSelector("#empty:not([hidden])");
    await page.click("#show-history");
    await page.waitForSelector('body[data-history="loaded"]');
    const kept = await page.$$eval("#history-list li .escalations", (nodes) => nodes.map((n) => n.textContent));
    if (kept.length !== 1 || kept[0] !== text) fail(`History shows ${JSON.stringify(kept)}, not ${JSON.stringify(text)}`);
  },

  // An asker leaves while its card is on the page (tests/inbox.rs): the card
  // says for how long the inbox keeps the question, as it does for a
  // question whose asker was already gone when the page opened.
  async "inbox-away"(page) {
    await waitForCards(page, 1);
    const away = page.locator("article.card .away");
    if (!(await away.isHidden())) fail("the asker is marked gone while it waits");
    await handshake("shown");
    await away.waitFor({ state: "visible", timeout: 30000 });
    await page.waitForFunction(
      () => document.querySelector("article.card .away").textContent.startsWith("asker gone: kept until"),
      null, { timeout: 10000 },
    ).catch(async () => fail(`the gone mark says ${JSON.stringify(await away.textContent())}`));
  },

  // The away switch (tests/inbox.rs): off with no away.json; a click sets
  // it (the test reads the file); after the test turns it off in the file,
  // a reload shows it off, and Space on the focused switch sets it again.
  async "inbox-away-switch"(page) {
    const toggle = page.getByRole("switch", { name: "Away from the keyboard" });
    await toggle.waitFor({ state: "visible", timeout: 10000 });
    if (await toggle.isChecked()) fail("the switch starts on without an away.json");
    await expectText(page, "#away-note", "Agents ask in their own window.");
    await toggle.click();
    await page.waitForFunction(() => document.getElementById("away").checked && !document.getElementById("away").disabled);
    await expectText(page, "#away-note", "Agents' own questions come here.");
    // On, the switch is drawn in the alert colour: still readable.
    await axeCheck(page);
    await handshake("away on");
    await page.reload();
    await toggle.waitFor({ state: "visible", timeout: 10000 });
    await page.waitForFunction(() => !document.getElementById("away").checked);
    await toggle.focus();
    await page.keyboard.press("Space");
    await page.waitForFunction(() => document.getElementById("away").checked && !document.getElementById("away").disabled);
    await handshake("away on again");
  },

  // Collect later (tests/inbox.rs): two questions whose askers timed out.
  // The first ("Which database?") is answered, the second dismissed; then
  // History shows both and its search narrows them down as one types.
  async "inbox-collect"(page) {
    await waitForCards(page, 2);
    const cards = page.locator("article.card");
    for (const n of [0, 1]) {
      const away = cards.nth(n).locator(".away");
      await away.waitFor({ state: "visible", timeout: 30000 });
      const said = await away.textContent();
      if (!said.startsWith("asker gone: kept until")) fail(`the gone mark says ${JSON.stringify(said)}`);
    }
    await answerCard(page, cards.nth(0), async (card) => {
      await card.locator('input[value="o2"]').check();
    });
    const dismissed = await cards.nth(0).getAttribute("data-inbox-id");
    await page.click(`#c-${dismissed}-dismiss`);
    await page.waitForSelector(`#c-${dismissed}`, { state: "detached" });
    await page.waitForSelector("#empty:not([hidden])");

    await page.click("#show-history");
    await page.waitForSelector('body[data-history="loaded"]');
    if (!(await page.isHidden("#waiting"))) fail("the waiting questions are still shown beside History");
    const focused = await page.evaluate(() => document.activeElement.id);
    if (focused !== "history-search") fail(`History opened with the focus on ${focused}, not the search`);
    const shown = () => page.$$eval("#history-list li:not([hidden])", (nodes) =>
      nodes.map((n) => `${n.getAttribute("data-outcome")}: ${n.querySelector("h3").textContent} -> ${n.querySelector(".answer").textContent}`));
    const expect = async (query, want) => {
      await page.fill("#history-search", query);
      const got = await shown();
      if (JSON.stringify(got) !== JSON.stringify(want)) fail(`searching ${JSON.stringify(query)} shows ${JSON.stringify(got)}, not ${JSON.stringify(want)}`);
    };
    const dismissedLine = "dismissed: Which extras? -> No answer (dismissed)";
    const answeredLine = "answered: Which database? -> SQLite";
    await expect("", [dismissedLine, answeredLine]);
    await expectText(page, "#history-count", "2 questions");
    await expect("DATABASE", [answeredLine]);
    await expectText(page, "#history-count", "1 of 2 questions match");
    // An option that was offered, not chosen, finds its question too.
    await expect("kafka", [dismissedLine]);
    await expect("which sqlite", [answeredLine]);
    await expect("nothing like this", []);
    await expect("", [dismissedLine, answeredLine]);
    await page.click("#show-history");
    if (await page.isHidden("#waiting")) fail("the waiting questions did not come back");
  },

  // Attention (tests/inbox.rs): a question already waiting raises nothing;
  // the person turns notifications on through Chromium's permission
  // request; the next question raises one notification and one tone, and
  // the title counts both. The test starts that question once it reads
  // "alerts on".
  async "inbox-attention"(page, context) {
    await waitForCards(page, 1);
    if ((await page.title()) !== "(1) ask_user inbox") fail(`title ${await page.title()}`);
    const before = await page.evaluate(() => ({
      permission: Notification.permission, notes: window.__notes.length, tones: window.__tones.length,
    }));
    if (before.permission !== "default") fail(`notification permission starts as ${before.permission}`);
    if (before.notes || before.tones) fail("a question waiting before the page opened raised an alert");
    if (await page.isHidden("#alerts")) fail("no button offers notifications");
    // The person allows notifications when Chromium asks.
    await context.grantPermissions(["notifications"], { origin: new URL(page.url()).origin });
    await page.click("#alerts");
    await page.waitForSelector("#alerts", { state: "hidden" });
    await expectText(page, "#alerts-note", "Notifications on");
    const asked = await page.evaluate(() => window.__permissionRequests);
    if (asked !== 1) fail(`the page asked for permission ${asked} times, not once`);
    process.stdout.write("alerts on\n");
    await waitForCards(page, 2);
    await page.waitForFunction(() => window.__notes.length >= 1 && window.__tones.length >= 1, null, { timeout: 10000 });
    const heard = await page.evaluate(() => ({ notes: window.__notes, tones: window.__tones }));
    if (heard.notes.length !== 1) fail(`${heard.notes.length} notifications for one question`);
    if (heard.tones.length !== 1) fail(`${heard.tones.length} tones for one question`);
    const [note] = heard.notes;
    const id = await page.locator("article.card").nth(1).getAttribute("data-inbox-id");
    const want = { title: "attention-test asks", body: "Name the service", tag: `ask_user-${id}` };
    if (JSON.stringify(note) !== JSON.stringify(want)) fail(`notification ${JSON.stringify(note)}, not ${JSON.stringify(want)}`);
    const [tone] = heard.tones;
    if (tone.state !== "running") fail(`the tone played on a ${tone.state} audio context`);
    if (!(tone.stopAfter > 0 && tone.stopAfter < 1)) fail(`the tone lasts ${tone.stopAfter} s, not a short beep`);
    if ((await page.title()) !== "(2) ask_user inbox") fail(`title ${await page.title()}`);
    // Both are declined; the title counts down.
    for (const n of [2, 1]) {
      const card = page.locator("article.card").first();
      const cardId = await card.getAttribute("data-inbox-id");
      await card.getByRole("button", { name: "Decline" }).click();
      await page.waitForSelector(`#c-${cardId}`, { state: "detached" });
      const title = n === 2 ? "(1) ask_user inbox" : "ask_user inbox";
      if ((await page.title()) !== title) fail(`title ${await page.title()}, not ${title}`);
    }
  },

  // Reconnecting (tests/inbox.rs): one question is shown, alerts are on and
  // sound is awake. The page is held offline (so it cannot reconnect early)
  // while the test restarts the inbox on its port, which drops the event
  // stream, and asks two questions. Back online, the page announces those
  // two once each: a notification and a tone each, one spoken line, the
  // count in its title; the one it showed already, never. A second drop with
  // nothing new announces nothing.
  async "inbox-reconnect"(page, context) {
    await waitForCards(page, 1);
    const [shown] = await cardIds(page);
    await context.grantPermissions(["notifications"], { origin: new URL(page.url()).origin });
    // A click wakes the audio (browsers play sound only after one).
    await page.click("#heading");
    for (const round of ["two asked", "nothing new"]) {
      await context.setOffline(true);
      await handshake(`offline: ${round}`);
      await page.waitForSelector("#live.down");
      await context.setOffline(false);
      await page.waitForSelector("#live:not(.down)", { timeout: 30000 });
      await waitForCards(page, 3);
      const ids = await cardIds(page);
      if (ids[0] !== shown) fail(`the card shown before moved: ${ids}`);
      const heard = await page.evaluate(() => ({ notes: window.__notes, tones: window.__tones, spoken: window.__spoken }));
      const want = ids.slice(1).map((id) => `ask_user-${id}`);
      const tags = heard.notes.map((note) => note.tag);
      if (JSON.stringify(tags) !== JSON.stringify(want)) fail(`after "${round}", notifications ${JSON.stringify(tags)}, not ${JSON.stringify(want)}`);
      const bodies = heard.notes.map((note) => note.body);
      if (JSON.stringify(bodies) !== JSON.stringify(["Name the service", "Which extras?"])) fail(`notification texts ${JSON.stringify(bodies)}`);
      if (heard.tones.length !== 2) fail(`after "${round}", ${heard.tones.length} tones for two questions`);
      if (!heard.tones.every((tone) => tone.state === "running")) fail(`a tone on a suspended audio context: ${JSON.stringify(heard.tones)}`);
      if (JSON.stringify(heard.spoken) !== JSON.stringify(["2 new questions arrived."])) fail(`after "${round}", the page said ${JSON.stringify(heard.spoken)}`);
      if ((await page.title()) !== "(3) ask_user inbox") fail(`title ${await page.title()}`);
    }
    for (const id of await cardIds(page)) {
      await page.locator(`#c-${id}`).getByRole("button", { name: "Decline" }).click();
      await page.waitForSelector(`#c-${id}`, { state: "detached" });
    }
    await page.waitForSelector("#empty:not([hidden])");
  },

  // The README pictures of the inbox: three questions, light and dark.
  async "inbox-screenshot"(page) {
    await waitForCards(page, 3);
    for (const colorScheme of ["light", "dark"]) {
      await page.emulateMedia({ colorScheme });
      await savePicture(page, png.replace("{scheme}", colorScheme), { fullPage: true });
    }
  },

  // The README pictures: the form in light and dark.
  async screenshot(page) {
    for (const colorScheme of ["light", "dark"]) {
      await page.emulateMedia({ colorScheme });
      await savePicture(page, png.replace("{scheme}", colorScheme), { fullPage: true });
    }
    await page.click("#cancel");
    await expectFinal(page, "cancelled", "Cancelled");
  },
};

// Before the page loads (over the DevTools protocol, which its CSP does not
// govern): spies that record each notification, each permission request,
// each tone and each line the page speaks (#announce), and still call the
// browser's own.
const setups = {
  "link-answer-paired": keepDevice,
  "inbox-attention": spyOnAlerts,
  "inbox-reconnect": spyOnAlerts,
};

// What tests/web/phone.mjs's pairing leaves in localStorage, from URL_FILE.device.
async function keepDevice(context) {
  const device = readFileSync(`${urlFile}.device`, "utf8");
  await context.addInitScript((kept) => localStorage.setItem("ask_user.device", kept), device);
}

async function spyOnAlerts(context) {
  await context.addInitScript(() => {
    window.__spoken = [];
    document.addEventListener("DOMContentLoaded", () => {
      const said = document.getElementById("announce");
      new MutationObserver(() => window.__spoken.push(said.textContent)).observe(said, { childList: true });
    });
    window.__notes = [];
    window.__tones = [];
    window.__permissionRequests = 0;
    const Real = window.Notification;
    class Spy extends Real {
      constructor(title, options = {}) {
        super(title, options);
        window.__notes.push({ title, body: options.body, tag: options.tag });
      }
      static requestPermission(...args) {
        window.__permissionRequests += 1;
        return Real.requestPermission(...args);
      }
    }
    window.Notification = Spy;
    const start = OscillatorNode.prototype.start;
    const stop = OscillatorNode.prototype.stop;
    OscillatorNode.prototype.start = function (when) {
      this.__startAt = when;
      window.__tones.push({ state: this.context.state });
      return start.apply(this, arguments);
    };
    OscillatorNode.prototype.stop = function (when) {
      const tone = window.__tones[window.__tones.length - 1];
      if (tone) tone.stopAfter = when - this.__startAt;
      return stop.apply(this, arguments);
    };
  });
}

async function waitForCards(page, count) {
  await page.waitForFunction((n) => document.querySelectorAll("article.card").length === n, count, { timeout: 30000 });
}

async function cardIds(page) {
  return page.$$eval("article.card", (nodes) => nodes.map((n) => n.getAttribute("data-inbox-id")));
}

// Says `what` on stdout, then waits (up to 60 s) for the test's reply: the
// file URL_FILE.go, which it removes.
async function handshake(what) {
  process.stdout.write(`${what}\n`);
  const go = `${urlFile}.go`;
  const until = Date.now() + 60000;
  while (!existsSync(go)) {
    if (Date.now() > until) fail(`no reply to "${what}" in ${go}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  rmSync(go);
}

// Fills a card, submits it, and waits for it to leave the page.
async function answerCard(page, card, fill) {
  const id = await card.getAttribute("data-inbox-id");
  await fill(card);
  await card.locator("button.primary").click();
  await page.waitForSelector(`#c-${id}`, { state: "detached" });
}

// Presses Tab until the element with this id has the focus.
async function tabTo(page, id) {
  for (let i = 0; i < 80; i++) {
    if ((await page.evaluate(() => document.activeElement.id)) === id) return;
    await page.keyboard.press("Tab");
  }
  fail(`Tab never reached #${id}`);
}

// axe-core in light and dark: no serious or critical violation.
async function axeCheck(page) {
  const source = readFileSync(join(dirname(require.resolve("axe-core")), "axe.min.js"), "utf8");
  // Evaluated over the DevTools protocol, which the page's CSP does not govern.
  await page.evaluate(source);
  const found = [];
  const passed = [];
  for (const colorScheme of ["light", "dark"]) {
    await page.emulateMedia({ colorScheme });
    const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ["violations"] }));
    // Proof that the rules ran on a rendered form, not on an empty page.
    if (result.passes.length < 15) fail(`axe-core passed only ${result.passes.length} rules`);
    passed.push(`${colorScheme}: ${result.passes.length} rules passed`);
    for (const v of result.violations) {
      if (v.impact === "serious" || v.impact === "critical") {
        found.push(`${colorScheme}: ${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
      }
    }
  }
  if (found.length) fail(`axe-core violations:\n${found.join("\n")}`);
  process.stdout.write(`axe: no serious or critical violations (${passed.join("; ")})\n`);
}

// The test writes the file whole (rename), so it is complete once it exists.
async function waitForUrl() {
  const until = Date.now() + 30000;
  while (!existsSync(urlFile)) {
    if (Date.now() > until) fail(`no URL in ${urlFile}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return readFileSync(urlFile, "utf8").trim();
}

function fail(message) {
  throw new Error(message);
}

async function expectChecked(page, selector, want, what) {
  if ((await page.isChecked(selector)) !== want) fail(`${what}: ${selector} is not ${want ? "checked" : "unchecked"}`);
}

async function expectText(page, selector, want) {
  const got = await page.textContent(selector);
  if (got !== want) fail(`${selector} shows ${JSON.stringify(got)}, not ${JSON.stringify(want)}`);
}

async function expectFinal(page, state, title, timeout = 10000) {
  await page.waitForSelector(`body[data-state="${state}"]`, { timeout });
  await expectText(page, "#final-title", title);
  if (!(await page.isHidden("#form"))) fail("the form is still shown after the end");
  const focused = await page.evaluate(() => document.activeElement.id);
  if (focused !== "final") fail(`focus is on ${focused}, not on the final message`);
}

async function main() {
  const run = scenarios[scenario];
  if (!run || !urlFile) fail(`usage: node drive.mjs ${Object.keys(scenarios).join("|")} URL_FILE [PNG]`);
  const profile = mkdtempSync(join(tmpdir(), "ask-user-chromium-"));
  let context;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
      headless: true,
      viewport: { width: 760, height: 900 },
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--no-first-run",
        "--disable-sync",
      ],
    });
    if (setups[scenario]) await setups[scenario](context);
    const page = context.pages()[0] ?? (await context.newPage());
    const problems = [];
    page.on("console", (msg) => {
      // Refused requests (a 422 answer, the favicon asked for without the token)
      // are logged as failed loads; the scenarios check statuses themselves.
      if (msg.type() === "error" && !msg.text().startsWith("Failed to load resource")) {
        problems.push(msg.text());
      }
    });
    page.on("pageerror", (err) => problems.push(String(err)));
    process.stdout.write("ready\n");
    const url = await waitForUrl();
    await page.goto(url);
    await page.waitForSelector('body[data-state="open"]', { timeout: 10000 });
    await run(page, context);
    if (problems.length) fail(`the page logged errors:\n${problems.join("\n")}`);
  } finally {
    if (context) await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`${scenario}: ${err.message}\n`);
    process.exit(1);
  },
);
