// The Hoyito web board. It draws what the server answers and calls its API
// (docs/web.md); it knows no rule: the legal moves, the board after a move, its laps and
// captures, and every value come from the server.
"use strict";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";

const state = {
  // The game as the server takes it: rules, start, moves up to the cursor, a match.
  spec: { rules: {}, moves: [] },
  line: [], // every move of the game's line (the cursor may stand before its end)
  cursor: 0, // moves of `line` shown
  view: null, // the server's board at the cursor
  players: { S: "human", N: "engine" },
  level: "3",
  tab: Math.random().toString(36).slice(2) + Date.now().toString(36),
  source: null, // the analysis stream
  analysis: null, // its last answer
  graph: [], // the value for South at each cursor, once known
  busy: false, // a move or an animation in progress
  skip: false,
  book: null,
};

// ---- API ------------------------------------------------------------------------------

async function api(path, body) {
  const r = await fetch(path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const data = await r.json().catch(() => ({ error: `HTTP ${r.status}` }));
  if (!r.ok) throw new Error((data.error && (data.error.message || data.error)) || `HTTP ${r.status}`);
  return data;
}

function specAt(cursor) {
  return { ...state.spec, moves: state.line.slice(0, cursor) };
}

// ---- The board ------------------------------------------------------------------------

function el(name, attrs, parent) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

// Where hole `i` (sowing order) is drawn: South's row below, left to right; North's row
// above, right to left, so that sowing runs counterclockwise.
function holeGeometry(i, holes) {
  const width = 760, margin = 90;
  const step = (width - 2 * margin) / holes;
  const r = Math.min(step * 0.42, 44);
  if (i < holes) return { x: margin + step * (i + 0.5), y: 228, r };
  const k = i - holes;
  return { x: margin + step * (holes - k - 0.5), y: 112, r };
}

function dots(g, x, y, r, n) {
  const shown = Math.min(n, 24);
  const cols = Math.ceil(Math.sqrt(shown));
  const rows = Math.ceil(shown / cols);
  const gap = Math.min((r * 1.1) / Math.max(cols, 1), 8);
  for (let k = 0; k < shown; k++) {
    const cx = x + (k % cols - (cols - 1) / 2) * gap;
    const cy = y + 6 + (Math.floor(k / cols) - (rows - 1) / 2) * gap;
    el("circle", { cx, cy, r: Math.max(1.6, gap * 0.32), class: "seed" }, g);
  }
}

// Draws `counts` (sowing order); `marks` highlights holes: {i: class}.
function drawBoard(counts, marks) {
  const v = state.view;
  const svg = $("board");
  const holes = v.holes;
  // A redraw keeps the keyboard's focus on the hole it was on.
  const active = document.activeElement;
  const focused = active && active.closest && active.closest("#board [data-hole]") ? active.dataset.hole : null;
  svg.innerHTML = "";
  el("rect", { x: 4, y: 34, width: 752, height: 272, rx: 60, class: "wood" }, svg);
  const values = moveValues();
  const mover = v.side;
  const legal = new Set(v.moves.map((m) => m.move));
  for (let i = 0; i < 2 * holes; i++) {
    const side = i < holes ? "S" : "N";
    const hole = (i % holes) + 1;
    const { x, y, r } = holeGeometry(i, holes);
    const playable = !v.over && side === mover && legal.has(hole) && !state.busy;
    const g = el("g", {
      class: "hole" + (playable ? " playable" : "") + (marks && marks[i] ? " " + marks[i] : ""),
      "data-hole": side + hole,
      "data-seeds": counts[i],
    }, svg);
    const value = side === mover && values[hole];
    let label = `${side === "S" ? "South" : "North"} hole ${hole}, ${counts[i]} seeds`;
    if (playable) label += value ? `, value ${signed(value.score)} ${value.exact ? "proven" : "estimate"}` : ", playable";
    g.setAttribute("aria-label", label);
    if (playable) {
      g.setAttribute("role", "button");
      g.setAttribute("tabindex", "0");
      g.addEventListener("click", () => userMove(hole));
      g.addEventListener("keydown", (e) => {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); userMove(hole); }
      });
    }
    el("circle", { cx: x, cy: y, r, class: "pit" }, g);
    dots(g, x, y, r * 0.8, counts[i]);
    const t = el("text", { x, y: y - r * 0.45, class: "count" }, g);
    t.textContent = counts[i];
    const lab = el("text", { x, y: side === "S" ? y + r + 16 : y - r - 7, class: "label" }, g);
    lab.textContent = side + hole;
    if (playable && value) {
      const vt = el("text", {
        x, y: side === "S" ? y + r + 32 : y - r - 22,
        class: "hole-value " + tone(value.score) + (value.exact ? " proven" : ""),
      }, g);
      vt.textContent = signed(value.score) + (value.exact ? "" : "?");
    }
  }
  // Captured totals and the turn.
  const cap = (label, n, x, y, side) => {
    const g = el("g", { class: "store" + (v.side === side && !v.over ? " to-move" : "") }, svg);
    el("rect", { x: x - 34, y: y - 34, width: 68, height: 68, rx: 14, class: "store-box" }, g);
    const t = el("text", { x, y: y + 2, class: "store-count" }, g);
    t.textContent = n;
    const l = el("text", { x, y: y + 24, class: "store-label" }, g);
    l.textContent = label;
    g.setAttribute("aria-label", `${label} captured ${n}`);
  };
  cap("North", v.captured[1], 46, 112, "N");
  cap("South", v.captured[0], 714, 228, "S");
  if (focused) svg.querySelector(`[data-hole="${focused}"][tabindex]`)?.focus();
}

