// The page's controller: what each click, key and button does to the game, the analysis of
// every board shown, the computer's moves, the hint, records, the solver and the console.
// It owns no drawing: paint() hands the model to the layer view, the 3D view and the panels.
// The 3D view once its module (and three.js) loaded; null while the layers are the only view.
// It sits on top: it imports the views, the connection and the model, and hands the views the
// handlers of what their clicks do (no module below imports it; tests/test_gui_modules.py).
import { ask, askAbout, engine, engineBatch, ensureBoard, exclusive, heard, heardVariant, learnEngineBoard, logLine, MAX_BATCH, post, received, setConnectionHooks, updatePending, variantLines } from "./connection.js";
import { $, setText } from "./dom.js";
import { applyZoom, arm, buildBoards, buildPalette, clickCell, paintLayers, renderPalette, setLayerActions } from "./layers.js";
import { state, boardKey, boardMarks, cellIndex, cellName, colourWord, computersTurn, fromNotation, MAX_3D, MAX_VIEW, ownPiece, parseCheckers, parseMoves, plyNames, recordPlies, replayPly, sideName, VERDICTS } from "./model.js";
import { choosePromotion, clearMessage, problem, renderGame, renderMoves, renderNotationState, renderPosition, renderSolve, renderThinking, renderUndo, setMessage, setPanelActions, setRecordLink, setSolveStatus, setTable, setVerdict, showFailure, showIdleThinking, showNotation } from "./panels.js";
import { allowsSize, cycleOf, knownVariant, levelName, lettersOf, variantOf } from "./variants.js";
let view3d = null;

export const EXAMPLES = [
  ["case 1 (n = 3)", "[###,n##,#rr],[#b#,###,###],[###,###,bRK]"],
  ["case 2 (n = 3)", "[b#b,###,###],[###,###,RNR],[#q#,###,#K#]"],
  ["case 3 (n = 3)", "[#q#,#b#,###],[n##,###,###],[#k#,###,#KB]"],
  ["case 4 (n = 4)", "[####,####,r###,####],[####,#q##,####,####],[##r#,###b,####,BRnn],[####,####,#N##,#KQ#]"],
  ["case 5 (n = 3)", "[###,##b,r#r],[###,###,###],[#k#,###,#K#]"],
  ["case 6 (n = 3)", "[##k,###,r#K],[###,n##,#N#],[###,###,#Q#]"],
  ["case 7 (n = 3)", "[###,###,##q],[###,###,###],[#k#,###,rNK]"],
  ["case 8 (n = 2)", "[#q,##],[##,K#]"],
  ["case 9 (n = 2)", "[rq,##],[##,K#]"],
  ["case 10 (n = 3)", "[###,###,#q#],[###,###,###],[#k#,###,BKn]"],
  ["black mates in 1 (n = 3)", "[rb#,###,nNK],[###,##b,#b#],[###,##k,###] b"],
  ["black mates in 2 (n = 3)", "[###,#k#,#b#],[##b,###,###],[r##,##K,###] b"],
];

export const DEFAULT_PAUSE_MS = 300; // edits closer together than this are one change to the engine

export const MAX_PAUSE_MS = 10000; // longer, and the page would seem not to listen

// The edit pause may be set in the page's address, `?pause=MS`: 0 sends every edit at once.
const ADDRESS = new URLSearchParams(location.search);
export const PAUSE = editPause(ADDRESS.get("pause"));

// Before each level line: the engine's own defaults, so that every line of the level menu means
// what it means to a fresh engine (`level` changes only the settings it names).
export const LEVEL_RESET = "level depth 0 nodes 0 time 1";

// The engine names the moves of the list (docs/rules.md, "Short notation"): its record of the
// game, short and long, asked in the same exchange as each move or take-back. Both cost the
// engine 2 ms for a game of 200 plies on 5³ (docs/gui.md).
export const RECORD_LINES = ["printgame", "printgame long"];

export function takeRecord([short, long]) {
  // The engine's names of the moves played, from the answers to RECORD_LINES; none if either failed.
  const plies = (r) => (r && r.ok ? recordPlies(r.text) : null);
  const [s, l] = [plies(short), plies(long)];
  state.record = s && l ? { short: s, long: l } : null;
}

export const THINKING_POLL_MS = 250; // the thinking panel is read four times a second while it searches

export const MAX_RECORD_BYTES = 3 * 1024 * 1024; // the server takes bodies up to 4 MiB, escapes included

export function paint() {
  // One model, every view: the layers, the 3D view (once loaded) and the panels.
  const marks = boardMarks();
  document.body.dataset.board = marks.key;
  paintLayers(marks);
  if (view3d) view3d.paint(marks);
  renderPosition(marks);
  renderUndo();
  renderGame();
}

export function editPause(text) {
  // The pause asked for in the address, or the default and why it was not taken.
  if (text === null) return { ms: DEFAULT_PAUSE_MS, problem: "" };
  const ms = /^\d{1,5}$/.test(text) ? Number(text) : NaN;
  if (ms <= MAX_PAUSE_MS) return { ms, problem: "" };
  return {
    ms: DEFAULT_PAUSE_MS,
    problem: `the address asks for pause=${JSON.stringify(text)}: the edit pause is a whole number `
      + `of milliseconds from 0 to ${MAX_PAUSE_MS}; using ${DEFAULT_PAUSE_MS}`,
  };
}

export async function analyse(gen, started, keepMessage = false) {
  if (gen !== state.generation) return; // a newer change is on its way; it will do the work
  const { sent, replies } = await askAbout(
    ["status", "checkers", "legal_moves", "explain", "result", "tb_probe"]);
  if (gen !== state.generation) return; // the board changed meanwhile: this verdict is not its own
  if (!sent.ok) {
    state.analysis = null;
    setVerdict("none");
    setTable();
    if (!keepMessage) showFailure(sent);
    paint();
    return;
  }
  const [status, checkers, legal, explain, judged, table] = replies;
  // A position no game could reach has no result (`result` refuses it): nothing to show.
  state.result = judged && judged.ok ? judged.text : "";
  setRecordLink(true);
  const failed = [status, checkers, legal, explain].find((r) => !r.ok);
  if (failed) showFailure(failed);
  else if (!keepMessage) clearMessage();
  const word = status.ok && VERDICTS.includes(status.text) ? status.text : "";
  state.analysis = {
    status: word,
    checkers: checkers.ok ? parseCheckers(checkers.text) : [],
    moves: legal.ok ? parseMoves(legal.text) : [],
  };
  setVerdict(word ? word : "none", word);
  setTable(table); // its refusal is no failure: most positions have no table
  $("explain").textContent = explain.ok ? explain.text : "";
  paint();
  const ms = performance.now() - started;
  document.body.dataset.analysisMs = ms.toFixed(1);
  logLine(`(page) board judged in ${ms.toFixed(1)} ms`);
  maybeComputerMove();
}

