"""Short notation (docs/rules.md, "Short notation") against a slow reference written from the
rule (tests/short_reference.py), on seeded positions of n = 3 ... 8: every legal move's short
name is SAN's rule's, reads back to that move and to no other, and no two legal moves share
one; texts with the levels left out name the one move that fits, or every move that does.
"""

from __future__ import annotations

import random

import pytest

from kernel.config import EngineConfig
from kernel.cube.position import Move
from kernel.cube.position import Position as KernelPosition
from kernel.cube.rules import Analysis, in_check
from kernel.cube.start import start_position
from kernel.kernel import Kernel
from kernel.text.move_reading import IllegalMove, read_move
from kernel.text.notation import format_board, get_move_name, get_point_from_cell_name, parse_board
from kernel.text.short_notation import read_short_move, short_name, short_names
from tests import raumschach_reference as rs
from tests.conftest import ask
from tests.positions import side_positions
from tests.reference import (
    WHITE,
    Position,
    apply_move,
    cell_name,
    legal_move_pairs,
    to_notation,
)
from tests.reference import (
    parse_board as reference_board,
)
from tests.short_reference import levels_left_out, raumschach_short_names
from tests.short_reference import short_names as reference_names
from tests.sweep import SWEEP

SIZES = (3, 4, 5, 6, 7, 8)


def kernel_position(pos: Position) -> KernelPosition:
    """The engine's position of a reference position."""
    text = parse_board(to_notation(pos.n, pos.pieces), 64)
    return KernelPosition.from_rows(text.size, text.rows, 0 if pos.side == WHITE else 1)


def played_positions(seed: int, count: int) -> list[Position]:
    """Positions of seeded random games from the start positions of n = 3 ... 8, where many
    pieces of a kind reach the same cells (what disambiguation is about)."""
    rng = random.Random(seed)
    found: list[Position] = []
    while len(found) < count:
        n = rng.choice(SIZES)
        start = start_position(n)
        pos = reference_board(format_board(start, "#"), n)
        for _ in range(rng.randrange(4, 40)):
            pairs = legal_move_pairs(pos)
            if not pairs:
                break
            pos = apply_move(pos, *rng.choice(pairs))
        found.append(pos)
    return found


def check_position(pos: Position) -> int:
    """Check every legal move of one position; return how many there were."""
    expected = reference_names(pos)
    position = kernel_position(pos)
    analysis = Analysis(position)
    geometry = position.geometry
    seen: dict[str, Move] = {}
    for move in analysis.legal_moves():
        cells = geometry.get_cell_from_point(move.origin), geometry.get_cell_from_point(move.target)
        name = short_name(position, analysis, move)
        assert name == expected[cells], (to_notation(pos.n, pos.pieces), pos.side, move)
        assert name not in seen, (name, move, seen.get(name))
        seen[name] = move
        assert read_move(position, analysis, name) == move, name
    assert len(seen) == len(expected)
    assert set(short_names(position, analysis)) == {name.rstrip("+#") for name in seen}
    return len(seen)


def test_short_names_are_sans_and_read_back() -> None:
    """Thousands of seeded positions: random ones of both sides and ones from played games."""
    positions = list(side_positions(seed=5100, count=900 * SWEEP, sizes=SIZES, game=True))
    positions += played_positions(5101, 100 * SWEEP)
    # By size: the engine keeps the direction tables of the last two sizes only.
    positions.sort(key=lambda pos: pos.n)
    moves = sum(check_position(pos) for pos in positions)
    assert moves > 15_000 * SWEEP, moves


def test_levels_left_out() -> None:
    """`Nb1-c3`: the one legal move that fits is played; several are named, sorted."""
    rng = random.Random(5102)
    unique = ambiguous = 0
    for pos in played_positions(5103, 60):
        pairs = legal_move_pairs(pos)
        position = kernel_position(pos)
        analysis = Analysis(position)
        for origin, target in rng.sample(pairs, min(5, len(pairs))):
            text, fitting = levels_left_out(pos, origin, target)
            if len(fitting) == 1:
                move = read_short_move(position, analysis, text)
                assert (cell_name(origin), cell_name(target)) == names(position, move), text
                unique += 1
                continue
            with pytest.raises(IllegalMove) as refused:
                read_move(position, analysis, text)
            listed = sorted(f"{pos.pieces[a]}{cell_name(a)}" for a, _ in fitting)
            message = str(refused.value)
            assert message.startswith("ambiguous: "), message
            assert len(message.split(", ")) == len(fitting), message
            assert all(origin in message for origin in listed), message
            ambiguous += 1
    assert unique > 100 and ambiguous > 10, (unique, ambiguous)


