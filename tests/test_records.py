"""Game records (docs/rules.md, "Game records"): `printgame` writes them, `loadgame` reads them.

Hundreds of seeded random games of n = 3..6, from the start position (either side to move) or
from a random game position, are played through the engine process and written with
`printgame`; all of them go into one file, and another engine reads each back by its number,
whole and, for a few, at every ply, and walks it back with `undo`, position by position.
Broken records and files that are no records are refused with the line or ply and the
reason, and change nothing. CUBEMATE_SWEEP=K plays K times as many games.
"""

from __future__ import annotations

import os
import random
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from kernel.config import EngineConfig
from kernel.cube.board import EMPTY
from kernel.kernel import Kernel
from kernel.records.record import parse_records, rewritten
from kernel.records.replay import MAX_RECORD_BYTES, file_name
from kernel.text.notation import get_move_name
from tests.conftest import TIMEOUT, Engine, ask, run_engine, split_responses
from tests.perft_table import START_PERFT
from tests.positions import game_position
from tests.reference import BLACK, WHITE, board_text
from tests.sweep import SWEEP

SIZES = (3, 4, 5, 6)
#: Random games played and read back; the sweep plays ten times as many.
GAMES = 200 * SWEEP
#: The longest random game, in plies.
MOST_PLIES = 40
#: Games read back at every ply.
EVERY_PLY_GAMES = 4
#: The start position of the 4-cube, as get_board writes it.
START_4 = START_PERFT[1].board


@dataclass
class PlayedGame:
    """A game chosen in process: how it was set up, its moves and the boards after each."""

    size: int
    setup: str
    moves: list[str] = field(default_factory=list)
    boards: list[str] = field(default_factory=list)
    result: str = "*"


def choose_game(kernel: Kernel, rng: random.Random, index: int) -> PlayedGame:
    """Set up a game and play random legal moves until it ends or has had enough."""
    size = SIZES[index % len(SIZES)]
    kind = index // len(SIZES) % 3
    if kind == 0:
        setup = f"new_game {size}"
    elif kind == 1:  # the start position with black to move: the record begins `1...`
        setup = f"set_board {START_PERFT[size - 3].board} b"
    else:
        side = WHITE if rng.random() < 0.5 else BLACK
        setup = f"set_board {board_text(game_position(rng, size, side))}"
    assert ask(kernel, setup) == ""
    game = PlayedGame(size, setup, boards=[ask(kernel, "get_board")])
    for _ in range(rng.randint(0, MOST_PLIES)):
        # The moves as the kernel makes them: only the one chosen is named, which is quicker.
        moves = list(kernel.analysis().legal_moves())
        if not moves:
            break
        # Captures are taken more often than chance would, so that games reach their ends.
        captures = [move for move in moves if move.captured != EMPTY]
        move = get_move_name(
            kernel.position, rng.choice(captures if captures and rng.random() < 0.3 else moves)
        )
        assert ask(kernel, f"play {move}") == ""
        game.moves.append(move)
        game.boards.append(ask(kernel, "get_board"))
    game.result = ask(kernel, "result")
    return game


@pytest.fixture(scope="module")
def games() -> list[PlayedGame]:
    """The seeded random games, chosen once for the module."""
    kernel = Kernel(EngineConfig())
    rng = random.Random(2026)
    return [choose_game(kernel, rng, index) for index in range(GAMES)]


def texts(output: bytes) -> list[str]:
    """Cut an engine's output into response texts: `= ` and the empty line taken off a
    success, the whole line kept for a refusal."""
    found = []
    for response in split_responses(output):
        text = response.decode()[:-2]
        found.append(text[2:] if text.startswith("= ") else text)
    return found


def pipe(lines: list[str], log_dir: Path) -> list[str]:
    """Send every line to one fresh engine at once and return its answers, one per line."""
    # Ten milliseconds a line on top of the usual wait: the sweep sends tens of thousands.
    timeout = TIMEOUT + len(lines) / 100
    done = run_engine(("\n".join(lines) + "\nquit\n").encode(), log_dir, timeout=timeout)
    assert done.returncode == 0, done.stderr[-2000:]
    answers = texts(done.stdout)
    assert len(answers) == len(lines) + 1 and answers[-1] == ""
    return answers[:-1]