function signed(n) {
  return n > 0 ? "+" + n : String(n);
}
function tone(n) {
  return n > 0 ? "win" : n < 0 ? "loss" : "draw";
}

// The values of the current analysis, by hole.
function moveValues() {
  const out = {};
  const a = state.analysis;
  if (!a) return out;
  for (const m of a.moves || []) out[m.move] = { ...m, source: a.source };
  return out;
}

function lastMarks() {
  const t = state.view.last;
  if (!t) return {};
  const marks = {};
  marks[t.laps[0].from] = "origin";
  marks[t.laps[t.laps.length - 1].landing] = "landing";
  for (const h of t.captured_holes) marks[h] = "captured";
  return marks;
}

function render() {
  const v = state.view;
  drawBoard(v.south.concat(v.north), lastMarks());
  $("rules-line").textContent = v.rules_text;
  renderStatus();
  renderValues();
  renderMoveList();
  renderGraph();
  renderMatch();
  $("undo").disabled = state.cursor === 0;
  $("back").disabled = $("first").disabled = state.cursor === 0;
  $("forward").disabled = $("last").disabled = state.cursor >= state.line.length;
}

function sideName(s) {
  return s === "S" ? "South" : "North";
}

function renderStatus() {
  const v = state.view;
  let text;
  if (v.over) {
    const how = { "last-four": "by the last four", "no-moves": "no moves left", repetition: "by repetition" }[v.end] || v.end;
    const res = { "1-0": "South wins", "0-1": "North wins", "1/2-1/2": "Draw" }[v.result] || v.result;
    text = `Game over (${how}): ${res}, ${v.captured[0]}-${v.captured[1]}.`;
  } else {
    text = `${sideName(v.side)} to move` + (state.players[v.side] === "engine" ? " (engine)" : "") + ".";
    if (v.last) {
      const t = v.last;
      text += ` Last: ${t.side}${t.move}, ${t.laps.length} lap${t.laps.length > 1 ? "s" : ""}` +
        (t.captured_holes.length ? `, captured ${4 * t.captured_holes.length}` : "") + ".";
    }
  }
  $("status").textContent = text;
}

