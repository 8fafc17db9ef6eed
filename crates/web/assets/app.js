// The Hoyito web board. It draws what the server answers and calls its API
// (docs/web.md); it knows no rule: the legal moves, the board after a move, its laps and
// captures, and every value come from the server.
//
// Three parts, as in lichess's analysis board: the server's API (server.js), the drawing
// (view.js, which draws from the state only), and here the state, the one function that
// changes it (`update`), and the controller that calls the server and plays the sowings.
import * as server from "./server.js";
import { render, canPlay, shownAnalysis, sideName, HOLE_KEYS } from "./view.js";

const $ = (id) => document.getElementById(id);

// ---- The state ------------------------------------------------------------------------

const state = {
  spec: { rules: {}, moves: [] }, // the game as the server takes it, less its moves
  line: [], // every move of the game's line (the cursor may stand before its end)
  cursor: 0, // moves of `line` shown
  plies: [], // the line's moves as records write them, for the move list
  view: null, // the server's board at the cursor
  players: { S: "human", N: "human" },
  level: "3",
  speed: 110, // ms a seed of the sowing animation; 0: none
  // The analysis of the position shown: {position, answer, done}. An answer for another
  // position never gets in (see `update`).
  analysis: null,
  graph: [], // South's final margin under best play at each cursor, once known
  frame: null, // the sowing animation's picture: {counts, marks, captured, side, status, lap}
  skip: false, // the animation is to end now
  busy: false, // a move, a jump or an animation in progress
  thinking: false, // the engine is choosing a move
  book: null, // the opening book of the rules: {key, tree} or {key, error}
  toast: null,
  // The keyboard's focus goes back to the board after each move (`count`), to a hole when
  // the move was played from a hole by the keyboard (`hole`).
  focus: { count: 0, hole: false },
  shown: 0, // counts the positions shown: an animation or its end for an older one is dropped
  game: 0, // counts the games started
};

// Every change of the state goes through here; the page is redrawn from the state on the
// next animation frame.
function update(action) {
  const s = state;
  switch (action.type) {
    case "show": {
      // A new position: the view, and whatever of the game changed with it. Its analysis
      // starts empty: nothing of the position before is shown on it.
      for (const k of ["spec", "line", "plies", "graph", "players"]) if (action[k]) s[k] = action[k];
      if (action.newGame) s.game += 1;
      s.shown += 1;
      s.view = action.view;
      s.cursor = action.cursor;
      s.analysis = { position: action.view.position, answer: null, done: action.view.over };
      if (action.view.over) s.graph[s.cursor] = action.view.captured[0] - action.view.captured[1];
      s.frame = action.frame ?? null;
      s.skip = false;
      if (action.moved) s.focus = { count: s.focus.count + 1, hole: action.byKey ?? s.focus.hole };
      break;
    }
    case "frame":
      if (action.shown !== s.shown) return;
      s.frame = action.frame;
      break;
    case "settled":
      if (action.shown !== s.shown) return;
      s.frame = null;
      s.busy = false;
      if (action.moved) s.focus = { ...s.focus, count: s.focus.count + 1 };
      break;
    case "busy":
      s.busy = action.busy;
      break;
    case "thinking":
      s.thinking = action.thinking;
      break;
    case "skip":
      s.skip = true;
      break;
    case "analysis": {
      // An answer is taken only for the position shown.
      const a = s.analysis;
      if (!a || action.position !== a.position) return;
      a.answer = action.answer;
      if (action.answer.exact || action.answer.final) graphPoint();
      break;
    }
    case "analysis-done":
      if (s.analysis && action.position === s.analysis.position) s.analysis.done = true;
      break;
    case "players":
      s.players = { ...s.players, [action.side]: action.who };
      break;
    case "level":
      s.level = action.level;
      break;
    case "speed":
      s.speed = action.speed;
      break;
    case "book":
      s.book = action.book;
      break;
    case "toast":
      s.toast = action.text;
      break;
    default:
      throw new Error(`unknown action ${action.type}`);
  }
  scheduleRender();
}

// The graph's point at the cursor: the margin so far plus the best value of the moves'
// table, the same value the table and the best line show.
function graphPoint() {
  const v = state.view;
  const a = shownAnalysis({ ...state, frame: null });
  if (!a || !a.moves.size) return;
  const best = Math.max(...[...a.moves.values()].map((m) => m.score));
  state.graph[state.cursor] = v.captured[0] - v.captured[1] + (v.side === "S" ? best : -best);
}

let pending = false;
function scheduleRender() {
  if (pending) return;
  pending = true;
  requestAnimationFrame(() => {
    pending = false;
    render(state);
  });
}

// ---- The controller -------------------------------------------------------------------

