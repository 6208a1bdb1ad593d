"""Reading moves: a text never plays another move than one it spells (docs/rules.md, "Reading").

The property: on seeded positions of n = 3 ... 12 and of Raumschach, both sides to move,
every spelling that tests/move_spellings.py derives from the docs for a legal move either
plays that move or is refused; a text that is another legal move's own name plays that one.
Pieces are stacked in a few columns on several levels, so that a capital read as a level
(`Bb5` is b5(II)) finds a piece of another kind there. The moves and their names come from
the brute forces (tests/reference.py, tests/raumschach_reference.py, tests/short_reference.py).
"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest

from arena.judge import IllegalMove as ArenaIllegal
from arena.judge import judge_move
from arena.referee import Position as ArenaPosition
from arena.referee import Referee
from arena.speaker import Launch, ProcessSpeaker
from kernel.config import EngineConfig
from kernel.cube.position import Move
from kernel.cube.position import Position as KernelPosition
from kernel.cube.rules import Analysis
from kernel.kernel import Kernel
from kernel.text.move_reading import IllegalMove, could_be_read, read_move
from tests import raumschach_reference as rs
from tests.conftest import Engine, ask
from tests.move_spellings import MoveFacts, spellings
from tests.reference import (
    BLACK,
    WHITE,
    Position,
    board_from_cells,
    game_error,
    legal_move_pairs,
    move_name,
    to_notation,
)
from tests.short_reference import raumschach_short_names, short_names
from tests.sweep import SWEEP

REPO = Path(__file__).resolve().parent.parent
Cell = tuple[int, int, int]
#: (cell, cell, promotion) of a move: what two readings must agree on to be one move.
Key = tuple[tuple[int, int, int], tuple[int, int, int], str]
CUBE_SIZES = tuple(range(3, 13))
CUBE_LETTERS = "QRBN"
RAUMSCHACH_LETTERS = "QRBNUP"
#: Moves checked a position in the normal run, of pieces in a column with others and of
#: the rest (all of them under CUBEMATE_SWEEP).
STACKED_MOVES, OTHER_MOVES = (2, 1) if SWEEP == 1 else (10_000, 10_000)


def stacked(rng: random.Random, n: int, letters: str, pieces: dict[Cell, str]) -> None:
    """Put pieces of both sides in three columns, on several levels each, and a few more."""
    for _ in range(3):
        x, y = rng.randrange(n), rng.randrange(n)
        for z in rng.sample(range(n), min(n, rng.randint(2, 4))):
            if (x, y, z) not in pieces:
                letter = rng.choice(letters)
                pieces[x, y, z] = letter if rng.random() < 0.7 else letter.lower()
    for _ in range(rng.randint(0, n)):
        cell = (rng.randrange(n), rng.randrange(n), rng.randrange(n))
        if cell not in pieces:
            letter = rng.choice(letters)
            pieces[cell] = letter if rng.random() < 0.5 else letter.lower()


def cube_positions(seed: int, count: int) -> list[Position]:
    """Game positions of n = 3 ... 12, white and black to move in turn, crowded in columns."""
    rng = random.Random(seed)
    found: list[Position] = []
    while len(found) < count:
        n = CUBE_SIZES[len(found) % len(CUBE_SIZES)]
        side = WHITE if len(found) // len(CUBE_SIZES) % 2 == 0 else BLACK
        cells = [(x, y, z) for x in range(n) for y in range(n) for z in range(n)]
        white_king, black_king = rng.sample(cells, 2)
        if max(abs(a - b) for a, b in zip(white_king, black_king, strict=True)) < 2:
            continue
        pieces = {white_king: "K", black_king: "k"}
        stacked(rng, n, CUBE_LETTERS, pieces)
        pos = Position(n, pieces, side)
        if game_error(pos) is None and legal_move_pairs(pos):
            found.append(pos)
    return found


def raumschach_positions(seed: int, count: int) -> list[rs.Position]:
    """Raumschach game positions after seeded random plies, crowded in columns (pawns
    only where pawns may stand)."""
    rng = random.Random(seed)
    found: list[rs.Position] = []
    while len(found) < count:
        pos = rs.start_position()
        for _ in range(rng.randrange(0, 12)):
            moves = rs.legal_moves(pos)
            if not moves:
                break
            pos = rs.play(pos, rng.choice(moves))
        pieces = dict(pos.pieces)
        stacked(rng, 5, RAUMSCHACH_LETTERS, pieces)
        for cell, letter in list(pieces.items()):
            if letter in "Pp" and not pawn_may_stand(cell, letter):
                del pieces[cell]
        crowded = rs.Position(pieces, pos.side)
        other = rs.other(crowded.side)
        if rs.king_cell(crowded, rs.WHITE) is None or rs.king_cell(crowded, rs.BLACK) is None:
            continue
        if not rs.in_check(crowded, other) and rs.legal_moves(crowded):
            found.append(crowded)
    return found


def pawn_may_stand(cell: Cell, letter: str) -> bool:
    """A pawn stands in front of its side's first rank and off its promotion cell."""
    _, y, z = cell
    if letter == "P":
        return y > 0 and (y, z) != (4, 4)
    return y < 4 and (y, z) != (0, 0)