function renderValues() {
  const v = state.view;
  const a = state.analysis;
  const body = $("values").querySelector("tbody");
  body.innerHTML = "";
  const values = moveValues();
  for (const m of v.moves) {
    const tr = document.createElement("tr");
    const val = values[m.move];
    tr.dataset.move = m.move;
    if (val) {
      tr.dataset.value = val.score;
      tr.dataset.exact = val.exact;
      tr.className = tone(val.score);
    }
    const how = !val ? "…" : val.exact ? `proven (${a.source === "search" ? "proof" : a.source})` : `estimate, depth ${val.depth}`;
    const extra = m.captured ? ` x${m.captured}` : "";
    tr.innerHTML = `<td><button type="button" class="play" aria-label="Play ${v.side}${m.move}">${v.side}${m.move}${extra}</button></td>` +
      `<td class="num">${val ? signed(val.score) : ""}</td><td>${how}</td>`;
    tr.querySelector("button").addEventListener("click", () => userMove(m.move));
    body.appendChild(tr);
  }
  for (const e of v.endless) {
    const tr = document.createElement("tr");
    tr.innerHTML = `<td>${v.side}${e}</td><td></td><td>illegal: endless sowing</td>`;
    body.appendChild(tr);
  }
  let st = "";
  if (v.over) st = "";
  else if (!a) st = "analysing…";
  else if (a.exact && a.moves.every((m) => m.exact)) st = `proven (${a.source})`;
  else st = `analysing… depth ${a.depth}`;
  if (state.analysisDone && a && !(a.exact && a.moves.every((m) => m.exact))) st = `estimates (depth ${a.depth})`;
  $("analysis-state").textContent = st;
  $("pv").textContent = a && a.pv && a.pv.length && !v.over
    ? `Best line: ${a.pv.slice(0, 14).join(" ")}${a.pv.length > 14 ? " …" : ""} (value ${signed(a.score)}${a.exact ? ", proven" : ""})`
    : "";
}

function renderMoveList() {
  const ol = $("move-list");
  ol.innerHTML = "";
  const plies = state.fullPlies || [];
  plies.forEach((p, k) => {
    const li = document.createElement("li");
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = p.token;
    b.className = k < state.cursor ? "" : "future";
    if (k === state.cursor - 1) b.setAttribute("aria-current", "step");
    b.setAttribute("aria-label", `Move ${k + 1}, ${p.token}: go to the position after it`);
    b.addEventListener("click", () => jump(k + 1));
    li.appendChild(b);
    ol.appendChild(li);
  });
}

function renderGraph() {
  const svg = $("graph");
  svg.innerHTML = "";
  const n = Math.max(state.line.length, 1);
  const known = state.graph.map((v, k) => [k, v]).filter(([, v]) => typeof v === "number");
  const top = Math.max(8, ...known.map(([, v]) => Math.abs(v)));
  const x = (k) => 10 + (280 * k) / n;
  const y = (v) => 60 - (50 * v) / top;
  el("line", { x1: 10, x2: 290, y1: 60, y2: 60, class: "axis" }, svg);
  if (known.length) {
    el("polyline", { points: known.map(([k, v]) => `${x(k)},${y(v)}`).join(" "), class: "curve" }, svg);
    for (const [k, v] of known) {
      const c = el("circle", { cx: x(k), cy: y(v), r: k === state.cursor ? 3.5 : 2, class: "pt " + tone(v) }, svg);
      const t = el("title", {}, c);
      t.textContent = `after ${k} moves: South ends ${signed(v)} under best play`;
    }
  }
  el("line", { x1: x(state.cursor), x2: x(state.cursor), y1: 5, y2: 115, class: "cursor" }, svg);
}

function renderMatch() {
  const m = state.view.match;
  $("match-info").hidden = !m;
  if (!m) return;
  const t = m.tally;
  let text = `Match, round ${m.round} of ${t.rounds}: South won ${t.wins[0]}, North won ${t.wins[1]}, drawn ${t.draws}; seeds ${t.seeds[0]}-${t.seeds[1]}.`;
  if (t.winner === "S") text += " South wins the match.";
  else if (t.winner === "N") text += " North wins the match.";
  else if (t.winner === "draw") text += " The match is drawn.";
  $("match-text").textContent = text;
  $("next-round").hidden = !(state.view.over && m.next_round && state.cursor === state.line.length);
}