export function cancelDebounce() {
  if (state.debounceTimer) { clearTimeout(state.debounceTimer); state.debounceTimer = 0; }
}

export function flushDebounce() {
  // A button wants the engine now: judge a board still waiting for its pause at once.
  if (!state.debounceTimer) return;
  cancelDebounce();
  const gen = state.generation;
  exclusive(() => analyse(gen, performance.now()));
}

export function changed({ immediate = false, edited = true } = {}) {
  // Every board change: redraw now, forget what belonged to the old board, then let the
  // engine judge the new one (after a pause in the edits, so half-made boards are not sent).
  const gen = ++state.generation;
  stopSearches();
  state.analysis = null;
  state.solved = null;
  state.result = "";
  state.lastMove = null;
  state.hint = null;
  setRecordLink(false);
  if (edited) {
    state.moves = [];
    state.replay = null;
    $("examples").value = "";
    showIdleThinking();
  }
  setVerdict("pending", "thinking…");
  setTable();
  $("answer").textContent = "";
  $("explain").textContent = "";
  setMessage("", "");
  setSolveStatus("");
  showNotation();
  paint();
  renderMoves();
  renderSolve();
  cancelDebounce();
  if (immediate || PAUSE.ms === 0) {
    exclusive(() => analyse(gen, performance.now()));
  } else {
    state.debounceTimer = setTimeout(() => {
      state.debounceTimer = 0;
      exclusive(() => analyse(gen, performance.now()));
    }, PAUSE.ms);
  }
  savePosition();
  updatePending();
}

export function setSize(size, newCells) {
  state.n = size;
  state.cells = newCells || new Array(state.n * state.n * state.n).fill("");
  state.selected = -1;
  state.cursor = Math.min(state.cursor, state.n * state.n * state.n - 1);
  if (![...$("size").options].some((o) => o.value === String(state.n))) {
    // A pasted board may be bigger than the menu offers; show its size all the same.
    const opt = document.createElement("option");
    opt.value = opt.textContent = String(state.n);
    $("size").append(opt);
  }
  $("size").value = String(state.n);
  buildBoards();
  applyView();
}

export function setVariant(name) {
  // The rules the page plays: the chooser, the sizes offered, the palette, the level names.
  state.variant = variantOf(name).name;
  $("variant").value = state.variant;
  for (const opt of $("size").options) opt.disabled = !allowsSize(state.variant, Number(opt.value));
  document.body.dataset.variant = state.variant;
  if (state.armed && !lettersOf(state.variant).includes(state.armed)) arm(null);
  else arm(state.armed); // the hint names the variant's pieces
  renderPalette();
  buildBoards();
  applyView();
}

export function adopt(parsed) {
  // Show a whole position (size, cells, side to move; its rules when known) as the page's board.
  if (parsed.variant && knownVariant(parsed.variant) && parsed.variant !== state.variant) setVariant(parsed.variant);
  if (parsed.size !== state.n) setSize(parsed.size, parsed.cells);
  else { state.cells = parsed.cells; state.selected = -1; }
  state.side = parsed.side;
}

export function whenLoaded(action) {
  // An edit made while a pasted board loads belongs to that board: apply it afterwards.
  if (state.loading) state.loading.then(action);
  else action();
}

export function place(i, piece) {
  if (state.mode !== "edit" || i < 0) return;
  state.cells[i] = piece;
  state.selected = i;
  changed();
}

export function editCell(name, how) {
  // Apply an edit to the cell called `name` once any load has finished (the board may change).
  whenLoaded(() => {
    const i = cellIndex(name);
    if (i < 0) return;
    if (how === "cycle") {
      if (state.armed !== null) place(i, state.cells[i] === state.armed ? "" : state.armed);
      else {
        const cycle = cycleOf(state.variant);
        place(i, cycle[(cycle.indexOf(state.cells[i]) + 1) % cycle.length]);
      }
    } else {
      place(i, how);
    }
  });
}

export function setMode(next) {
  const was = state.mode;
  state.mode = next;
  document.body.dataset.mode = state.mode;
  for (const r of document.querySelectorAll("#mode input")) r.checked = r.value === state.mode;
  state.selected = -1;
  for (const chip of document.querySelectorAll("#palette .chip")) chip.disabled = state.mode !== "edit";
  if (state.mode !== "edit") arm(null);
  if (state.mode !== "play") stopSearches(); // the computer moves in Play only
  savePosition();
  paint();
  if (state.mode === "play" && was !== "play" && state.analysis && !state.debounceTimer) maybeComputerMove();
}

export function moveText(from, to) {
  return `${state.cells[from]}${cellName(from)}${state.cells[to] ? "x" : "-"}${cellName(to)}`;
}

export function moveTo(from, to) {
  // The move of the piece on `from` to `to`. Where the legal moves there differ only in what a
  // pawn becomes (`=Q` … `=N`), the person chooses first; a cancelled choice plays nothing.
  const choices = state.analysis && !(state.mode === "play" && computersTurn())
    ? state.analysis.moves.filter((m) => m.from === from && m.to === to && m.promotion) : [];
  if (choices.length === 0) return playMove(moveText(from, to));
  if (choices.length === 1) return playMove(choices[0].text);
  const gen = state.generation;
  return choosePromotion(choices).then((m) => {
    if (gen !== state.generation) return undefined; // the board changed meanwhile
    if (!m) { state.selected = -1; setMessage("no promotion chosen: the pawn stays where it was", "info"); paint(); return undefined; }
    return playMove(m.text);
  });
}


