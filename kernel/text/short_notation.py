"""Short notation: moves as people write them (SAN made for the cube), written and read back.

A short name is the piece's letter (upper case for both sides, as SAN has it; none for a pawn),
the least origin that tells the move from the other legal moves of the same kind of piece to
the same cell (the file, else the rank, else the level, else the whole cell), `x` for a
capture, the destination cell in full, `=Q` for a promotion, `+` for check and `#` for mate:
`Nc3(I)`, `Rac1(III)`, `R(III)a1(II)`, `Qxc1(V)+`, `bxc5(V)=Q+` (docs/rules.md, "Short
notation").

Reading is exact first: a text that is the short name of a legal move (check marks aside)
names that move and no other. Failing that it is lenient: the long form, the short form and
either with levels left out (`Nb1-c3`, `Nc3`), black's letters in either case; each reading
with the moves it fits (`reading_moves`), which kernel/text/move_reading.py weighs against the
long form's. Where several legal moves fit, the reader names them all; where none does, it
says why.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from functools import lru_cache
from typing import NamedTuple

from kernel.cube.board import EMPTY, SIDE_NAMES
from kernel.cube.position import Move, Position, owner
from kernel.cube.rules import (
    Analysis,
    attackers,
    destinations,
    pawn_destinations,
    pawn_moves_to,
)
from kernel.cube.variants import PIECE_NAMES
from kernel.protocol import shorten
from kernel.text.notation import (
    NotationError,
    get_cell_name_from_point,
    get_file_name_from_x,
    get_level_from_roman,
    get_move_name,
    get_roman_from_level,
    get_x_from_file_name,
    piece_name,
)

#: The pawn's letter, as a kind; a pawn's short name has no letter.
PAWN = "P"
#: The kinds of piece a short name may start with (a pawn's `P` is read, never written).
KIND_LETTERS = "KQRBNUP"
CHECK = "+"
MATE = "#"
#: The longest move text read: far more than any move of the largest board needs.
MAX_TEXT = 80
#: A board size at least as large as any: what `could_be_move` reads cells on.
LARGEST_SIZE = 1 << 16
#: The most moves an `ambiguous` refusal names.
MOST_NAMED = 8
#: A short name as written, for the quick look first: letter, anything, destination file,
#: rank and level, anything (a disambiguation, a promotion).
_CANONICAL = re.compile(r"([KQRBNU]?)[^=]*?x?([a-z])([0-9]+)\(([IVXLCDM]+)\)(?:=[QRBNU])?")
#: Annotations read after a move and ignored: check and mate signs, `!` and `?`.
_ANNOTATION = re.compile(r"[+#!?]*\Z")
_PROMOTION = re.compile(r"=([A-Za-z])\Z")
_ORIGIN = re.compile(r"([a-z]*)([0-9]*)(\([0-9A-Z]+\))?")
_TARGET_TAIL = re.compile(r"([0-9]+)(\([0-9A-Z]+\))?\Z")
_LETTER_RUN = re.compile(r"[a-z]+\Z")


class Ambiguous(ValueError):
    """Several legal moves fit a text; the message names them."""


class OffBoardText(NotationError):
    """Every reading of a text names a cell off the board."""


class CellPattern(NamedTuple):
    """A cell as far as a text gives it: file, rank and level (0 ...), None where left out."""

    x: int | None
    y: int | None
    z: int | None

    def fits(self, cell: tuple[int, int, int]) -> bool:
        """Tell whether a cell agrees with every part the text gave."""
        return all(part is None or part == value for part, value in zip(self, cell, strict=True))

    @property
    def full(self) -> bool:
        return None not in self


class Reading(NamedTuple):
    """One way to read a move's text."""

    #: The kind (upper case), or "" when no letter was written.
    kind: str
    #: The letter was written in lower case: only black's piece fits.
    black: bool
    origin: CellPattern
    #: `-` or `x` was written between origin and destination.
    separated: bool
    target: CellPattern
    #: The kind a pawn becomes (upper case), or "".
    promotion: str
    #: `x` was written before the destination: the move must capture.
    capture: bool = False


