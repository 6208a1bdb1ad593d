"""Hand-made positions with hand-written answers, asked of the reference and of the kernel.

Each expectation below was reasoned out from rules.md, not copied from either program; both the
brute-force reference and the kernel must give it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest

from tests.cases import REFERENCE_CASES, ReferenceCase
from tests.conftest import REPO, Engine
from tests.reference import (
    analyse,
    board_from_cells,
    parse_board,
    validity_error,
)


@dataclass(frozen=True)
class Answers:
    """What an engine says about one position."""

    status: str
    checkers: list[str]
    moves: list[str]
    checkmate: bool


Ask = Callable[[int, str], Answers]


def reference_answers(n: int, board: str) -> Answers:
    """Ask the brute-force reference."""
    result = analyse(parse_board(board, n))
    return Answers(result.status, result.checkers, result.legal_moves, result.checkmate)


def words(text: str) -> list[str]:
    """Split a space-separated answer, insisting on single spaces and no padding."""
    parts = text.split()
    assert " ".join(parts) == text, f"badly spaced answer {text!r}"
    return parts


def make_kernel_ask() -> Ask:
    """Build an asker backed by one in-process kernel."""
    from kernel.config import EngineConfig
    from kernel.kernel import Kernel

    kernel = Kernel(EngineConfig())

    def ask(n: int, board: str) -> Answers:
        reply = kernel.execute("set_board", [str(n), board])
        assert reply.ok, reply.text
        texts = {}
        for command in ("status", "checkers", "legal_moves", "checkmate"):
            answer = kernel.execute(command, [])
            assert answer.ok, f"{command}: {answer.text}"
            texts[command] = answer.text
        assert texts["checkmate"] in ("true", "false")
        return Answers(
            texts["status"],
            words(texts["checkers"]),
            words(texts["legal_moves"]),
            texts["checkmate"] == "true",
        )

    return ask


@pytest.fixture(params=["reference", "kernel"])
def ask(request: pytest.FixtureRequest) -> Ask:
    """Give each test the reference and the kernel in turn."""
    if request.param == "reference":
        return reference_answers
    return make_kernel_ask()


@dataclass(frozen=True)
class Rule:
    """A hand position and what must be true of it."""

    name: str
    n: int
    cells: dict[str, str]
    status: str
    checkers: list[str]
    moves: list[str] | None = None  # the exact legal moves, when short enough to list
    piece_moves: dict[str, list[str]] = field(default_factory=dict)  # exact, per piece
    includes: tuple[str, ...] = ()
    excludes: tuple[str, ...] = ()
    king_moves_only: bool = False

    @property
    def board(self) -> str:
        """Write the position in canonical notation."""
        return board_from_cells(self.n, self.cells)


RULES = [
    # ---- pins: a pinned piece may only move along the pin line
    Rule(
        "rook pinned on a rook line slides along it",
        4,
        {"a1(I)": "K", "a2(I)": "R", "a4(I)": "r"},
        "normal",
        [],
        piece_moves={"Ra2(I)": ["Ra2(I)-a3(I)", "Ra2(I)xa4(I)"]},
    ),
    Rule(
        "knight pinned on a rook line cannot move",
        4,
        {"a1(I)": "K", "a2(I)": "N", "a4(I)": "r"},
        "normal",
        [],
        piece_moves={"Na2(I)": []},
    ),
    Rule(
        "pin along a level (z) line",
        4,
        {"b2(I)": "K", "b2(II)": "Q", "b2(IV)": "r"},
        "normal",
        [],
        piece_moves={"Qb2(II)": ["Qb2(II)-b2(III)", "Qb2(II)xb2(IV)"]},
    ),
    Rule(
        "bishop pinned on a triagonal line slides along it",
        4,
        {"a1(I)": "K", "b2(II)": "B", "d4(IV)": "b"},
        "normal",
        [],
        piece_moves={"Bb2(II)": ["Bb2(II)-c3(III)", "Bb2(II)xd4(IV)"]},
    ),
    Rule(
        "rook pinned on a triagonal line cannot move",
        4,
        {"a1(I)": "K", "b2(II)": "R", "d4(IV)": "b"},
        "normal",
        [],
        piece_moves={"Rb2(II)": []},
    ),
    Rule(
        "queen pinned by a queen on a flat diagonal slides along it",
        4,
        {"a1(I)": "K", "b2(I)": "Q", "d4(I)": "q"},
        "normal",
        [],
        piece_moves={"Qb2(I)": ["Qb2(I)-c3(I)", "Qb2(I)xd4(I)"]},
    ),
    Rule(
        "bishop pinned on a flat diagonal cannot move",
        4,
        {"a1(I)": "K", "b2(I)": "B", "d4(I)": "q"},
        "normal",
        [],
        piece_moves={"Bb2(I)": []},
    ),
    Rule(
        "a black bishop on a flat diagonal pins nothing",
        4,
        {"a1(I)": "K", "b2(I)": "N", "d4(I)": "b"},
        "normal",
        [],
        includes=("Nb2(I)-d3(I)", "Nb2(I)-b4(II)", "Nb2(I)-a4(I)"),
    ),
    Rule(
        "a piece behind another is not pinned",
        4,
        {"a1(I)": "K", "a2(I)": "R", "a3(I)": "N", "a4(I)": "r"},
        "normal",
        [],
        includes=("Ra2(I)-b2(I)", "Na3(I)-c4(I)"),
    ),
    # ---- answering a check
    Rule(
        "a rook blocks the checking rook",
        4,
        {"a1(I)": "K", "a4(I)": "r", "c2(I)": "R"},
        "check",
        ["ra4(I)"],
        piece_moves={"Rc2(I)": ["Rc2(I)-a2(I)"]},
        excludes=("Ka1(I)-a2(I)", "Ka1(I)-a3(I)"),
    ),
    Rule(
        "a knight check cannot be blocked, only captured",
        3,
        {"a1(I)": "K", "b3(I)": "n", "c3(I)": "R"},
        "check",
        ["nb3(I)"],
        piece_moves={"Rc3(I)": ["Rc3(I)xb3(I)"]},
    ),
    Rule(
        "the king captures an undefended checker",
        4,
        {"a1(I)": "K", "b1(I)": "r"},
        "check",
        ["rb1(I)"],
        includes=("Ka1(I)xb1(I)",),
    ),
    Rule(
        "the king may not capture a checker defended by a rook",
        4,
        {"a1(I)": "K", "b1(I)": "r", "b4(I)": "r"},
        "check",
        ["rb1(I)"],
        excludes=("Ka1(I)xb1(I)",),
    ),
    Rule(
        "the king may not capture a checker defended by the black king",
        4,
        {"a1(I)": "K", "b1(I)": "r", "c2(II)": "k"},
        "check",
        ["rb1(I)"],
        excludes=("Ka1(I)xb1(I)",),
    ),
    # ---- x-ray: the king's own cell does not block the checking line
    Rule(
        "no step back along a rook's line",
        4,
        {"b1(I)": "K", "d1(I)": "r"},
        "check",
        ["rd1(I)"],
        includes=("Kb1(I)-b2(I)", "Kb1(I)-a2(II)"),
        excludes=("Kb1(I)-a1(I)", "Kb1(I)-c1(I)"),
    ),
    Rule(
        "no step back along a bishop's triagonal",
        4,
        {"b2(II)": "K", "d4(IV)": "b"},
        "check",
        ["bd4(IV)"],
        includes=("Kb2(II)-b1(I)",),
        excludes=("Kb2(II)-a1(I)", "Kb2(II)-c3(III)"),
    ),
    Rule(
        "no step back along a queen's flat diagonal",
        4,
        {"b2(I)": "K", "d4(I)": "q"},
        "check",
        ["qd4(I)"],
        includes=("Kb2(I)-b1(II)",),
        excludes=("Kb2(I)-a1(I)", "Kb2(I)-c3(I)"),
    ),
    # ---- double check: only the king may move
    Rule(
        "double check by a rook and a knight",
        4,
        {"a1(I)": "K", "a4(I)": "r", "c2(I)": "n", "c3(I)": "Q"},
        "check",
        ["nc2(I)", "ra4(I)"],
        includes=("Ka1(I)-b1(II)",),
        excludes=("Qc3(I)xc2(I)", "Qc3(I)-a3(I)"),
        king_moves_only=True,
    ),
    # ---- the black king and its flight guards
    Rule(
        "the black king guards four flight cells",
        3,
        {"a1(I)": "K", "c1(I)": "k"},
        "normal",
        [],
        moves=["Ka1(I)-a1(II)", "Ka1(I)-a2(I)", "Ka1(I)-a2(II)"],
    ),
    Rule(
        "only black in check: allowed, white not mated",
        3,
        {"a1(I)": "K", "c3(I)": "k", "c1(I)": "Q"},
        "normal",
        [],
        includes=("Qc1(I)xc3(I)", "Ka1(I)-a2(I)"),
    ),
    # ---- stalemate (no black king on these boards)
    Rule(
        "stalemate by three rooks on n=2",
        2,
        {"a1(I)": "K", "b2(I)": "r", "b2(II)": "r", "a2(II)": "r"},
        "stalemate",
        [],
        moves=[],
    ),
    Rule(
        "stalemate with a knight that has no move on n=2",
        2,
        {"a1(I)": "K", "b1(I)": "N", "b2(I)": "r", "b2(II)": "r", "a2(II)": "r"},
        "stalemate",
        [],
        moves=[],
    ),
    # ---- n = 2 boards
    Rule(
        "bishop check on n=2, every flight free",
        2,
        {"a1(I)": "K", "b2(II)": "b"},
        "check",
        ["bb2(II)"],
        moves=[
            "Ka1(I)-a1(II)",
            "Ka1(I)-a2(I)",
            "Ka1(I)-a2(II)",
            "Ka1(I)-b1(I)",
            "Ka1(I)-b1(II)",
            "Ka1(I)-b2(I)",
            "Ka1(I)xb2(II)",
        ],
    ),
    Rule(
        "rook check on n=2, checker defended",
        2,
        {"a1(I)": "K", "b1(I)": "r", "b2(I)": "r"},
        "check",
        ["rb1(I)"],
        moves=["Ka1(I)-a1(II)", "Ka1(I)-a2(II)"],
    ),
    Rule(
        "knights never check on n=2",
        2,
        {"a1(I)": "K", "b2(II)": "n", "a2(I)": "n"},
        "normal",
        [],
        includes=("Ka1(I)xb2(II)", "Ka1(I)xa2(I)"),
    ),
    Rule(
        "queen and rook mate on n=2",
        2,
        {"a1(I)": "K", "b2(II)": "q", "a2(II)": "r"},
        "checkmate",
        ["qb2(II)"],
        moves=[],
    ),
]


@pytest.mark.parametrize("rule", RULES, ids=[r.name for r in RULES])
def test_rule(ask: Ask, rule: Rule) -> None:
    """Give the hand-written answer for each hand position."""
    answers = ask(rule.n, rule.board)
    assert answers.status == rule.status
    assert answers.checkmate is (rule.status == "checkmate")
    assert answers.checkers == rule.checkers
    assert answers.moves == sorted(answers.moves)
    if rule.moves is not None:
        assert answers.moves == rule.moves
    for piece, expected in rule.piece_moves.items():
        assert [m for m in answers.moves if m.startswith(piece)] == expected, piece
    for move in rule.includes:
        assert move in answers.moves
    for move in rule.excludes:
        assert move not in answers.moves
    if rule.king_moves_only:
        assert answers.moves
        assert all(m.startswith("K") for m in answers.moves)


@pytest.mark.parametrize("case", REFERENCE_CASES, ids=[f"case{c.number}" for c in REFERENCE_CASES])
def test_reference_case(ask: Ask, case: ReferenceCase) -> None:
    """Answer the ten public cases of rules.md, checkmate and status."""
    answers = ask(case.size, case.board)
    assert answers.checkmate is case.mated
    assert answers.status == case.status


# Positions the engine must refuse, each with the reason it is impossible.
REFUSED = [
    ("no white king", 3, {"b2(II)": "q"}),
    ("two white kings", 3, {"a1(I)": "K", "c3(III)": "K"}),
    ("two black kings", 4, {"a1(I)": "K", "d4(IV)": "k", "d1(IV)": "k"}),
    ("kings side by side", 3, {"a1(I)": "K", "b1(I)": "k"}),
    ("kings corner to corner", 3, {"a1(I)": "K", "b2(II)": "k"}),
    ("both kings in check", 3, {"a1(I)": "K", "a3(I)": "r", "c3(I)": "k", "c1(I)": "Q"}),
    (
        "both kings in check, triagonal",
        4,
        {"a1(I)": "K", "d4(IV)": "b", "c1(I)": "k", "c3(I)": "R"},
    ),
]


@pytest.mark.parametrize(("name", "n", "cells"), REFUSED, ids=[r[0] for r in REFUSED])
def test_reference_refuses(name: str, n: int, cells: dict[str, str]) -> None:
    """Call impossible positions invalid in the reference."""
    assert validity_error(parse_board(board_from_cells(n, cells), n)) is not None, name


@pytest.mark.parametrize(("name", "n", "cells"), REFUSED, ids=[r[0] for r in REFUSED])
def test_kernel_refuses_and_keeps_position(name: str, n: int, cells: dict[str, str]) -> None:
    """Refuse impossible positions with `invalid board`, keeping the previous position."""
    from kernel.config import EngineConfig
    from kernel.kernel import Kernel

    kernel = Kernel(EngineConfig())
    before = "[#q,##],[##,K#]"
    assert kernel.execute("set_board", [before]).ok
    reply = kernel.execute("set_board", [board_from_cells(n, cells)])
    assert not reply.ok, name
    assert reply.text.startswith("invalid board"), reply.text
    assert kernel.execute("get_board", []).text == before


def test_kernel_checkmate_without_white_king_is_an_error() -> None:
    """Answer `no white king on the board` on an empty board."""
    from kernel.config import EngineConfig
    from kernel.kernel import Kernel

    kernel = Kernel(EngineConfig())
    assert kernel.execute("boardsize", ["3"]).ok
    reply = kernel.execute("checkmate", [])
    assert not reply.ok
    assert reply.text == "no white king on the board"


# --- the shortest games of the 3-cube (rules.md, "The start position") --------------------

#: Games of the 3-cube that end in mate, per ply, up to three plies: rules.md gives these.
MATES_BY_PLY = {1: 0, 2: 10, 3: 50}
#: One of the ten shortest: white's knight leaves b3(I), and black's rook drops onto c1(I).
SHORTEST_GAME = ("Nb3(I)-a1(I)", "rc1(III)-c1(I)")


def count_mates(most_plies: int) -> dict[int, list[tuple[str, ...]]]:
    """Play every game of the 3-cube from its start through the kernel's commands, up to
    `most_plies`, and list those that end in mate by their length."""
    from kernel.config import EngineConfig
    from kernel.kernel import Kernel

    kernel = Kernel(EngineConfig())
    assert kernel.execute("new_game", ["3"]).ok
    mates: dict[int, list[tuple[str, ...]]] = {ply: [] for ply in range(1, most_plies + 1)}

    def walk(path: tuple[str, ...]) -> None:
        result = kernel.execute("result", []).text
        if result.endswith("(checkmate)"):
            mates[len(path)].append(path)
        if result != "*" or len(path) == most_plies:
            return
        for move in kernel.execute("legal_moves", []).text.split():
            assert kernel.execute("play", [move]).ok, move
            walk((*path, move))
            assert kernel.execute("undo", []).ok

    walk(())
    return mates


def test_the_shortest_games_of_the_3_cube() -> None:
    """Every game of the 3-cube up to three plies, counted: the shortest mates come after two
    plies, ten of them, and fifty after three, as rules.md says (it said three plies were the
    shortest, twenty of them)."""
    mates = count_mates(3)
    assert {ply: len(games) for ply, games in mates.items()} == MATES_BY_PLY
    assert SHORTEST_GAME in mates[2]
    assert ("Ra3(I)-a3(II)", "nb1(III)-c3(III)", "Ra3(II)-a3(III)") in mates[3]
    said = " ".join((REPO / "docs" / "rules.md").read_text(encoding="utf-8").split())
    claim = re.search(
        r"found (\d+) games that end in mate after two plies .*?, (\d+) after three", said
    )
    assert claim is not None, "rules.md no longer counts the shortest games"
    assert (int(claim[1]), int(claim[2])) == (MATES_BY_PLY[2], MATES_BY_PLY[3])
    assert "and none after one" in said
    assert f"`1. {SHORTEST_GAME[0]} {SHORTEST_GAME[1]}`, checkmate" in said


def test_the_shortest_game_through_the_engine(engine: Engine) -> None:
    """The two-ply mate of rules.md, played in the engine process."""
    assert engine.ask("new_game 3") == b"= \n\n"
    for move in SHORTEST_GAME:
        assert engine.ask(f"play {move}") == b"= \n\n", move
    assert engine.ask("result") == b"= 0-1 (checkmate)\n\n"
    assert engine.ask("checkmate") == b"= true\n\n"