// ---- Analysis stream ------------------------------------------------------------------

function stopAnalysis() {
  if (state.source) {
    state.source.close();
    state.source = null;
  }
}

function startAnalysis() {
  stopAnalysis();
  state.analysis = null;
  state.analysisDone = false;
  if (state.view.over) {
    state.graph[state.cursor] = state.view.captured[0] - state.view.captured[1];
    return;
  }
  const q = new URLSearchParams({ tab: state.tab, game: JSON.stringify(specAt(state.cursor)) });
  const es = new EventSource("/api/analysis?" + q.toString());
  const cursor = state.cursor;
  state.source = es;
  es.addEventListener("analysis", (e) => {
    if (state.source !== es) return;
    state.analysis = JSON.parse(e.data);
    if (state.analysis.exact || state.analysis.final) state.graph[cursor] = state.analysis.outcome_south;
    // Answers can come many a second: the page redraws at most every 100 ms.
    if (!state.redraw) {
      state.redraw = setTimeout(() => {
        state.redraw = null;
        if (state.busy || state.source !== es) return;
        drawBoard(state.view.south.concat(state.view.north), lastMarks());
        renderValues();
        renderGraph();
      }, 100);
    }
  });
  es.addEventListener("failure", (e) => {
    const error = JSON.parse(e.data).error;
    toast(error.message || error);
  });
  es.addEventListener("done", () => {
    es.close();
    if (state.source === es) {
      state.source = null;
      state.analysisDone = true;
      clearTimeout(state.redraw);
      state.redraw = null;
      if (!state.busy) {
        drawBoard(state.view.south.concat(state.view.north), lastMarks());
        renderGraph();
      }
      renderValues();
      document.body.dataset.analysis = "done";
    }
  });
  es.onerror = () => {
    es.close();
    if (state.source === es) state.source = null;
  };
  document.body.dataset.analysis = "running";
}

// ---- Moves, animation, navigation -----------------------------------------------------

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Plays the server's laps of `trace` on the board: lift, sow seed by seed, relay, capture.
async function animate(trace) {
  const delay = Number($("speed").value);
  if (!delay) return;
  state.skip = false;
  $("skip").disabled = false;
  $("status").textContent = `${sideName(trace.side)} plays ${trace.side}${trace.move}: ${trace.laps.length} lap${trace.laps.length > 1 ? "s" : ""}.`;
  const counts = trace.before.slice();
  const n = counts.length;
  const wait = async (k) => { if (!state.skip) await sleep(delay * k); };
  for (const [k, lap] of trace.laps.entries()) {
    if (state.skip) break;
    $("lap-info").textContent = `lap ${k + 1} of ${trace.laps.length}: ${lap.sown} seeds from ${holeName(lap.from, n)}`;
    counts[lap.from] = 0;
    drawBoard(counts, { [lap.from]: "origin" });
    await wait(2);
    // One seed into each hole of the lap's path, as the server gives it.
    for (const at of lap.path) {
      if (state.skip) break;
      counts[at] += 1;
      drawBoard(counts, { [lap.from]: "origin", [at]: "sowing" });
      await wait(1);
    }
    const ends = lap.seeds === 1 ? "the move ends" : k + 1 < trace.laps.length ? "relay" : "capture";
    $("lap-info").textContent = `lap ${k + 1} ends in ${holeName(lap.landing, n)} (${lap.seeds}): ${ends}`;
    drawBoard(counts, { [lap.landing]: "landing" });
    await wait(3);
  }
  if (trace.captured_holes.length && !state.skip) {
    const marks = {};
    for (const h of trace.captured_holes) marks[h] = "captured";
    $("lap-info").textContent = `captures ${4 * trace.captured_holes.length} from ${trace.captured_holes.map((h) => holeName(h, n)).join(", ")}`;
    drawBoard(counts, marks);
    await wait(5);
  }
  $("skip").disabled = true;
}

function holeName(i, n) {
  const h = n / 2;
  return (i < h ? "S" : "N") + ((i % h) + 1);
}