export function playMove(text) {
  // Ask the engine to play `text` on the board shown; adopt the position it then holds.
  if (state.mode === "play" && computersTurn()) {
    setMessage(`it is the computer's move (${sideName(state.side)}): wait for it, or take back`, "refused");
    return Promise.resolve();
  }
  const gen = state.generation;
  return exclusive(async () => {
    if (gen !== state.generation) return; // the board changed since the click
    const { sent, replies } = await askAbout([`play ${text}`, "get_board", ...RECORD_LINES]);
    if (!sent.ok) { if (gen === state.generation) showFailure(sent); return; }
    const [r, g, ...names] = replies;
    if (!r.ok) {
      if (gen === state.generation) { showFailure(r); paint(); }
      return;
    }
    // The engine moved on: note where to, even if the page no longer shows that board.
    const parsed = g.ok ? fromNotation(g.text) : null;
    state.engineKey = parsed ? g.text.trim() : null;
    if (gen !== state.generation) return; // the user changed the board meanwhile: keep theirs
    if (!parsed || parsed.size > MAX_VIEW) { setMessage("cannot read the engine's board after the move", "error"); return; }
    adopt(parsed);
    state.moves.push(text);
    takeRecord(names);
    changed({ immediate: true, edited: false });
    markLastMove(text);
  });
}

export function markLastMove(text) {
  // The move just played, the person's or the computer's, stays marked on the board it left.
  const [m] = parseMoves(text);
  state.lastMove = m ? { key: boardKey(), from: m.from, to: m.to } : null;
  paint();
  saveGame();
}

export function goToPly(ply) {
  // A ply of the move list clicked: back to it, or on along the opened record to it.
  if (ply < state.moves.length) return takeBack(state.moves.length - ply);
  const at = replayPly();
  if (at < 0) return undefined;
  return playMoves(state.replay.moves.slice(at, ply));
}

export function undo() {
  // Against the computer a take-back returns the move to the user: their last move and the
  // computer's answer together, or only theirs while the computer still thinks about it.
  const thinking = state.computer !== null;
  if (!state.moves.length && !thinking) {
    setMessage("nothing to take back: no move was played since the position was set", "refused");
    return Promise.resolve();
  }
  stopSearches();
  let plies = 1;
  if (state.opponent !== "none" && !thinking && !computersTurn()) plies = 2;
  return takeBack(Math.min(plies, state.moves.length));
}

export function takeBack(plies) {
  // Undo `plies` moves in the engine and show the position it then holds.
  if (plies <= 0) return Promise.resolve();
  stopSearches();
  const gen = ++state.generation; // the board is about to change: work for this one is void
  return exclusive(async () => {
    const after = ["get_board", ...RECORD_LINES];
    const lines = [...Array(Math.min(plies, MAX_BATCH - after.length)).fill("undo"), ...after];
    const replies = await engineBatch(lines);
    const [g, ...names] = replies.splice(replies.length - after.length);
    const undone = replies.filter((r) => r.ok).length;
    const refused = replies.find((r) => !r.ok);
    const parsed = g.ok ? fromNotation(g.text) : null;
    state.engineKey = parsed ? g.text.trim() : null;
    if (gen !== state.generation) return;
    if (refused) showFailure(refused);
    if (!parsed || parsed.size > MAX_VIEW) { setMessage("cannot read the engine's board after undo", "error"); return; }
    adopt(parsed);
    state.moves.splice(state.moves.length - undone, undone);
    takeRecord(names);
    const rest = plies - undone;
    changed({ immediate: true, edited: false });
    if (!refused && rest > 0) takeBack(rest);
  });
}

export function levelLines() {
  return [LEVEL_RESET, $("level").value];
}


export function maybeComputerMove() {
  // After every judged board: the computer moves when it is its turn in a game going on.
  if (state.mode !== "play" || !computersTurn() || state.computer || state.result !== "*") return;
  computerMove();
}

export function computerMove() {
  const gen = state.generation;
  const job = { gen, version: null, cancelled: false };
  state.computer = job;
  renderGame();
  renderUndo();
  return exclusive(async () => {
    const thinking = { job, search: 0, timer: 0, answered: false };
    try {
      if (job.cancelled || gen !== state.generation) return;
      const { sent } = await askAbout(levelLines());
      if (!sent.ok) { if (gen === state.generation) showFailure(sent); return; }
      if (job.cancelled || gen !== state.generation) return;
      job.version = state.gameVersion; // a stop from now on names this version
      const colour = colourWord(state.side);
      pollThinking(thinking);
      const r = received(`(genmove ${colour} for game ${job.version})`,
        heard(await post({ game: job.version, color: colour }, "/genmove")));
      thinking.answered = true;
      clearTimeout(thinking.timer);
      // Stopped or stale: the server took its move back, or never searched.
      if (job.cancelled || gen !== state.generation) return;
      // Refused as stale with the page's board unchanged: another client moved the engine's
      // game on. Its version is the server's word; the user starts again from here.
      if (r.cancelled === false && Number.isInteger(r.game)) state.gameVersion = r.game;
      if (!r.ok) { showIdleThinking(); showFailure(r); return; }
      await showThinking(thinking, r.text);
      const [g, ...names] = await engineBatch(["get_board", ...RECORD_LINES]);
      if (job.cancelled || gen !== state.generation) return;
      const parsed = g.ok ? fromNotation(g.text) : null;
      state.engineKey = parsed ? g.text.trim() : null;
      if (!parsed || parsed.size > MAX_VIEW) { setMessage("cannot read the engine's board after its move", "error"); return; }
      state.computer = null;
      adopt(parsed);
      state.moves.push(r.text);
      takeRecord(names);
      changed({ immediate: true, edited: false });
      markLastMove(r.text);
    } finally {
      thinking.answered = true;
      clearTimeout(thinking.timer);
      if (state.computer === job) state.computer = null;
      renderGame();
      renderUndo();
    }
  });
}

export function pollThinking(thinking) {
  // Read the search's thinking until it answers; one request at a time, never the engine lock.
  thinking.timer = setTimeout(async () => {
    const snap = await readThinking();
    if (thinking.answered || thinking.job.cancelled) return; // the answer has the last word
    if (snap && snap.running && snap.command === "genmove") {
      thinking.search = snap.search;
      renderThinking(snap, "");
    }
    pollThinking(thinking);
  }, THINKING_POLL_MS);
}