class Tally:
    """What the readings did: played the move, played another one's own name, refused."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.wrong: list[str] = []


def key_of(position: KernelPosition, move: Move) -> Key:
    geometry = position.geometry
    promotion = "" if move.promotion == "#" else move.promotion.upper()
    return (
        geometry.get_cell_from_point(move.origin),
        geometry.get_cell_from_point(move.target),
        promotion,
    )


def check_spellings(
    kernel: Kernel,
    facts: dict[Key, MoveFacts],
    names: dict[Key, list[str]],
    occupied: list[Cell],
    tally: Tally,
    rng: random.Random,
) -> None:
    """Read every spelling of (a sample of) the legal moves in the kernel's position;
    `occupied` are its pieces' cells."""
    position = kernel.position
    analysis = Analysis(position)
    owners: dict[str, Key] = {}
    for key, spelled in names.items():
        for name in spelled:
            # A move's long and short names may be one (`Qa1(I)xb2(II)`), two moves' never.
            assert owners.setdefault(name.rstrip("+#"), key) == key, name
    columns = Counter(cell[:2] for cell in occupied)
    stacked_keys = sorted(key for key in facts if columns[key[0][:2]] > 1)
    other_keys = sorted(key for key in facts if columns[key[0][:2]] == 1)
    chosen = rng.sample(stacked_keys, min(STACKED_MOVES, len(stacked_keys)))
    chosen += rng.sample(other_keys, min(OTHER_MOVES, len(other_keys)))
    for key in chosen:
        for text in sorted(spellings(facts[key], names[key])):
            expected = owners.get(text.rstrip("+#!?"), key)
            # `play` refuses, before it reads, a text written as no move at all.
            if not could_be_read(text):
                tally.wrong.append(f"{text}: play takes it for no move")
            try:
                read = key_of(position, read_move(position, analysis, text))
            except IllegalMove as refusal:
                if text in names[key]:
                    tally.wrong.append(f"{text}: refused ({refusal}), the move's own name")
                kind = "ambiguous" if str(refusal).startswith("ambiguous") else "refused"
                tally.counts[kind] += 1
                continue
            if read != expected:
                tally.wrong.append(f"{text}: played {read}, not {expected}")
            tally.counts["played"] += 1


def test_no_spelling_plays_another_move() -> None:
    """The property of issue 63: n = 3 ... 12 and Raumschach, both sides to move."""
    rng = random.Random(6301)
    tally = Tally()
    kernel = Kernel(EngineConfig())
    for pos in cube_positions(6302, 100 * SWEEP):
        board = to_notation(pos.n, pos.pieces)
        assert ask(kernel, f"set_board {board} {'b' if pos.side == BLACK else 'w'}") == "", board
        short = short_names(pos)
        facts: dict[Key, MoveFacts] = {}
        names: dict[Key, list[str]] = {}
        for origin, target in legal_move_pairs(pos):
            key = (origin, target, "")
            facts[key] = MoveFacts(pos.pieces[origin], origin, target, target in pos.pieces)
            names[key] = [move_name(pos, origin, target), short[origin, target]]
        check_spellings(kernel, facts, names, list(pos.pieces), tally, rng)
    assert ask(kernel, "variant raumschach") == ""
    for rpos in raumschach_positions(6303, 40 * SWEEP):
        assert ask(kernel, f"set_board {rs.set_board_text(rpos)}") == "", rs.set_board_text(rpos)
        rshort = raumschach_short_names(rpos)
        facts, names = {}, {}
        for move in rs.legal_moves(rpos):
            origin, target, promotion = move
            key = (origin, target, promotion.upper() if promotion else "")
            piece = rpos.pieces[origin]
            facts[key] = MoveFacts(piece, origin, target, target in rpos.pieces, key[2])
            names[key] = [rs.move_text(rpos, move), rshort[move]]
        check_spellings(kernel, facts, names, list(rpos.pieces), tally, rng)
    assert not tally.wrong, tally.wrong[:20]
    counts = tally.counts
    # The sweep bites: spellings were played, and some were refused as ambiguous.
    assert counts["played"] > 10_000 * SWEEP and counts["ambiguous"] > 1_000 * SWEEP, counts