async function show(view, animateIt) {
  state.view = view;
  state.busy = true;
  stopAnalysis();
  document.body.dataset.analysis = "waiting";
  try {
    if (animateIt && view.last) await animate(view.last);
  } finally {
    state.busy = false;
  }
  $("lap-info").textContent = "";
  render();
  startAnalysis();
  document.body.dataset.ply = String(state.cursor);
  maybeEngine();
}

// The full line's plies (for the move list), from the view at the line's end.
async function refreshLine(view) {
  if (state.cursor === state.line.length) state.fullPlies = view.plies;
  else state.fullPlies = (await api("/api/position", specAt(state.line.length))).plies;
}

async function userMove(hole) {
  if (state.busy || !state.view || state.view.over) return;
  if (state.players[state.view.side] === "engine" && state.cursor === state.line.length) return;
  await playMove(hole);
}

async function playMove(hole) {
  state.busy = true;
  try {
    const view = await api("/api/play", { game: specAt(state.cursor), move: hole });
    if (state.line[state.cursor] !== hole) {
      state.line = state.line.slice(0, state.cursor);
      state.graph = state.graph.slice(0, state.cursor + 1);
    }
    if (state.line[state.cursor] === undefined) state.line.push(hole);
    state.cursor += 1;
    state.busy = false;
    await refreshLine(view);
    await show(view, true);
  } catch (e) {
    state.busy = false;
    toast(e.message);
  }
}

let engineRunning = false;
async function maybeEngine() {
  const v = state.view;
  if (v.over || engineRunning || state.cursor !== state.line.length) return;
  if (state.players[v.side] !== "engine") return;
  engineRunning = true;
  let stale = false;
  $("status").textContent = `${sideName(v.side)} (engine, level ${state.level}) thinks…`;
  try {
    const spec = specAt(state.cursor);
    const answer = await api("/api/engine", { game: spec, level: state.level });
    // The position may have changed meanwhile (new game, undo, navigation): the engine
    // then looks again at the position now shown.
    if (JSON.stringify(specAt(state.cursor)) !== JSON.stringify(spec) || state.busy) {
      stale = true;
      return;
    }
    state.line.push(answer.engine.move);
    state.cursor += 1;
    state.fullPlies = answer.view.plies;
    engineRunning = false;
    await show(answer.view, true);
  } catch (e) {
    toast(e.message);
  } finally {
    engineRunning = false;
    if (stale) maybeEngine();
  }
}

async function jump(cursor) {
  if (state.busy) return;
  cursor = Math.max(0, Math.min(cursor, state.line.length));
  try {
    const view = await api("/api/position", specAt(cursor));
    state.cursor = cursor;
    await show(view, false);
  } catch (e) {
    toast(e.message);
  }
}

// Undo: takes back the last move, and the engine's moves before it, to a human's turn.
async function undo() {
  if (state.busy || state.cursor === 0) return;
  let k = state.cursor - 1;
  const plies = state.fullPlies || [];
  const human = (s) => state.players[s] === "human";
  while (k > 0 && plies[k] && !human(plies[k].side) && (human("S") || human("N"))) k -= 1;
  state.line = state.line.slice(0, k);
  state.graph = state.graph.slice(0, k + 1);
  const view = await api("/api/position", specAt(k));
  state.cursor = k;
  state.fullPlies = view.plies;
  await show(view, false);
}

// ---- Games, records, dialogs ----------------------------------------------------------

async function newGame(spec, players) {
  const view = await api("/api/position", spec);
  state.spec = { ...spec, moves: [] };
  state.line = spec.moves.slice();
  state.cursor = spec.moves.length;
  state.graph = [];
  state.fullPlies = view.plies;
  if (players) {
    state.players = players;
    $("south-player").value = players.S;
    $("north-player").value = players.N;
  }
  document.body.dataset.game = String(Date.now());
  await show(view, false);
  loadBook();
}