export async function showThinking(thinking, move) {
  // The search has answered: show its last depths with the move it chose.
  const snap = await readThinking();
  if (snap && snap.command === "genmove" && !snap.running
      && (thinking.search === 0 || snap.search === thinking.search)) {
    renderThinking(snap, move);
  } else {
    renderThinking({ running: false, seconds: 0, depths: [] }, move);
  }
}

export async function readThinking() {
  try {
    const res = await fetch("/thinking");
    return heard(await res.json());
  } catch (err) {
    return null;
  }
}

export function stopSearches() {
  // The game is about to change: void the computer's move and the hint, and stop a search
  // under way (the server takes back a move it played for a game that has moved on).
  const searches = [state.computer, state.hinting].filter((j) => j && !j.cancelled);
  for (const job of searches) job.cancelled = true;
  const asked = searches.filter((j) => j.version !== null).map((j) => j.version);
  if (state.computer) { state.computer = null; renderGame(); }
  if (!asked.length) return;
  const version = Math.max(...asked);
  const stop = post({ game: version }, "/stop")
    .then((r) => received(`(stop the search for game ${version})`, heard(r)));
  state.pendingStop = stop;
  stop.finally(() => { if (state.pendingStop === stop) state.pendingStop = null; });
}

export function showHint() {
  if (state.computer || state.hinting) return Promise.resolve();
  if (state.mode === "play" && computersTurn()) {
    setMessage("the hint is for your move: it is the computer's turn", "refused");
    return Promise.resolve();
  }
  flushDebounce();
  const gen = state.generation;
  const job = { gen, version: null, cancelled: false };
  state.hinting = job;
  renderGame();
  return exclusive(async () => {
    try {
      if (job.cancelled || gen !== state.generation) return;
      const { sent } = await askAbout(levelLines());
      if (!sent.ok) { if (gen === state.generation) showFailure(sent); return; }
      if (job.cancelled || gen !== state.generation) return;
      job.version = state.gameVersion;
      const r = await engine("reg_genmove");
      if (job.cancelled || gen !== state.generation) return;
      if (!r.ok) { showFailure(r); return; }
      const [m] = parseMoves(r.text);
      if (!m) { setMessage(`hint: the engine would ${r.text}`, "info"); return; }
      state.hint = { key: boardKey(), from: m.from, to: m.to, text: r.text };
      setMessage(`hint: ${r.text}`, "info");
      paint();
    } finally {
      if (state.hinting === job) state.hinting = null;
      renderGame();
    }
  });
}

export function newGame() {
  // The start position of the size and rules chosen, in the engine and on the page.
  const variant = state.variant;
  const size = allowsSize(variant, Number($("size").value)) ? Number($("size").value) : variantOf(variant).sizes[0];
  stopSearches();
  const gen = ++state.generation;
  return exclusive(async () => {
    const [r, g] = await engineBatch([`new_game ${size} ${variant}`, "get_board"]);
    if (!r.ok) { if (gen === state.generation) showFailure(r); return; }
    state.engineVariant = variant;
    const parsed = g.ok ? fromNotation(g.text) : null;
    state.engineKey = parsed ? g.text.trim() : null;
    if (gen !== state.generation) return;
    if (!parsed || parsed.size > MAX_VIEW) { setMessage("cannot read the engine's start position", "error"); return; }
    adopt(parsed);
    changed({ immediate: true, edited: true });
    setMode("play");
  });
}

export function setOpponent(value) {
  stopSearches(); // a move the computer is thinking about belongs to the side it played
  const player = state.opponent === "w" ? "b" : "w";
  state.opponent = value === "white" ? "w" : value === "black" ? "b" : "none";
  // The board turns to the side the person now plays.
  if (view3d && player !== (state.opponent === "w" ? "b" : "w")) view3d.reset();
  if (state.opponent !== "none") setMode("play");
  savePosition();
  renderGame();
  // Judged already: the computer moves now if it is its turn; else the next analysis sees to it.
  if (state.analysis && !state.debounceTimer) maybeComputerMove();
}

export function downloadRecord(ev) {
  // Ask the engine for the record of the game shown (printgame) when the link is clicked, not
  // after every change (its cost grows with the game), then follow the link to it.
  const link = $("record");
  if (link.dataset.ready === "1") { delete link.dataset.ready; return; } // our own click below
  ev.preventDefault();
  if (!link.hasAttribute("href")) return;
  const gen = state.generation;
  exclusive(async () => {
    if (gen !== state.generation) return;
    const { sent, replies } = await askAbout(["printgame"]);
    const r = replies[0];
    if (gen !== state.generation) return;
    if (!sent.ok || !r.ok) { showFailure(sent.ok ? r : sent); return; }
    if (state.recordUrl) URL.revokeObjectURL(state.recordUrl);
    const text = r.text.replace(/^\n/, "") + "\n";
    state.recordUrl = URL.createObjectURL(new Blob([text], { type: "text/plain;charset=utf-8" }));
    link.href = state.recordUrl;
    link.dataset.ready = "1";
    link.click();
    link.setAttribute("href", "#record");
  });
}

export async function readRecord(file) {
  // The file's text, or null after saying why it cannot be a record.
  if (file.size > MAX_RECORD_BYTES) {
    setMessage(`'${file.name}' is too large for a record here (${file.size} bytes; the most is ${MAX_RECORD_BYTES})`, "refused");
    return null;
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(await file.arrayBuffer());
  } catch (err) {
    setMessage(`'${file.name}' is not a text file in UTF-8: a record is plain UTF-8 text`, "refused");
    return null;
  }
}

export function openRecord(file) {
  // Post the record's text to the server, which has the engine read it (and refuse it whole,
  // changing nothing, if any line or move is wrong); then step through it from its start.
  return exclusive(async () => {
    const gen = state.generation;
    const text = await readRecord(file);
    if (text === null) return;
    const r = received(`(open the record ${file.name})`, heard(await post({ text, name: file.name }, "/record")));
    if (!r.ok) { showFailure(r); return; } // refused: the engine's game is as it was
    const parsed = await learnEngineBoard();
    if (gen !== state.generation) { state.engineKey = null; return; } // edited meanwhile: the edit wins
    if (!parsed || parsed.size > MAX_VIEW) { setMessage("cannot show the record's start position", "error"); return; }
    adopt(parsed);
    state.opponent = "none";
    changed({ immediate: true, edited: true });
    setMode("play");
    state.replay = { name: file.name, moves: r.moves };
    renderMoves();
    setMessage(`${file.name}: ${r.moves.length} moves; ▶ plays them one by one`, "info");
  });
}