# --- writing ---------------------------------------------------------------------------------


def is_pawn(letter: str) -> bool:
    """Tell whether a letter is a pawn's, either side's."""
    return letter in "Pp"


def moves_to(position: Position, analysis: Analysis, target: int, letter: str = "") -> list[Move]:
    """List the legal moves of the side to move that land on one cell (of the piece with
    this letter, in its side's case, when one is given).

    Only the pieces that reach the cell are asked (one table look-up each, as `attackers`
    does), not every legal move: this is what makes reading a short move about as cheap as
    reading a long one.
    """
    side = position.side
    cells = position.cells
    occupant = cells[target]
    if occupant != EMPTY and owner(occupant) == side:
        return []
    king = analysis.king
    checkers = analysis.checkers
    # In check, only the king moves, or a piece takes the lone checker or steps in between.
    helps = not checkers or (len(checkers) == 1 and target in analysis.evasion_cells())
    found: list[Move] = []
    for origin in reaching(position, target, letter):
        piece = cells[origin]
        if origin == king:
            if not analysis.is_attacked(target, lifted=king):
                found.append(Move(piece, origin, target, occupant))
            continue
        line = analysis.pin_of(origin)
        if not helps or (line is not None and target not in line):
            continue
        if not is_pawn(piece):
            found.append(Move(piece, origin, target, occupant))
        elif occupant != EMPTY:  # a pawn takes where it attacks, and goes there no other way
            found.extend(pawn_moves_to(position, origin, target))
    if occupant == EMPTY and helps and (not letter or is_pawn(letter)):
        for origin in pawn_pushers(position, target):
            line = analysis.pin_of(origin)
            if line is None or target in line:
                found.extend(pawn_moves_to(position, origin, target))
    return found


def reaching(position: Position, target: int, letter: str) -> list[int]:
    """The cells of the side to move's pieces (with this letter, if given) that attack target."""
    if not letter:
        return attackers(position, target, position.side)
    cells = position.cells
    compact = position.offsets.compact
    reach = position.offsets.reach.get(letter)
    if reach is None:
        return []  # no such piece in this variant
    compact_target = compact[target]
    found = []
    for origin, piece in position.pieces[position.side].items():
        if piece != letter:
            continue
        step = reach.get(compact_target - compact[origin])
        if step is None:
            continue
        if step:
            point = origin + step
            while point != target and cells[point] == EMPTY:
                point += step
            if point != target:
                continue  # something stands in the way
        found.append(origin)
    return found


def pawn_pushers(position: Position, target: int) -> list[int]:
    """The cells from which a pawn of the side to move steps onto an empty target."""
    letter = side_letter(position, PAWN)
    pushes = position.offsets.pushes.get(letter, ())
    cells = position.cells
    return [target - step for step in pushes if cells[target - step] == letter]


def side_letter(position: Position, kind: str) -> str:
    """A kind's letter in the case of the side to move."""
    return kind if position.side == 0 else kind.lower()


def disambiguator(position: Position, move: Move, rivals: Iterable[Move]) -> str:
    """The least part of the origin that tells `move` from its rivals (the other legal moves
    of the same kind to the same cell): the file, else the rank, else the level, else the
    whole cell; a pawn's capture always shows at least its file."""
    geometry = position.geometry
    x, y, z = geometry.get_cell_from_point(move.origin)
    others = [
        geometry.get_cell_from_point(rival.origin)
        for rival in rivals
        if rival.piece == move.piece and rival.origin != move.origin
    ]
    pawn_capture = is_pawn(move.piece) and move.captured != EMPTY
    if not others and not pawn_capture:
        return ""
    if all(cell[0] != x for cell in others) and not file_misread(position, move):
        return get_file_name_from_x(x)
    if all(cell[1] != y for cell in others):
        return str(y + 1)
    if all(cell[2] != z for cell in others):
        return f"({get_roman_from_level(z + 1)})"
    return get_cell_name_from_point(geometry, move.origin)


