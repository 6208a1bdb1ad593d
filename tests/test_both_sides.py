"""Both sides to move, `play`, `undo` and `perft`: the kernel against the brute-force reference.

In process through `Kernel.execute` (seeded positions of both sides, n = 2..8), through the real
engine process (random games of 30+ moves with play and undo), and against the checked-in perft
table of tests/perft_table.py. The seeded sweeps are sized for `make test`; `make sweep` runs
them ten times larger.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from kernel.config import EngineConfig
from kernel.kernel import Kernel
from tests.conftest import Engine, ask, set_position
from tests.perft_table import PERFT_TABLE
from tests.positions import game_position, noise_game_position, side_position, side_positions
from tests.reference import (
    BLACK,
    ILLEGAL_KINDS,
    WHITE,
    Analysis,
    IllegalMove,
    Position,
    Side,
    analyse,
    board_text,
    cell_name,
    game_error,
    legal_move_pairs,
    move_name,
    parse_board,
    parse_game,
    parse_move,
    parse_roman,
    perft,
    pseudo_moves,
    roman,
    successors,
)
from tests.sweep import SWEEP

SIZES = (2, 3, 4, 5, 6, 7, 8)


@pytest.fixture(scope="module")
def kernel() -> Kernel:
    """Share one kernel: set_board replaces the whole position and clears the history."""
    return Kernel(EngineConfig())


def analysis_texts(pos: Position, result: Analysis | None = None) -> dict[str, str]:
    """The reference's answers to the analysis commands, as the engine prints them (from
    `result`, the reference's analysis of pos, when the caller has it already)."""
    result = analyse(pos) if result is None else result
    return {
        "status": result.status,
        "checkers": " ".join(result.checkers),
        "legal_moves": " ".join(result.legal_moves),
        "checkmate": "true" if result.checkmate else "false",
    }


def disagreements(kernel: Kernel, pos: Position, result: Analysis | None = None) -> list[str]:
    """Compare the kernel's analysis of its current position with the reference's on pos."""
    found = []
    for command, expected in analysis_texts(pos, result).items():
        got = ask(kernel, command)
        if got != expected:
            found.append(
                f"{board_text(pos)}: {command}\n  kernel:    {got!r}\n  reference: {expected!r}"
            )
    return found


def fail_on(problems: list[str], total: int) -> None:
    """Fail with the first few problems, smallest boards first."""
    if problems:
        problems.sort(key=len)
        pytest.fail(
            f"{len(problems)} problems in {total} cases; the shortest:\n" + "\n".join(problems[:5])
        )


# ---------------------------------------------------------------- analysis, both sides


def test_analysis_of_both_sides(kernel: Kernel) -> None:
    """Agree on status, checkers, legal moves and checkmate for 1,500 positions, both sides."""
    problems: list[str] = []
    mix: Counter[str] = Counter()
    count = 1500 * SWEEP
    for i, pos in enumerate(side_positions(seed=1010, count=count, sizes=SIZES)):
        set_position(kernel, pos, sized=i % 3 == 0)
        assert ask(kernel, "get_board") == board_text(pos)
        result = analyse(pos)
        problems += disagreements(kernel, pos, result)
        mix[f"{pos.side} {result.status}"] += 1
    fail_on(problems, count)
    for side in "wb":
        for status in ("checkmate", "stalemate", "check", "normal"):
            assert mix[f"{side} {status}"] >= 25 * SWEEP, mix


def test_set_board_side_words(kernel: Kernel) -> None:
    """Take w, b, white and black, and answer get_board with ` b` only for black."""
    board = "[###,#k#,#b#],[##b,###,###],[r##,##K,###]"
    for word, suffix in (("w", ""), ("white", ""), ("b", " b"), ("black", " b")):
        assert ask(kernel, f"set_board {board} {word}") == ""
        assert ask(kernel, "get_board") == board + suffix
        assert ask(kernel, "showboard").endswith(("black" if suffix else "white") + " to move")
    assert ask(kernel, f"set_board 3 {board} b") == ""
    assert ask(kernel, "get_board") == board + " b"
    assert ask(kernel, f"set_board {board}") == ""
    assert ask(kernel, "get_board") == board