export async function replayForward(all) {
  // Play the record's next move, or every move left (in one exchange of up to MAX_BATCH lines
  // at a time, the board shown once at the end: a record's 146 moves in a blink).
  const record = state.replay;
  const ply = replayPly();
  if (ply < 0 || ply >= record.moves.length) return undefined;
  if (!all) return playMove(record.moves[ply]);
  return playMoves(record.moves.slice(ply));
}

export function playMoves(texts) {
  // Play `texts` one after another in the engine, then show the position it holds; the moves
  // it refuses, and those after, are not played (its message says why).
  if (!texts.length) return Promise.resolve();
  stopSearches();
  const gen = ++state.generation;
  return exclusive(async () => {
    if (variantLines().length || state.engineKey !== boardKey()) {
      const { sent } = await askAbout(["get_board"]); // the board on screen, where the engine lacks it
      if (!sent.ok) { showFailure(sent); return; }
    }
    const played = [];
    let refused = null;
    for (let k = 0; !refused && k < texts.length; k += MAX_BATCH) {
      const chunk = texts.slice(k, k + MAX_BATCH);
      const replies = await engineBatch(chunk.map((m) => `play ${m}`));
      for (const [j, r] of replies.entries()) {
        if (refused) break;
        if (r.ok) played.push(chunk[j]); else refused = r;
      }
    }
    const [g, ...names] = await engineBatch(["get_board", ...RECORD_LINES]);
    const parsed = g.ok ? fromNotation(g.text) : null;
    state.engineKey = parsed ? g.text.trim() : null;
    if (gen !== state.generation) return;
    if (!parsed || parsed.size > MAX_VIEW) { setMessage("cannot read the engine's board after the moves", "error"); return; }
    adopt(parsed);
    state.moves.push(...played);
    takeRecord(names);
    changed({ immediate: true, edited: false });
    if (played.length) markLastMove(played[played.length - 1]);
    if (refused) showFailure(refused);
  });
}

export function playClick(i) {
  // In Play: a click on a piece of the side to move selects it; the next click moves it.
  const p = state.cells[i];
  if (ownPiece(p)) {
    state.selected = state.selected === i ? -1 : i;
    setMessage("", "");
    paint();
    return;
  }
  if (state.selected < 0) {
    setMessage(p ? `it is ${sideName(state.side).toLowerCase()}'s move: click a ${sideName(state.side).toLowerCase()} piece`
      : `click a ${sideName(state.side).toLowerCase()} piece first`, "info");
    return;
  }
  // Not a lit target too: the engine says why the move is illegal, in its own words.
  moveTo(state.selected, i);
}

document.addEventListener("keydown", (ev) => {
  const inField = ev.target.closest && ev.target.closest("input, textarea, select");
  if ((ev.ctrlKey || ev.metaKey) && !ev.shiftKey && ev.key.toLowerCase() === "z" && !inField) {
    ev.preventDefault();
    undo();
    return;
  }
  if (ev.key === "Escape" && !inField) { state.selected = -1; arm(null); paint(); return; }
  // With a selected cell and the focus outside the board, letters still place there.
  if (inField || state.selected < 0 || state.mode !== "edit" || ev.ctrlKey || ev.metaKey || ev.altKey) return;
  if (ev.target.closest && ev.target.closest("#boards")) return; // handled above
  if (ev.key.length === 1 && lettersOf(state.variant).includes(ev.key)) { editCell(cellName(state.selected), ev.key); ev.preventDefault(); }
  else if (["Delete", "Backspace"].includes(ev.key)) { editCell(cellName(state.selected), ""); ev.preventDefault(); }
});

export function loadText(text) {
  // Let the engine parse whatever was pasted; adopt its canonical board if it accepts.
  const line = text.replace(/\s+/g, " ").trim();
  if (!line) { setMessage("the notation box is empty", "refused"); return Promise.resolve(); }
  state.notationDirty = false; // the text is taken; from here on, typing marks the box again
  renderNotationState();
  cancelDebounce();
  stopSearches();
  const gen = ++state.generation; // anything queued before the load is now stale
  const job = exclusive(async () => {
    const rules = variantLines();
    const replies = await engineBatch([...rules, `set_board ${line}`, "get_board"]);
    const [r, g] = [heardVariant(rules, replies) || replies[0], replies[1]];
    if (!r.ok) {
      // A refused board changes nothing: the board on screen stays, and so does its verdict,
      // unless an edit just before the load was still waiting to be judged.
      if (gen !== state.generation) return;
      showFailure(r);
      if ($("verdict").dataset.state === "pending") {
        state.generation += 1;
        await analyse(state.generation, performance.now(), true);
      }
      return;
    }
    const parsed = g.ok ? fromNotation(g.text) : null;
    state.engineKey = parsed ? g.text.trim() : null;
    if (gen !== state.generation) return;
    if (!parsed) { setMessage("cannot read the engine's get_board answer", "error"); return; }
    if (parsed.size > MAX_VIEW) {
      setMessage(`the engine accepts this ${parsed.size}×${parsed.size}×${parsed.size} board, `
        + `but this page draws at most n = ${MAX_VIEW}; ask the engine in the console`, "refused");
      return;
    }
    adopt(parsed);
    changed({ immediate: true, edited: true });
  });
  state.loading = job;
  job.finally(() => { if (state.loading === job) state.loading = null; });
  return job;
}

export function loadExample(k) {
  // The examples are known-good canonical boards: show them at once, the engine judges next.
  const [, text] = EXAMPLES[k];
  const parsed = fromNotation(text);
  if (!parsed) return;
  state.notationDirty = false;
  renderNotationState();
  cancelDebounce();
  adopt({ ...parsed, variant: "cube" }); // rules.md's cases are the cube's
  if (document.activeElement === $("notation")) $("notation").blur();
  changed({ immediate: true, edited: true });
  $("examples").value = String(k); // after changed(), which resets the menu for edits
}

