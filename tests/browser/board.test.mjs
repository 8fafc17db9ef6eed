// Browser tests of the web board: headless Chromium drives the page that `solve serve`
// serves (tests/browser.sh starts it and sets HOYITO_URL). A failing test keeps a
// screenshot under target/browser-failures.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { launch, openBoard, screenshotOnFailure, SOLVE } from "./lib.mjs";

let context;
before(async () => {
  context = await launch();
});
after(async () => {
  await context?.close();
});

// A test on a fresh page, its screenshot kept if it fails.
function boardTest(name, fn, viewport) {
  test(name, { timeout: 300_000 }, async () => {
    const page = await openBoard(context, viewport);
    const errors = [];
    page.on("pageerror", (e) => errors.push(e.message));
    try {
      await screenshotOnFailure(page, name.replace(/\W+/g, "-"), async () => {
        await page.selectOption("#speed", "0"); // no animation, except where a test wants one
        await fn(page);
        assert.deepEqual(errors, [], "no script error on the page");
      });
    } finally {
      await page.close();
    }
  });
}

const ply = (page, n) => page.waitForFunction((n) => document.body.dataset.ply === String(n), n, { timeout: 30_000 });
const analysed = (page) => page.waitForFunction(() => document.body.dataset.analysis === "done", null, { timeout: 240_000 });

// The values table as the page shows it: move -> [value, proven].
async function shownValues(page) {
  return page.$$eval("#values tbody tr[data-move]", (rows) =>
    rows.map((r) => [Number(r.dataset.move), Number(r.dataset.value), r.dataset.exact === "true"]));
}

async function newGame(page, fields) {
  await page.click("#new-game");
  const form = page.locator("#new-form");
  for (const [name, value] of Object.entries(fields)) {
    const field = form.locator(`[name="${name}"]`);
    if ((await field.evaluate((e) => e.tagName)) === "SELECT") await field.selectOption(String(value));
    else await field.fill(String(value));
  }
  await page.click("#new-ok");
  await page.waitForFunction(() => !document.getElementById("new-dialog").open);
}

boardTest("the page loads with the book's proven values at the start", async (page) => {
  assert.equal(await page.title(), "Hoyito board");
  assert.equal(await page.locator("#board [data-hole]").count(), 12);
  await analysed(page);
  const values = await shownValues(page);
  assert.equal(values.length, 6);
  assert.deepEqual(values.find(([m]) => m === 1), [1, -28, true]);
  assert.ok(values.every(([, , proven]) => proven));
  assert.match(await page.textContent("#status"), /South to move/);
  // Nothing was fetched from anywhere but the server.
  const external = await page.evaluate(() => performance.getEntriesByType("resource").map((e) => e.name).filter((n) => !n.startsWith(location.origin)));
  assert.deepEqual(external, []);
});

boardTest("a game played by clicks, with an animated sowing, then undone", async (page) => {
  await page.selectOption("#speed", "35");
  await page.click('[data-hole="S1"]');
  await ply(page, 1);
  // RULES.md: South's 1 from the start gives 2,7,1,6,1,6/6,6,0,1,6,6 N.
  const seeds = await page.$$eval("#board [data-hole]", (gs) => gs.map((g) => Number(g.dataset.seeds)));
  assert.deepEqual(seeds, [2, 7, 1, 6, 1, 6, 6, 6, 0, 1, 6, 6]);
  assert.match(await page.textContent("#status"), /North to move.*S1, 5 laps/);
  await page.selectOption("#speed", "0");
  await page.click('[data-hole="N2"]'); // captures 4: North moves again
  await ply(page, 2);
  assert.match(await page.textContent("#status"), /North to move/);
  await page.keyboard.press("1"); // keys play the side to move's holes
  await ply(page, 3);
  assert.deepEqual(await page.$$eval("#move-list button", (b) => b.map((x) => x.textContent)), ["S1", "N2x4", "N1"]);
  await page.click("#undo");
  await ply(page, 2);
  assert.equal(await page.locator("#move-list button").count(), 2);
  await page.click("#back");
  await ply(page, 1);
  await page.click("#forward");
  await ply(page, 2);
  await page.click('#move-list button >> nth=0'); // jump
  await ply(page, 1);
  assert.equal(await page.getAttribute("#move-list button >> nth=0", "aria-current"), "step");
});