def test_explain_of_both_sides(kernel: Kernel) -> None:
    """Explain for the side to move, agreeing with the reference's status, checkers and moves."""
    problems: list[str] = []
    count = 600 * SWEEP
    for pos in side_positions(seed=1212, count=count, sizes=SIZES):
        set_position(kernel, pos)
        result = analyse(pos)
        lines = ask(kernel, "explain").split("\n")
        colour = "white" if pos.side == WHITE else "black"
        king = [
            cell
            for cell, piece in pos.pieces.items()
            if piece == ("K" if pos.side == WHITE else "k")
        ]
        verdict = "checkmate:" if result.status == "checkmate" else "not checkmate:"
        in_check = bool(result.checkers)
        if king:
            head = f"{verdict} the {colour} king on {cell_name(king[0])} is "
            head += "in check" if in_check else "not in check"
        else:
            head = f"{verdict} {colour} has no king, so it is never in check"
        found = []
        if lines[0] != head:
            found.append(f"first line {lines[0]!r}, expected {head!r}")
        if result.status == "stalemate" and f"stalemate: {colour} has no legal move" not in lines:
            found.append("no stalemate line")
        named_moves = set(lines[-1].replace(",", " ").split())
        if result.status in ("check", "normal") and not named_moves & set(result.legal_moves):
            found.append(f"the last line names no legal move: {lines[-1]!r}")
        if in_check:
            named = sorted(line.split()[2] for line in lines if line.startswith("check from "))
            if named != result.checkers:
                found.append(f"checkers named {named}, expected {result.checkers}")
            free = [line for line in lines if line.endswith("free, the king can go there")]
            king_moves = [m for m in result.legal_moves if m[0] in "Kk"]
            if len(free) != len(king_moves):
                found.append(f"{len(free)} free flights but {len(king_moves)} king moves")
        problems += [f"{board_text(pos)}: explain: {f}" for f in found]
    fail_on(problems, count)


# ---------------------------------------------------------------- perft


def test_perft_table(kernel: Kernel) -> None:
    """Count exactly the checked-in perft table, every position, depths 1 to 4."""
    problems = []
    for entry in PERFT_TABLE:
        pos = parse_game(entry.board)
        set_position(kernel, pos)
        assert ask(kernel, "perft 0") == "1"
        for depth, count in enumerate(entry.counts, start=1):
            got = ask(kernel, f"perft {depth}")
            if got != str(count):
                problems.append(f"{entry.name} {entry.board}: perft {depth} {got} != {count}")
        assert ask(kernel, "get_board") == entry.board  # a search changes nothing
    fail_on(problems, len(PERFT_TABLE))


def test_perft_against_reference(kernel: Kernel) -> None:
    """Agree on perft 2 for 350 game positions of both sides, n = 2..8, perft 3 on small ones."""
    problems: list[str] = []
    rng = random.Random(2020)
    checked = Counter[int]()
    for i in range(350 * SWEEP):
        n = SIZES[i % len(SIZES)]
        side: Side = WHITE if i // len(SIZES) % 2 == 0 else BLACK
        pieces = rng.randint(2 if side == WHITE else 3, min(n**3, 4 + n))
        pos = game_position(rng, n, side, pieces)
        depth = 3 if n <= 3 and pieces <= 5 else 2
        set_position(kernel, pos)
        expected = perft(pos, depth)
        got = ask(kernel, f"perft {depth}")
        checked[depth] += 1
        if got != str(expected):
            problems.append(f"{board_text(pos)}: perft {depth} kernel {got} reference {expected}")
    fail_on(problems, sum(checked.values()))
    assert checked[3] >= 25 * SWEEP, checked


def test_perft_3_on_larger_boards(kernel: Kernel) -> None:
    """Agree on perft 3 for sparse game positions of both sides, n = 4..8."""
    rng = random.Random(2121)
    problems: list[str] = []
    checked = 0
    for i in range(150 * SWEEP):
        n = (4, 5, 6, 7, 8)[i % 5]
        side: Side = WHITE if i // 5 % 2 == 0 else BLACK
        pos = game_position(rng, n, side, rng.randint(3, 4))
        if perft(pos, 2) > 600:  # keep the brute force's share of the run modest
            continue
        set_position(kernel, pos)
        expected = perft(pos, 3)
        got = ask(kernel, "perft 3")
        checked += 1
        if got != str(expected):
            problems.append(f"{board_text(pos)}: perft 3 kernel {got} reference {expected}")
        if checked >= 30 * SWEEP:
            break
    fail_on(problems, checked)
    assert checked >= 20 * SWEEP, checked


def test_perft_refusals(kernel: Kernel) -> None:
    """Refuse perft on a non-game position and a bad depth, changing nothing."""
    assert ask(kernel, "set_board [#q,##],[##,K#] b") == ""
    assert ask(kernel, "perft 1") == "? the side not to move is in check"
    assert ask(kernel, "get_board") == "[#q,##],[##,K#] b"
    assert ask(kernel, "set_board [#q,##],[##,K#]") == ""
    for bad in ("-1", "x", "1.5"):
        assert ask(kernel, f"perft {bad}").startswith("? ")
    assert ask(kernel, "perft 1") == "1"


