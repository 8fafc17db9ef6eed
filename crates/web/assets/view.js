// The page's drawing: every function here draws from the state (app.js) and nothing else,
// and changes nothing but the page. Handlers are not attached here: app.js listens on the
// containers and reads the data attributes drawn here (data-hole, data-move, data-ply).

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";

export const signed = (n) => (n > 0 ? "+" + n : String(n));
export const tone = (n) => (n > 0 ? "win" : n < 0 ? "loss" : "draw");
export const sideName = (s) => (s === "S" ? "South" : "North");

// The keys that play holes 1 to 12 of the side to move, by hole.
export const HOLE_KEYS = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "0", "-", "="];

function el(name, attrs, parent) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

// Redraws a part only when what it draws changed: `key` names it, `data` is what it draws
// from. A redraw keeps nothing of the old part, so fewer redraws keep the focus and the
// page's scroll where they are.
const drawn = new Map([["focus", 0]]);
function changed(key, data) {
  const text = JSON.stringify(data);
  if (drawn.get(key) === text) return false;
  drawn.set(key, text);
  return true;
}

// ---- What the state shows ---------------------------------------------------------------

// The analysis as the page may show it: the values of the position shown, and only those,
// and none while a sowing is animated. `moves`: hole -> {score, exact, depth}, legal moves
// only; `line`: the best line when its first move is legal and the best of the table, with
// that move's value from the table (so the line never says more than the table does).
export function shownAnalysis(state) {
  const v = state.view;
  const a = state.analysis;
  if (!v || !a || state.frame || a.position !== v.position || !a.answer) return null;
  const legal = new Set(v.moves.map((m) => m.move));
  const moves = new Map();
  for (const m of a.answer.moves || []) {
    if (legal.has(m.move)) moves.set(m.move, { score: m.score, exact: m.exact, depth: m.depth });
  }
  const proven = moves.size === legal.size && [...moves.values()].every((m) => m.exact);
  let line = null;
  const pv = a.answer.pv || [];
  const first = moves.get(pv[0]);
  if (first && [...moves.values()].every((m) => m.score <= first.score)) {
    line = { moves: pv, score: first.score, exact: first.exact };
  }
  return { source: a.answer.source, depth: a.answer.depth, moves, proven, line };
}

// ---- The board ------------------------------------------------------------------------

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

// The holes marked by the last move: where it started, where it ended, what it captured.
function lastMarks(view) {
  const t = view.last;
  if (!t) return {};
  const marks = { [t.laps[0].from]: "origin", [t.laps[t.laps.length - 1].landing]: "landing" };
  for (const h of t.captured_holes) marks[h] = "captured";
  return marks;
}

// Whether the side to move's holes take a move from the page now.
export function canPlay(state) {
  const v = state.view;
  if (!v || v.over || state.busy) return false;
  return state.players[v.side] === "human" || state.cursor < state.line.length;
}

// What the board shows: the animation's picture while a sowing plays, else the position.
function picture(state) {
  const v = state.view;
  if (state.frame) return { ...state.frame, over: false, playable: new Set(), values: new Map() };
  const a = shownAnalysis(state);
  return {
    counts: v.south.concat(v.north),
    marks: lastMarks(v),
    captured: v.captured,
    side: v.side,
    over: v.over,
    playable: new Set(canPlay(state) ? v.moves.map((m) => m.move) : []),
    values: a ? a.moves : new Map(),
  };
}

function drawBoard(state) {
  const v = state.view;
  const p = picture(state);
  const svg = $("board");
  const data = { ...p, playable: [...p.playable], values: [...p.values], holes: v.holes };
  if (changed("board", data)) {
    // A redraw keeps the keyboard's focus on the hole it was on.
    const active = document.activeElement;
    const focused = active && active.closest && active.closest("#board [data-hole]") ? active.dataset.hole : null;
    svg.replaceChildren();
    svg.dataset.side = p.side;
    el("rect", { x: 4, y: 34, width: 752, height: 272, rx: 60, class: "wood" }, svg);
    for (let i = 0; i < 2 * v.holes; i++) drawHole(svg, i, v.holes, p);
    drawStore(svg, "N", p, 46, 112);
    drawStore(svg, "S", p, 714, 228);
    if (focused) svg.querySelector(`[data-hole="${focused}"][tabindex]`)?.focus();
  }
}