export function withBoard(line, show) {
  // Buttons ask about the board on screen, so send it first; a refusal answers instead.
  flushDebounce();
  const gen = state.generation;
  return exclusive(async () => {
    if (gen !== state.generation) return;
    const { sent, replies } = await askAbout([line]);
    if (gen !== state.generation) return;
    if (!sent.ok) { showFailure(sent); return; }
    const r = replies[0];
    if (r.ok) { show(r.text); clearMessage(); }
    else showFailure(r);
  });
}

$("load").addEventListener("click", () => loadText($("notation").value));

$("revert").addEventListener("click", () => {
  state.notationDirty = false;
  renderNotationState();
  $("notation").value = boardKey();
});

$("notation").addEventListener("input", () => { state.notationDirty = true; renderNotationState(); });

$("notation").addEventListener("blur", () => showNotation());

$("notation").addEventListener("keydown", (ev) => {
  if (ev.key === "Enter" && (ev.ctrlKey || ev.metaKey)) { ev.preventDefault(); loadText($("notation").value); }
});

$("size").addEventListener("change", () => {
  const size = Number($("size").value);
  whenLoaded(() => { setSize(size); changed({ immediate: true }); });
});

$("variant").addEventListener("change", () => {
  // Other rules are another game: their start position, on a size they are played on.
  const name = $("variant").value;
  whenLoaded(() => {
    setVariant(name);
    if (!allowsSize(state.variant, Number($("size").value))) $("size").value = String(variantOf(state.variant).sizes[0]);
    newGame();
  });
});

$("clear").addEventListener("click", () => whenLoaded(() => { setSize(state.n); changed({ immediate: true }); }));

$("examples").addEventListener("change", () => {
  const k = $("examples").value;
  if (k !== "") whenLoaded(() => loadExample(Number(k)));
});

$("zoom").addEventListener("input", applyZoom);

for (const r of document.querySelectorAll("#mode input")) {
  r.addEventListener("change", () => { if (r.checked) setMode(r.value); });
}

for (const r of document.querySelectorAll("#side input")) {
  r.addEventListener("change", () => {
    if (!r.checked || r.value === state.side) return;
    whenLoaded(() => { state.side = r.value; changed({ immediate: true }); });
  });
}

$("undo").addEventListener("click", () => undo());

$("new-game").addEventListener("click", () => whenLoaded(() => newGame()));

$("opponent").addEventListener("change", () => setOpponent($("opponent").value));

$("hint").addEventListener("click", () => showHint());

$("record").addEventListener("click", downloadRecord);

$("record-file").addEventListener("change", () => {
  const file = $("record-file").files[0];
  $("record-file").value = ""; // the same file may be opened again
  if (file) whenLoaded(() => openRecord(file));
});

$("replay-start").addEventListener("click", () => takeBack(state.moves.length));

$("replay-back").addEventListener("click", () => takeBack(1));

$("replay-next").addEventListener("click", () => replayForward(false));

$("replay-end").addEventListener("click", () => replayForward(true));

$("btn-checkmate").addEventListener("click", () => withBoard("checkmate", (text) => {
  $("answer").textContent = `checkmate → ${text}`;
}));

$("btn-status").addEventListener("click", () => withBoard("status", (text) => {
  $("answer").textContent = `status → ${text}`;
}));

$("btn-explain").addEventListener("click", () => withBoard("explain", (text) => {
  $("explain").textContent = text;
}));

// What each stipulation asks the engine, and how its answer is told (docs/protocol.md).
export const STIPULATIONS = {
  mate: { ask: (k) => `mate_in ${k}`, tree: (k) => `solution ${k}`, noun: "mate" },
  selfmate: { ask: (k) => `selfmate ${k}`, tree: (k) => `solution ${k} selfmate`, noun: "selfmate" },
  helpmate: { ask: (k) => `helpmate ${k}`, tree: null, noun: "helpmate" },
};

export function solvedStatus(stipulation, depth, keys, count) {
  const who = sideName(state.side);
  const plural = (k, word) => `${k} ${word}${k === 1 ? "" : "s"}`;
  if (stipulation === "helpmate") {
    return count
      ? `${who} is helpmated in ${depth}: ${plural(count, "solution")}`
      : `no helpmate in ${depth} for ${who.toLowerCase()}`;
  }
  if (stipulation === "selfmate") {
    return keys.length
      ? `${who} selfmates in ${depth}: ${plural(keys.length, "key")}`
      : `no selfmate in ${depth} for ${who.toLowerCase()}`;
  }
  return keys.length
    ? `${who} mates in ${depth}: ${plural(keys.length, "key")}`
    : `no mate in ${depth} for ${who.toLowerCase()}`;
}

export function solve() {
  const depth = Number($("mate-depth").value);
  const stipulation = $("stipulation").value;
  const spec = STIPULATIONS[stipulation] || STIPULATIONS.mate;
  if (!Number.isInteger(depth) || depth < 1) {
    setSolveStatus(`${spec.noun} in N needs a whole number N ≥ 1`, "refused");
    return Promise.resolve();
  }
  const gen = state.generation;
  const key = boardKey();
  state.solving = true;
  renderSolve();
  setSolveStatus(`searching for a ${spec.noun} in ${depth}…`);
  flushDebounce(); // the verdict need not wait for the search
  return exclusive(async () => {
    try {
      if (gen !== state.generation) { setSolveStatus("the board changed before the search began"); return; }
      const { sent, replies } = await askAbout([spec.ask(depth)]);
      if (!sent.ok) { setSolveStatus(problem(sent), "refused"); return; }
      const r = replies[0];
      if (gen !== state.generation) { setSolveStatus("the board changed during the search: solve again"); return; }
      if (!r.ok) { setSolveStatus(problem(r), "refused"); return; }
      let keys, text = "", count = 0;
      if (stipulation === "helpmate") {
        // `= K` then one solution a line: its first moves are the keys shown.
        const [first, ...lines] = r.text.split("\n");
        count = Number(first);
        const firsts = [...new Set(lines.map((line) => line.split(" ")[0]))];
        keys = parseMoves(firsts.join(" "));
        text = lines.join("\n");
      } else {
        keys = parseMoves(r.text);
        if (keys.length) {
          const t = (await askAbout([spec.tree(depth)])).replies[0] || { ok: false, error: "the board changed" };
          if (gen !== state.generation) { setSolveStatus("the board changed during the search: solve again"); return; }
          text = t.ok ? t.text : problem(t);
        }
      }
      state.solved = { key, depth, keys, text };
      setSolveStatus(solvedStatus(stipulation, depth, keys, count));
      paint();
    } finally {
      state.solving = false;
      renderSolve();
    }
  });
}