# ---------------------------------------------------------------- play and undo


def test_play_every_move_then_undo(kernel: Kernel) -> None:
    """Play each legal move: get_board is the reference's position after it; undo restores."""
    problems: list[str] = []
    played = 0
    rng = random.Random(3030)
    positions = list(side_positions(seed=3031, count=350 * SWEEP, sizes=SIZES, game=True))
    for pos in positions:
        start = board_text(pos)
        set_position(kernel, pos)
        moves = successors(pos)
        deep = set(rng.sample(range(len(moves)), min(3, len(moves))))
        for index, (name, after) in enumerate(moves):
            reply = ask(kernel, f"play {name}")
            if reply != "":
                problems.append(f"{start}: play {name} refused: {reply}")
                continue
            played += 1
            got = ask(kernel, "get_board")
            if got != board_text(after):
                problems.append(
                    f"{start}: play {name}\n  kernel {got}\n  expect {board_text(after)}"
                )
            elif index in deep:
                # The piece lists are kept by play: the analysis after it must still be exact.
                problems += [f"after play {name}: {p}" for p in disagreements(kernel, after)]
            assert ask(kernel, "undo") == "", (start, name)
            if ask(kernel, "get_board") != start:
                problems.append(f"{start}: undo after {name} gives {ask(kernel, 'get_board')}")
        assert ask(kernel, "undo") == "? cannot undo", start
    fail_on(problems, len(positions))
    assert played >= 1500 * SWEEP, played


