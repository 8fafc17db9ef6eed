// Figures of the web board (docs/benchmarks.md, "Web board"): first paint, the book's
// values at the start, a small position within the tables (with --tables) and proven over
// the small layers built in memory (without), and a click answered while another tab's
// analysis runs. It measures and asserts nothing. It starts its own `solve serve --port 0`
// (and a second one without tables when given --tables):
//
//   node benches/scripts/web_bench.mjs [path/to/solve] [--tables DIR]
//
// Needs tests/browser's playwright-core (npm ci there) and /usr/bin/chromium.
import { spawn } from "node:child_process";
import { launch } from "../../tests/browser/lib.mjs";

const args = process.argv.slice(2);
const solve = args[0] && !args[0].startsWith("--") ? args.shift() : "target/release/solve";
function start(extra) {
  const server = spawn(solve, ["serve", "--port", "0", ...extra], { stdio: ["ignore", "pipe", "inherit"] });
  const url = new Promise((resolve, reject) => {
    let out = "";
    server.stdout.on("data", (d) => {
      out += d;
      const m = out.match(/http:\/\/[0-9.:]+/);
      if (m) resolve(m[0]);
    });
    server.on("exit", () => reject(new Error("solve serve stopped: " + out)));
  });
  return { server, url };
}
const main = start(args);
const url = await main.url;
const server = main.server;
// Without tables on disk, a small 2x6 position is proven over layers built in memory.
const bare = args.includes("--tables") ? start([]) : null;
const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const context = await launch();
const figures = {};
try {
  // First paint: navigation start to the first contentful paint, and to the board drawn.
  const paints = [], boards = [];
  for (let k = 0; k < 5; k++) {
    const page = await context.newPage();
    await page.goto(url);
    await page.waitForSelector("#board [data-hole]");
    const t = await page.evaluate(() => ({
      paint: performance.getEntriesByName("first-contentful-paint")[0]?.startTime,
      board: performance.now(),
    }));
    paints.push(t.paint);
    boards.push(t.board);
    await page.close();
  }
  figures.first_contentful_paint_ms = median(paints);
  figures.board_drawn_ms = median(boards);

  const page = await context.newPage();
  await page.goto(url);
  await page.waitForSelector("#board [data-hole]");
  // The time from opening an analysis stream to its first answer where every move is
  // proven (`exact`), over `runs` runs.
  const proven = (game, runs) => page.evaluate(async ({ game, runs }) => {
    const times = [];
    for (let k = 0; k < runs; k++) {
      const t0 = performance.now();
      await new Promise((resolve, reject) => {
        const q = new URLSearchParams({ tab: "bench" + k, game: JSON.stringify(game) });
        const es = new EventSource("/api/analysis?" + q);
        es.addEventListener("analysis", (e) => {
          const a = JSON.parse(e.data);
          if (a.moves.length && a.moves.every((m) => m.exact)) { es.close(); resolve(); }
        });
        es.addEventListener("done", () => { es.close(); reject(new Error("not proven")); });
      });
      times.push(performance.now() - t0);
    }
    return times;
  }, { game, runs });
  figures.book_start_all_moves_ms = median(await proven({}, 9));
  const small = { start: "1,2,0,3,1,1/1,0,2,0,0,1 S" };
  const key = args.includes("--tables") ? "tables_position_ms" : "in_memory_position_ms";
  figures[key] = median(await proven(small, 5));
  if (bare) {
    await page.goto(await bare.url);
    await page.waitForSelector("#board [data-hole]");
    figures.in_memory_position_ms = median(await proven(small, 3));
    await page.goto(url);
  }

  // A click while another tab's long analysis runs (the 2x12 start: never proven).
  const busy = await context.newPage();
  await busy.goto(url);
  await busy.waitForSelector("#board [data-hole]");
  await busy.evaluate(() => {
    const q = new URLSearchParams({ tab: "busy", game: JSON.stringify({ rules: { holes: 12 } }) });
    window.busy = new EventSource("/api/analysis?" + q);
  });
  await page.selectOption("#speed", "0");
  await page.goto(url);
  await page.waitForSelector("#board [data-hole]");
  await page.selectOption("#speed", "0");
  // From the click (dispatched in the page) to the board of the move drawn, and the
  // play request alone.
  const clicks = [], plays = [];
  for (const hole of ["S1", "N2", "N1", "S3"]) {
    await page.waitForTimeout(300); // the page's own analysis of the position is running
    const t = await page.evaluate(async (hole) => {
      const ply = Number(document.body.dataset.ply);
      const t0 = performance.now();
      document.querySelector(`[data-hole="${hole}"]`).dispatchEvent(new MouseEvent("click", { bubbles: true }));
      while (Number(document.body.dataset.ply) !== ply + 1) await new Promise((r) => setTimeout(r, 1));
      const click = performance.now() - t0;
      const entries = performance.getEntriesByType("resource").filter((e) => e.name.endsWith("/api/play"));
      return { click, play: entries[entries.length - 1].duration };
    }, hole);
    clicks.push(t.click);
    plays.push(t.play);
  }
  figures.play_request_while_analysing_ms = median(plays);
  figures.click_while_analysing_ms = median(clicks);
  figures.click_while_analysing_max_ms = Math.max(...clicks);
  await busy.close();
} finally {
  await context.close();
  server.kill();
  bare?.server.kill();
}
console.log(JSON.stringify({ solve, url, ...figures }, null, 2));
