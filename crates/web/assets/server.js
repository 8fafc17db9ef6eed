// The server's API (docs/web.md): JSON requests and the analysis stream. Nothing here
// knows the page's state: each call takes what it sends and gives back what came.

// POSTs `body` as JSON to `path`; the answer's JSON, or an Error with the server's message.
export async function post(path, body) {
  const r = await fetch(path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const data = await r.json().catch(() => ({ error: `HTTP ${r.status}` }));
  // An error is {"error": {"kind", "message"}}.
  if (!r.ok) throw new Error((data.error && (data.error.message || data.error)) || `HTTP ${r.status}`);
  return data;
}

export const position = (game) => post("/api/position", game);
export const play = (game, move) => post("/api/play", { game, move });
export const engine = (game, level) => post("/api/engine", { game, level });
export const book = (rules) => post("/api/book", rules);
export const readRecord = (text) => post("/api/record/read", { text });
export const writeRecord = (game, south, north) => post("/api/record/write", { game, south, north });

// Opens the analysis stream of `game` (whose position is `position`, in notation) for the
// browser tab `tab`. Every answer reaches `on.analysis(position, answer)` tagged with the
// position it is for: the answer's own `position` where the server names it, else the
// position the stream was opened for. `on.failure(message)` and `on.done()` end it. The
// stream closes after `done`, on an error, or when the returned function is called.
export function analyse(tab, game, position, on) {
  const q = new URLSearchParams({ tab, game: JSON.stringify(game) });
  const es = new EventSource("/api/analysis?" + q.toString());
  let open = true;
  const close = () => {
    open = false;
    es.close();
  };
  es.addEventListener("analysis", (e) => {
    if (!open) return;
    const answer = JSON.parse(e.data);
    on.analysis(answer.position ?? position, answer);
  });
  es.addEventListener("failure", (e) => {
    if (open) {
      const error = JSON.parse(e.data).error;
      on.failure(error.message || error);
    }
  });
  es.addEventListener("done", () => {
    if (!open) return;
    close();
    on.done();
  });
  es.onerror = () => {
    if (!open) return;
    close();
    on.done();
  };
  return close;
}
