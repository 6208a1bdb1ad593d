// The rules the page plays, one line each (docs/rules.md, "Variants"; the engine's `variant`):
// the name the engine knows, the label, the board sizes allowed (null: any), the pieces offered
// (white's letters), the pieces that move otherwise than on the cube, and the level letters
// written beside the numerals (Raumschach names its levels A–E from white's side). A third
// variant is one more line here.
import { FLAT_DIAGONALS } from "./pieces.js";
import { roman } from "./model.js";

export const VARIANTS = [
  { name: "cube", label: "Cube", sizes: null, letters: "KQRBN", moves: {}, levelLetters: false },
  {
    name: "raumschach", label: "Raumschach", sizes: [5], letters: "KQRBNUP",
    moves: { B: FLAT_DIAGONALS }, levelLetters: true,
  },
];

const BY_NAME = new Map(VARIANTS.map((v) => [v.name, v]));

/** The line of the variant called `name`; the cube's for a name the page does not know. */
export const variantOf = (name) => BY_NAME.get(name) || VARIANTS[0];

/** Whether `name` is a variant the page knows. */
export const knownVariant = (name) => BY_NAME.has(name);

/** The piece letters of both colours a variant offers: "KQRBNUPkqrbnup". */
export const lettersOf = (name) => {
  const white = variantOf(name).letters;
  return white + white.toLowerCase();
};

/** What a click on a cell cycles through in Edit with no piece picked. */
export const cycleOf = (name) => [...lettersOf(name), ""];

/** Whether the variant is played on a board of this size. */
export const allowsSize = (name, n) => {
  const sizes = variantOf(name).sizes;
  return sizes === null || sizes.includes(n);
};

/** A level's name for people, 0-based z: "V" on the cube, "V (E)" in Raumschach. */
export function levelName(name, z) {
  const numeral = roman(z + 1);
  return variantOf(name).levelLetters && z < 26 ? `${numeral} (${String.fromCharCode(65 + z)})` : numeral;
}