const tab = Math.random().toString(36).slice(2) + Date.now().toString(36);
const specAt = (cursor) => ({ ...state.spec, moves: state.line.slice(0, cursor) });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function toast(text) {
  update({ type: "toast", text });
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => update({ type: "toast", text: null }), 5000);
}

let closeAnalysis = () => {};
// Streams the analysis of the position shown; its answers are tagged with their position.
function startAnalysis() {
  closeAnalysis();
  closeAnalysis = () => {};
  const v = state.view;
  if (v.over) return;
  closeAnalysis = server.analyse(tab, specAt(state.cursor), v.position, {
    analysis: (position, answer) => update({ type: "analysis", position, answer }),
    failure: (message) => toast(message),
    done: () => update({ type: "analysis-done", position: v.position }),
  });
}

// Shows `view` at `cursor` (with `changes` to the game: spec, line, plies, graph,
// players), playing its last move's sowing first when `moved` and the speed is not 0.
async function arrive(view, cursor, changes = {}) {
  const before = state.view;
  const trace = changes.moved && state.speed > 0 && before ? view.last : null;
  update({ type: "show", view, cursor, ...changes, frame: trace ? { ...firstFrame(trace, before), lap: "" } : null });
  const shown = state.shown;
  startAnalysis();
  if (trace) await animate(trace, before.captured, view.captured);
  update({ type: "settled", shown, moved: changes.moved });
  maybeEngine();
}

function firstFrame(trace, before) {
  const status = `${sideName(trace.side)} plays ${trace.side}${trace.move}: ${trace.laps.length} lap${trace.laps.length > 1 ? "s" : ""}.`;
  return { counts: trace.before.slice(), marks: {}, captured: before.captured, side: trace.side, status };
}

function holeName(i, n) {
  const h = n / 2;
  return (i < h ? "S" : "N") + ((i % h) + 1);
}

// Plays the server's laps of `trace` on the board: lift, sow seed by seed, relay, capture.
// The stores change when the capture is drawn, the turn when the sowing ends.
async function animate(trace, capturedBefore, capturedAfter) {
  const base = state.frame;
  const shown = state.shown;
  const counts = trace.before.slice();
  const n = counts.length;
  const frame = (marks, lap, captured = capturedBefore) =>
    update({ type: "frame", shown, frame: { ...base, counts: counts.slice(), marks, lap, captured } });
  // Waits `k` steps; false when the animation is to end now (skipped, or another position
  // shown meanwhile).
  const wait = async (k) => {
    if (!state.skip) await sleep(state.speed * k);
    return !state.skip && state.shown === shown;
  };
  for (const [k, lap] of trace.laps.entries()) {
    counts[lap.from] = 0;
    const lifted = `lap ${k + 1} of ${trace.laps.length}: ${lap.sown} seeds from ${holeName(lap.from, n)}`;
    frame({ [lap.from]: "origin" }, lifted);
    if (!(await wait(2))) return;
    // One seed into each hole of the lap's path, as the server gives it.
    for (const at of lap.path) {
      counts[at] += 1;
      frame({ [lap.from]: "origin", [at]: "sowing" }, lifted);
      if (!(await wait(1))) return;
    }
    const ends = lap.seeds === 1 ? "the move ends" : k + 1 < trace.laps.length ? "relay" : "capture";
    frame({ [lap.landing]: "landing" }, `lap ${k + 1} ends in ${holeName(lap.landing, n)} (${lap.seeds}): ${ends}`);
    if (!(await wait(3))) return;
  }
  if (trace.captured_holes.length) {
    const marks = {};
    for (const h of trace.captured_holes) marks[h] = "captured";
    const lap = `captures ${4 * trace.captured_holes.length} from ${trace.captured_holes.map((h) => holeName(h, n)).join(", ")}`;
    frame(marks, lap);
    if (!(await wait(4))) return;
    for (const h of trace.captured_holes) counts[h] = 0;
    frame(marks, lap, capturedAfter);
    await wait(2);
  }
}

// Plays `hole` for the side to move; `byKey`: from a hole with the keyboard's focus.
async function playMove(hole, byKey = false) {
  if (!canPlay(state) || !state.view.moves.some((m) => m.move === hole)) return;
  update({ type: "busy", busy: true });
  let view;
  try {
    view = await server.play(specAt(state.cursor), hole);
  } catch (e) {
    update({ type: "busy", busy: false });
    return toast(e.message);
  }
  // The line's own next move keeps the line; another move cuts it here.
  const c = state.cursor;
  const changes = state.line[c] === hole
    ? {}
    : { line: state.line.slice(0, c).concat(hole), plies: view.plies, graph: state.graph.slice(0, c + 1) };
  await arrive(view, c + 1, { ...changes, moved: true, byKey });
}