def file_misread(position: Position, move: Move) -> bool:
    """Tell whether a file written before the destination's file could be read as part of
    another destination's file, naming another legal move.

    Only boards of more than 26 files have files of two letters: on them `Rac1(I)` is also a
    rook to ac1(I). There the file is passed over for the rank when such a move exists.
    """
    size = position.size
    if size <= 26:
        return False
    geometry = position.geometry
    x, _, _ = geometry.get_cell_from_point(move.origin)
    tx, ty, tz = geometry.get_cell_from_point(move.target)
    run = get_file_name_from_x(x) + get_file_name_from_x(tx)
    analysis = Analysis(position)
    for cut in range(len(run)):
        other = get_x_from_file_name(run[cut:])
        if cut and other == tx:
            continue  # the reading meant
        if 0 <= other < size:
            point = geometry.get_point_from_cell(other, ty, tz)
            if moves_to(position, analysis, point, move.piece):
                return True
    return False


def bare_short_name(position: Position, move: Move, rivals: Iterable[Move]) -> str:
    """Write a move short, without the check sign; `rivals` are the legal moves to its cell."""
    letter = "" if is_pawn(move.piece) else move.piece.upper()
    capture = "" if move.captured == EMPTY else "x"
    target = get_cell_name_from_point(position.geometry, move.target)
    promotion = move.promotion
    promoted = "" if promotion == EMPTY else "=" + promotion.upper()
    return f"{letter}{disambiguator(position, move, rivals)}{capture}{target}{promoted}"


def check_sign(position: Position, move: Move) -> str:
    """`#` when the move mates, `+` when it checks, else nothing."""
    position.play(move)
    try:
        after = Analysis(position)
        if not after.in_check:
            return ""
        return CHECK if after.has_legal_move() else MATE
    finally:
        position.undo(move)


def short_name(position: Position, analysis: Analysis, move: Move) -> str:
    """Write a legal move of the side to move in short notation, check sign included."""
    rivals = moves_to(position, analysis, move.target, move.piece)
    return bare_short_name(position, move, rivals) + check_sign(position, move)


def short_names(position: Position, analysis: Analysis) -> dict[str, Move]:
    """Name every legal move short (the check signs left out): name -> move."""
    by_target: dict[int, list[Move]] = {}
    for move in analysis.legal_moves():
        by_target.setdefault(move.target, []).append(move)
    return {
        bare_short_name(position, move, moves): move
        for moves in by_target.values()
        for move in moves
    }


def game_short_names(start: Position, moves: Iterable[Move]) -> list[str]:
    """Write the moves of a game from its start, short; the start is left as it was."""
    position = start.copy()
    names = []
    for move in moves:
        names.append(short_name(position, Analysis(position), move))
        position.play(move)
    return names


# --- reading ---------------------------------------------------------------------------------


def strip_annotations(text: str) -> tuple[str, str]:
    """Split off the promotion: return the text before it and its letter (upper case) or ""."""
    text = _ANNOTATION.sub("", text)
    found = _PROMOTION.search(text)
    if found is None:
        return text, ""
    return text[: found.start()], found.group(1).upper()


def readings(text: str, size: int) -> Iterator[Reading]:
    """Yield every way to read a move's text on a board of this size (cells may lie off it).

    Files are letter runs, so a run before the destination's rank may be split between an
    origin file, an `x` and the destination's file in several ways; a lower-case first letter
    may be black's piece or a file. Each split is one reading.
    """
    if len(text) > MAX_TEXT:
        return  # no move is so long, and no regular expression sees it
    body, promotion = strip_annotations(text)
    if not body:
        return
    starts: list[tuple[str, bool, str]] = []
    first = body[0]
    if first in KIND_LETTERS:
        starts.append((first, False, body[1:]))
    elif first.upper() in KIND_LETTERS and first.islower():
        starts.append((first.upper(), True, body[1:]))
        starts.append(("", False, body))
    else:
        starts.append(("", False, body))
    for kind, black, rest in starts:
        for origin, separator, target in split_cells(rest, size):
            yield Reading(kind, black, origin, bool(separator), target, promotion, separator == "x")


