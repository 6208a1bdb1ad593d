// The model of the position the page shows, shared by the layer view, the 3D view and the
// panels: the board, the side to move, the page's state around them (selection, the engine's
// analysis, the keys, the hint, the last move), the cells' names and the notation.
import { LETTERS, pieceOf } from "./pieces.js";

/** Every piece letter, as a regular expression's class. */
const PIECE = `[${LETTERS}]`;

/** The page's state: one object, so that every module reads and writes the same. */
export const state = {
  n: 3,
  variant: "cube",    // the rules played (variants.js): "cube" or "raumschach"
  engineVariant: null, // the rules the engine plays, null if unknown (a restarted engine)
  cells: [],          // piece letter or "" per cell, index x + n*y + n*n*z
  side: "w",          // side to move: "w" or "b"
  mode: "edit",       // "edit": clicks place pieces; "play": clicks move them
  selected: -1,       // selected cell index, -1 for none
  cursor: 0,          // the cell that has (or gets) keyboard focus
  armed: null,        // palette tool: a piece letter, "" to erase, null to cycle
  analysis: null,     // {status, checkers: [index], moves: [move]} for the board shown, or null
  generation: 0,      // bumped on every board change; work for an older board is dropped
  engineKey: null,    // the position the engine holds (get_board's text), null if unknown
  moves: [],          // moves played since the position was set, as the page sent them
  record: null,       // {short: [name], long: [name]}: the engine's names of those moves, or null
  notation: "short",  // how the move list writes them: "short" (Nc3(I)) or "long" (Nb1(I)-c3(I))
  solved: null,       // {key, depth, keys: [move], text} for the board shown, or null
  solving: false,
  jobs: 0,            // engine jobs queued or running
  debounceTimer: 0,   // a pending analysis of a fresh edit, 0 when none
  queueTail: Promise.resolve(),
  loading: null,      // the load of a pasted board while it runs; edits wait for it
  notationDirty: false, // the user changed the notation box since the page last wrote it
  notice: "",         // a server notice (engine restarted) to show once the board is judged
  opponent: "none",   // the side the computer plays: "w", "b" or "none"
  gameVersion: 0,     // the server's version of the engine's game, as last heard
  result: "",         // the engine's `result` for the board shown; "" while unknown
  lastMove: null,     // {key, from, to} of the last move played (either side), while its board is shown
  hint: null,         // {key, from, to, text}: the hint for the board shown
  computer: null,     // the computer's move while it is asked for: {gen, version, cancelled}
  hinting: null,      // the hint while it is asked for, in the same shape
  pendingStop: null,  // a stop on its way: engine jobs wait for it
  recordUrl: "",      // the object URL of the record last downloaded
  replay: null,       // {name, moves}: an opened record, stepped through move by move
  drag: null,         // what is dragged: {from: index} or {piece: letter}
  hover: -1,          // the cell under the pointer in either view, -1 for none
};

export const VERDICTS = ["checkmate", "stalemate", "check", "normal"];

/** Boards larger than this fall back to the layer view: too many cells to read in 3D. */
export const MAX_3D = 16;
export const MAX_VIEW = 24;     // larger boards are fine for the engine but too many cells for a page

export function fileName(x) {
  // Spreadsheet style: a … z, aa, ab, …
  let s = "";
  for (let v = x + 1; v > 0; v = Math.floor((v - 1) / 26)) {
    s = String.fromCharCode(97 + ((v - 1) % 26)) + s;
  }
  return s;
}

export function fileIndex(s) {
  let v = 0;
  for (const ch of s) v = v * 26 + (ch.charCodeAt(0) - 96);
  return v - 1;
}

export function roman(v) {
  const table = [[1000, "M"], [900, "CM"], [500, "D"], [400, "CD"], [100, "C"], [90, "XC"],
    [50, "L"], [40, "XL"], [10, "X"], [9, "IX"], [5, "V"], [4, "IV"], [1, "I"]];
  let s = "";
  for (const [value, sym] of table) while (v >= value) { s += sym; v -= value; }
  return s;
}

export function romanValue(s) {
  if (/^\d+$/.test(s)) return parseInt(s, 10);
  const val = { I: 1, V: 5, X: 10, L: 50, C: 100, D: 500, M: 1000 };
  let total = 0;
  for (let i = 0; i < s.length; i++) {
    const a = val[s[i]], b = val[s[i + 1]] || 0;
    total += a < b ? -a : a;
  }
  return total;
}
export const index = (x, y, z) => x + state.n * y + state.n * state.n * z;
export const coords = (i) => [i % state.n, Math.floor(i / state.n) % state.n, Math.floor(i / (state.n * state.n))];

export function cellName(i) {
  const [x, y, z] = coords(i);
  return `${fileName(x)}${y + 1}(${roman(z + 1)})`;
}

export function cellIndex(name) {
  const m = /^([a-z]+)(\d+)\(([IVXLCDM]+|\d+)\)$/.exec(name);
  if (!m) return -1;
  const x = fileIndex(m[1]), y = parseInt(m[2], 10) - 1, z = romanValue(m[3]) - 1;
  if ([x, y, z].some((v) => v < 0 || v >= state.n)) return -1;
  return index(x, y, z);
}
export const isWhite = (p) => p !== "" && p === p.toUpperCase();
export const ownPiece = (p) => p !== "" && isWhite(p) === (state.side === "w");
export const sideName = (s) => (s === "w" ? "White" : "Black");

export function describe(p) {
  return p ? `${isWhite(p) ? "white" : "black"} ${pieceOf(p).name}` : "empty";
}