def test_play_on_crowded_noise(kernel: Kernel) -> None:
    """Play and undo on boards a quarter to a half full of pieces thrown anywhere."""
    rng = random.Random(3535)
    problems: list[str] = []
    played = 0
    for i in range(90 * SWEEP):
        n = (3, 4, 5, 6)[i % 4]
        side: Side = WHITE if i // 4 % 2 == 0 else BLACK
        pos = noise_game_position(rng, n, side, rng.randint(n**3 // 4, n**3 // 2))
        set_position(kernel, pos)
        problems += disagreements(kernel, pos)
        moves = successors(pos)
        for name, after in rng.sample(moves, min(12, len(moves))):
            assert ask(kernel, f"play {name}") == "", (board_text(pos), name)
            played += 1
            if ask(kernel, "get_board") != board_text(after):
                problems.append(f"{board_text(pos)}: play {name} gives the wrong board")
            problems += [f"after play {name}: {p}" for p in disagreements(kernel, after)]
            assert ask(kernel, "undo") == ""
        assert ask(kernel, "get_board") == board_text(pos)
    fail_on(problems, 90 * SWEEP)
    assert played >= 300 * SWEEP, played


def test_lenient_move_forms(kernel: Kernel) -> None:
    """Play a move written without its letter, with `x`/`-` swapped and with decimal levels."""
    rng = random.Random(4040)
    done = 0
    for pos in side_positions(seed=4041, count=200, sizes=SIZES, game=True):
        pairs = legal_move_pairs(pos)
        if not pairs:
            continue
        from_cell, to_cell = rng.choice(pairs)
        name = move_name(pos, from_cell, to_cell)
        after = board_text(dict(successors(pos))[name])
        letter = name[0]
        sign = "x" if "-" in name else "-"  # the wrong sign on purpose
        decimal_from = cell_name(from_cell).replace(
            f"({roman(from_cell[2] + 1)})", f"({from_cell[2] + 1})"
        )
        decimal_to = cell_name(to_cell).replace(f"({roman(to_cell[2] + 1)})", f"({to_cell[2] + 1})")
        forms = [
            name[1:],
            f"{letter}{cell_name(from_cell)}{sign}{cell_name(to_cell)}",
            f"{letter}{decimal_from}-{decimal_to}",
            f"{decimal_from}{sign}{cell_name(to_cell)}",
        ]
        for form in forms:
            parse_move(pos, form)  # the reference takes it too
            set_position(kernel, pos)
            assert ask(kernel, f"play {form}") == "", (board_text(pos), form)
            assert ask(kernel, "get_board") == after, (board_text(pos), form)
            done += 1
    assert done >= 350


def test_large_boards_both_sides(kernel: Kernel) -> None:
    """Agree on boards from 9 to 30 (files aa, ab, …; levels past X): analysis, play, undo."""
    rng = random.Random(4545)
    problems: list[str] = []
    past_z = 0
    for i in range(60):
        n = (9, 12, 27, 30)[i % 4]
        side: Side = WHITE if i // 4 % 2 == 0 else BLACK
        pos = game_position(rng, n, side, rng.randint(4, 40))
        set_position(kernel, pos, sized=i % 2 == 0)
        problems += disagreements(kernel, pos)
        moves = successors(pos)
        assert ask(kernel, "perft 1") == str(len(moves))
        for name, after in rng.sample(moves, min(4, len(moves))):
            past_z += any(len(part.rstrip("0123456789()IVXL")) > 1 for part in name[1:].split("-"))
            # Decimal levels, as a GUI might send them.
            decimal = re.sub(r"\(([IVXLCDM]+)\)", lambda m: f"({parse_roman(m[1])})", name)
            assert ask(kernel, f"play {decimal}") == "", (board_text(pos), decimal)
            if ask(kernel, "get_board") != board_text(after):
                problems.append(f"{board_text(pos)}: play {decimal} gives the wrong board")
            assert ask(kernel, "undo") == ""
        assert ask(kernel, "get_board") == board_text(pos)
    fail_on(problems, 60)
    assert past_z >= 10, past_z


def wrong_moves(rng: random.Random, pos: Position) -> list[str]:
    """Draw move texts that must be refused, of every kind the reference names."""
    n = pos.n
    legal = {move_name(pos, a, b) for a, b in legal_move_pairs(pos)}
    texts: list[str] = []
    cells = [(x, y, z) for x in range(n) for y in range(n) for z in range(n)]
    for _ in range(12):
        a, b = rng.choice(cells), rng.choice(cells)
        letter = pos.pieces.get(a, rng.choice("KQRBNkqrbn"))
        texts.append(f"{letter}{cell_name(a)}-{cell_name(b)}")
        texts.append(f"{cell_name(a)}x{cell_name(b)}")
    for a, b in pseudo_moves(pos):
        name = move_name(pos, a, b)
        if name not in legal:
            texts.append(name)  # leaves the king in check
        else:
            other = rng.choice([k for k in "KQRBN" if k != name[0].upper()])
            texts.append((other if name[0].isupper() else other.lower()) + name[1:])
    texts += [f"a1({roman(n + 1)})-a2(I)", "a1(0)-a2(I)", "a1(I)a2(I)", "play", "Ka1(I)-"]
    return [t for t in texts if t not in legal]


def test_illegal_play_is_refused(kernel: Kernel) -> None:
    """Refuse every wrong move with `illegal move: ...`, the position and history unchanged."""
    rng = random.Random(5050)
    kinds: Counter[str] = Counter()
    problems: list[str] = []
    for pos in side_positions(seed=5051, count=150 * SWEEP, sizes=SIZES, game=True):
        set_position(kernel, pos)
        start = board_text(pos)
        # After mate or stalemate a move that can be read is refused as coming too late.
        refusals = (
            ("? illegal move: ", "? game over: ")
            if not legal_move_pairs(pos)
            else "? illegal move: "
        )
        for text in wrong_moves(rng, pos):
            try:
                parse_move(pos, text)
            except IllegalMove as refused:
                kinds[refused.kind] += 1
            else:
                continue  # a lenient form of a legal move (e.g. x for -): not wrong after all
            reply = ask(kernel, f"play {text}")
            if not reply.startswith(refusals):
                problems.append(f"{start}: play {text} answered {reply!r}")
        if ask(kernel, "get_board") != start:
            problems.append(f"{start}: changed by refused moves to {ask(kernel, 'get_board')}")
        if ask(kernel, "undo") != "? cannot undo":
            problems.append(f"{start}: a refused move left something to undo")
    fail_on(problems, 150 * SWEEP)
    for kind in ILLEGAL_KINDS:
        assert kinds[kind] >= 25 * SWEEP, kinds


def test_game_commands_need_a_game_position(kernel: Kernel) -> None:
    """Refuse play, perft, mate_in and solution when the side not to move is in check."""
    rng = random.Random(6060)
    refused = 0
    for _ in range(400):
        n = rng.choice((2, 3, 4, 5))
        pos = side_position(rng, n, rng.choice((WHITE, BLACK)))
        if game_error(pos) is None:
            continue
        set_position(kernel, pos)
        move = legal_move_pairs(pos)
        commands = ["perft 1", "mate_in 1", "solution 1"]
        if move:
            commands.append(f"play {move_name(pos, *move[0])}")
        for command in commands:
            assert ask(kernel, command) == "? the side not to move is in check", board_text(pos)
        assert ask(kernel, "get_board") == board_text(pos)
        refused += 1
    assert refused >= 30


def test_history_is_cleared(kernel: Kernel) -> None:
    """Clear the history on set_board, boardsize and clear_board; undo walks back any number."""
    pos = parse_board("[###,#k#,#b#],[##b,###,###],[r##,##K,###]", side=BLACK)
    line = ["bb1(III)-a2(II)", "Kc2(I)-c1(I)", "ra3(I)-c3(I)"]
    for reset in ("set_board [##,##],[##,K#]", "boardsize 3", "clear_board"):
        set_position(kernel, pos)
        boards = [board_text(pos)]
        for move in line:
            assert ask(kernel, f"play {move}") == "", move
            boards.append(ask(kernel, "get_board"))
        assert ask(kernel, "status") == "checkmate"
        for board in reversed(boards[:-1]):
            assert ask(kernel, "undo") == ""
            assert ask(kernel, "get_board") == board
        assert ask(kernel, "undo") == "? cannot undo"
        assert ask(kernel, f"play {line[0]}") == ""
        assert ask(kernel, reset) == ""
        assert ask(kernel, "undo") == "? cannot undo", reset


# ---------------------------------------------------------------- hypothesis: random lines


@st.composite
def lines(draw: st.DrawFn) -> tuple[Position, list[int]]:
    """Draw a game position of either side and a line of move choices through it."""
    n = draw(st.integers(min_value=2, max_value=6))
    side = draw(st.sampled_from([WHITE, BLACK]))
    seed = draw(st.integers(0, 2**32 - 1))
    pieces = draw(st.integers(min_value=3, max_value=min(n**3, 12)))
    pos = game_position(random.Random(seed), n, side, pieces)
    choices = draw(st.lists(st.integers(0, 10**6), min_size=1, max_size=12))
    return pos, choices


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=lines())
def test_random_lines_against_reference(kernel: Kernel, case: tuple[Position, list[int]]) -> None:
    """Play a line of legal moves: after each, the board and the analysis agree; undo them all."""
    pos, choices = case
    note(f"start {board_text(pos)}")
    set_position(kernel, pos)
    history = [pos]
    for choice in choices:
        moves = successors(history[-1])
        if not moves:
            break
        name, after = moves[choice % len(moves)]
        note(f"play {name}")
        assert ask(kernel, f"play {name}") == ""
        assert ask(kernel, "get_board") == board_text(after)
        assert disagreements(kernel, after) == []
        history.append(after)
    for earlier in reversed(history[:-1]):
        assert ask(kernel, "undo") == ""
        assert ask(kernel, "get_board") == board_text(earlier)
    assert ask(kernel, "undo") == "? cannot undo"


# ---------------------------------------------------------------- the real process


def test_random_games_through_the_process(log_dir: Path) -> None:
    """Play random games of 30+ moves through `python main.py`, undoing now and then."""
    engine = Engine(log_dir)
    rng = random.Random(7070)
    games = moves_played = 0
    try:
        for game in range(24):
            n = (3, 4, 5, 6)[game % 4]
            side: Side = WHITE if game % 2 == 0 else BLACK
            pos = game_position(rng, n, side, rng.randint(6, 10 + n))
            assert engine.ask(f"set_board {board_text(pos)}") == b"= \n\n"
            history = [pos]
            played = 0
            while played < 30 + rng.randint(0, 10):
                current = history[-1]
                moves = successors(current)
                if not moves or len(current.pieces) <= 2:
                    break
                if len(history) > 1 and rng.random() < 0.2:
                    back = rng.randint(1, min(3, len(history) - 1))
                    for _ in range(back):
                        assert engine.ask("undo") == b"= \n\n"
                        history.pop()
                else:
                    name, after = rng.choice(moves)
                    assert engine.ask(f"play {name}") == b"= \n\n", (board_text(current), name)
                    history.append(after)
                    played += 1
                expected = f"= {board_text(history[-1])}\n\n".encode()
                assert engine.ask("get_board") == expected, board_text(history[0])
                status = analyse(history[-1]).status
                assert engine.ask("status") == f"= {status}\n\n".encode()
            moves_played += played
            games += played >= 30
            while len(history) > 1:
                assert engine.ask("undo") == b"= \n\n"
                history.pop()
            assert engine.ask("get_board") == f"= {board_text(pos)}\n\n".encode()
            assert engine.ask("undo") == b"? cannot undo\n\n"
        assert engine.ask("quit") == b"= \n\n"
        code, rest, errors = engine.finish()
        assert code == 0, errors
        assert rest == b""
    finally:
        engine.kill()
    assert games >= 8, games
    assert moves_played >= 300
