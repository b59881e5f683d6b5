// The README's page pictures carry the text of the page they show: read
// from the DOM just before the screenshot, and kept in the PNG itself (an
// iTXt chunk, keyword TEXT_KEYWORD, uncompressed UTF-8), so that
// tests/pictures.rs can check what a picture shows without reading pixels
// (no folder of the machine that made it).
//
//   await savePicture(page, path, { fullPage: true });

import { writeFileSync } from "node:fs";

export const TEXT_KEYWORD = "ask_user page text";

// Attributes that hold URLs: the page's own routes (/app, /api/...), not folders.
const URL_ATTRIBUTES = new Set(["href", "src", "srcset", "action", "formaction"]);

// Every text node, attribute value and form field value under <body>
// (scripts and styles left out), one a line, after the title.
export async function pageText(page) {
  return page.evaluate((urlAttributes) => {
    const out = [document.title];
    const walk = (node) => {
      for (const child of node.childNodes) {
        if (child.nodeType === Node.TEXT_NODE) {
          const text = child.data.trim();
          if (text) out.push(text);
        } else if (child.nodeType === Node.ELEMENT_NODE) {
          if (child.tagName === "SCRIPT" || child.tagName === "STYLE") continue;
          for (const attribute of child.attributes) {
            if (!urlAttributes.includes(attribute.name) && attribute.value.trim()) out.push(attribute.value);
          }
          if ((child.tagName === "INPUT" || child.tagName === "TEXTAREA") && child.value) out.push(child.value);
          walk(child);
        }
      }
    };
    walk(document.body);
    return out.join("\n");
  }, [...URL_ATTRIBUTES]);
}

// The page's text, then its screenshot, written to `path` with that text in it.
export async function savePicture(page, path, options = {}) {
  const text = await pageText(page);
  const png = await page.screenshot(options);
  writeFileSync(path, withText(png, TEXT_KEYWORD, text));
}

// `png` with an iTXt chunk (keyword, no compression, no language) before IEND.
export function withText(png, keyword, text) {
  const data = Buffer.concat([
    Buffer.from(keyword, "latin1"),
    Buffer.from([0, 0, 0, 0, 0]), // keyword end, not compressed, method, empty language and translated keyword
    Buffer.from(text, "utf8"),
  ]);
  const chunk = Buffer.alloc(12 + data.length);
  chunk.writeUInt32BE(data.length, 0);
  chunk.write("iTXt", 4, "latin1");
  data.copy(chunk, 8);
  chunk.writeUInt32BE(crc32(chunk.subarray(4, 8 + data.length)), 8 + data.length);
  const iend = png.length - 12;
  if (png.toString("latin1", iend + 4, iend + 8) !== "IEND") throw new Error("the screenshot does not end with IEND");
  return Buffer.concat([png.subarray(0, iend), chunk, png.subarray(iend)]);
}

// CRC-32 as PNG's chunks use it (ISO 3309).
function crc32(bytes) {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}