@pytest.fixture(scope="module")
def record_file(games: list[PlayedGame], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Play every game through the engine, have it write the records, and keep them in one file."""
    lines: list[str] = []
    for game in games:
        lines += [game.setup, *(f"play {move}" for move in game.moves), "get_board"]
        lines.append("printgame long")  # the moves as the games name them
    folder = tmp_path_factory.mktemp("records")
    answers = pipe(lines, folder / "logs")
    records = []
    for game in games:
        count = 1 + len(game.moves)
        played, answers = answers[:count], answers[count:]
        (board, record), answers = answers[:2], answers[2:]
        assert played == [""] * count, game.setup
        assert board == game.boards[-1]
        assert record.startswith("\n")
        records.append(record[1:] + "\n")
    path = folder / "games.txt"
    path.write_text("\n".join(records), encoding="utf-8")
    return path


def test_the_records_say_what_was_played(games: list[PlayedGame], record_file: Path) -> None:
    records = parse_records(record_file.read_text(encoding="utf-8"))
    assert len(records) == len(games) >= 200
    for game, record in zip(games, records, strict=True):
        start = game.boards[0]
        assert record.size == game.size
        assert record.start == (start if start.endswith(" b") else f"{start} w")
        assert record.moves == game.moves
        assert record.result == game.result
        assert re.fullmatch(r"\d{4}-\d\d-\d\d", record.headers.pop("Date"))
        assert record.headers == {}
    # Every kind of game is there: both sides first, every ending, long and short ones.
    results = {game.result.split(" (")[-1] for game in games}
    assert results >= {"*", "checkmate)", "stalemate)", "insufficient material)"}, results
    assert sum(record.black_starts for record in records) >= len(records) // 4
    assert max(len(game.moves) for game in games) >= MOST_PLIES - 5
    assert sum(len(game.moves) for game in games) >= 2500


def test_loadgame_replays_every_record(
    games: list[PlayedGame], record_file: Path, tmp_path: Path
) -> None:
    text = record_file.read_text(encoding="utf-8")
    records = text.split("\n\n")
    lines: list[str] = []
    for number, game in enumerate(games, start=1):
        lines += [f"loadgame {record_file} end {number}", "get_board", "result", "printgame long"]
        # Every third game is walked back to its start, position by position.
        if number % 3 == 0:
            lines += ["undo", "get_board"] * len(game.moves) + ["undo"]
    answers = pipe(lines, tmp_path / "logs")
    for number, game in enumerate(games, start=1):
        loaded, board, result, record = answers[:4]
        answers = answers[4:]
        assert (loaded, board, result) == ("", game.boards[-1], game.result), number
        assert record[1:] + "\n" == records[number - 1].rstrip("\n") + "\n"
        if number % 3 == 0:
            walked, answers = answers[: 2 * len(game.moves) + 1], answers[2 * len(game.moves) + 1 :]
            assert walked[1::2] == game.boards[-2::-1], number
            assert walked[0::2] == [""] * len(game.moves) + ["? cannot undo"]
    assert answers == []


def test_loadgame_at_every_ply(games: list[PlayedGame], record_file: Path, tmp_path: Path) -> None:
    # The longest games, in a file of their own, the longest last.
    records = record_file.read_text(encoding="utf-8").split("\n\n")
    chosen = sorted(range(len(games)), key=lambda index: len(games[index].moves))[-EVERY_PLY_GAMES:]
    few = tmp_path / "few.txt"
    few.write_text("\n\n".join(records[index] for index in chosen), encoding="utf-8")
    lines: list[str] = []
    for number, index in enumerate(chosen, start=1):
        for ply in range(len(games[index].moves) + 1):
            lines += [f"loadgame {few} {ply} {number}", "get_board"]
    answers = pipe(lines, tmp_path / "logs")
    for index in chosen:
        count = len(games[index].moves) + 1
        loads, answers = answers[: 2 * count], answers[2 * count :]
        assert loads[0::2] == [""] * count
        assert loads[1::2] == games[index].boards
    assert answers == []


# --- records and files that are refused -----------------------------------------------------

#: A good record of the 4-cube, to be broken line by line below.
GOOD = f"""\
Size: 4
Start: {START_4} w
Result: *
White: someone (a person)
1. Nd1(I)-c3(I) na4(IV)-b2(IV)
2. Nc3(I)-d1(I)
"""
#: A record broken in one place, and how the refusal names the place and the problem.
BROKEN = {
    "illegal move": (
        GOOD.replace("2. Nc3(I)-d1(I)", "2. Nc3(I)-c4(I)"),
        "game 1, ply 3 (line 6): illegal move: the white knight on c3(I) cannot move to c4(I)",
    ),
    "start no game position": (
        "Size: 3\nStart: [#k#,###,###],[###,###,###],[#R#,###,#K#] w\nResult: *\n",
        "game 1 (line 1): the start is no game position: black is in check",
    ),
    "move after the end": (
        "Size: 3\nStart: [#k#,b#b,rnr],[###,###,###],[RNR,B#B,#K#] w\nResult: 0-1\n"
        "1. Ra3(I)-a3(II) ra1(III)-a1(II)\n2. Nb3(I)-c1(I) ra1(II)-a1(I)\n3. Kb1(I)-b2(I)\n",
        "game 1, ply 5 (line 6): the game is over: 0-1 (checkmate)",
    ),
    "move that cannot be read": (
        GOOD.replace("2. Nc3(I)-d1(I)", "2. Nc3(I)-d1("),
        "game 1, ply 3 (line 6): illegal move: cannot read 'Nc3(I)-d1(': "
        "write a move as Nc3(I), Nb1(I)-c3(I) or Nb2(II)xa1(III) (docs/rules.md)",
    ),
    "size outside the range": (
        GOOD.replace("Size: 4", "Size: 65"),
        "game 1 (line 1): size 65 is outside 2 ... 64",
    ),
    "size one": (GOOD.replace("Size: 4", "Size: 1"), "game 1 (line 1): size 1 is outside 2 ... 64"),
    "size no number": (
        GOOD.replace("Size: 4", "Size: four"),
        "line 1: Size must be a whole number, got 'four'",
    ),
    "start board of another size": (
        GOOD.replace("Size: 4", "Size: 5"),
        "game 1 (line 1): the start board has size 4, Size says 5",
    ),
    "start board unreadable": (
        GOOD.replace(START_4, START_4[:-1]),
        "game 1 (line 1): invalid start board: unbalanced brackets: 1 '[' not closed",
    ),
    "start with two white kings": (
        GOOD.replace("KRRN", "KKRN"),
        "game 1 (line 1): invalid start board: 2 white kings (a1(I), b1(I))",
    ),
    "missing header": (
        GOOD.replace("Result: *\n", ""),
        "line 1: the record has no Result header",
    ),
    "header after the moves": (
        GOOD + "Black: late\n",
        "line 7: header after the moves: 'Black: late'",
    ),
    "header twice": (
        GOOD.replace("White:", "Result: *\nWhite:"),
        "line 4: header Result given twice",
    ),
    "bad result": (
        GOOD.replace("Result: *", "Result: 2-0"),
        "line 1: Result must be *, 1-0, 0-1 or 1/2-1/2: '2-0'",
    ),
    "bad numbering": (
        GOOD.replace("2. Nc3", "3. Nc3"),
        "line 6: move 2 expected, got 3.",
    ),
    "three moves on a line": (
        GOOD.replace("na4(IV)-b2(IV)", "na4(IV)-b2(IV) Nc3(I)-d1(I)"),
        "line 5: a move line holds one or two moves",
    ),
    "black to move first": (
        GOOD.replace("1. Nd1(I)-c3(I) na4(IV)-b2(IV)\n2. Nc3(I)-d1(I)", "1... na4(IV)-b2(IV)"),
        "line 5: the first move line must read 1. m m (white moves first)",
    ),
    "black's move for white": (
        GOOD.replace("1. Nd1(I)-c3(I) na4(IV)-b2(IV)\n2. Nc3(I)-d1(I)", "1. na4(IV)-b2(IV)"),
        "game 1, ply 1 (line 5): illegal move: no white piece on a4(IV) (a black knight there)",
    ),
    "no line for a move": (
        GOOD.replace("2. Nc3(I)-d1(I)", "Nc3(I)-d1(I)"),
        "line 6: expected 'Key: value' or a move line: 'Nc3(I)-d1(I)'",
    ),
}


def snapshot(engine: Engine) -> tuple[str, str, str]:
    """What a refused command must leave alone: the position, the game's record, the result."""
    return say(engine, "get_board"), say(engine, "printgame"), say(engine, "result")


def say(engine: Engine, line: str) -> str:
    """Send one line; return the text of a success, or the whole `? ...` line of a refusal."""
    (text,) = texts(engine.ask(line))
    return text


@pytest.fixture
def playing(engine: Engine) -> Engine:
    """An engine two plies into a game of the 4-cube."""
    for line in ("new_game 4", "play Nd1(I)-c3(I)", "play na4(IV)-b2(IV)"):
        assert say(engine, line) == ""
    return engine


def still_playing(engine: Engine, before: tuple[str, str, str]) -> None:
    """The game is the one `playing` set up: its position, record, result and moves."""
    assert snapshot(engine) == before
    assert say(engine, "undo") == say(engine, "undo") == ""
    assert say(engine, "get_board") == START_4
    assert say(engine, "undo") == "? cannot undo"


def test_broken_records_are_refused_and_change_nothing(playing: Engine, tmp_path: Path) -> None:
    before = snapshot(playing)
    for name, (text, reason) in BROKEN.items():
        path = tmp_path / f"{name.replace(' ', '_')}.txt"
        path.write_text(text, encoding="utf-8")
        assert say(playing, f"loadgame {path}") == f"? {file_name(str(path))} {reason}", name
        assert snapshot(playing) == before, name
    still_playing(playing, before)


def test_the_good_record_is_read(playing: Engine, tmp_path: Path) -> None:
    path = tmp_path / "good.txt"
    path.write_text(GOOD, encoding="utf-8")
    assert say(playing, f"loadgame {path}") == ""
    record = say(playing, "printgame long")
    # Its headers are kept, after the date the engine adds, and its moves.
    lines = record[1:].split("\n")
    assert lines[:3] == GOOD.split("\n")[:3]
    assert re.fullmatch(r"Date: \d{4}-\d\d-\d\d", lines[3])
    assert lines[4:] == GOOD.rstrip("\n").split("\n")[3:]
    # What editors and people add: a byte-order mark, CRLF, comments, spaces, `black`.
    written = "\ufeff# a game\r\n" + GOOD.replace("\n", "  \r\n").replace("Result", "# x\r\nResult")
    path.write_text(written, encoding="utf-8")
    assert say(playing, f"loadgame {path}") == ""
    assert say(playing, "printgame long")[1:].split("\n")[4:] == lines[4:]
    black = "Size: 3\nStart: [rb#,###,nNK],[###,##b,#b#],[###,##k,###] black\nResult: *\n"
    path.write_text(black + "1... na1(III)-b1(I)\n", encoding="utf-8")
    assert say(playing, f"loadgame {path}") == ""
    assert say(playing, "result") == "0-1 (checkmate)"


def test_bad_arguments_are_refused_and_change_nothing(playing: Engine, tmp_path: Path) -> None:
    path = tmp_path / "good.txt"
    path.write_text(GOOD, encoding="utf-8")
    name = file_name(str(path))
    before = snapshot(playing)
    refusals = {
        f"loadgame {path} 4": f"? {name} game 1 has only 3 plies, not 4",
        f"loadgame {path} end 2": f"? {name} holds 1 game; there is no game 2",
        f"loadgame {path} -1": "? PLY must be 0 or more, got -1",
        f"loadgame {path} x": "? PLY must be a whole number, got 'x'",
        f"loadgame {path} 1 0": "? GAME must be 1 or more, got 0",
        f"loadgame {path} 99999999999": "? PLY is too large",
        "loadgame": "? wrong number of arguments, usage: loadgame FILE [PLY] [GAME]",
        f"loadgame {path} 1 1 1": "? wrong number of arguments, usage: loadgame FILE [PLY] [GAME]",
    }
    for line, refusal in refusals.items():
        assert say(playing, line) == refusal
        assert snapshot(playing) == before, line
    still_playing(playing, before)


def test_files_that_are_no_records_are_refused(playing: Engine, tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    binary = tmp_path / "binary"
    binary.write_bytes(b"Size: 3\n\x00\x01\x02")
    latin = tmp_path / "latin"
    latin.write_bytes("Size: 3\nWhite: Jos\u00e9\n".encode("latin-1"))
    huge = tmp_path / "huge"
    with huge.open("wb") as file:
        file.truncate(MAX_RECORD_BYTES + 1)  # sparse: nothing is written
    empty = tmp_path / "empty"
    empty.write_text("# only a comment\n\n", encoding="utf-8")
    problems = {
        tmp_path / "missing": "cannot read {}: No such file or directory",
        tmp_path: "{} is a directory",
        fifo: "{} is not a regular file",
        binary: "{} is not a text file (a NUL byte at offset 8)",
        latin: "{} is not a text file (not UTF-8 at byte offset 18)",
        huge: f"{{}} is too large ({MAX_RECORD_BYTES + 1} bytes; the most is {MAX_RECORD_BYTES})",
        empty: "{} holds 0 games; there is no game 1",
    }
    before = snapshot(playing)
    for path, problem in problems.items():
        assert say(playing, f"loadgame {path}") == "? " + problem.format(file_name(str(path)))
        assert snapshot(playing) == before, path
    still_playing(playing, before)


def test_a_long_file_name_keeps_its_end() -> None:
    assert file_name("games.txt") == "'games.txt'"
    long = "/" + "a" * 100 + "/games.txt"
    assert file_name(long) == repr("..." + long[-57:])
    assert len(file_name(long)) == 62 and file_name(long).endswith("/games.txt'")


# --- saving again: a record's own lines kept (issue 63, item 4) --------------------------------


@pytest.mark.parametrize(
    ("text", "changed", "added", "moves", "expected"),
    [
        # Black first, no moves yet: the headers added after the last header, then `1...`.
        (
            "Size: 3\nStart: x b\nResult: *\n# a note\n",
            {"Result": "0-1 (checkmate)"},
            {"Date": "2026-12-07"},
            ["a", "b", "c", "d"],
            "Size: 3\nStart: x b\nResult: 0-1 (checkmate)\nDate: 2026-12-07\n1... a\n2. b c\n"
            "3. d\n# a note\n",
        ),
        # A last line of one move gets black's; a file without a last line end gets one.
        (
            "Size: 3\nStart: x w\nResult: *\n1. Ra3(I)-a3(II)  ra1\n2.   a",
            {},
            {},
            ["Ra3(II)", "ra1", "a", "b", "c"],
            "Size: 3\nStart: x w\nResult: *\n1. Ra3(I)-a3(II)  ra1\n2.   a b\n3. c\n",
        ),
        # CRLF kept, new lines in CRLF; comments and blank lines around the record kept.
        (
            "# top\n\nSize: 3\r\nStart: x w\r\n  White: Alice  \r\nResult: *\r\n"
            "1. a b\r\n\r\n# end",
            {},
            {"Event": "club"},
            ["a", "b", "c"],
            "# top\n\nSize: 3\r\nStart: x w\r\n  White: Alice  \r\nResult: *\r\nEvent: club\r\n"
            "1. a b\r\n2. c\r\n\r\n# end",
        ),
        # Nothing new: the text comes back as it was, but for what changed.
        (
            "Size: 3\nStart: x w\nResult: 1/2-1/2 (agreed)\nProgram: cubemate 0.0.1\n1. a b\n",
            {"Program": "cubemate 0.1.0"},
            {},
            ["a", "b"],
            "Size: 3\nStart: x w\nResult: 1/2-1/2 (agreed)\nProgram: cubemate 0.1.0\n1. a b\n",
        ),
    ],
    ids=["black-first", "one-move-alone", "crlf-and-comments", "nothing-new"],
)
def test_a_record_written_again_keeps_its_own_lines(
    text: str, changed: dict[str, str], added: dict[str, str], moves: list[str], expected: str
) -> None:
    written = rewritten(text, changed, added, moves)
    assert written == expected
    (record,) = parse_records(written)
    assert len(record.moves) == len(moves)