$("solve").addEventListener("click", () => solve());

$("stipulation").addEventListener("change", () => {
  // The keys shown answer another question now.
  state.solved = null;
  setSolveStatus("");
  renderSolve();
  paint();
});

$("mate-depth").addEventListener("keydown", (ev) => { if (ev.key === "Enter") solve(); });

export function sendCommand() {
  const line = $("command").value.trim();
  if (!line) return;
  $("command").value = "";
  flushDebounce();
  const gen = state.generation;
  exclusive(async () => {
    // The command is about the board on screen; if the engine refuses that board, it answers
    // about the last one it accepted, and the page keeps the user's board all the same.
    const sent = gen === state.generation ? await ensureBoard() : { ok: true };
    if (state.engineKey === null) await learnEngineBoard();
    const before = `${state.engineVariant} ${state.engineKey}`;
    const r = await ask(line);
    if (!r.ok) showFailure(r);
    else if (!sent.ok) showFailure(sent); // the board on screen is still the refused one
    else clearMessage();
    const parsed = await learnEngineBoard();
    // Take the engine's position only when this command changed it (play, undo, set_board…).
    if (!parsed || `${state.engineVariant} ${state.engineKey}` === before || parsed.size > MAX_VIEW) return;
    const names = await engineBatch(RECORD_LINES); // its names for the moves listed next
    const words = line.split(/\s+/).filter((w) => !/^\d+$/.test(w));
    adopt(parsed);
    if (r.ok && words[0] === "play") state.moves.push(words.slice(1).join(" "));
    else if (r.ok && words[0] === "genmove" && parseMoves(r.text).length) state.moves.push(r.text);
    else if (r.ok && words[0] === "undo") state.moves.pop();
    else state.moves = [];
    takeRecord(names);
    changed({ immediate: true, edited: false });
  });
}

$("send").addEventListener("click", sendCommand);

$("command").addEventListener("keydown", (ev) => { if (ev.key === "Enter") sendCommand(); });

// ---------------------------------------------------------------- the 3D view
// Its settings (the view chosen, the levels shown, spacing, opacity, the camera) survive a
// reload in localStorage; `?view=layers|3d|both` in the address chooses the view for one visit.
const VIEW_KEY = "cubemate.view";
const view = readSaved(VIEW_KEY, {
  view: window.innerWidth < 700 ? "3d" : "both", levels: "all", from: 1, to: 1, spacing: 2,
  opacity: 0.55, camera: null,
});
const askedView = ADDRESS.get("view");
if (["layers", "3d", "both"].includes(askedView)) view.view = askedView;
let threeProblem = "";   // why the 3D view cannot be drawn here, once known
let loadingView3d = null;
function readSaved(key, fallback) {
  try {
    return { ...fallback, ...(JSON.parse(localStorage.getItem(key)) || {}) };
  } catch (err) {
    return fallback;
  }
}
function save(key, value) {
  try { localStorage.setItem(key, JSON.stringify(value)); } catch (err) { /* private mode: not kept */ }
}
const saveView = () => save(VIEW_KEY, view);
function applyView() {
  // Which views show: the 3D view needs three.js, WebGL and a board of at most 16³.
  let shown = view.view, note = "";
  if (shown !== "layers" && threeProblem) { note = threeProblem; shown = "layers"; }
  else if (shown !== "layers" && state.n > MAX_3D) {
    note = `The 3D view draws boards up to ${MAX_3D}³; this one is ${state.n}³, so the layers show it.`;
    shown = "layers";
  }
  document.body.dataset.view = shown;
  setText($("view3d-note"), note);
  for (const r of document.querySelectorAll("#view input")) r.checked = r.value === view.view;
  $("levels-shown").value = view.levels;
  for (const id of ["level-from", "level-to"]) {
    const select = $(id);
    const names = Array.from({ length: state.n }, (_, z) => `Level ${levelName(state.variant, z)}`);
    if ([...select.options].map((o) => o.text).join() !== names.join()) {
      select.replaceChildren(...names.map((name, z) => new Option(name, String(z + 1))));
    }
  }
  $("level-from").value = String(Math.min(view.from, state.n));
  $("level-to").value = String(Math.min(view.to, state.n));
  $("level-from").hidden = view.levels === "all";
  $("level-to").hidden = view.levels !== "slab";
  $("spacing").value = String(view.spacing);
  $("opacity").value = String(view.opacity);
  if (shown !== "layers" && !view3d) loadView3d();
}
function loadView3d() {
  // three.js is loaded only when the 3D view is first shown; without it the layers stay.
  if (loadingView3d) return loadingView3d;
  loadingView3d = (async () => {
    try {
      const module = await import("./view3d.js");
      view3d = module.createView3d({
        canvas: $("scene-canvas"),
        nameBox: $("cell-name"),
        playerSide: () => (state.opponent === "w" ? "b" : "w"),
        onCell: (i) => clickCell(i),
        onHover: (i) => { if (i !== state.hover) { state.hover = i; paint(); } },
        settings: view,
        saveSettings: saveView,
      });
      document.body.dataset.three = "ready";
      paint();
    } catch (err) {
      threeProblem = await whyNo3d(err);
      document.body.dataset.three = "missing";
      applyView();
    }
  })();
  return loadingView3d;
}
async function whyNo3d(err) {
  // The server names a missing three.js; anything else is the browser's (no WebGL, ...).
  try {
    const res = await fetch("/three/three.module.js");
    if (!res.ok) return `No 3D view: ${(await res.json()).error}.`;
  } catch (fetchErr) { /* the server is gone: say what the import said */ }
  return `No 3D view in this browser (${err.message || err}): the layers show the board.`;
}
for (const r of document.querySelectorAll("#view input")) {
  r.addEventListener("change", () => { if (r.checked) { view.view = r.value; saveView(); applyView(); } });
}
for (const [id, key] of [["levels-shown", "levels"], ["level-from", "from"], ["level-to", "to"], ["spacing", "spacing"], ["opacity", "opacity"]]) {
  $(id).addEventListener("input", () => {
    view[key] = id === "levels-shown" ? $(id).value : Number($(id).value);
    saveView();
    applyView();
    if (view3d) view3d.rebuild();
  });
}
$("camera-reset").addEventListener("click", () => { if (view3d) view3d.reset(); });
$("skip").addEventListener("click", (ev) => {
  // Tab, Enter: the board takes the keys (the 3D view when shown, else the layers' cursor cell).
  ev.preventDefault();
  if (document.body.dataset.view !== "layers") $("scene-canvas").focus();
  else { const cell = document.querySelector(`#boards .cell[data-index="${state.cursor}"]`); if (cell) cell.focus(); }
});
for (const button of document.querySelectorAll("#camera-presets button[data-preset]")) {
  button.addEventListener("click", () => { if (view3d) view3d.preset(button.dataset.preset); });
}

