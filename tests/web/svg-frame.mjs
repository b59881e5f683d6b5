// What a viewer of an animated terminal SVG (svg-term-cli's, docs/terminal.svg)
// sees near the end of its loop: the SVG alone in headless Chromium, its one
// animation paused `before` milliseconds before its end (each of them), and
// the frame then on the screen, line by line, each line marked visible when
// every word of it is drawn inside the terminal's screen and is what the
// browser finds at that point (nothing over it, not clipped). tests/pictures.rs
// drives it; SCENARIO = {"svg": PATH, "before": [MS, …]}; prints one JSON line.
import { chromium } from "playwright-core";
import { pathToFileURL } from "node:url";
const { svg, before } = JSON.parse(process.env.SCENARIO);
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || "/usr/bin/chromium" });
try {
  const page = await browser.newPage({ viewport: { width: 1000, height: 700 } });
  await page.goto(pathToFileURL(svg).href);
  const report = {};
  for (const ms of before) {
    report[ms] = await page.evaluate((ms) => {
      const animations = document.getAnimations();
      if (animations.length !== 1) return { error: `${animations.length} animations` };
      const animation = animations[0];
      const duration = animation.effect.getComputedTiming().duration;
      animation.pause();
      animation.currentTime = duration - ms;
      const reel = animation.effect.target;
      const screen = reel.closest("svg[viewBox]");
      const clip = {
        left: screen.x.baseVal.value, top: screen.y.baseVal.value,
        right: screen.x.baseVal.value + screen.width.baseVal.value,
        bottom: screen.y.baseVal.value + screen.height.baseVal.value,
      };
      const frames = Array.from(reel.querySelectorAll(":scope > svg > svg"));
      const shown = frames.filter((frame) => Math.abs(frame.getBoundingClientRect().left - clip.left) < 1);
      if (shown.length !== 1) return { error: `${shown.length} frames at the screen's left edge` };
      const frame = shown[0];
      // Each line of the frame: its words (own <text>, or a <use> of a line
      // symbol) that are drawn inside the screen and on top where they are.
      const rows = new Map();
      for (const node of frame.querySelectorAll(":scope > text, :scope > use")) {
        let text = node.textContent;
        let y = parseFloat(node.getAttribute("y") || "0");
        if (node.tagName === "use") {
          const symbol = document.getElementById((node.getAttribute("xlink:href") || node.getAttribute("href") || "").slice(1));
          const words = symbol ? Array.from(symbol.querySelectorAll("text")) : [];
          if (!words.length) continue; // the background and the cursor
          text = words.map((w) => w.textContent).join(" ");
          y += parseFloat(words[0].getAttribute("y") || "0");
        }
        const r = node.getBoundingClientRect();
        const inside = r.width > 0 && r.left >= clip.left - 1 && r.right <= clip.right + 1 && r.top >= clip.top - 1 && r.bottom <= clip.bottom + 1;
        const hit = document.elementFromPoint(r.left + Math.min(4, r.width / 2), r.top + r.height / 2);
        const key = Math.round(y * 100);
        if (!rows.has(key)) rows.set(key, []);
        rows.get(key).push({ x: parseFloat(node.getAttribute("x") || "0"), text, visible: inside && hit === node });
      }
      const lines = [...rows.entries()].sort((a, b) => a[0] - b[0]).map(([, words]) => {
        words.sort((a, b) => a.x - b.x);
        return { text: words.map((w) => w.text).join(" "), visible: words.every((w) => w.visible) };
      });
      return { duration, frame: frame.getAttribute("x"), lines };
    }, ms);
  }
  console.log(JSON.stringify(report));
} finally {
  await browser.close();
}