for (const position of ["1,0,2,3,0,3/1,0,0,1,0,1 S", "1,2,0,3,1,1/1,0,2,0,0,1 S"]) {
  boardTest(`the values shown at ${position} equal solve best --all-moves --exact`, async (page) => {
    await newGame(page, { start: position });
    await analysed(page);
    const cli = JSON.parse(execFileSync(SOLVE, ["best", "--all-moves", "--exact", "--json", position], { encoding: "utf8" }));
    const expected = cli.moves.map((m) => [m.move, m.score, m.exact]);
    const state = await page.textContent("#analysis-state");
    assert.deepEqual(await shownValues(page), expected, `the page says: ${state}`);
    assert.match(state, /proven/);
  });
}

boardTest("a Hoyito III match of two rounds between engines", async (page) => {
  await newGame(page, { variant: "hoyito3", rounds: 2, south: "engine", north: "engine" });
  await page.selectOption("#level", "1");
  // The engines play round 1 to its end.
  await page.waitForSelector("#next-round:not([hidden])", { timeout: 90_000 });
  assert.match(await page.textContent("#match-text"), /round 1 of 2/);
  assert.match(await page.textContent("#status"), /Game over/);
  await page.click("#next-round");
  await page.waitForFunction(() => /round 2 of 2/.test(document.getElementById("match-text").textContent));
  await page.waitForFunction(() => /wins the match|match is drawn/.test(document.getElementById("match-text").textContent), null, { timeout: 90_000 });
});

boardTest("a record is loaded, and the game saved as a record", async (page) => {
  const record = [
    '[Variant "hoyito2"]', '[South "Ana"]', '[North "Luis"]', "", "S1 N2x4 N1 *", "",
  ].join("\n");
  await page.click("#load");
  await page.fill("#record-text", record);
  await page.click("#record-load");
  await ply(page, 3);
  assert.deepEqual(await page.$$eval("#move-list button", (b) => b.map((x) => x.textContent)), ["S1", "N2x4", "N1"]);
  // A bad record is refused with the reader's message.
  await page.click("#load");
  await page.fill("#record-text", "S9 *");
  await page.click("#record-load");
  await page.waitForFunction(() => document.getElementById("record-error").textContent.length > 0);
  assert.match(await page.textContent("#record-error"), /line 1/);
  await page.click("#record-cancel");
  await page.click("#save");
  await page.waitForFunction(() => document.getElementById("record-text").value.includes("S1 N2x4 N1"));
  assert.match(await page.inputValue("#record-text"), /\[Start "4,4,4,4,4,4\/4,4,4,4,4,4 S 0-0"\]/);
});

boardTest("a bad position in the new-game dialog says why", async (page) => {
  await page.click("#new-game");
  await page.fill('#new-form [name="start"]', "1,2,3/4,5 S");
  await page.click("#new-ok");
  await page.waitForFunction(() => document.getElementById("new-error").textContent.length > 0);
  assert.match(await page.textContent("#new-error"), /bad position/);
});

boardTest("the board fits a phone's width", async (page) => {
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 390, `the page is ${width} px wide`);
  await page.click('[data-hole="S3"]');
  await ply(page, 1);
}, { width: 390, height: 844 });

boardTest("a game against the engine, and the book two plies deep", async (page) => {
  await page.selectOption("#level", "1");
  await page.selectOption("#north-player", "engine");
  await page.click('[data-hole="S1"]');
  // North's engine answers (a capture gives it another move).
  await page.waitForFunction(() => Number(document.body.dataset.ply) >= 2 && /South to move/.test(document.getElementById("status").textContent), null, { timeout: 60_000 });
  const plies = await page.$$eval("#move-list button", (b) => b.map((x) => x.textContent));
  assert.equal(plies[0], "S1");
  assert.ok(plies.slice(1).every((p) => p.startsWith("N")), plies.join(" "));
  // Undo takes back the engine's moves and South's.
  await page.click("#undo");
  await ply(page, 0);
  await page.click("#book-panel summary");
  await page.waitForSelector("#book tr[data-book]");
  assert.equal(await page.locator("#book tr[data-book]").count(), 6);
  assert.match(await page.textContent('#book tr[data-book="1"]'), /-28/);
});

boardTest("the keyboard's focus stays on a hole while values stream in", async (page) => {
  await newGame(page, { start: "1,2,0,3,1,1/1,0,2,0,0,1 S" });
  await page.focus('[data-hole="S2"]');
  await analysed(page);
  assert.equal(await page.evaluate(() => document.activeElement?.dataset?.hole), "S2");
  assert.match(await page.getAttribute('[data-hole="S2"]', "aria-label"), /South hole 2, 2 seeds, value \+12 proven/);
  await page.keyboard.press("Enter");
  await ply(page, 1);
});
