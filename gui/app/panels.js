// The side panel: the verdict, messages, the move list, the computer's thinking, the solver's
// keys, the record's replay buttons and the piece picker's state.
// It imports only downward (the model, the DOM helpers): what a click in it does is the
// controller's, handed in by setPanelActions().
import { $, setData, setText } from "./dom.js";
import { state, boardKey, cellName, colourWord, computersTurn, describe, isWhite, ownPiece, plyNames, replayPly, sideName } from "./model.js";
import { figure, pieceOf } from "./pieces.js";

/** What the panel's own buttons do, as the controller (main.js) says: play a mating key, go to
 * a ply of the move list. */
const actions = { playKey: () => {}, goToPly: () => {} };
export function setPanelActions(handlers) { Object.assign(actions, handlers); }

export function renderUndo() {
  const off = state.moves.length === 0 && !state.computer;
  if ($("undo").disabled !== off) $("undo").disabled = off;
}

export function renderMoves() {
  const list = $("moves");
  // One column of pairs, as printgame writes them: `1. Nc3(I) Qc1(V)+`, or long, `1. Nb1(I)-c3(I)
  // qc4(V)-c1(V)`, as chosen; each ply's other form is its tooltip. A game that began with black
  // to move opens with `1. … move`. While a record is stepped through, its moves still to come
  // are listed too, dimmed. The current move (the last played) is marked and scrolled into the
  // list's view; a click on a ply goes to the position after it.
  const other = state.notation === "long" ? "short" : "long";
  const names = plyNames();
  const at = replayPly();
  const ahead = at >= 0 ? state.replay.moves.slice(names.length).map((text) => ({ short: text, long: text, ahead: true })) : [];
  const all = [...names, ...ahead];
  const blackFirst = (names.length % 2 === 0) === (state.side === "b");
  const row = blackFirst ? [null, ...all] : [...all];
  const items = [];
  let current = null;
  for (let k = 0; k < row.length; k += 2) {
    const li = document.createElement("li");
    li.append(`${k / 2 + 1}.`);
    for (const [offset, ply] of row.slice(k, k + 2).entries()) {
      const span = document.createElement("span");
      if (ply === null) span.textContent = "…";
      else {
        const number = k + offset + (blackFirst ? 0 : 1); // plies played up to and with this one
        span.className = ply.ahead ? "ahead" : "ply"; // only played plies are .ply
        span.textContent = ply[state.notation];
        span.title = ply[other];
        span.dataset.short = ply.short;
        span.dataset.long = ply.long;
        span.dataset.ply = String(number);
        span.tabIndex = -1;
        span.setAttribute("role", "button");
        span.addEventListener("click", () => actions.goToPly(number));
        if (number === names.length) { span.classList.add("current"); span.setAttribute("aria-current", "step"); current = span; }
      }
      li.append(" ", span);
    }
    items.push(li);
  }
  list.replaceChildren(...items);
  if (current) list.scrollTop = Math.max(0, current.offsetTop - list.clientHeight / 2);
  else list.scrollTop = 0;
  for (const r of document.querySelectorAll("#move-notation input")) r.checked = r.value === state.notation;
  renderUndo();
  renderReplay();
}

export function renderSolve() {
  const current = state.solved && state.solved.key === boardKey() ? state.solved : null;
  $("keys").replaceChildren(...(current ? current.keys : []).map((m) => {
    const li = document.createElement("li");
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = m.text;
    b.dataset.move = m.text;
    b.title = "Play this key (switches to Play)";
    b.addEventListener("click", () => actions.playKey(m.text));
    li.append(b);
    return li;
  }));
  $("solution").textContent = current ? current.text : "";
  $("solve").disabled = state.solving;
  $("solve").textContent = state.solving ? "Solving…" : "Solve";
}

export function setSolveStatus(text, kind = "") {
  $("solve-status").textContent = text;
  $("solve-status").className = kind;
}

export function showNotation() {
  // Never overwrite what the user is typing or has typed and not loaded yet.
  const box = $("notation");
  if (state.notationDirty || document.activeElement === box) return;
  box.value = boardKey();
}

export function setVerdict(state, text = "") {
  const v = $("verdict");
  v.textContent = text;
  v.dataset.state = state;
  // Which position this verdict belongs to, so that nobody can take it for another's.
  v.dataset.for = state === "none" || state === "pending" ? "" : boardKey();
}