async function maybeEngine() {
  const v = state.view;
  if (v.over || state.busy || state.thinking || state.cursor !== state.line.length) return;
  if (state.players[v.side] !== "engine") return;
  const spec = specAt(state.cursor);
  update({ type: "thinking", thinking: true });
  let answer;
  try {
    answer = await server.engine(spec, state.level);
  } catch (e) {
    toast(e.message);
  } finally {
    update({ type: "thinking", thinking: false });
  }
  if (!answer) return;
  // The position may have changed meanwhile (new game, undo, navigation): the engine
  // then looks again at the position now shown.
  if (state.busy || JSON.stringify(specAt(state.cursor)) !== JSON.stringify(spec) || state.cursor !== state.line.length) {
    return maybeEngine();
  }
  update({ type: "busy", busy: true });
  const line = state.line.concat(answer.engine.move);
  await arrive(answer.view, state.cursor + 1, { line, plies: answer.view.plies, moved: true });
}

// Shows the position after `cursor` moves of the line.
async function jump(cursor) {
  cursor = Math.max(0, Math.min(cursor, state.line.length));
  if (state.busy || cursor === state.cursor) return;
  update({ type: "busy", busy: true });
  try {
    await arrive(await server.position(specAt(cursor)), cursor);
  } catch (e) {
    update({ type: "busy", busy: false });
    toast(e.message);
  }
}

// Undo: takes back the last move, and the engine's moves before it, to a human's turn.
async function undo() {
  if (state.busy || state.cursor === 0) return;
  let k = state.cursor - 1;
  const human = (s) => state.players[s] === "human";
  while (k > 0 && state.plies[k] && !human(state.plies[k].side) && (human("S") || human("N"))) k -= 1;
  update({ type: "busy", busy: true });
  try {
    const view = await server.position(specAt(k));
    await arrive(view, k, { line: state.line.slice(0, k), plies: view.plies, graph: state.graph.slice(0, k + 1) });
  } catch (e) {
    update({ type: "busy", busy: false });
    toast(e.message);
  }
}

// A new game from `spec` (its moves played), with `players` if given.
async function newGame(spec, players) {
  const view = await server.position(spec);
  const line = spec.moves.slice();
  await arrive(view, line.length, {
    spec: { ...spec, moves: [] }, line, plies: view.plies, graph: [], players, newGame: true,
  });
  loadBook();
}

async function nextRound() {
  if (state.busy) return;
  const spec = { ...state.spec, earlier_rounds: [...(state.spec.earlier_rounds || []), state.line.slice()] };
  try {
    const view = await server.position({ ...spec, moves: [] });
    await arrive(view, 0, { spec, line: [], plies: [], graph: [] });
  } catch (e) {
    toast(e.message);
  }
}

async function loadBook() {
  const rules = state.view.rules;
  const key = JSON.stringify(rules);
  if (state.book?.key === key) return;
  try {
    update({ type: "book", book: { key, tree: await server.book(rules) } });
  } catch (e) {
    update({ type: "book", book: { key, error: e.message } });
  }
}

// ---- Dialogs: a new game, records -----------------------------------------------------

function openNewDialog() {
  const f = $("new-form");
  const r = state.view.rules;
  f.variant.value = r.variant;
  f.holes.value = String(r.holes);
  f.seeds.value = String(r.seeds);
  f.last_four.value = r.last_four;
  f.capture_side.value = r.capture_side;
  f.south.value = state.players.S;
  f.north.value = state.players.N;
  $("new-error").textContent = "";
  $("new-dialog").showModal();
}

async function submitNewGame(ev) {
  ev.preventDefault();
  const f = $("new-form");
  const rules = {
    variant: f.variant.value,
    holes: Number(f.holes.value),
    seeds: Number(f.seeds.value),
    capture_side: f.capture_side.value,
  };
  const rounds = Number(f.rounds.value) || 0;
  if (!rounds) rules.last_four = f.last_four.value;
  const spec = { rules, moves: [] };
  const start = f.start.value.trim();
  if (start) spec.start = start;
  if (rounds) spec.rounds = rounds;
  try {
    await newGame(spec, { S: f.south.value, N: f.north.value });
    $("new-dialog").close();
  } catch (e) {
    $("new-error").textContent = e.message;
  }
}

function openRecordDialog(text) {
  $("record-text").value = text || "";
  $("record-error").textContent = "";
  const a = $("record-download");
  a.hidden = !text;
  if (text) {
    if (a.href.startsWith("blob:")) URL.revokeObjectURL(a.href);
    a.href = URL.createObjectURL(new Blob([text], { type: "text/plain" }));
  }
  $("record-load").hidden = !!text;
  $("record-file-label").hidden = !!text;
  $("record-dialog").showModal();
}