def names(position: KernelPosition, move: Move) -> tuple[str, str]:
    long = get_move_name(position, move)
    origin, target = long[1:].replace("x", "-").split("-")
    return origin, target


@pytest.mark.parametrize(
    ("moves", "text", "answer"),
    [
        ([], "Nc3", "? ambiguous: Na2(I)-c3(I), Nb1(I)-c3(I), Nd1(I)-c3(I), Ne2(I)-c3(I)"),
        ([], "Nbc3", ""),
        ([], "Nb1-c3", ""),
        ([], "Qc4(V)", "? illegal move: no white queen can move to c4(V)"),
        ([], "Ra3", "? illegal move: no white rook can move to a3 (any level)"),
        ([], "Nb1-c3(II)", "? illegal move: no white knight on b1 (any level) can move to c3(II)"),
        (
            [],
            "Zz9",
            "? illegal move: cannot read 'Zz9': write a move as Nc3(I), Nb1(I)-c3(I) "
            "or Nb2(II)xa1(III) (docs/rules.md)",
        ),
        (["Nb1(I)-c3(I)"], "qc4(V)-c1(V)", ""),
        (["Nb1(I)-c3(I)"], "Qc1(V)+", ""),
        ([], "Ux3", "? illegal move: 'Ux3' names a cell off the 5x5x5 board"),
        (["Nb1(I)-c3(I)"], "Qc1", "? ambiguous: qc4(V)-c1(II), qc4(V)-c1(V)"),
        (["Nb1(I)-c3(I)"], "qc1(5)", ""),
        (["Nb1(I)-c3(I)"], "qc4-c1(V)", ""),
    ],
)
def test_play_reads_short_and_lenient_moves(moves: list[str], text: str, answer: str) -> None:
    """`play` of a short, lenient or wrong move on 5³, in process."""
    kernel = Kernel(EngineConfig())
    assert ask(kernel, "new_game 5") == ""
    for move in moves:
        assert ask(kernel, f"play {move}") == ""
    assert ask(kernel, f"play {text}") == answer


def raumschach_positions(seed: int, count: int) -> list[rs.Position]:
    """Positions of seeded random Raumschach games, and of the same with white's pawns moved
    next to their promotion cell, where promotions, with and without a capture, are legal."""
    rng = random.Random(seed)
    found: list[rs.Position] = []
    while len(found) < count:
        pos = rs.start_position()
        for _ in range(rng.randrange(0, 50)):
            moves = rs.legal_moves(pos)
            if not moves:
                break
            pos = rs.play(pos, rng.choice(moves))
        if rng.random() < 0.5:
            # Two white pawns a step from e5 of level E (the engine's c5(V) row), on rank 4
            # of level E and rank 5 of level D, where they take and promote.
            pieces = {c: p for c, p in pos.pieces.items() if p != "P" and c[1:] not in PAWN_CELLS}
            for x in rng.sample(range(5), 2):
                pieces[(x, *rng.choice(PAWN_CELLS))] = "P"
            pos = rs.Position(pieces, rs.WHITE)
            if "K" not in pieces.values() or "k" not in pieces.values():
                continue
            if rs.in_check(pos, rs.BLACK):
                continue
        found.append(pos)
    return found


#: (rank, level) of the cells next to a white pawn's promotion row.
PAWN_CELLS = [(3, 4), (4, 3)]


def test_raumschach_short_names_read_back() -> None:
    """Raumschach's pawns and promotions: the reference's short names, read back exactly."""
    kernel = Kernel(EngineConfig())
    assert ask(kernel, "variant raumschach") == ""
    promotions = pawn_moves = 0
    for pos in raumschach_positions(5104, 16 * SWEEP):
        expected = raumschach_short_names(pos)
        assert ask(kernel, f"set_board {rs.set_board_text(pos)}") == "", rs.set_board_text(pos)
        position = kernel.position
        analysis = Analysis(position)
        geometry = position.geometry
        names = set()
        for move in analysis.legal_moves():
            key = (
                geometry.get_cell_from_point(move.origin),
                geometry.get_cell_from_point(move.target),
                "" if move.promotion == "#" else move.promotion,
            )
            name = short_name(position, analysis, move)
            assert name == expected[key], (rs.set_board_text(pos), key)
            assert read_move(position, analysis, name) == move, name
            names.add(name)
            promotions += move.promotion != "#"
            pawn_moves += move.piece in "Pp"
        assert len(names) == len(expected)
    assert promotions > 20 and pawn_moves > 150, (promotions, pawn_moves)