export function tableWords(value, toMove) {
  // tb_probe's value for the side to move ("win 3", "loss 0", "draw") in colours; "" for
  // anything else: a refusal (no table for this material, none loaded) shows nothing.
  if (value === "draw") return "Endgame table: draw";
  const m = /^(win|loss) (\d+)$/.exec(value);
  if (!m) return "";
  const k = Number(m[2]);
  if (m[1] === "loss" && k === 0) return `Endgame table: ${sideName(toMove)} is checkmated`;
  const winner = m[1] === "win" ? toMove : (toMove === "w" ? "b" : "w");
  return `Endgame table: ${sideName(winner)} wins in ${k} move${k === 1 ? "" : "s"}`;
}

export function setTable(probe = null) {
  // The line under the board: the table's verdict on the board shown, or nothing.
  const line = $("tablebase");
  line.textContent = probe && probe.ok ? tableWords(probe.text.trim(), state.side) : "";
  line.dataset.for = line.textContent ? boardKey() : "";
}

export function setMessage(text, kind) {
  const m = $("message");
  m.textContent = text;
  m.className = text ? kind : "";
}

export function clearMessage() {
  // Nothing went wrong: show a pending server notice (engine restarted) once, or nothing.
  setMessage(state.notice, "info");
  state.notice = "";
}

export function problem(data) {
  // What to show the user for a failed exchange: the engine's own words when there are any.
  return data.raw !== undefined ? data.raw.trim() : data.error;
}

export function showFailure(data) {
  // The engine's "? ..." is a calm refusal; a server or network failure is an error.
  setMessage(problem(data), data.raw !== undefined ? "refused" : "error");
}


export function scoreWords(depth, who) {
  // The engine scores for the side to move: the computer, while it thinks.
  if (depth.mate !== null) {
    return depth.mate > 0 ? `${who}: mate in ${depth.mate}` : `${who}: mated in ${-depth.mate}`;
  }
  const pawns = depth.score_cp / 100;
  if (pawns === 0) return `${who}: even (0.00)`;
  return `${who}: ${pawns > 0 ? "+" : "−"}${Math.abs(pawns).toFixed(2)} pawns`;
}

export function renderThinking(snap, move) {
  const box = $("thinking");
  const who = state.opponent === "none" ? sideName(state.side) : sideName(state.opponent);
  const last = snap.depths.length ? snap.depths[snap.depths.length - 1] : null;
  const head = document.createElement("div");
  head.className = "head";
  head.textContent = move
    ? `${who} played ${move}` + (snap.seconds ? ` after ${snap.seconds.toFixed(1)} s` : "")
    : `${who} thinks: ${snap.seconds.toFixed(1)} s`;
  const lines = [head];
  if (last) {
    const line = document.createElement("div");
    line.className = "line";
    line.textContent = `depth ${last.depth} · ${scoreWords(last, who)} · `
      + `${last.nodes.toLocaleString("en")} positions`;
    const pv = document.createElement("div");
    pv.className = "pv";
    pv.textContent = last.pv.join(" ");
    lines.push(line, pv);
  }
  if (snap.cut) {
    // A fixed depth that a limit stopped (search.max_nodes, say): the move is not its best.
    const cut = document.createElement("div");
    cut.className = "cut";
    cut.textContent = `depth ${snap.cut.depth} not searched in full: ${snap.cut.why}`;
    lines.push(cut);
  }
  box.replaceChildren(...lines);
  box.dataset.state = move ? "done" : "thinking";
  box.dataset.seconds = String(snap.seconds);
  setData(box, "depth", last ? String(last.depth) : "");
  setData(box, "cut", snap.cut ? String(snap.cut.depth) : "");
  setData(box, "score", last ? (last.mate !== null ? `mate ${last.mate}` : String(last.score_cp)) : "");
}

export function showIdleThinking() {
  const box = $("thinking");
  if (box.dataset.state === "idle") return;
  box.textContent = "The computer's thinking shows here while it searches.";
  box.dataset.state = "idle";
  setData(box, "depth", "");
  setData(box, "score", "");
}