async function loadRecord(ev) {
  ev.preventDefault();
  try {
    const games = await server.readRecord($("record-text").value);
    const g = games[games.length - 1];
    await newGame(g.game, { S: "human", N: "human" });
    $("record-dialog").close();
    toast(`Loaded ${g.south} - ${g.north} (${g.result})` + (games.length > 1 ? `, the last of ${games.length} games` : ""));
  } catch (e) {
    $("record-error").textContent = e.message;
  }
}

async function saveRecord() {
  try {
    const name = (s) => (state.players[s] === "engine" ? `engine level ${state.level}` : "human");
    const r = await server.writeRecord(specAt(state.line.length), name("S"), name("N"));
    openRecordDialog(r.text);
  } catch (e) {
    toast(e.message);
  }
}

async function copyPosition() {
  const text = state.view.position;
  try {
    await navigator.clipboard.writeText(text);
    toast(`Copied: ${text}`);
  } catch {
    toast(`Position: ${text}`);
  }
}

// ---- Input ----------------------------------------------------------------------------

// The hole a key plays (1 to 9, 0 for 10, - for 11, = or + for 12), if the board has it.
function holeOfKey(key) {
  const k = key === "+" ? HOLE_KEYS.indexOf("=") : HOLE_KEYS.indexOf(key);
  return k >= 0 && k < state.view.holes ? k + 1 : null;
}

const holeOf = (target) => {
  const g = target.closest && target.closest("#board .hole.playable");
  return g ? Number(g.dataset.hole.slice(1)) : null;
};

function wire() {
  const on = (id, event, f) => $(id).addEventListener(event, f);
  on("new-game", "click", openNewDialog);
  on("new-form", "submit", submitNewGame);
  on("new-cancel", "click", () => $("new-dialog").close());
  on("undo", "click", undo);
  on("load", "click", () => openRecordDialog(""));
  on("record-form", "submit", loadRecord);
  on("record-cancel", "click", () => $("record-dialog").close());
  on("record-file", "change", async (e) => {
    const file = e.target.files[0];
    if (file) $("record-text").value = await file.text();
  });
  on("save", "click", saveRecord);
  on("copy", "click", copyPosition);
  on("first", "click", () => jump(0));
  on("back", "click", () => jump(state.cursor - 1));
  on("forward", "click", () => jump(state.cursor + 1));
  on("last", "click", () => jump(state.line.length));
  on("skip", "click", () => update({ type: "skip" }));
  on("next-round", "click", nextRound);
  for (const [id, side] of [["south-player", "S"], ["north-player", "N"]]) {
    on(id, "change", (e) => {
      update({ type: "players", side, who: e.target.value });
      maybeEngine();
    });
  }
  on("level", "change", (e) => update({ type: "level", level: e.target.value }));
  on("speed", "change", (e) => update({ type: "speed", speed: Number(e.target.value) }));
  // The drawn parts are redrawn often: their clicks are heard here, on their containers.
  on("board", "click", (e) => {
    const hole = holeOf(e.target);
    if (hole) playMove(hole);
  });
  on("board", "keydown", (e) => {
    const hole = holeOf(e.target);
    if (hole && (e.key === "Enter" || e.key === " ")) {
      e.preventDefault();
      playMove(hole, true);
    }
  });
  on("values", "click", (e) => {
    const row = e.target.closest("button.play") && e.target.closest("tr[data-move]");
    if (row) playMove(Number(row.dataset.move));
  });
  on("move-list", "click", (e) => {
    const b = e.target.closest("button[data-ply]");
    if (b) jump(Number(b.dataset.ply));
  });
  document.addEventListener("keydown", (e) => {
    if (e.target.closest && e.target.closest("input, textarea, select, dialog")) return;
    if (e.ctrlKey || e.metaKey || e.altKey || !state.view) return;
    const hole = holeOfKey(e.key);
    if (hole) playMove(hole);
    else if (e.key === "ArrowLeft") jump(state.cursor - 1);
    else if (e.key === "ArrowRight") jump(state.cursor + 1);
    else if (e.key === "Home") jump(0);
    else if (e.key === "End") jump(state.line.length);
    else if (e.key === "u") undo();
    else if (e.key === "n") openNewDialog();
    else if (e.key === "Escape") update({ type: "skip" });
    else return;
    e.preventDefault();
  });
}

wire();
update({ type: "speed", speed: Number($("speed").value) });
newGame({ rules: {}, moves: [] }, { S: "human", N: "human" }).catch((e) => toast(e.message));
