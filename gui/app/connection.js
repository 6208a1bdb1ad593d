// The connection to the engine through gui.server: one request at a time in the page's queue,
// batches of lines, the versions of the engine's game, the console's log of every exchange.
// It imports only the model: what the page shows when the engine's moves are forgotten (an
// engine restarted, a board set) or a job fails is the controller's, handed in by
// setConnectionHooks().
import { $ } from "./dom.js";
import { state, boardKey, fromNotation } from "./model.js";
import { variantOf } from "./variants.js";

/** The controller's hooks: the move list emptied, a job that failed with a page error. */
const hooks = { movesForgotten: () => {}, failed: () => {} };
export function setConnectionHooks(handlers) { Object.assign(hooks, handlers); }
export const MAX_BATCH = 16;    // lines the server takes in one request

export function logLine(text, cls) {
  const box = $("console");
  const div = document.createElement("div");
  if (cls) div.className = cls;
  div.textContent = text;
  box.append(div);
  while (box.childElementCount > 300) box.firstElementChild.remove();
  box.scrollTop = box.scrollHeight;
}

export async function post(body, path = "/engine") {
  // One request to the server; always resolves to its JSON or {ok: false, error}.
  try {
    const res = await fetch(path, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    try {
      return await res.json();
    } catch (err) {
      return { ok: false, error: `server answered HTTP ${res.status} without JSON` };
    }
  } catch (err) {
    return { ok: false, error: `cannot reach the GUI server: ${err.message}` };
  }
}

export function heard(data) {
  // Every answer says which version of the engine's game it leaves; versions only grow.
  if (data && Number.isInteger(data.game)) state.gameVersion = Math.max(state.gameVersion, data.game);
  return data;
}

export function received(line, data) {
  // Log one exchange and take note of an engine restart.
  logLine(`> ${line.length > 300 ? line.slice(0, 300) + " …" : line}`, "in");
  // The page's own tb_probe is refused wherever no table covers the board: no fault, no red.
  const calm = data.ok || line === "tb_probe";
  if (data.raw !== undefined) logLine(data.raw.replace(/\n+$/, ""), calm ? "" : "bad");
  else logLine(`(server) ${data.error}`, "bad");
  if (data.restarted) {
    // A new engine holds an empty board and no moves: ours must be sent again.
    state.engineKey = null;
    state.engineVariant = null; // it plays the config's rules: the page's are sent again
    if (state.moves.length) { state.moves = []; hooks.movesForgotten(); }
    state.notice = `${data.notice || data.error || "the engine was restarted"}; the page sent its board again`;
    logLine(`(server) ${state.notice}`, "bad");
  }
  return data;
}

export async function engine(line) {
  // Send one protocol line through the server; always resolves to {ok, text, raw?, error?}.
  return received(line, heard(await post({ line })));
}

export async function engineBatch(lines) {
  // Send several lines in one request (one round trip); resolves to one answer per line.
  const data = heard(await post({ lines }));
  const replies = Array.isArray(data.replies) ? data.replies : [data];
  return lines.map((line, k) => received(line, replies[k]
    || { ok: false, error: "not sent: the engine failed on an earlier line" }));
}

export function variantLines() {
  // The engine must play the page's rules before it hears a board (set_board keeps the rules
  // played) when it plays others or may (restarted): a new game of them on a size they are
  // played on (5 for the cube), since `variant NAME` alone keeps a size that may have no start (2³).
  if (state.engineVariant === state.variant) return [];
  const sizes = variantOf(state.variant).sizes;
  return [`new_game ${sizes ? sizes[0] : 5} ${state.variant}`];
}

export function heardVariant(lines, replies) {
  // Take the answers to variantLines() off the front of `replies`: the failed one, or null.
  if (!lines.length) return null;
  const r = replies.shift();
  if (!r.ok) return r;
  state.engineVariant = state.variant;
  state.engineKey = null; // a new game of those rules: the board must follow
  return null;
}

export async function askAbout(lines) {
  // Send the rules and the board on screen if the engine lacks them, then `lines`, all in one
  // request. Resolves to {sent: the set_board answer (or {ok: true}), replies: one per line}.
  for (let attempt = 0; ; attempt++) {
    const key = boardKey();
    const rules = variantLines();
    const sendBoard = rules.length > 0 || state.engineKey !== key;
    const replies = await engineBatch([...rules, ...(sendBoard ? [`set_board ${key}`] : []), ...lines]);
    const refused = heardVariant(rules, replies);
    if (refused) return { sent: refused, replies: [] };
    let sent = { ok: true, text: "" };
    if (sendBoard) {
      sent = replies.shift();
      if (!sent.ok) return { sent, replies: [] };
      state.engineKey = key;
      if (state.moves.length) { state.moves = []; hooks.movesForgotten(); } // set_board starts a new history
    }
    // An engine restarted before a line answered it about an empty board: again, with ours.
    const restarted = replies.some((r) => r.restarted && r.raw !== undefined);
    if (!restarted || attempt > 0) return { sent, replies };
    state.engineKey = null;
    state.engineVariant = null;
  }
}

export async function ensureBoard() {
  // Make the engine hold the board on screen; answers like engine() ({ok: true} if it has it).
  const key = boardKey();
  const rules = variantLines();
  if (state.engineKey === key && !rules.length) return { ok: true, text: "" };
  const replies = await engineBatch([...rules, `set_board ${key}`]);
  const refused = heardVariant(rules, replies);
  if (refused) return refused;
  const r = replies[0];
  if (r.ok) {
    state.engineKey = key;
    if (state.moves.length) { state.moves = []; hooks.movesForgotten(); } // set_board starts a new history
  }
  return r;
}

export async function ask(line) {
  // Send a line about the board on screen. If the engine had died, the server started a new
  // one before passing the line on, so it answered about an empty board: send ours, ask again.
  let r = await engine(line);
  if (r.restarted && r.raw !== undefined) {
    const s = await ensureBoard();
    if (!s.ok) return s;
    r = await engine(line);
  }
  return r;
}

export async function learnEngineBoard() {
  // Ask the engine which rules and position it holds; returns the parsed board (with its
  // `variant`) or null.
  const [v, g] = await engineBatch(["variant", "get_board"]);
  if (!g.ok) return null;
  const parsed = fromNotation(g.text);
  if (parsed) {
    state.engineKey = g.text.trim();
    state.engineVariant = v.ok ? v.text.trim() : null;
    parsed.variant = state.engineVariant;
  }
  return parsed;
}

export function updatePending() {
  const count = state.jobs + (state.debounceTimer ? 1 : 0);
  document.body.dataset.pending = String(count);
}

export function exclusive(job) {
  // Run engine jobs one after another: an analysis must see the board it just sent.
  state.jobs += 1;
  updatePending();
  // A stop on its way is waited for first: it may still be taking a move back.
  const run = state.queueTail.then(() => state.pendingStop).then(job)
    .catch((err) => hooks.failed(`page error: ${err}`));
  state.queueTail = run.finally(() => { state.jobs -= 1; updatePending(); });
  return state.queueTail;
}