function drawHole(svg, i, holes, p) {
  const side = i < holes ? "S" : "N";
  const hole = (i % holes) + 1;
  const n = p.counts[i];
  const { x, y, r } = holeGeometry(i, holes);
  const playable = side === p.side && p.playable.has(hole);
  // The values of the position's moves, whoever is to play them.
  const value = side === p.side ? p.values.get(hole) : undefined;
  const g = el("g", {
    class: "hole" + (playable ? " playable" : "") + (p.marks[i] ? " " + p.marks[i] : ""),
    "data-hole": side + hole,
    "data-seeds": n,
  }, svg);
  let label = `${sideName(side)} hole ${hole}, ${n} seeds`;
  if (value) label += `, value ${signed(value.score)} ${value.exact ? "proven" : "estimate"}`;
  if (playable && !value) label += ", playable";
  g.setAttribute("aria-label", label);
  if (playable) {
    g.setAttribute("role", "button");
    g.setAttribute("tabindex", "0");
  }
  el("circle", { cx: x, cy: y, r, class: "pit" }, g);
  dots(g, x, y, r * 0.8, n);
  el("text", { x, y: y - r * 0.45, class: "count" }, g).textContent = n;
  el("text", { x, y: side === "S" ? y + r + 16 : y - r - 7, class: "label" }, g).textContent = side + hole;
  if (value) {
    const vt = el("text", {
      x, y: side === "S" ? y + r + 32 : y - r - 22,
      class: "hole-value " + tone(value.score) + (value.exact ? " proven" : ""),
    }, g);
    vt.textContent = signed(value.score) + (value.exact ? "" : "?");
  }
}

// A side's captured seeds; the side to move's store is marked.
function drawStore(svg, side, p, x, y) {
  const n = p.captured[side === "S" ? 0 : 1];
  const toMove = p.side === side && !p.over;
  const g = el("g", { class: "store" + (toMove ? " to-move" : ""), "data-store": side, "data-captured": n }, svg);
  el("rect", { x: x - 34, y: y - 34, width: 68, height: 68, rx: 14, class: "store-box" }, g);
  el("text", { x, y: y + 2, class: "store-count" }, g).textContent = n;
  el("text", { x, y: y + 24, class: "store-label" }, g).textContent = sideName(side);
  g.setAttribute("aria-label", `${sideName(side)} captured ${n}` + (toMove ? ", to move" : ""));
}

// After a move, the keyboard's focus goes back to the board when it was there or nowhere
// (the hole or the table's button clicked is drawn anew): on a hole the side to move may
// play when the move was played from a hole by the keyboard, else on the board itself
// (whose keys go on playing). Runs after every part is drawn.
function placeFocus(state) {
  if (state.focus.count === drawn.get("focus")) return;
  drawn.set("focus", state.focus.count);
  const active = document.activeElement;
  const free = !active || active === document.body || !active.isConnected;
  if (free || (active.closest("#board") && !active.matches(".hole.playable"))) {
    const svg = $("board");
    const hole = state.focus.hole && svg.querySelector(".hole.playable");
    (hole || svg).focus({ preventScroll: true });
  }
}

// ---- The panels -----------------------------------------------------------------------

function statusText(state) {
  const v = state.view;
  if (state.frame) return state.frame.status;
  if (v.over) {
    const how = { "last-four": "by the last four", "no-moves": "no moves left", repetition: "by repetition" }[v.end] || v.end;
    const res = { "1-0": "South wins", "0-1": "North wins", "1/2-1/2": "Draw" }[v.result] || v.result;
    return `Game over (${how}): ${res}, ${v.captured[0]}-${v.captured[1]}.`;
  }
  if (state.thinking) return `${sideName(v.side)} (engine, level ${state.level}) thinks…`;
  let text = `${sideName(v.side)} to move` + (state.players[v.side] === "engine" ? " (engine)" : "") + ".";
  const t = v.last;
  if (t) {
    text += ` Last: ${t.side}${t.move}, ${t.laps.length} lap${t.laps.length > 1 ? "s" : ""}` +
      (t.captured_holes.length ? `, captured ${4 * t.captured_holes.length}` : "") + ".";
  }
  return text;
}