@lru_cache(maxsize=64)
def all_readings(text: str, size: int) -> tuple[Reading, ...]:
    """Every reading of a text (`readings`), kept for the few texts last read: reading one
    move asks for them up to six times (the exact name, the lenient readings, the refusal)."""
    return tuple(readings(text, size))


def split_cells(text: str, size: int) -> Iterator[tuple[CellPattern, str, CellPattern]]:
    """Yield each split of a text into origin (perhaps empty), separator (`-`, `x` or "")
    and destination."""
    tail = _TARGET_TAIL.search(text)
    if tail is None:
        return
    rank_text, level_text = tail.groups()
    head = text[: tail.start()]
    run = _LETTER_RUN.search(head)
    if run is None:
        return
    for cut in range(run.start(), run.end()):
        target = cell_pattern(head[cut:], rank_text, level_text, size)
        if target is None or target.x is None or target.y is None:
            continue
        before = head[:cut]
        options = [(before, "")]
        if before.endswith("-"):
            options = [(before[:-1], "-")]
        elif before.endswith("x"):
            options.append((before[:-1], "x"))
        for origin_text, separator in options:
            found = _ORIGIN.fullmatch(origin_text)
            if found is None:
                continue
            file, rank, level = found.groups()
            origin = cell_pattern(file, rank, level, size)
            if origin is not None:
                yield origin, separator, target


def _level_or_none(numeral: str) -> int | None:
    """A level numeral's index (0 ...), or None when it is not a canonical numeral."""
    try:
        return get_level_from_roman(numeral) - 1
    except NotationError:
        return None


def cell_pattern(file: str, rank: str, level: str | None, size: int) -> CellPattern | None:
    """Read the parts of a cell a text gives; None when one cannot be a part of any cell.

    A part off this board is kept as -1, so that the refusal can say the cell is off it.
    """
    if not (file or rank or level):
        return NO_CELL
    if len(file) > longest_file(size) + 1 or len(rank) > 9 or (level and len(level) > 11):
        return None
    x = get_x_from_file_name(file) if file else None
    y = int(rank) - 1 if rank else None
    z = None
    if level:
        try:
            z = get_level_from_roman(level[1:-1]) - 1
        except NotationError:
            return None
    return CellPattern(*(v if v is None or 0 <= v < size else -1 for v in (x, y, z)))


#: No part of a cell given: an origin left out.
NO_CELL = CellPattern(None, None, None)


@lru_cache(maxsize=8)
def longest_file(size: int) -> int:
    """The letters of the longest file name on a board of this size."""
    return len(get_file_name_from_x(max(size - 1, 0)))


def could_be_move(text: str) -> bool:
    """Tell whether a text is written as a move at all, on a board of any size."""
    return next(readings(text, LARGEST_SIZE), None) is not None


def target_points(position: Position, target: CellPattern) -> list[int]:
    """The cells a destination pattern may name (every level when its level is left out)."""
    if -1 in target or target.x is None or target.y is None:
        return []
    levels = range(position.size) if target.z is None else (target.z,)
    geometry = position.geometry
    return [geometry.get_point_from_cell(target.x, target.y, z) for z in levels]


def fits(position: Position, reading: Reading, move: Move) -> bool:
    """Tell whether a legal move is one the reading may mean."""
    piece = move.piece
    if reading.kind:
        if piece.upper() != reading.kind or (reading.black and not piece.islower()):
            return False
    elif not is_pawn(piece) and not (
        reading.separated and reading.origin.x is not None and reading.origin.y is not None
    ):
        # No letter: a pawn, as in SAN, or any piece when the move gives its origin's file
        # and rank and a separator, as the long form may (b1(II)-b3(I)).
        return False
    if -1 in reading.origin:
        return False
    if not reading.origin.fits(position.geometry.get_cell_from_point(move.origin)):
        return False
    promotion = move.promotion
    if reading.promotion:
        return promotion != EMPTY and promotion.upper() == reading.promotion
    return True