def test_short_legal_moves_by_hand() -> None:
    """docs/rules.md's examples, from `legal_moves` with protocol.notation = "short"."""
    kernel = Kernel(EngineConfig(notation="short"))
    rooks = (
        "[###K,####,####,###k],[####,####,####,R###],[####,####,####,####],[####,####,####,R###]"
    )
    assert ask(kernel, f"set_board {rooks}") == ""
    assert {"R(I)a1(II)", "R(III)a1(II)"} <= set(ask(kernel, "legal_moves").split())
    assert ask(kernel, "variant raumschach") == ""
    board = rs.position_from(
        {"c2(II)": "P", "c3(I)": "P", "a1(I)": "K", "e5(V)": "k", "b4(V)": "P", "c5(V)": "r"}
    )
    assert ask(kernel, f"set_board {rs.set_board_text(board)}") == ""
    moves = set(ask(kernel, "legal_moves").split())
    assert {"2c3(II)", "3c3(II)", "c4(I)", "b5(V)=U", "bxc5(V)=Q+", "bxc5(V)=N"} <= moves, moves
    pawns = rs.position_from(
        {"b3(II)": "P", "b4(I)": "P", "a1(I)": "K", "e5(V)": "k", "c4(II)": "n"}
    )
    assert ask(kernel, f"set_board {rs.set_board_text(pawns)}") == ""
    assert ask(kernel, "legal_moves").split()[:4] == ["3b4(II)", "3xc4(II)", "4b4(II)", "4xc4(II)"]
    assert ask(kernel, f"set_board {rs.set_board_text(board)}") == ""
    assert ask(kernel, "play bxc5=N") == ""
    assert ask(kernel, "undo") == ""
    assert ask(kernel, "play b5(V)") == (
        "? illegal move: the pawn promotes on b5(V): write what it becomes (=Q, =R, =B, =U, =N)"
    )


def test_two_letter_files() -> None:
    """Past 26 files a file written before the destination's could be read as part of it:
    `Rac1(I)` is the rook e1(I) to ac1(I), so the rook a1(I) to c1(I) names its whole cell.
    Every legal move of seeded crowded positions of n = 27 ... 30 reads back, names unique."""
    wide = KernelPosition.empty(30)
    for cell, letter in {"a1(I)": "R", "e1(I)": "R", "a30(XXX)": "K", "ad30(XXX)": "k"}.items():
        wide.cells[get_point_from_cell_name(wide.geometry, cell)] = letter
    positions = [KernelPosition(30, "".join(wide.cells))]
    rng = random.Random(5105)
    for n in (27, 28, 29, 30):
        for _ in range(2):
            board = KernelPosition.empty(n)
            spots = rng.sample(range(n**3), 40)
            for index, spot in enumerate(spots):
                x, rest = divmod(spot, n * n)
                y, z = divmod(rest, n)
                letter = "Kk"[index] if index < 2 else rng.choice("QRBNqrbn")
                board.cells[board.geometry.get_point_from_cell(x, y, z)] = letter
            position = KernelPosition(n, "".join(board.cells), rng.randrange(2))
            if Analysis(position).king != -1 and not in_check(position, position.enemy):
                positions.append(position)
    assert len(positions) > 5
    named = {}
    for position in positions:
        analysis = Analysis(position)
        names = {short_name(position, analysis, move): move for move in analysis.legal_moves()}
        assert len(names) == sum(1 for _ in analysis.legal_moves())
        for name, move in names.items():
            assert read_move(position, analysis, name) == move, name
        named.update({get_move_name(position, move): name for name, move in names.items()})
    assert named["Ra1(I)-c1(I)"] == "Ra1(I)c1(I)" and named["Re1(I)-ac1(I)"] == "Rac1(I)"