// ---------------------------------------------------------------- the move list's notation
// Short (the default) or long, as the person last chose it; it survives a reload in localStorage.
const NOTATION_KEY = "cubemate.notation";
state.notation = readSaved(NOTATION_KEY, {}).notation === "long" ? "long" : "short";
for (const r of document.querySelectorAll("#move-notation input")) {
  r.addEventListener("change", () => {
    if (!r.checked) return;
    state.notation = r.value;
    save(NOTATION_KEY, { notation: state.notation });
    renderMoves();
  });
}

// ---------------------------------------------------------------- start
// The page opens on the position the person left, or on a game on 5³ against the computer
// (black); `?board=empty` opens the board editor's empty 3³ board, as the tests do.
const POSITION_KEY = "cubemate.position";
export function savePosition() {
  save(POSITION_KEY, { board: boardKey(), variant: state.variant, opponent: state.opponent, mode: state.mode });
  saveGame();
}

// The game survives a reload and opens in a second tab: its start (the board when no move had
// been played: a new game's, a loaded board's, an opened record's real start), its moves as
// sent and the record being stepped through, in localStorage. The page plays them again in
// the engine on the next visit, so that the list, Undo and the record are the game's.
const GAME_KEY = "cubemate.game";
let gameStart = null;
export function saveGame() {
  if (!state.moves.length || !gameStart) gameStart = { board: boardKey(), variant: state.variant };
  save(GAME_KEY, { start: gameStart, moves: state.moves, replay: state.replay, board: boardKey() });
}

export function restoreGame(game) {
  // Set the saved start in the engine and play the saved moves there (up to MAX_BATCH lines a
  // request); if any is refused, or the engine ends elsewhere, the position alone is kept.
  const gen = ++state.generation;
  return exclusive(async () => {
    const rules = variantLines();
    const lines = [...rules, `set_board ${game.start.board}`, ...game.moves.map((m) => `play ${m}`)];
    let ok = true;
    for (let k = 0; ok && k < lines.length; k += MAX_BATCH) {
      const replies = await engineBatch(lines.slice(k, k + MAX_BATCH));
      if (k === 0 && heardVariant(rules, replies)) ok = false;
      ok = ok && replies.every((r) => r.ok);
    }
    const [g, ...names] = await engineBatch(["get_board", ...RECORD_LINES]);
    state.engineKey = g.ok ? g.text.trim() : null;
    if (gen !== state.generation) return;
    if (ok && g.ok && g.text.trim() === game.board) {
      state.moves = [...game.moves];
      state.replay = game.replay && Array.isArray(game.replay.moves) ? game.replay : null;
      gameStart = game.start;
      takeRecord(names);
      changed({ immediate: true, edited: false });
      markLastMove(state.moves[state.moves.length - 1]);
      renderMoves();
    } else {
      changed({ immediate: true });
    }
  });
}
for (let s = 2; s <= 16; s++) {
  const opt = document.createElement("option");
  opt.value = opt.textContent = String(s);
  $("size").append(opt);
}

EXAMPLES.forEach(([label], k) => {
  const opt = document.createElement("option");
  opt.value = String(k);
  opt.textContent = label;
  $("examples").append(opt);
});

// The views and the connection are told what their events do (they import nothing above them).
setLayerActions({ editCell, moveTo, paint, place, playClick, whenLoaded });
setPanelActions({
  playKey: (text) => { setMode("play"); playMove(text); },
  goToPly: (ply) => goToPly(ply),
});
setConnectionHooks({ movesForgotten: () => renderMoves(), failed: (text) => setMessage(text, "error") });
buildPalette();
arm(null);
setSize(3);
setVariant("cube");
showNotation();
applyView();
paint();
renderMoves();
renderSolve();
renderGame();
const left = ADDRESS.get("board") === "empty" ? null : readSaved(POSITION_KEY, null);
const leftBoard = left && typeof left.board === "string" ? fromNotation(left.board) : null;
if (PAUSE.problem) setMessage(PAUSE.problem, "refused");
else if (ADDRESS.get("board") === "empty") {
  setMessage("Empty board: click a cell to place the white king, pick a piece below, or choose an example.", "info");
} else if (leftBoard && leftBoard.size <= MAX_VIEW) {
  adopt({ ...leftBoard, variant: knownVariant(left.variant) ? left.variant : "cube" });
  state.opponent = ["w", "b"].includes(left.opponent) ? left.opponent : "none";
  state.notice = "The position you left. New game starts another."; // shown once judged
  const game = readSaved(GAME_KEY, null);
  const whole = game && game.start && typeof game.start.board === "string" && game.start.variant === state.variant
    && Array.isArray(game.moves) && game.moves.length > 0 && game.moves.every((m) => typeof m === "string" && !/\s/.test(m))
    && game.board === boardKey();
  if (whole) restoreGame(game);
  else changed({ immediate: true });
  setMode(left.mode === "play" ? "play" : "edit");
} else {
  $("size").value = "5";
  state.opponent = "b";
  state.notice = "A game on 5³: you play White, the computer Black. Click a piece, then where it goes.";
  newGame();
}