def exact_move(position: Position, analysis: Analysis, text: str) -> Move | None:
    """Return the legal move whose short name `text` is (check signs aside), or None."""
    body = _ANNOTATION.sub("", text)
    quick = _CANONICAL.fullmatch(body)
    if quick is not None:
        # The one reading a greedy match gives, which is the only one on boards of single-
        # letter files; a name that equals the text is the move (no two share one).
        kind, file, rank, level = quick.groups()
        x, y = get_x_from_file_name(file), int(rank) - 1
        z = _level_or_none(level)
        if z is not None and 0 <= x < position.size and 0 <= y < position.size:
            point = position.geometry.get_point_from_cell(x, y, z)
            rivals = moves_to(position, analysis, point, side_letter(position, kind or PAWN))
            for move in rivals:
                if bare_short_name(position, move, rivals) == body:
                    return move
    for reading in all_readings(text, position.size):
        if reading.black or not reading.target.full or -1 in reading.target:
            continue
        (point,) = target_points(position, reading.target)
        rivals = moves_to(position, analysis, point, side_letter(position, reading.kind or PAWN))
        for move in rivals:
            if fits(position, reading, move) and bare_short_name(position, move, rivals) == body:
                return move
    return None


def reading_moves(
    position: Position, analysis: Analysis, text: str
) -> Iterator[tuple[Reading, Move]]:
    """Yield each lenient reading of a text with each legal move it may mean (a move once per
    reading that fits it; a capture mark is not checked here)."""
    landing: dict[int, list[Move]] = {}
    for reading in all_readings(text, position.size):
        for point in target_points(position, reading.target):
            if point not in landing:
                landing[point] = moves_to(position, analysis, point)
            for move in landing[point]:
                if fits(position, reading, move):
                    yield reading, move


def fitting_moves(position: Position, analysis: Analysis, text: str) -> list[Move]:
    """List the legal moves that a text may name, read leniently, best readings first: those
    with a letter before those without (`bc3` is black's bishop before a piece on the b-file)."""
    lettered: dict[tuple[int, int, str], Move] = {}
    bare: dict[tuple[int, int, str], Move] = {}
    landing: dict[int, list[Move]] = {}
    for reading in all_readings(text, position.size):
        found = lettered if reading.kind else bare
        for point in target_points(position, reading.target):
            if point not in landing:
                landing[point] = moves_to(position, analysis, point)
            for move in landing[point]:
                if fits(position, reading, move):
                    found[move.origin, move.target, move.promotion] = move
    return list((lettered or bare).values())


def read_short_move(position: Position, analysis: Analysis, text: str) -> Move:
    """Find the one legal move a text names in short or lenient notation.

    Raise Ambiguous naming the moves when several fit, NotationError when none does (saying
    why, as well as it can: no such piece, none that reaches the cell, a king left in check).
    """
    if len(text) > MAX_TEXT:
        raise NotationError(unreadable(text))  # and never given to a regular expression
    move = exact_move(position, analysis, text)
    if move is not None:
        return move
    moves = fitting_moves(position, analysis, text)
    if len(moves) == 1:
        return moves[0]
    if moves:
        names = sorted(get_move_name(position, move) for move in moves)
        more = len(names) - MOST_NAMED
        listed = ", ".join(names[:MOST_NAMED]) + (f" and {more} more" if more > 0 else "")
        raise Ambiguous(f"ambiguous: {listed}")
    raise NotationError(why_none(position, text))


