"""One game and its pieces, in process: the baselines, openings, clock, adjudication,
records and the tally. The engines are the fake of tests/arena_fakes.py (the real kernel for
the rules), answering in this process; test_arena_cli.py runs the same through processes."""

from __future__ import annotations

import re
import threading
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.arena_fake_engine import FakeEngine, read_behaviour
from tests.arena_fakes import InProcessEngine, InProcessTable, records, report_row

# isort: split

from arena.baselines import Baseline, piece_on
from arena.clock import Clock, TimeControl
from arena.game import Game, GameOutcome, GameTask, PlayerDisagrees, Stopped
from arena.judge import IllegalMove, by_position, disagreement, judge_move
from arena.match import MatchSettings, run_games
from arena.openings import (
    FileOpenings,
    Opening,
    OpeningError,
    RandomPlies,
    StartOpening,
    check_openings,
    parse_position_line,
    read_openings,
)
from arena.players import Limits, PlayerSpec, parse_player
from arena.records import (
    RecordsError,
    Resumable,
    cut_torn_tail,
    read_resumable,
    white_points,
)
from arena.referee import GOING_ON, Position, Referee, parse_position
from arena.report import table
from arena.speaker import Launch, Reply, Speaker
from arena.table import Setup
from arena.tally import Tally
from client.stop import StopFlag
from tests.cases import REFERENCE_CASES

SETUP = Setup(referee=("--seed=0",), timeout=10.0)


def fake(*behaviour: str) -> PlayerSpec:
    """An engine player: the in-process fake with these behaviours."""
    return PlayerSpec(" ".join(("fake", *behaviour)), command=("--seed=7", *behaviour))


def settings(
    one: PlayerSpec, two: PlayerSpec, size: int = 3, cap: int = 300, opening: Opening | None = None
) -> MatchSettings:
    return MatchSettings(
        size=size,
        games=100,
        seed=5,
        move_cap=cap,
        opening=StartOpening() if opening is None else opening,
        players=(one, two),
        setup=SETUP,
        time_margin=0.25,
    )


def play(task: GameTask, table: InProcessTable | None = None) -> GameOutcome:
    return Game(task, table or InProcessTable(SETUP), None).play()


def referee() -> Referee:
    return Referee(InProcessEngine(["--seed=0"]), 10.0)


def replay(record_text: str) -> FakeEngine:
    """Play a record's moves on a fresh fake from its Start; each must be accepted."""
    (record,) = records.parse_records(record_text)
    engine = FakeEngine(read_behaviour([]))
    board, side = record.start.rsplit(" ", 1)
    assert engine.run("set_board", [board, side]) == (True, "")
    for move in record.moves:
        ok, text = engine.run("play", [move])
        assert ok, (move, text)
    return engine


# -- whole games


def test_a_game_ends_on_the_referees_result() -> None:
    """Random against greedy until the referee says the game is over; the record replays to
    a position whose result is the one recorded."""
    results: Counter[str] = Counter()
    for number in range(1, 9):
        outcome = play(settings(parse_player("random", Limits()),
                                parse_player("greedy", Limits())).task(number))  # fmt: skip
        (record,) = records.parse_records(outcome.record)
        assert record.result == outcome.result != GOING_ON
        assert outcome.plies == len(record.moves)
        assert replay(outcome.record).result() == outcome.result
        results[outcome.result] += 1
    assert sum(results.values()) == 8


def test_colours_swap_within_a_pair() -> None:
    """Odd games give player 1 white, even games black, from the same opening."""
    match = settings(fake(), parse_player("random", Limits()), opening=RandomPlies(3))
    first, second = play(match.task(1)), play(match.task(2))
    (one,), (two,) = records.parse_records(first.record), records.parse_records(second.record)
    assert (one.headers["White"], one.headers["Black"]) == ("fake", "random")
    assert (two.headers["White"], two.headers["Black"]) == ("random", "fake")
    assert one.start == two.start
    assert one.headers["Opening"] == two.headers["Opening"]
    assert (one.headers["Round"], two.headers["Round"]) == ("1", "2")
    assert one.headers["Match"] == match.fingerprint()