export function renderGame() {
  const over = state.result !== "" && state.result !== "*"; // no move is asked for in a game that has ended
  setText($("result"), over ? state.result : "");
  const hintOff = over || state.computer !== null || state.hinting !== null || (state.mode === "play" && computersTurn());
  if ($("hint").disabled !== hintOff) $("hint").disabled = hintOff;
  setText($("hint"), state.hinting ? "Hint…" : "Hint");
  const chosen = state.opponent === "none" ? "none" : colourWord(state.opponent);
  if ($("opponent").value !== chosen) $("opponent").value = chosen;
  setData(document.body, "computer", state.computer ? "thinking" : "idle");
  const box = $("thinking");
  if (state.computer && box.dataset.state !== "thinking") {
    box.replaceChildren(Object.assign(document.createElement("div"),
      { className: "head", textContent: `${sideName(state.opponent)} thinks` }));
    box.dataset.state = "thinking";
  } else if (!state.computer && box.dataset.state === "thinking") {
    box.replaceChildren(Object.assign(document.createElement("div"),
      { className: "head", textContent: "The search was stopped: the game moved on." }));
    box.dataset.state = "stopped";
  }
}

export function setRecordLink(available) {
  // The Download record link works for a board the engine has accepted.
  const link = $("record");
  if (available === link.hasAttribute("href")) return;
  if (available) link.setAttribute("href", "#record");
  else link.removeAttribute("href");
  link.setAttribute("aria-disabled", String(!available));
}

export function renderReplay() {
  const box = $("replay");
  box.hidden = state.replay === null;
  if (!state.replay) return;
  const ply = replayPly();
  $("replay-where").textContent = ply < 0
    ? `${state.replay.name}: the game has left the record`
    : `${state.replay.name}: move ${ply} of ${state.replay.moves.length}`;
  box.dataset.ply = String(ply);
  $("replay-start").disabled = $("replay-back").disabled = state.moves.length === 0;
  $("replay-next").disabled = $("replay-end").disabled = ply < 0 || ply >= state.replay.moves.length;
}

export function renderNotationState() {
  $("notation-state").textContent = state.notationDirty ? "edited, not loaded" : "";
  $("revert").hidden = !state.notationDirty;
}

export function renderPosition(marks) {
  // The panel's words about the board shown: the selected piece, the side to move.
  const info = $("selection");
  if (state.selected < 0) {
    info.textContent = state.mode === "play" ? `Play: click a ${sideName(state.side).toLowerCase()} piece, then where it goes.` : "";
  } else {
    const p = state.cells[state.selected];
    let text = `Selected ${cellName(state.selected)} — ${describe(p)}`;
    if (ownPiece(p) && state.analysis) {
      // Moves, not cells: a pawn about to promote has one move per piece it may become.
      const count = state.analysis.moves.filter((m) => m.from === state.selected).length;
      text += `: ${count} legal move${count === 1 ? "" : "s"}`;
    }
    info.textContent = text;
  }
  $("turn").textContent = `${sideName(state.side)} to move`;
  $("turn").dataset.side = state.side;
  for (const r of document.querySelectorAll("#side input")) r.checked = r.value === state.side;
}

// The order a promotion's choices are offered in: the strongest first.
const PROMOTION_ORDER = "QRBUN";

export function choosePromotion(moves) {
  // Ask which piece the pawn becomes: a small dialog with one button per legal choice.
  // Resolves to the move chosen, or null when the person cancels (Esc, Cancel).
  const box = $("promotion");
  const rank = (m) => { const k = PROMOTION_ORDER.indexOf(m.promotion.toUpperCase()); return k < 0 ? 99 : k; };
  const sorted = [...moves].sort((a, b) => rank(a) - rank(b));
  return new Promise((resolve) => {
    let chosen = null;
    $("promotion-choices").replaceChildren(...sorted.map((m) => {
      const letter = isWhite(state.cells[m.from]) ? m.promotion.toUpperCase() : m.promotion.toLowerCase();
      const button = document.createElement("button");
      button.type = "button";
      button.className = "chip";
      button.dataset.promotion = m.promotion.toUpperCase();
      button.title = `${m.text}: the pawn becomes a ${pieceOf(letter).name}`;
      button.append(figure(letter), ` ${pieceOf(letter).name}`);
      button.addEventListener("click", () => { chosen = m; box.close(); });
      return button;
    }));
    box.addEventListener("close", () => resolve(chosen), { once: true });
    box.showModal();
    box.querySelector("button").focus();
  });
}

$("promotion-cancel").addEventListener("click", () => $("promotion").close());