# -- the reproductions of issue 63, through the engine process, answers byte for byte

#: Raumschach: a white bishop on b5(I) under a white rook on b5(II); both reach b4(II).
BISHOP_UNDER_ROOK = rs.set_board_text(
    rs.position_from({"b5(I)": "B", "b5(II)": "R", "a1(I)": "K", "e5(V)": "k"})
)
#: The 4-cube: a white bishop on b4(I) under a white rook on b4(II).
CUBE_STACK = (
    "[###k,####,####,####],[####,####,####,####],[#R##,####,####,####],[#B##,####,####,K###]"
)
OK = b"= \n\n"


def test_a_raumschach_letter_that_may_be_a_level_is_ambiguous(engine: Engine) -> None:
    """`Bb5-b4(II)` is the bishop b5(I) (B its letter) or the rook b5(II) (B level II): it
    is refused naming both, with or without the level, and nothing moves."""
    assert engine.ask("variant raumschach") == OK
    assert engine.ask(f"set_board {BISHOP_UNDER_ROOK}") == OK
    for text in ("Bb5-b4(II)", "Bb5-b4", "Bb5-b4(II)+"):
        assert engine.ask(f"play {text}") == (b"? ambiguous: Bb5(I)-b4(II), Rb5(II)-b4(II)\n\n"), (
            text
        )
    assert engine.ask("get_board") == f"= {BISHOP_UNDER_ROOK.removesuffix(' w')}\n\n".encode()
    assert engine.ask("play Bb5(I)-b4(II)") == OK
    assert engine.ask("printgame long").endswith(b"\n1. Bb5(I)-b4(II)\n\n")


def test_a_cube_letter_moves_only_its_piece(engine: Engine) -> None:
    """n = 4: `Bb4-c3(II)` is the bishop's only move there, not the rook b4(II)'s (B as
    level II); `Bb4-b3(II)` only the rook could make, so it is refused, saying why."""
    assert engine.ask(f"set_board {CUBE_STACK}") == OK
    assert engine.ask("play Bb4-c3(II)") == OK
    assert engine.ask("printgame long").endswith(b"\n1. Bb4(I)-c3(II)\n\n")
    assert engine.ask("undo") == OK
    assert engine.ask("play Bb4-b3(II)") == (
        b"? illegal move: no white bishop on b4 (any level) can move to b3(II); B read as "
        b"level II would move the white rook: write Rb4(II)-b3(II)\n\n"
    )
    assert engine.ask("get_board") == f"= {CUBE_STACK}\n\n".encode()
    assert engine.ask("play Rb4-b3(II)") == OK


def test_a_king_letter_on_the_12_cube_is_no_rook(engine: Engine) -> None:
    """n = 12: K is also level XI; `Kb1-b2(XI)` never moves the rook on b1(XI)."""
    alone = board_from_cells(12, {"b1(XI)": "R", "a1(I)": "K", "l12(XII)": "k"})
    assert engine.ask(f"set_board {alone}") == OK
    assert engine.ask("play Kb1-b2(XI)") == (
        b"? illegal move: no white king on b1 (any level); K read as level XI would move the "
        b"white rook: write Rb1(XI)-b2(XI)\n\n"
    )
    beside = board_from_cells(12, {"b1(XI)": "R", "b1(X)": "K", "l12(XII)": "k"})
    assert engine.ask(f"set_board {beside}") == OK
    assert engine.ask("play Kb1-b2(XI)") == b"? ambiguous: Kb1(X)-b2(XI), Rb1(XI)-b2(XI)\n\n"
    assert engine.ask("play Kb1(X)-b2(XI)") == OK


def test_loadgame_reads_a_record_as_play_does(engine: Engine, tmp_path: Path) -> None:
    """A record's `Bb4-c3(II)` replays the bishop; its `Bb4-b3(II)` is refused at its ply."""
    taken, refused = tmp_path / "taken.txt", tmp_path / "refused.txt"
    header = f"Size: 4\nStart: {CUBE_STACK} w\nResult: *\n"
    taken.write_text(f"{header}1. Bb4-c3(II)\n", encoding="utf-8")
    refused.write_text(f"{header}1. Bb4-b3(II)\n", encoding="utf-8")
    assert engine.ask(f"loadgame {taken}") == OK
    assert engine.ask("printgame long").endswith(b"\n1. Bb4(I)-c3(II)\n\n")
    answer = engine.ask(f"loadgame {refused}")
    assert answer.startswith(b"? '") and answer.endswith(
        b"refused.txt' game 1, ply 1 (line 4): illegal move: no white bishop on b4 (any level) "
        b"can move to b3(II); B read as level II would move the white rook: write "
        b"Rb4(II)-b3(II)\n\n"
    ), answer