export function toNotation() {
  const layers = [];
  for (let z = state.n - 1; z >= 0; z--) {
    const rows = [];
    for (let y = state.n - 1; y >= 0; y--) {
      let row = "";
      for (let x = 0; x < state.n; x++) row += state.cells[index(x, y, z)] || "#";
      rows.push(row);
    }
    layers.push(`[${rows.join(",")}]`);
  }
  return layers.join(",");
}

// The position as get_board writes it: the board, then " b" when black is to move.
export const boardKey = () => toNotation() + (state.side === "b" ? " b" : "");

export function fromNotation(text) {
  // Parse the canonical one-line form of get_board (side included); null if it is not that.
  let body = text.trim();
  let toMove = "w";
  const tail = /\s+(w|b|white|black)$/.exec(body);
  if (tail) { toMove = tail[1][0]; body = body.slice(0, tail.index); }
  if (!new RegExp(String.raw`^[\[\]#,${LETTERS}.\s]*$`).test(body)) return null;
  const layers = [...body.matchAll(/\[([^\[\]]*)\]/g)].map((m) => m[1].split(",").map((r) => r.trim()));
  const size = layers.length;
  if (size < 2 || !layers.every((rows) => rows.length === size && rows.every((r) => r.length === size))) {
    return null;
  }
  const out = new Array(size * size * size).fill("");
  layers.forEach((rows, li) => {
    const z = size - 1 - li;
    rows.forEach((row, ri) => {
      const y = size - 1 - ri;
      [...row].forEach((ch, x) => { out[x + size * y + size * size * z] = LETTERS.includes(ch) ? ch : ""; });
    });
  });
  return { size, cells: out, side: toMove };
}

const MOVE = new RegExp(String.raw`^(${PIECE})([a-z]+\d+\([^)]+\))([-x])([a-z]+\d+\([^)]+\))(?:=(${PIECE}))?$`);

export function parseMoves(text) {
  // Moves as legal_moves and mate_in write them, either colour: Kc1(I)-c2(II), qb2(II)xa1(I),
  // and a Raumschach pawn's promotion with the piece it becomes: Pb4(V)-b5(V)=Q.
  const out = [];
  for (const tok of text.split(/\s+/).filter(Boolean)) {
    const m = MOVE.exec(tok);
    if (m) {
      out.push({ text: tok, from: cellIndex(m[2]), to: cellIndex(m[4]), capture: m[3] === "x", promotion: m[5] || "" });
    }
  }
  return out;
}

export function parseCheckers(text) {
  return text.split(/\s+/).filter(Boolean).map((tok) => cellIndex(tok.slice(1))).filter((i) => i >= 0);
}

/** What both views mark on the board shown: the king to move and its state, the checkers, the
 * selected piece's legal targets, the mating keys (numbered, in the engine's order), the
 * last move played and the hint; each only while it belongs to this board. */
export function boardMarks() {
  const key = boardKey();
  const status = state.analysis ? state.analysis.status : "";
  const checkers = new Set(state.analysis ? state.analysis.checkers : []);
  const targets = new Map();
  if (state.analysis && state.selected >= 0 && ownPiece(state.cells[state.selected])) {
    for (const m of state.analysis.moves) if (m.from === state.selected) targets.set(m.to, m.capture);
  }
  const keys = state.solved && state.solved.key === key ? state.solved.keys : [];
  const keyFrom = new Set(keys.map((m) => m.from)), keyTo = new Set(keys.map((m) => m.to));
  const kingLetter = state.side === "w" ? "K" : "k";
  const king = state.analysis ? state.cells.indexOf(kingLetter) : -1;
  const last = state.lastMove && state.lastMove.key === key ? state.lastMove : null;
  const hint = state.hint && state.hint.key === key ? state.hint : null;
  return { key, status, checkers, targets, keys, keyFrom, keyTo, kingLetter, king, last, hint };
}

// A move line of a record as printgame writes it: `3. m m`, or `1... m` with black first.
const RECORD_MOVES = /^\d+\.(?:\.\.)?\s+(.*)$/;

export function recordPlies(text) {
  // The moves of printgame's record, in order; its headers (`Size: 5`) are no move lines.
  const plies = [];
  for (const line of text.split("\n")) {
    const m = RECORD_MOVES.exec(line.trim());
    if (m) plies.push(...m[1].split(/\s+/).filter(Boolean));
  }
  return plies;
}

export function plyNames() {
  // Each move played, short and long as the engine names it (both printgames, asked in the
  // exchange that played or took back the move); as the page sent it where the engine's names
  // are not at hand (an exchange failed), so that the list never shows another game's moves.
  const r = state.record;
  const named = r !== null && r.short.length === state.moves.length && r.long.length === state.moves.length;
  return state.moves.map((sent, k) => (named ? { short: r.short[k], long: r.long[k] } : { short: sent, long: sent }));
}

/** Whether it is the computer's turn in the position shown. */
export function computersTurn() {
  return state.opponent !== "none" && state.side === state.opponent;
}

export const colourWord = (s) => (s === "w" ? "white" : "black");

export function replayPly() {
  // Where the game stands in the opened record: the moves played, if they are its first ones.
  if (!state.replay || state.moves.length > state.replay.moves.length) return -1;
  // A move counts as the record's however it was written: as sent, or either of its names.
  const names = plyNames();
  const same = (k, text) => [state.moves[k], names[k].short, names[k].long].includes(text);
  return state.replay.moves.slice(0, state.moves.length).every((text, k) => same(k, text)) ? state.moves.length : -1;
}
