// The pieces the page knows, one line each: its letter (white's; black's is the lower case),
// name, glyph in the layer view and figure in the 3D view. A new piece (the Raumschach
// unicorn U, its pawn P) is one more line here: the notation, the moves, the palette, the
// edit cycle and both views read this table.

export const PIECES = [
  { letter: "K", name: "king", glyph: "\u265A", figure: "king" },
  { letter: "Q", name: "queen", glyph: "\u265B", figure: "queen" },
  { letter: "R", name: "rook", glyph: "\u265C", figure: "rook" },
  { letter: "B", name: "bishop", glyph: "\u265D", figure: "bishop" },
  { letter: "N", name: "knight", glyph: "\u265E", figure: "knight" },
];

const BY_LETTER = new Map(PIECES.map((p) => [p.letter.toLowerCase(), p]));

/** The table's line for a piece letter of either colour (undefined for none). */
export const pieceOf = (letter) => BY_LETTER.get(letter.toLowerCase());

/** Every piece letter, white's then black's: "KQRBNkqrbn". */
export const LETTERS = PIECES.map((p) => p.letter).join("")
  + PIECES.map((p) => p.letter.toLowerCase()).join("");

/** What a click on a cell cycles through in Edit with no piece picked. */
export const CYCLE = [...LETTERS, ""];