@pytest.mark.parametrize(
    ("behaviour", "number", "result"),
    [
        ("--illegal-at=2", 1, "0-1 (white's move was illegal: Ka1(I)-a1(IV))"),
        ("--illegal-at=2", 2, "1-0 (black's move was illegal: Ka1(I)-a1(IV))"),
        ("--resign-at=1", 1, "0-1 (white resigned)"),
        ("--refuse-at=3", 2, "1-0 (black could not move: cannot think today)"),
        ("--crash-at=2", 1, "0-1 (white crashed)"),
    ],
)
def test_a_player_that_misbehaves_loses(behaviour: str, number: int, result: str) -> None:
    """Player 1 misbehaves at its Nth genmove; it loses, and the result says why."""
    outcome = play(settings(fake(behaviour), fake()).task(number))
    assert outcome.result == result
    (record,) = records.parse_records(outcome.record)
    assert record.result == result
    replay(outcome.record)  # the moves before the forfeit were legal


def test_refusing_the_opponents_move_loses() -> None:
    outcome = play(settings(fake(), fake("--refuse-play")).task(1))
    assert re.fullmatch(
        r"1-0 \(black refused the move \S+: illegal move: this fake refuses every move\)",
        outcome.result,
    )


def test_a_crashed_player_is_replaced_and_said_so() -> None:
    """The crashed process is discarded: the next game starts a fresh one; the record and
    the warning carry the failure's details."""
    table = InProcessTable(SETUP)
    match = settings(fake("--crash-at=1"), fake())
    before = InProcessEngine.started
    first = play(match.task(1), table)
    assert first.result == "0-1 (white crashed)"
    assert first.warning is not None and "exit code 3" in first.warning
    assert "Adjudication: exit code 3" in first.record
    second = play(match.task(2), table)
    assert second.result == "1-0 (black crashed)"
    # Referee, both players, then a fresh player 1 for game 2 (player 2 kept).
    assert InProcessEngine.started - before == 4


def test_the_move_cap_is_a_draw_said_so() -> None:
    outcome = play(settings(fake(), fake(), size=4, cap=6).task(1))
    assert outcome.result == "1/2-1/2 (move cap of 6 plies)"
    assert outcome.plies == 6


def test_a_stopped_match_abandons_the_game() -> None:
    halt = threading.Event()
    halt.set()
    with pytest.raises(Stopped):
        Game(settings(fake(), fake()).task(1), InProcessTable(SETUP), halt).play()


def test_limits_reach_the_engine_every_game() -> None:
    """A clock and a depth are set at the start of each game, and time_left comes before
    every genmove of a clocked player."""
    lines: list[str] = []

    class Listening(InProcessEngine):
        def ask(self, line: str, timeout: float | None = None) -> Reply:
            lines.append(line)
            return super().ask(line, timeout)

    class ListeningTable(InProcessTable):
        def start(self, launch: Launch) -> Speaker:
            if "--listen" in launch.command:
                return Listening(list(launch.command))
            return super().start(launch)

    limits = Limits(TimeControl(0, 5, 1), depth=2)
    listened = PlayerSpec("fake", command=("--listen",), limits=limits)
    outcome = play(settings(listened, fake(), cap=4).task(1), ListeningTable(SETUP))
    assert outcome.result == "1/2-1/2 (move cap of 4 plies)"
    lines[:] = [line for line in lines if not line.startswith("known_command ")]
    # The position is checked after set-up: the fake knows get_board.
    assert lines[:5] == ["new_game 3", "time_settings 0 5 1", "level depth 2", "get_board",
                         "time_left white 5.000 1"]  # fmt: skip
    genmoves = [index for index, line in enumerate(lines) if line.startswith("genmove")]
    assert len(genmoves) == 2
    assert all(lines[index - 1].startswith("time_left white ") for index in genmoves)
    assert "TimeControl: white 5 s a move" in outcome.record


# -- the baselines


def test_the_baselines_play_legal_moves() -> None:
    """On positions reached by random plies on boards of 3 to 5, both baselines answer a
    move of the referee's legal list."""
    judge = referee()
    for size in (3, 4, 5):
        for pair in range(1, 16):
            RandomPlies(pair % 7).set_up(judge, size, pair, 3)
            if judge.result() != GOING_ON:
                continue
            legal = set(judge.legal_moves())
            for name in ("random", "greedy"):
                reply = Baseline(name, judge, f"{size}/{pair}").ask("genmove white")
                assert reply.ok and reply.text in legal


