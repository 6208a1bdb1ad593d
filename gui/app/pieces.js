// The pieces the page knows, one line each: its letter (white's; black's is the lower case),
// name, glyph (the layer view's and the 3D view's figure) and its lines (docs/rules.md,
// "Pieces": the steps it takes, and whether it slides on along them). A new piece (the
// Raumschach unicorn U, a pawn P) is one more line here: the notation, the moves, the palette,
// the edit cycle, both views and the lines across the levels read this table.

const STEPS = [];
for (let dz = -1; dz <= 1; dz++) for (let dy = -1; dy <= 1; dy++) for (let dx = -1; dx <= 1; dx++) {
  if (dx || dy || dz) STEPS.push([dx, dy, dz]);
}
const zeros = (d) => d.filter((v) => v === 0).length;
/** The 26 directions of the king and queen, the rook's 6 axes, the bishop's 8 triagonals. */
const ALL = STEPS, AXES = STEPS.filter((d) => zeros(d) === 2), TRIAGONALS = STEPS.filter((d) => zeros(d) === 0);
/** The knight's 24 leaps: every arrangement of (±2, ±1, 0). */
const LEAPS = [];
for (const a of [-2, -1, 0, 1, 2]) for (const b of [-2, -1, 0, 1, 2]) for (const c of [-2, -1, 0, 1, 2]) {
  const m = [a, b, c].map(Math.abs).sort();
  if (m[0] === 0 && m[1] === 1 && m[2] === 2) LEAPS.push([a, b, c]);
}

export const PIECES = [
  { letter: "K", name: "king", glyph: "\u265A", steps: ALL, slides: false },
  { letter: "Q", name: "queen", glyph: "\u265B", steps: ALL, slides: true },
  { letter: "R", name: "rook", glyph: "\u265C", steps: AXES, slides: true },
  { letter: "B", name: "bishop", glyph: "\u265D", steps: TRIAGONALS, slides: true },
  { letter: "N", name: "knight", glyph: "\u265E", steps: LEAPS, slides: false },
];

const BY_LETTER = new Map(PIECES.map((p) => [p.letter.toLowerCase(), p]));

/** The table's line for a piece letter of either colour (undefined for none). */
export const pieceOf = (letter) => BY_LETTER.get(letter.toLowerCase());

/** Every piece letter, white's then black's: "KQRBNkqrbn". */
export const LETTERS = PIECES.map((p) => p.letter).join("")
  + PIECES.map((p) => p.letter.toLowerCase()).join("");

/** What a click on a cell cycles through in Edit with no piece picked. */
export const CYCLE = [...LETTERS, ""];