async function loadBook() {
  try {
    const rules = state.view.rules;
    const key = JSON.stringify(rules);
    if (state.bookKey === key) return;
    state.bookKey = key;
    const tree = await api("/api/book", rules);
    const div = $("book");
    if (!tree.some((m) => m.value !== null)) {
      div.textContent = "The book holds no start of these rules.";
      return;
    }
    div.innerHTML = "";
    const table = document.createElement("table");
    table.innerHTML = "<thead><tr><th scope='col'>First move</th><th scope='col'>Value</th><th scope='col'>Replies (value for their mover)</th></tr></thead>";
    const body = document.createElement("tbody");
    for (const m of tree) {
      const tr = document.createElement("tr");
      tr.dataset.book = m.move;
      const replies = m.replies.map((r) => `<span class="chip ${tone(r.value)}">${m.next}${r.move} ${signed(r.value)}</span>`).join(" ");
      tr.innerHTML = `<td>S${m.move}</td><td class="num ${m.value === null ? "" : tone(m.value)}">${m.value === null ? "?" : signed(m.value)}</td><td>${replies || "<span class='muted'>not in the book</span>"}</td>`;
      body.appendChild(tr);
    }
    table.appendChild(body);
    div.appendChild(table);
  } catch (e) {
    $("book").textContent = e.message;
  }
}

function toast(text) {
  const t = $("toast");
  t.textContent = text;
  t.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { t.hidden = true; }, 5000);
}

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
    const games = await api("/api/record/read", { text: $("record-text").value });
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
    const r = await api("/api/record/write", { game: specAt(state.line.length), south: name("S"), north: name("N") });
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

async function nextRound() {
  state.spec = { ...state.spec, earlier_rounds: [...(state.spec.earlier_rounds || []), state.line.slice()] };
  state.line = [];
  state.cursor = 0;
  state.graph = [];
  const view = await api("/api/position", specAt(0));
  state.fullPlies = [];
  await show(view, false);
}

function wire() {
  $("new-game").addEventListener("click", openNewDialog);
  $("new-form").addEventListener("submit", submitNewGame);
  $("new-cancel").addEventListener("click", () => $("new-dialog").close());
  $("undo").addEventListener("click", undo);
  $("load").addEventListener("click", () => openRecordDialog(""));
  $("record-form").addEventListener("submit", loadRecord);
  $("record-cancel").addEventListener("click", () => $("record-dialog").close());
  $("record-file").addEventListener("change", async (e) => {
    const file = e.target.files[0];
    if (file) $("record-text").value = await file.text();
  });
  $("save").addEventListener("click", saveRecord);
  $("copy").addEventListener("click", copyPosition);
  $("first").addEventListener("click", () => jump(0));
  $("back").addEventListener("click", () => jump(state.cursor - 1));
  $("forward").addEventListener("click", () => jump(state.cursor + 1));
  $("last").addEventListener("click", () => jump(state.line.length));
  $("skip").addEventListener("click", () => { state.skip = true; });
  $("next-round").addEventListener("click", nextRound);
  $("south-player").addEventListener("change", (e) => { state.players.S = e.target.value; render(); maybeEngine(); });
  $("north-player").addEventListener("change", (e) => { state.players.N = e.target.value; render(); maybeEngine(); });
  $("level").addEventListener("change", (e) => { state.level = e.target.value; });
  document.addEventListener("keydown", (e) => {
    if (e.target.closest && e.target.closest("input, textarea, select, dialog")) return;
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (/^[1-9]$/.test(e.key)) userMove(Number(e.key));
    else if (e.key === "ArrowLeft") jump(state.cursor - 1);
    else if (e.key === "ArrowRight") jump(state.cursor + 1);
    else if (e.key === "Home") jump(0);
    else if (e.key === "End") jump(state.line.length);
    else if (e.key === "u") undo();
    else if (e.key === "n") openNewDialog();
    else if (e.key === "Escape") state.skip = true;
    else return;
    e.preventDefault();
  });
}

wire();
newGame({ rules: {}, moves: [] }, { S: "human", N: "human" }).catch((e) => toast(e.message));