def why_none(position: Position, text: str) -> str:
    """Say why no legal move fits a text: it cannot be read, names a cell off the board, no
    such piece, none that moves there, or the move would leave the king in check."""
    found = list(all_readings(text, position.size))
    if not found:
        return unreadable(text)
    size = position.size
    on_board = [r for r in found if -1 not in r.target and -1 not in r.origin]
    if not on_board:
        raise OffBoardText(f"{shorten(text)} names a cell off the {size}x{size}x{size} board")
    side = position.side
    usable = [r for r in on_board if not (r.black and side == 0)]
    if not usable:
        letter = on_board[0].kind.lower()
        return f"{letter} is a black {kind_name(letter)}'s letter, and white is to move"
    reading = usable[0]
    any_piece = not reading.kind and reading.separated
    kind = reading.kind or PAWN
    variant = position.variant
    if reading.promotion and reading.promotion not in variant.promotion:
        if not variant.promotion:
            return f"there is no promotion in {variant.name}"
        choices = ", ".join(PIECE_NAMES[letter.lower()] for letter in variant.promotion)
        become = PIECE_NAMES.get(reading.promotion.lower())
        if become is None:
            return f"{reading.promotion} names no piece (a pawn may become a {choices})"
        return f"a pawn cannot become a {become} (it may become {choices})"
    if kind == PAWN and not any_piece and not variant.has_pawns:
        return (
            f"a move without a piece's letter is a pawn's, and {variant.name} has none:"
            " write the piece's letter (Nc3(I))"
        )
    what = f"{SIDE_NAMES[side]} {'piece' if any_piece else kind_name(kind)}"
    geometry = position.geometry
    cells = position.cells
    candidates = [
        point
        for point, piece in position.pieces[side].items()
        if (any_piece or piece.upper() == kind)
        and reading.origin.fits(geometry.get_cell_from_point(point))
    ]
    if not candidates:
        return f"no {what}{described(reading.origin, ' on')}"
    targets = set(target_points(position, reading.target))
    analysis = Analysis(position)
    for origin in sorted(candidates):
        letter = cells[origin]
        if is_pawn(letter):
            reach = set(pawn_destinations(position, origin, letter))
        else:
            reach = set(destinations(position, origin))
        for target in sorted(targets & reach):
            name = get_move_name(position, Move(letter, origin, target, cells[target]))
            legal = [m for m in moves_to(position, analysis, target, letter) if m.origin == origin]
            if not legal:
                return f"{name} would leave the {SIDE_NAMES[side]} king in check"
            if legal[0].promotion == EMPTY:
                return f"{name} is no promotion (=... only when a pawn reaches its last cell)"
            options = ", ".join(f"={letter}" for letter in variant.promotion)
            cell = get_cell_name_from_point(geometry, target)
            return f"the pawn promotes on {cell}: write what it becomes ({options})"
    origin_words = described(reading.origin, " on")
    return f"no {what}{origin_words} can move to{described(reading.target, '')}"


def unreadable(text: str) -> str:
    """Refuse a text that is no move in any notation, showing the notations."""
    return (
        f"cannot read {shorten(text)}: write a move as Nc3(I), Nb1(I)-c3(I) or "
        "Nb2(II)xa1(III) (docs/rules.md)"
    )


def kind_name(letter: str) -> str:
    """Name a kind of piece by its letter, either case: `knight`."""
    return "pawn" if letter.upper() == PAWN else piece_name(letter.upper()).split()[-1]


def described(pattern: CellPattern, on: str) -> str:
    """Name a cell pattern in a refusal, after `on` when it is a whole cell: ` on c3(II)`,
    ` on c3 (any level)`, ` on the b-file`, or nothing for no pattern."""
    x, y, z = pattern
    if x is not None and y is not None:
        level = "" if z is None else f"({get_roman_from_level(z + 1)})"
        cell = f"{on} {get_file_name_from_x(x)}{y + 1}{level}"
        return cell if z is not None else cell + " (any level)"
    parts = []
    if x is not None:
        parts.append(f"the {get_file_name_from_x(x)}-file")
    if y is not None:
        parts.append(f"rank {y + 1}")
    if z is not None:
        parts.append(f"level {get_roman_from_level(z + 1)}")
    return " on " + " and ".join(parts) if parts else ""
