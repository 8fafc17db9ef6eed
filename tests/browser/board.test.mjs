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

// A POST to the server's API from the test, as JSON.
async function api(page, path, data) {
  return (await page.request.post(new URL(path, page.url()).href, { data })).json();
}

// Starts a new game from the dialog's `fields`, and waits until the page shows it.
async function newGame(page, fields) {
  const game = await page.evaluate(() => document.body.dataset.game);
  await page.click("#new-game");
  const form = page.locator("#new-form");
  for (const [name, value] of Object.entries(fields)) {
    const field = form.locator(`[name="${name}"]`);
    if ((await field.evaluate((e) => e.tagName)) === "SELECT") await field.selectOption(String(value));
    else await field.fill(String(value));
  }
  await page.click("#new-ok");
  await page.waitForFunction(() => !document.getElementById("new-dialog").open);
  await page.waitForFunction((game) => document.body.dataset.game !== game, game);
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

// Starts recording what the page shows at each change of the board, the values or the
// status: `snap()` (run in the page) gives one record; `window.shots` holds them all.
async function record(page, snap) {
  await page.evaluate((source) => {
    const snap = new Function(`return (${source})();`);
    window.shots = [snap()];
    new MutationObserver(() => window.shots.push(snap()))
      .observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
  }, snap.toString());
}

// What the board and the move table show: the side whose moves they list, each valued
// move with its value in the table and under its hole, the best line.
function valuesShown() {
  const rows = [...document.querySelectorAll("#values tbody tr[data-move]")];
  return {
    ply: document.body.dataset.ply,
    side: rows[0]?.querySelector("button").textContent[0],
    table: rows.filter((r) => r.dataset.value !== undefined).map((r) => [Number(r.dataset.move), Number(r.dataset.value)]),
    board: [...document.querySelectorAll("#board .hole")].filter((g) => g.querySelector(".hole-value"))
      .map((g) => [g.dataset.hole, Number(g.querySelector(".hole-value").textContent.replace("?", ""))]),
    pv: document.getElementById("pv").textContent,
  };
}

boardTest("after a move, no value of the position before is shown on the new one", async (page) => {
  const book = await api(page, "/api/book", {});
  const start = new Map(book.map((m) => [m.move, m.value]));
  const afterS1 = new Map(book.find((m) => m.move === 1).replies.map((r) => [r.move, r.value]));
  await analysed(page);
  await page.selectOption("#speed", "35");
  await record(page, valuesShown);
  await page.click('[data-hole="S1"]');
  await ply(page, 1);
  await analysed(page);
  const shots = await page.evaluate(() => window.shots);
  assert.ok(shots.some((s) => s.side === "S" && s.table.length === 6), "the start's values were shown");
  assert.ok(shots.some((s) => s.side === "N" && s.table.length === 5), "the values after S1 were shown");
  for (const s of shots) {
    const values = s.side === "S" ? start : afterS1;
    for (const [move, value] of s.table) assert.equal(value, values.get(move), `${s.side}${move} in ${JSON.stringify(s)}`);
    for (const [hole, value] of s.board) {
      assert.equal(hole[0], s.side, JSON.stringify(s));
      assert.equal(value, values.get(Number(hole.slice(1))), `${hole} in ${JSON.stringify(s)}`);
    }
  }
});

boardTest("after the engine's move, every value shown is of an answer for the position shown", async (page) => {
  // Every analysis answer the page receives, with the moves of the game it is for.
  await page.addInitScript(() => {
    window.answers = [];
    const Source = window.EventSource;
    window.EventSource = class extends Source {
      constructor(url, options) {
        super(url, options);
        const ply = JSON.parse(new URL(url, location.href).searchParams.get("game")).moves.length;
        this.addEventListener("analysis", (e) => window.answers.push({ ply, moves: JSON.parse(e.data).moves }));
      }
    };
  });
  await page.reload();
  await page.waitForSelector("#board [data-hole]");
  await page.selectOption("#level", "1");
  await page.selectOption("#north-player", "engine");
  await page.selectOption("#speed", "35");
  await analysed(page);
  await record(page, valuesShown);
  await page.click('[data-hole="S1"]');
  // The engine answers; the values of South's next move come.
  await page.waitForFunction(() => Number(document.body.dataset.ply) >= 2 && document.querySelector("#values tbody tr[data-value]")?.dataset.move
    && document.querySelector("#values button.play").textContent.startsWith("S"), null, { timeout: 120_000 });
  const { shots, answers } = await page.evaluate(() => ({ shots: window.shots, answers: window.answers }));
  const plies = new Set(shots.filter((s) => s.table.length).map((s) => s.ply));
  assert.ok(plies.size >= 2, `values shown at plies ${[...plies]}`);
  for (const s of shots) {
    if (!s.table.length) continue;
    const fits = answers.some((a) => String(a.ply) === s.ply && s.table.every(([move, value]) => a.moves.some((m) => m.move === move && m.score === value)));
    assert.ok(fits, `no answer for ply ${s.ply} has the values shown: ${JSON.stringify(s)}`);
    const board = new Map(s.board.map(([hole, value]) => [Number(hole.slice(1)), value]));
    assert.deepEqual(board, new Map(s.table), JSON.stringify(s));
  }
});

boardTest("analysis answers for another position, and best lines that do not fit the table, are not shown", async (page) => {
  const start = "1,2,0,3,1,1/1,0,2,0,0,1 S";
  const shown = (await api(page, "/api/position", { start })).position;
  const values = [[1, 5], [2, 7], [4, -1], [5, 3], [6, -3]];
  const answer = (position, pv, score) => ({
    position, phase: "estimate", source: "search", exact: false, final: true, score, best: pv[0], pv, depth: 9,
    moves: values.map(([move, score]) => ({ move, score, exact: false, depth: 9 })),
  });
  let events = [];
  await page.route("**/api/analysis?**", (route) => route.fulfill({
    status: 200,
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
    body: events.map((e) => `event: analysis\ndata: ${JSON.stringify(e)}\n\n`).join("") + "event: done\ndata: {\"done\":true}\n\n",
  }));
  const table = () => page.$$eval("#values tbody tr[data-value]", (rows) => rows.map((r) => [Number(r.dataset.move), Number(r.dataset.value)]));
  // An answer for another position is dropped.
  events = [answer("1,2,0,3,1,1/1,0,2,0,0,2 S 0-0", [2, 1], 7)];
  await newGame(page, { start });
  await analysed(page);
  assert.deepEqual(await table(), []);
  assert.equal(await page.textContent("#pv"), "");
  // A best line whose first move is illegal (hole 3 is empty) is not shown.
  events = [answer(shown, [3, 1], 8)];
  await newGame(page, { start });
  await analysed(page);
  assert.deepEqual(await table(), values);
  assert.equal(await page.textContent("#pv"), "");
  // A best line is shown with its first move's value in the table, not a higher one.
  events = [answer(shown, [2, 1, 4], 8)];
  await newGame(page, { start });
  await analysed(page);
  assert.match(await page.textContent("#pv"), /^Best line: 2 1 4 \(value \+7\)$/);
  // Nor is a line whose first move is not the best of the table.
  events = [answer(shown, [1, 2], 5)];
  await newGame(page, { start });
  await analysed(page);
  assert.deepEqual(await table(), values);
  assert.equal(await page.textContent("#pv"), "");
});

// The stores and the turn mark on the board, and whether a sowing is being drawn.
function storesShown() {
  const store = (side) => document.querySelector(`#board [data-store="${side}"]`);
  return {
    sowing: document.body.dataset.analysis === "waiting",
    south: Number(store("S")?.dataset.captured),
    north: Number(store("N")?.dataset.captured),
    toMove: document.querySelector("#board .store.to-move")?.dataset.store,
    capturing: document.querySelectorAll("#board .hole.captured").length,
  };
}

boardTest("the stores and the turn change with the sowing's animation, not before it", async (page) => {
  await page.selectOption("#speed", "110");
  await record(page, storesShown);
  await page.click('[data-hole="S1"]');
  await ply(page, 1);
  let shots = await page.evaluate(() => window.shots);
  let sowing = shots.filter((s) => s.sowing);
  assert.ok(sowing.length > 3, `${sowing.length} pictures of S1's sowing`);
  // South's turn is marked until S1's sowing ends.
  assert.deepEqual([...new Set(sowing.map((s) => s.toMove))], ["S"]);
  assert.equal(shots[shots.length - 1].toMove, "N");
  await record(page, storesShown);
  await page.click('[data-hole="N2"]'); // captures 4
  await ply(page, 2);
  shots = await page.evaluate(() => window.shots);
  sowing = shots.filter((s) => s.sowing);
  const before = sowing.filter((s) => s.capturing === 0);
  assert.ok(before.length > 3, `${before.length} pictures before the capture`);
  // North's store takes the 4 seeds when the capture is drawn, not before.
  assert.deepEqual([...new Set(before.map((s) => s.north))], [0]);
  assert.ok(sowing.some((s) => s.capturing > 0 && s.north === 4), "the capture is drawn with its seeds in the store");
  assert.deepEqual(shots[shots.length - 1], { sowing: false, south: 0, north: 4, toMove: "N", capturing: 1 });
});

boardTest("after a move the keyboard's focus is on the board, and play goes on by keys", async (page) => {
  const focused = () => page.evaluate(() => {
    const e = document.activeElement;
    return e?.closest("#board") ? e.dataset.hole ?? "board" : e?.tagName;
  });
  await page.click('[data-hole="S1"]');
  await ply(page, 1);
  assert.equal(await focused(), "board", "after a click");
  // Tab reaches a hole North may play, Enter plays it, and the focus stays on a hole.
  await page.keyboard.press("Tab");
  const hole = await focused();
  assert.match(hole, /^N\d$/);
  await page.keyboard.press("Enter");
  await ply(page, 2);
  assert.deepEqual(await page.$$eval("#move-list button", (b) => b.map((x) => x.textContent.slice(0, 2))), ["S1", hole]);
  assert.match(await focused(), /^[NS]\d$/, "after Enter on a hole");
  assert.ok(await page.evaluate(() => document.activeElement.matches(".hole.playable")));
  // A move played from the values table leaves the focus on the board too, and a key
  // plays the next move.
  await page.click("#values button.play >> nth=0");
  await ply(page, 3);
  assert.equal(await page.evaluate(() => document.activeElement?.closest("#board") !== null), true, "after the table");
  const next = await page.$eval("#values button.play", (b) => b.textContent.slice(0, 2));
  await page.keyboard.press(next[1]);
  await ply(page, 4);
  assert.equal((await page.$$eval("#move-list button", (b) => b.map((x) => x.textContent.slice(0, 2))))[3], next);
});

boardTest("keys 0, - and = play holes 10, 11 and 12 of a 2x12 board", async (page) => {
  await newGame(page, { holes: 12 });
  assert.equal(await page.locator("#board [data-hole]").count(), 24);
  await page.keyboard.press("0");
  await ply(page, 1);
  await page.keyboard.press("-");
  await ply(page, 2);
  await page.keyboard.press("=");
  await ply(page, 3);
  assert.deepEqual(await page.$$eval("#move-list button", (b) => b.map((x) => x.textContent)), ["S10", "N11", "S12x4"]);
  // On a 2x6 board they play nothing.
  await newGame(page, { holes: 6 });
  for (const key of ["0", "-", "=", "7"]) await page.keyboard.press(key);
  await page.keyboard.press("2");
  await ply(page, 1);
  assert.deepEqual(await page.$$eval("#move-list button", (b) => b.map((x) => x.textContent)), ["S2"]);
  // The page's help names the keys.
  assert.match(await page.textContent("#keys-help"), /0.*-.*=.*10, 11, 12/s);
});

boardTest("the value graph has its margins and plies as numbers", async (page) => {
  await page.click("#load");
  await page.fill("#record-text", "S1 N2x4 N1 *\n");
  await page.click("#record-load");
  await ply(page, 3);
  const ticks = (axis) => page.$$eval(`#graph .${axis}-tick`, (t) => t.map((x) => x.textContent));
  assert.deepEqual(await ticks("x"), ["0", "1", "2", "3"]);
  // The curve's points (the book's positions, at once) lie within the labelled margins.
  await page.click("#first");
  await ply(page, 0);
  await analysed(page);
  await page.click("#forward");
  await ply(page, 1);
  await analysed(page);
  const points = await page.$$eval("#graph .pt title", (t) => t.map((x) => Number(x.textContent.match(/ends ([-+]?\d+)/)[1])));
  assert.ok(points.length >= 2, `${points.length} points`);
  const y = await ticks("y");
  const top = Number(y[0]);
  assert.ok(top > 0 && y.includes("0") && y.includes(String(-top)), y.join(" "));
  assert.ok(points.every((p) => Math.abs(p) <= top), `${points.join(" ")} within ${y.join(" ")}`);
  assert.ok(points.includes(-28), `the start's -28 is on the graph: ${points.join(" ")}`);
});

boardTest("the page has an icon, served by the server", async (page) => {
  const href = await page.getAttribute('link[rel="icon"]', "href");
  const response = await page.request.get(new URL(href, page.url()).href);
  assert.equal(response.status(), 200);
  assert.match(response.headers()["content-type"], /^image\/svg\+xml/);
  assert.match(await response.text(), /^<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
});
