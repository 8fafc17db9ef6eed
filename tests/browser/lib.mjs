// Shared by the browser tests and the benchmark: headless Chromium (Debian's) through
// playwright-core, a page on the board that `solve serve` serves at HOYITO_URL.
import { chromium } from "playwright-core";
import { mkdtempSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const URL = process.env.HOYITO_URL || "http://127.0.0.1:8080";
export const SOLVE = process.env.HOYITO_SOLVE || "target/debug/solve";
export const FAILURES = process.env.HOYITO_FAILURES || "target/browser-failures";

// Without the background-networking flags Chromium keeps calling out to a network that
// is not there.
export async function launch() {
  return chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), "hoyito-chromium-")), {
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: [
      "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync",
    ],
    viewport: { width: 1280, height: 900 },
  });
}

// A fresh page on the board, waiting until it has drawn the start.
export async function openBoard(context, viewport) {
  const page = await context.newPage();
  if (viewport) await page.setViewportSize(viewport);
  await page.goto(URL);
  await page.waitForSelector("#board [data-hole]");
  return page;
}

// Keeps a screenshot of `page` under FAILURES when `fn` throws.
export async function screenshotOnFailure(page, name, fn) {
  try {
    await fn();
  } catch (e) {
    mkdirSync(FAILURES, { recursive: true });
    await page.screenshot({ path: join(FAILURES, `${name}.png`), fullPage: true }).catch(() => {});
    throw e;
  }
}
