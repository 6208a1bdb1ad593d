// Lines across the levels, for both views: the cells a piece reaches along each of its lines
// (up to and including the first piece in the way), the cells between a checker and the king,
// and the column through a cell on every level.
import { state, coords, index } from "./model.js";
import { movesOf } from "./pieces.js";
import { variantOf } from "./variants.js";

const inside = (v) => v >= 0 && v < state.n;

/** The piece on cell i's lines under the rules played: one list of cells per direction it can
 * take, nearest first (a pawn's pushes and captures one cell each). */
export function pieceLines(i) {
  if (!state.cells[i]) return [];
  const piece = movesOf(state.cells[i], variantOf(state.variant).moves);
  const [x, y, z] = coords(i);
  const lines = [];
  for (const [dx, dy, dz] of piece.steps) {
    const line = [];
    for (let k = 1; ; k++) {
      const [a, b, c] = [x + k * dx, y + k * dy, z + k * dz];
      if (!inside(a) || !inside(b) || !inside(c)) break;
      const j = index(a, b, c);
      line.push(j);
      if (!piece.slides || state.cells[j]) break;
    }
    if (line.length) lines.push(line);
  }
  return lines;
}

/** The cells strictly between a and b when they share a line of the 26 directions, else []. */
export function between(a, b) {
  const p = coords(a), q = coords(b);
  const d = q.map((v, k) => v - p[k]);
  const steps = Math.max(...d.map(Math.abs));
  if (!steps || d.some((v) => v !== 0 && Math.abs(v) !== steps)) return [];
  const unit = d.map((v) => Math.sign(v));
  const out = [];
  for (let k = 1; k < steps; k++) out.push(index(p[0] + k * unit[0], p[1] + k * unit[1], p[2] + k * unit[2]));
  return out;
}

/** The cells of the column through cell i: the same file and rank on every level. */
export function column(i) {
  const [x, y] = coords(i);
  return Array.from({ length: state.n }, (_, z) => index(x, y, z));
}

/** What both views draw as lines for the board shown: the hovered piece's lines, the column
 * under the pointer, each check (checker to king) and the numbered mating keys. */
export function boardLines(marks) {
  const hover = state.hover;
  const hovered = hover >= 0 && state.cells[hover] ? pieceLines(hover) : [];
  const checks = marks.king >= 0 && marks.status !== "stalemate" && marks.status !== "normal"
    ? [...marks.checkers].map((c) => ({ from: c, to: marks.king, cells: between(c, marks.king) }))
    : [];
  return {
    hover,
    reach: new Set(hovered.flat()),
    rays: hovered.map((line) => [hover, line[line.length - 1]]),
    column: hover >= 0 ? column(hover) : [],
    checks,
    checkCells: new Set(checks.flatMap((c) => c.cells)),
    keys: marks.keys.map((m, k) => ({ number: k + 1, from: m.from, to: m.to })),
  };
}
