// The pieces the page knows, one line each: its letter (white's; black's is the lower case),
// name, glyph (the layer view's and the 3D view's figure; `mirror` turns it to face the other
// way and `horn` adds one: the Raumschach unicorn is a knight looking left with a horn) and its
// lines (docs/rules.md, "Pieces" and "Variants": the steps it takes, and whether it slides on
// along them). A variant may give a piece other steps (variants.js: Raumschach's bishop); a pawn
// has its pushes and captures by colour instead. The notation, the moves, the palette, the edit
// cycle, both views and the lines across the levels read this table.

const STEPS = [];
for (let dz = -1; dz <= 1; dz++) for (let dy = -1; dy <= 1; dy++) for (let dx = -1; dx <= 1; dx++) {
  if (dx || dy || dz) STEPS.push([dx, dy, dz]);
}
const zeros = (d) => d.filter((v) => v === 0).length;
/** The 26 directions of the king and queen, the rook's 6 axes, the 8 triagonals (the cube's
 * bishop, Raumschach's unicorn) and the 12 flat diagonals (Raumschach's bishop). */
export const ALL = STEPS, AXES = STEPS.filter((d) => zeros(d) === 2);
export const TRIAGONALS = STEPS.filter((d) => zeros(d) === 0), FLAT_DIAGONALS = STEPS.filter((d) => zeros(d) === 1);
/** The knight's 24 leaps: every arrangement of (±2, ±1, 0). */
const LEAPS = [];
for (const a of [-2, -1, 0, 1, 2]) for (const b of [-2, -1, 0, 1, 2]) for (const c of [-2, -1, 0, 1, 2]) {
  const m = [a, b, c].map(Math.abs).sort();
  if (m[0] === 0 && m[1] === 1 && m[2] === 2) LEAPS.push([a, b, c]);
}
/** A white pawn's pushes (a rank forward, a level up) and captures (one cell diagonally forward
 * in the planes of its pushes: ±file and +rank, ±file and +level, +rank and +level); black's
 * are the negatives (docs/rules.md, "Variants"). Steps are (file, rank, level). */
const PAWN_PUSHES = [[0, 1, 0], [0, 0, 1]];
const PAWN_CAPTURES = [[1, 1, 0], [-1, 1, 0], [1, 0, 1], [-1, 0, 1], [0, 1, 1]];

export const PIECES = [
  { letter: "K", name: "king", glyph: "\u265A", steps: ALL, slides: false },
  { letter: "Q", name: "queen", glyph: "\u265B", steps: ALL, slides: true },
  { letter: "R", name: "rook", glyph: "\u265C", steps: AXES, slides: true },
  { letter: "B", name: "bishop", glyph: "\u265D", steps: TRIAGONALS, slides: true },
  { letter: "N", name: "knight", glyph: "\u265E", steps: LEAPS, slides: false },
  { letter: "U", name: "unicorn", glyph: "\u265E", mirror: true, horn: true, steps: TRIAGONALS, slides: true },
  { letter: "P", name: "pawn", glyph: "\u265F", pawn: { pushes: PAWN_PUSHES, captures: PAWN_CAPTURES } },
];

const BY_LETTER = new Map(PIECES.map((p) => [p.letter.toLowerCase(), p]));

/** The table's line for a piece letter of either colour (undefined for none). */
export const pieceOf = (letter) => BY_LETTER.get(letter.toLowerCase());

/** Every piece letter the page reads, white's then black's: "KQRBNUPkqrbnup". */
export const LETTERS = PIECES.map((p) => p.letter).join("")
  + PIECES.map((p) => p.letter.toLowerCase()).join("");

/** Where the piece `letter` moves under rules whose bishop-like overrides are `moves` (a
 * variant's, letter to steps): {steps, slides}; a pawn's steps are its colour's pushes and
 * captures, one cell each. */
export function movesOf(letter, moves = {}) {
  const piece = pieceOf(letter);
  if (!piece) return { steps: [], slides: false };
  if (piece.pawn) {
    const sign = letter === piece.letter ? 1 : -1;
    const steps = [...piece.pawn.pushes, ...piece.pawn.captures].map((d) => d.map((v) => sign * v));
    return { steps, slides: false };
  }
  return { steps: moves[piece.letter] || piece.steps, slides: piece.slides };
}

/** The piece's figure for the page: its glyph in a span, turned about (`mirror`) and horned
 * (`horn`) as the table says; the style sheet draws the sides' colours, the turn and the horn. */
export function figure(letter) {
  const piece = pieceOf(letter);
  const span = document.createElement("span");
  const side = letter === letter.toUpperCase() ? "w" : "b";
  span.className = `piece ${side}${piece.mirror ? " mirror" : ""}${piece.horn ? " horn" : ""}`;
  span.textContent = piece.glyph + "\uFE0E"; // text presentation, never emoji
  return span;
}
