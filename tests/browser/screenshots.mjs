// Screenshots of the board for the docs: `node tests/browser/screenshots.mjs OUT_DIR` with
// `solve serve` at HOYITO_URL. Desktop: a game a few moves in, its moves' values proven;
// phone width: the start with the book's values.
import { launch, openBoard } from "./lib.mjs";

const out = process.argv[2] || "target/screenshots";
const context = await launch();
const page = await openBoard(context, { width: 1200, height: 760 });
await page.selectOption("#speed", "0");
await page.click("#load");
await page.fill("#record-text", '[South "Ana"]\n[North "engine level 3"]\n\nS1 N2x4 N1 S3x4 S4 *\n');
await page.click("#record-load");
await page.waitForFunction(() => !document.getElementById("record-dialog").open);
// Each position visited once, for the value graph.
for (let k = 0; k < 5; k++) {
  await page.click("#move-list button >> nth=" + k);
  await page.waitForFunction((k) => document.body.dataset.ply === String(k + 1), k);
  await page.waitForTimeout(900);
}
await page.click("#first");
await page.waitForFunction(() => document.body.dataset.ply === "0" && document.body.dataset.analysis === "done");
await page.click("#last");
await page.waitForFunction(() => document.body.dataset.analysis === "done", null, { timeout: 60_000 });
await page.waitForTimeout(5500); // the toast fades
await page.screenshot({ path: `${out}/board-desktop.png` });
const phone = await openBoard(context, { width: 390, height: 760 });
await phone.waitForFunction(() => document.body.dataset.analysis === "done");
await phone.screenshot({ path: `${out}/board-phone.png` });
await context.close();