function analysisText(state, a) {
  const v = state.view;
  if (v.over || state.frame) return "";
  if (!a) return state.analysis?.done ? "no values" : "analysing…";
  if (a.proven) return `proven (${a.source})`;
  return state.analysis.done ? `estimates (depth ${a.depth})` : `analysing… depth ${a.depth}`;
}

function drawValues(state) {
  const v = state.view;
  const a = shownAnalysis(state);
  const rows = v.moves.map((m) => [m.move, m.captured, a?.moves.get(m.move) ?? null]);
  $("analysis-state").textContent = analysisText(state, a);
  const line = a && a.line && !v.over
    ? `Best line: ${a.line.moves.slice(0, 14).join(" ")}${a.line.moves.length > 14 ? " …" : ""} ` +
      `(value ${signed(a.line.score)}${a.line.exact ? ", proven" : ""})`
    : "";
  $("pv").textContent = line;
  // While a sowing is drawn, the moves after it wait for their values.
  $("values").querySelector("tbody").classList.toggle("pending", !!state.frame);
  if (!changed("values", { position: v.position, rows, endless: v.endless, source: a?.source })) return;
  const body = $("values").querySelector("tbody");
  // New values of the same position keep the focus on the move it was on.
  const same = body.dataset.position === v.position;
  const focused = same && document.activeElement?.closest?.("#values tr[data-move]")?.dataset.move;
  body.dataset.position = v.position;
  body.replaceChildren();
  for (const [move, captured, val] of rows) {
    const tr = document.createElement("tr");
    tr.dataset.move = move;
    if (val) {
      tr.dataset.value = val.score;
      tr.dataset.exact = val.exact;
      tr.className = tone(val.score);
    }
    const how = !val ? "…" : val.exact ? `proven (${a.source === "search" ? "proof" : a.source})` : `estimate, depth ${val.depth}`;
    const name = `${v.side}${move}`;
    tr.innerHTML = `<td><button type="button" class="play" aria-label="Play ${name}">${name}${captured ? ` x${captured}` : ""}</button></td>` +
      `<td class="num">${val ? signed(val.score) : ""}</td><td>${how}</td>`;
    body.appendChild(tr);
  }
  for (const e of v.endless) {
    const tr = document.createElement("tr");
    tr.innerHTML = `<td>${v.side}${e}</td><td></td><td>illegal: endless sowing</td>`;
    body.appendChild(tr);
  }
  if (focused) body.querySelector(`tr[data-move="${focused}"] button`)?.focus();
}

function drawMoveList(state) {
  const plies = state.plies.map((p) => p.token);
  if (!changed("moves", { plies, cursor: state.cursor })) return;
  const ol = $("move-list");
  ol.replaceChildren();
  plies.forEach((token, k) => {
    const li = document.createElement("li");
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = token;
    b.dataset.ply = k + 1;
    b.className = k < state.cursor ? "" : "future";
    if (k === state.cursor - 1) b.setAttribute("aria-current", "step");
    b.setAttribute("aria-label", `Move ${k + 1}, ${token}: go to the position after it`);
    li.appendChild(b);
    ol.appendChild(li);
  });
}

// A step between ticks of about `span / 5`: 1, 2 or 5 times a power of ten.
function tickStep(span) {
  const raw = Math.max(span / 5, 1);
  const p = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw);
}