def test_greedy_takes_the_most_valuable_piece() -> None:
    """Each capture is played on the referee to see what it takes (the letter gone from the
    board); greedy's move takes a piece worth the most of them all."""
    values = {"q": 9, "r": 5, "b": 3, "n": 3}
    judge = referee()
    checked = 0
    for seed in range(40):
        RandomPlies(6).set_up(judge, 4, seed + 1, seed)
        if judge.result() != GOING_ON:
            continue
        taken: dict[str, int] = {}
        for move in judge.legal_moves():
            if "x" not in move:
                continue
            before = Counter(judge.position().board)
            judge.play(move)
            after = Counter(judge.position().board)
            judge.undo()
            (letter,) = [letter for letter in before if after[letter] < before[letter]
                         and letter not in "#[],"]  # fmt: skip
            taken[move] = values[letter.lower()]
        if not taken:
            continue
        move = Baseline("greedy", judge, str(seed)).ask("genmove").text
        assert taken.get(move) == max(taken.values()), (move, taken)
        checked += 1
    assert checked >= 5


def test_piece_on_reads_the_canonical_board() -> None:
    """Reference case 1 of rules.md: layers top first, rows back first."""
    position = Position(REFERENCE_CASES[0].board, "white")
    cells = {"a2(III)": "n", "b1(III)": "r", "c1(III)": "r", "b3(II)": "b", "a1(I)": "b",
             "b1(I)": "R", "c1(I)": "K", "b2(II)": "#"}  # fmt: skip
    assert {cell: piece_on(position, cell) for cell in cells} == cells


def test_baselines_are_seeded() -> None:
    judge = referee()
    judge.new_game(4)
    moves = [Baseline("random", judge, "s").ask("genmove").text for _ in range(3)]
    assert len(set(moves)) == 1
    others = {Baseline("random", judge, str(seed)).ask("genmove").text for seed in range(20)}
    assert len(others) > 1


# -- openings


def test_random_plies_are_the_same_for_both_games_of_a_pair() -> None:
    judge = referee()
    first = RandomPlies(6).set_up(judge, 4, 3, 9)
    board = judge.position()
    again = RandomPlies(6).set_up(judge, 4, 3, 9)
    assert first == again and judge.position() == board
    other = RandomPlies(6).set_up(judge, 4, 4, 9)
    assert other != first
    assert first.lines[0] == "new_game 4" and len(first.lines) == 7
    assert first.description.startswith("6 random plies: ")