def test_raumschach_capitals_name_black_pieces(engine: Engine) -> None:
    """Item 7: Raumschach's own spelling with a capital for black, as SAN writes it."""
    assert engine.ask("new_game 5 raumschach") == OK
    assert engine.ask("play c5(V)=X") == (
        b"? illegal move: X names no piece (a pawn may become a queen, rook, bishop, unicorn, "
        b"knight)\n\n"
    )
    assert engine.ask("play NAb1-Ac3") == OK
    assert engine.ask("play NEb5-Ec3") == OK
    assert engine.ask("printgame long").endswith(b"\n1. Nb1(I)-c3(I) nb5(V)-c3(V)\n\n")
    queen = rs.set_board_text(
        rs.position_from({"a1(I)": "K", "e5(V)": "k", "b3(V)": "q", "b5(V)": "n"}, "b")
    )
    assert engine.ask("variant raumschach") == OK
    assert engine.ask(f"set_board {queen}") == OK
    assert engine.ask("play QEb3-Ea3") == OK
    assert engine.ask("printgame long").endswith(b"\n1... qb3(V)-a3(V)\n\n")


def test_a_capture_mark_on_a_quiet_move_is_refused(engine: Engine) -> None:
    """Item 8: `x` in a short form (or one with levels left out) must take; the long form,
    both cells named, may swap `x` and `-` (protocol.md)."""
    assert engine.ask(f"set_board {CUBE_STACK}") == OK
    for text in ("Rxb3(II)", "Rb4xb3(II)", "Rb4xb3"):
        assert engine.ask(f"play {text}") == (
            b"? illegal move: x marks a capture, and Rb4(II)-b3(II) takes nothing (write "
            b"Rb3(II))\n\n"
        ), text
    assert engine.ask("get_board") == f"= {CUBE_STACK}\n\n".encode()
    assert engine.ask("play Rb4(II)xb3(II)") == OK


def test_the_arena_referee_never_records_another_piece(tmp_path: Path) -> None:
    """A player's `Bd2-d3(II)` for `Bd2(III)-d3(II)`: refused as ambiguous while the pawn
    d2(II) may step there too (it was recorded as the pawn's move), and recorded as the
    bishop's when it alone can."""
    launch = Launch(("python", "main.py"), cubemate_logs=True, log_dir=str(tmp_path), cwd=str(REPO))
    speaker = ProcessSpeaker(launch, 60.0)
    try:
        referee = Referee(speaker, 60.0, "raumschach")
        both = rs.position_from({"d2(III)": "B", "d2(II)": "P", "a1(I)": "K", "e5(V)": "k"})
        referee.set_board(ArenaPosition(rs.board_text(both), "white"))
        legal = referee.legal_moves()
        assert {"Bd2(III)-d3(II)", "Pd2(II)-d3(II)"} <= set(legal)
        with pytest.raises(ArenaIllegal) as refused:
            judge_move(referee, "Bd2-d3(II)", legal)
        assert str(refused.value) == "ambiguous: Bd2(III)-d3(II), Pd2(II)-d3(II)"
        assert referee.position().board == rs.board_text(both)
        alone = rs.position_from({"d2(III)": "B", "a1(I)": "K", "e5(V)": "k"})
        referee.set_board(ArenaPosition(rs.board_text(alone), "white"))
        assert judge_move(referee, "Bd2-d3(II)", referee.legal_moves()) == "Bd2(III)-d3(II)"
        assert referee.last_move() == "Bd2(III)-d3(II)"
    finally:
        speaker.close()


def test_the_books_spelling_with_a_level_left_out(engine: Engine) -> None:
    """A level-letter cell beside one without its level is read (`NAb1-c3`; play refused it
    as no move at all); a pawn's move on level B starts with its P, as the books write it,
    for `Bc2-Bc3` would move a pawn while its B names a bishop."""
    assert engine.ask("new_game 5 raumschach") == OK
    assert engine.ask("play Bc2-Bc3") == (
        b"? illegal move: no white bishop on c2 (any level); B read as level II would move "
        b"the white pawn: write Pc2(II)-c3(II)\n\n"
    )
    assert engine.ask("play PBc2-Bc3") == OK
    assert engine.ask("play NEb5-c3") == OK
    assert engine.ask("play NAb1-c3") == OK
    assert engine.ask("printgame long").endswith(
        b"\n1. Pc2(II)-c3(II) nb5(V)-c3(V)\n2. Nb1(I)-c3(I)\n\n"
    )