// South's final margin under best play at each position analysed, by ply, with the
// margins on the left and the plies below.
function drawGraph(state) {
  const n = Math.max(state.line.length, 1);
  const known = state.graph.map((v, k) => [k, v]).filter(([, v]) => typeof v === "number");
  if (!changed("graph", { n, known, cursor: state.cursor })) return;
  const svg = $("graph");
  svg.replaceChildren();
  const top = 4 * Math.ceil(Math.max(8, ...known.map(([, v]) => Math.abs(v))) / 4);
  const left = 30, right = 292, high = 8, low = 108;
  const x = (k) => left + ((right - left) * k) / n;
  const y = (v) => (high + low) / 2 - ((low - high) / 2) * (v / top);
  for (const v of [top, top / 2, 0, -top / 2, -top]) {
    el("line", { x1: left, x2: right, y1: y(v), y2: y(v), class: v === 0 ? "axis" : "grid" }, svg);
    el("text", { x: left - 4, y: y(v), class: "tick y-tick" }, svg).textContent = signed(v);
  }
  const step = tickStep(n);
  for (let k = 0; k <= n; k += step) {
    el("line", { x1: x(k), x2: x(k), y1: low, y2: low + 3, class: "axis" }, svg);
    el("text", { x: x(k), y: low + 13, class: "tick x-tick" }, svg).textContent = k;
  }
  if (known.length) {
    el("polyline", { points: known.map(([k, v]) => `${x(k)},${y(v)}`).join(" "), class: "curve" }, svg);
    for (const [k, v] of known) {
      const c = el("circle", { cx: x(k), cy: y(v), r: k === state.cursor ? 3.5 : 2, class: "pt " + tone(v) }, svg);
      el("title", {}, c).textContent = `after ${k} moves: South ends ${signed(v)} under best play`;
    }
  }
  el("line", { x1: x(state.cursor), x2: x(state.cursor), y1: high - 3, y2: low, class: "cursor" }, svg);
}

function drawMatch(state) {
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

function drawBook(state) {
  const b = state.book;
  if (!changed("book", b)) return;
  const div = $("book");
  if (!b) return div.replaceChildren();
  if (b.error) return (div.textContent = b.error);
  if (!b.tree.some((m) => m.value !== null)) return (div.textContent = "The book holds no start of these rules.");
  const table = document.createElement("table");
  table.innerHTML = "<thead><tr><th scope='col'>First move</th><th scope='col'>Value</th><th scope='col'>Replies (value for their mover)</th></tr></thead>";
  const body = document.createElement("tbody");
  for (const m of b.tree) {
    const tr = document.createElement("tr");
    tr.dataset.book = m.move;
    const replies = m.replies.map((r) => `<span class="chip ${tone(r.value)}">${m.next}${r.move} ${signed(r.value)}</span>`).join(" ");
    tr.innerHTML = `<td>S${m.move}</td><td class="num ${m.value === null ? "" : tone(m.value)}">${m.value === null ? "?" : signed(m.value)}</td><td>${replies || "<span class='muted'>not in the book</span>"}</td>`;
    body.appendChild(tr);
  }
  table.appendChild(body);
  div.replaceChildren(table);
}

function drawControls(state) {
  const start = state.cursor === 0, end = state.cursor >= state.line.length;
  $("undo").disabled = $("back").disabled = $("first").disabled = start;
  $("forward").disabled = $("last").disabled = end;
  $("skip").disabled = !state.frame;
  $("lap-info").textContent = state.frame?.lap ?? "";
  $("south-player").value = state.players.S;
  $("north-player").value = state.players.N;
  $("level").value = state.level;
  $("speed").value = String(state.speed);
  $("rules-line").textContent = state.view.rules_text;
  const t = $("toast");
  t.hidden = !state.toast;
  t.textContent = state.toast ?? "";
}

// The whole page from `state`. The body's data attributes say where the page is, for the
// tests: `ply` (the moves shown, once their sowing is drawn), `analysis` (`waiting` while a sowing plays, `running`,
// `done`) and `game` (a new game's number).
export function render(state) {
  if (!state.view) return;
  drawBoard(state);
  $("status").textContent = statusText(state);
  drawValues(state);
  drawMoveList(state);
  drawGraph(state);
  drawMatch(state);
  drawBook(state);
  drawControls(state);
  placeFocus(state);
  const d = document.body.dataset;
  if (!state.frame) d.ply = String(state.cursor);
  d.analysis = state.frame ? "waiting" : state.analysis?.done ? "done" : "running";
  d.game = String(state.game);
}