def test_a_file_of_positions_is_read_and_cycled(tmp_path: Path) -> None:
    path = tmp_path / "openings.txt"
    boards = [case.board for case in REFERENCE_CASES[:3]]
    path.write_text(f"# three positions\n\nset_board {boards[0]} b\n{boards[1]}\n"
                    f"3 {boards[2]} white\n")  # fmt: skip
    openings = read_openings(path)
    assert [line for line, _ in openings.positions] == [3, 4, 5]
    assert [position.side for _, position in openings.positions] == ["black", "white", "white"]
    judge = referee()
    described = [openings.set_up(judge, 3, pair, 0).description for pair in (1, 2, 3, 4)]
    assert described == [f"{path} line {line}" for line in (3, 4, 5, 3)]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "holds no position"),
        ("# nothing\n\n", "holds no position"),
        ("set_board\n", "line 1: no board"),
        ("[#K,##],[##,#k]\n\x01x\n", "line 2: control characters"),
    ],
)
def test_a_bad_openings_file_is_refused(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "openings.txt"
    path.write_text(text)
    with pytest.raises(OpeningError, match=message):
        read_openings(path)


def test_the_referee_checks_each_position_of_the_file(tmp_path: Path) -> None:
    """A position the referee refuses, of another size, or already decided is refused with
    its line."""
    path = tmp_path / "openings.txt"
    good = "[#K#,###,###],[###,###,###],[###,#r#,#k#]"
    for bad, message in (
        ("[#K#,###,###],[###,###,###],[###,###,#kK]", "line 2: the referee refused 'set_board"),
        ("[#q,##],[##,K#]", "line 2: a board of size 2, not 3 (--size)"),
        ("[#K#,###,###],[###,###,###],[###,###,#k#]", "line 2: the game is already over "
         "(1/2-1/2 (insufficient material))"),
    ):  # fmt: skip
        path.write_text(f"{good}\n{bad}\n")
        with pytest.raises(OpeningError, match=re.escape(message)):
            check_openings(read_openings(path), referee(), 3)
    path.write_text(f"{good} b\n")
    check_openings(read_openings(path), referee(), 3)


def test_an_unreadable_openings_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(OpeningError, match=r"cannot read the openings file .*: No such file"):
        read_openings(tmp_path / "missing.txt")
    binary = tmp_path / "binary.txt"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(OpeningError, match="not UTF-8"):
        read_openings(binary)


def test_position_lines_and_answers() -> None:
    assert parse_position_line("[#K,##],[##,#k] b") == Position("[#K,##],[##,#k]", "black")
    assert parse_position_line("set_board 2 [#K,##],[##,#k]") == Position(
        "2 [#K,##],[##,#k]", "white"
    )
    assert parse_position("[#K,##],[##,#k] b") == Position("[#K,##],[##,#k]", "black")
    assert parse_position("[#K,##],[##,#k]").notation() == "[#K,##],[##,#k] w"
    assert Position(REFERENCE_CASES[3].board, "white").size == 4


# -- the clock


def test_a_clock_spends_main_time_then_periods() -> None:
    """60 s, then 10 s per 2 moves: a 50 s move leaves 10 s of main time; a 15 s move spends
    it and 5 s of the first period; the next move ends that period, and a fresh one starts."""
    clock = Clock(TimeControl(60, 10, 2))
    assert clock.available() == 70 and clock.time_left("white") == "time_left white 60.000 0"
    clock.spend(50)
    assert clock.available() == 20
    clock.spend(15)
    assert clock.time_left("black") == "time_left black 5.000 1"
    assert clock.available() == 5
    clock.spend(4)
    assert clock.time_left("black") == "time_left black 10.000 2"


def test_a_fixed_time_a_move_and_sudden_death() -> None:
    per_move = Clock(TimeControl(0, 0.5, 1))
    for _ in range(3):
        assert per_move.available() == 0.5
        per_move.spend(0.4)
    sudden = Clock(TimeControl(10, 0, 0))
    sudden.spend(4)
    assert sudden.available() == 6 and sudden.time_left("white") == "time_left white 6.000 0"
    assert TimeControl(0, 0.1, 1).describe() == "0.1 s a move"
    for wrong in ((-1, 0, 0), (0, 0, 3), (0, 0, 0)):
        with pytest.raises(ValueError):
            TimeControl(*wrong)


# -- records and the tally


def test_records_resume_only_this_match(tmp_path: Path) -> None:
    match = settings(fake("--illegal-at=1"), fake())
    path = tmp_path / "games.txt"
    outcomes = [play(match.task(number)) for number in (1, 2, 3)]
    path.write_text("".join(outcome.record for outcome in outcomes))
    finished = read_resumable(path, match.fingerprint(), 10, 3).finished
    assert [(game.number, game.white_points) for game in finished] == [(1, 0.0), (2, 1.0),
                                                                        (3, 0.0)]  # fmt: skip
    with pytest.raises(RecordsError, match=r"record 1 of .* is from another match"):
        read_resumable(path, settings(fake(), fake()).fingerprint(), 10, 3)
    with pytest.raises(RecordsError, match=r"record 3 of .* is game 3, beyond --games 2"):
        read_resumable(path, match.fingerprint(), 2, 3)
    path.write_text(outcomes[0].record + outcomes[0].record)
    with pytest.raises(RecordsError, match=r"record 2 .*: game 1 is recorded twice"):
        read_resumable(path, match.fingerprint(), 10, 3)
    path.write_text(re.sub("Result: .*", "Result: *", outcomes[0].record))
    with pytest.raises(RecordsError, match="has no final result"):
        read_resumable(path, match.fingerprint(), 10, 3)
    path.write_text("Size: 3\nthis is not a record\n\n")
    with pytest.raises(RecordsError, match="is not a records file: line 2"):
        read_resumable(path, match.fingerprint(), 10, 3)
    assert read_resumable(tmp_path / "none.txt", match.fingerprint(), 10, 3).finished == []


def test_a_record_cut_short_is_cut_off(tmp_path: Path) -> None:
    match = settings(fake(), fake(), cap=8)
    outcome = play(match.task(1))
    path = tmp_path / "games.txt"

    def resumable() -> Resumable:
        return read_resumable(path, match.fingerprint(), 10, 3)

    for cut in (1, 7, 8, 40, len(outcome.record) - 2):
        path.write_text(outcome.record + outcome.record[:cut])
        message = cut_torn_tail(path, resumable())
        assert message is not None and "line(s) of a record left unfinished" in message
        assert path.read_text() == outcome.record
    assert cut_torn_tail(path, resumable()) is None


@pytest.mark.parametrize(
    "tail",
    ["notes\n", "Size: 4\nStart: ", "Size: 3\nmy notes\n", "Size: 3\nStart: x\nResult: *\n"
     "Match: another\n", "Size: 3\nStart: x\nResult: *\n1. Ka1(I)-a2(I)\nLate: header", "S1"],
)  # fmt: skip
def test_only_a_record_of_this_match_is_cut(tmp_path: Path, tail: str) -> None:
    """What follows the last record is cut only when it is the beginning of one of this
    match's records; anything else is refused, the file left as it was."""
    match = settings(fake(), fake(), cap=8)
    path = tmp_path / "games.txt"
    text = play(match.task(1)).record + tail
    path.write_text(text)
    with pytest.raises(RecordsError, match="is not a records file: after its last record"):
        read_resumable(path, match.fingerprint(), 10, 3)
    assert path.read_text() == text


def test_the_tally_counts_from_player_ones_side() -> None:
    """Player 1 is white in odd games: 1-0 in game 1 and 1-0 in game 2 is a win and a loss
    for it, one pair worth 1 point, won by white twice; game 3 alone makes no pair. White's
    own count is kept beside player 1's."""
    tally = Tally()
    for number, result in ((1, "1-0 (checkmate)"), (2, "1-0 (black crashed)"),
                           (3, "1/2-1/2 (stalemate)"), (6, "0-1 (checkmate)"),
                           (5, "1/2-1/2 (move cap of 300 plies)"), (8, "0-1 (checkmate)"),
                           (7, "0-1 (white timed out)"), (9, "1-0 (checkmate)"),
                           (10, "0-1 (checkmate)")):  # fmt: skip
        points = white_points(result)
        assert points is not None
        tally.add(number, points, result)
    assert (tally.games.wins, tally.games.draws, tally.games.losses) == (5, 2, 2)
    assert (tally.white.wins, tally.white.draws, tally.white.losses) == (3, 2, 4)
    assert tally.pairs.counts == (0, 0, 2, 1, 1)
    # Games 1 and 2 went to white, 7 and 8 to black; 5 and 6, and 9 and 10, did not.
    assert tally.same_colour_pairs == 2
    assert tally.endings == {"checkmate": 5, "crash": 1, "stalemate": 1, "move cap": 1,
                             "timeout": 1}  # fmt: skip
    with pytest.raises(ValueError, match="counted twice"):
        tally.add(1, 1.0)
    report = table(("a", "b"), "4x4x4", tally, 10, None, "finished")
    colours = "white 3 wins, 2 draws, 4 losses (44.4 %); 2 of 4 pairs won by one colour twice"
    assert report_row(report, "colours") == colours
    assert white_points("*") is None and white_points("1/2-1/2 (x)") == 0.5


def test_a_lone_game_has_white_counted_and_no_pairs() -> None:
    tally = Tally()
    tally.add(2, 1.0, "1-0 (checkmate)")
    report = table(("a", "b"), "4x4x4", tally, 2, None, "stopped")
    assert report_row(report, "colours") == "white 1 wins, 0 draws, 0 losses (100.0 %)"
    assert "\npairs " not in report


# -- scheduling


class InlineFuture:
    def __init__(self, outcome: GameOutcome) -> None:
        self.outcome = outcome

    def result(self) -> GameOutcome:
        return self.outcome

    def add_done_callback(self, callback: Callable[[InlineFuture], object]) -> None:
        callback(self)


class InlineRunner:
    """Plays each game at once in this thread, on in-process fakes."""

    def __init__(self, slots: int) -> None:
        self.slots = slots
        self.table = InProcessTable(SETUP)
        self.submitted: list[int] = []
        self.stopped = False

    def submit(self, task: GameTask) -> InlineFuture:
        self.submitted.append(task.number)
        return InlineFuture(Game(task, self.table, None).play())

    def stop(self) -> None:
        self.stopped = True


def test_games_are_handed_on_until_told_to_stop() -> None:
    match = settings(fake("--illegal-at=1"), fake())
    runner = InlineRunner(slots=3)
    seen: list[int] = []

    def finished(outcome: GameOutcome) -> bool:
        seen.append(outcome.number)
        return len(seen) == 4

    run_games((match.task(number) for number in range(1, 11)), runner, finished)
    assert runner.stopped
    # Three games were submitted at once, then one more per game finished, until the 4th
    # finished said stop; the games submitted and finished meanwhile are still handed on.
    assert runner.submitted == [1, 2, 3, 4, 5, 6]
    assert sorted(seen) == [1, 2, 3, 4, 5, 6]


def test_an_interrupt_stops_between_games() -> None:
    """A signal handler sets the stop flag; the games finished by then are all handed on."""
    match = settings(fake("--illegal-at=1"), fake())
    runner = InlineRunner(slots=2)
    interrupted = StopFlag()
    seen: list[int] = []

    def finished(outcome: GameOutcome) -> bool:
        seen.append(outcome.number)
        if len(seen) == 2:
            interrupted.set()
        return False

    run_games((match.task(number) for number in range(1, 11)), runner, finished, interrupted)
    assert runner.stopped
    assert runner.submitted == [1, 2, 3]
    assert sorted(seen) == [1, 2, 3]


def test_the_match_fingerprint_names_what_decides_its_games() -> None:
    one = settings(fake(), parse_player("greedy", Limits()), opening=RandomPlies(4))
    assert one.fingerprint() == (
        "size 3; openings random 4 plies; seed 5; move cap 300; player 1 fake; player 2 greedy"
    )
    assert FileOpenings("a.txt", ((1, Position("[#K,##],[##,#k]", "white")),)).describe() == (
        "file a.txt (1 positions)"
    )


# -- the referee judges moves and positions


def test_the_referee_judges_a_move_in_any_spelling() -> None:
    """A move protocol.md allows (no letter, levels as numbers, `x` and `-` swapped) is
    played and answered as legal_moves spells it; one the referee refuses raises; a spelling
    this module cannot read is found by the position it leads to."""
    judge = referee()
    judge.new_game(3)
    legal = judge.legal_moves()
    canonical = next(move for move in legal if move.startswith("N"))
    loose = re.sub(r"\(([IV]+)\)", lambda m: f"({('I', 'II', 'III').index(m[1]) + 1})",
                   canonical[1:]).replace("-", "x")  # fmt: skip
    assert judge_move(judge, loose, legal) == canonical
    assert judge.position().side == "black"
    for wrong in ("Ka1(I)-a1(IV)", "two words", "x" * 100, ""):
        with pytest.raises(IllegalMove):
            judge_move(judge, wrong, judge.legal_moves())
    judge.undo()
    judge.play(canonical)
    assert by_position(judge, legal) == canonical
    assert judge.position().side == "black"


def test_a_position_read_back_is_compared_as_a_position() -> None:
    start = Position("[#k#,###,###],[###,###,###],[###,###,#K#]", "white")
    assert disagreement("[.k.,...,...],[...,...,...],[...,...,.K.]", start) is None
    assert disagreement("[#k#,###,###],[###,###,###],[###,###,#K#] w", start) is None
    why = disagreement("[#k#,###,###],[###,###,###],[###,###,#K#] b", start)
    assert why is not None and why.startswith("it has ")
    why = disagreement("nonsense", start)
    assert why is not None and why.startswith("its get_board cannot be read")


def test_a_player_not_at_the_referees_start_stops_the_match() -> None:
    """A player whose get_board after set-up is not the referee's position: PlayerDisagrees,
    naming the player, the game and both positions (the CLI stops the match, exit 1)."""

    class Lying(InProcessEngine):
        def ask(self, line: str, timeout: float | None = None) -> Reply:
            reply = super().ask(line, timeout)
            return Reply(True, reply.text + " b") if line == "get_board" else reply

    class LyingTable(InProcessTable):
        def start(self, launch: Launch) -> Speaker:
            if "--lie" in launch.command:
                return Lying(list(launch.command))
            return super().start(launch)

    liar = PlayerSpec("liar", command=("--lie",))
    message = (r"player 2 \(liar\) is not at the referee's start of game 1 after set-up: it has "
               r"'\[.* b', the referee '\[.* w'")  # fmt: skip
    with pytest.raises(PlayerDisagrees, match=message):
        play(settings(fake(), liar).task(1), LyingTable(SETUP))
