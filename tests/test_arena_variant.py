"""The arena on Raumschach (issue 48, item 5): `python -m arena --variant raumschach`.

The referee judges by the variant and every engine player is told it; a player that cannot be
told is refused before the games; the records say their variant and replay on the engine; the
baselines play it. The referee is held to the real engine on a promotion and on a pawn's move
starting the fifty-move count again.
"""

from __future__ import annotations

import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.baselines import choose_greedy
from arena.judge import IllegalMove, judge_move
from arena.openings import RandomPlies, StartOpening
from arena.referee import GOING_ON, Position, Referee
from arena.speaker import Launch, ProcessSpeaker
from kernel.records.record import parse_records

REPO = Path(__file__).resolve().parent.parent
ARENA = [sys.executable, "-m", "arena"]
FAKE = "python -m tests.arena_fake_engine"
TIMEOUT = 60.0
#: The mate by promotion of docs/rules.md's Raumschach: white's pawn a4(V) takes the rook on
#: b5(V) and becomes a queen, which mates the king in the corner a5(V).
PROMOTION_MATE = Position(
    "[kr###,P####,#####,#####,#####],[#R###,#####,#####,#####,#####],"
    "[#####,#####,#####,#####,#####],[#####,#####,#K###,#####,#####],"
    "[#####,#####,#####,#####,#####]",
    "white",
)
#: Queens and a pawn each, kings apart: a hundred quiet plies are easy to find without
#: repeating a position.
QUIET_WALK = Position(
    "[##k##,#####,#####,#####,#####],[#####,##p##,#####,#####,####q],"
    "[#####,#####,#####,#####,#####],[Q####,#####,#####,##P##,#####],"
    "[#####,#####,#####,#####,##K##]",
    "white",
)


def arena(
    *words: str, tmp_path: Path, timeout: float = 4 * TIMEOUT
) -> subprocess.CompletedProcess[str]:
    """Run `python -m arena` with these words (and a log folder of the test's own)."""
    return subprocess.run(
        [*ARENA, *words, "--log-dir", str(tmp_path / "logs"), "--progress", "off"],
        capture_output=True, text=True, cwd=REPO, timeout=timeout, check=False,
    )  # fmt: skip


@pytest.fixture
def referee(tmp_path: Path) -> Iterator[Referee]:
    """The real engine as a Raumschach match's referee."""
    launch = Launch(("python", "main.py"), cubemate_logs=True, log_dir=str(tmp_path), cwd=str(REPO))
    speaker = ProcessSpeaker(launch, TIMEOUT)
    try:
        yield Referee(speaker, TIMEOUT, "raumschach")
    finally:
        speaker.close()


# -- through the process


def test_two_cubemate_levels_play_raumschach(tmp_path: Path) -> None:
    """Depth 1 against nodes 50 on Raumschach from random openings, the second player set
    up by `set_board` (which it reads as Raumschach only once told the variant): the report
    and the records say the variant, and every record replays on the engine to its result."""
    games = tmp_path / "games.txt"
    result = arena("python main.py", "--engine2", "cmd=python arg=main.py name=cubemate "
                   "start=set_board nodes=50", "--variant", "raumschach", "--depth1", "1",
                   "--games", "2", "--random-plies", "2", "--move-cap", "24", "--records",
                   str(games), tmp_path=tmp_path)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert ", raumschach 5x5x5, openings random 2 plies" in result.stdout.splitlines()[0]
    assert "games        2 of 2 (1 complete pair), finished" in result.stdout
    records = parse_records(games.read_text(encoding="utf-8"))
    assert len(records) == 2
    for record in records:
        assert record.size == 5
        assert record.headers["Variant"] == "raumschach"
        assert record.headers["Match"].startswith("variant raumschach; size 5; ")
        # The player set up by set_board was told the rules first, or it had refused the board.
        side = "White" if record.headers["White"].startswith("cubemate") else "Black"
        assert record.headers[f"{side}Options"] == "start by set_board; level nodes 50"
        assert "p" in record.start and "u" in record.start
    # Both games of the pair begin at the same opening, with colours swapped.
    assert records[0].start == records[1].start
    assert records[0].headers["Opening"] == records[1].headers["Opening"]
    replays = "".join(f"loadgame {games} end {index}\nresult\nvariant\n" for index in (1, 2))
    replayed = subprocess.run(
        [sys.executable, str(REPO / "main.py"), "--log-dir", str(tmp_path / "logs")],
        input=replays, capture_output=True, text=True, cwd=REPO, timeout=TIMEOUT, check=False,
    )  # fmt: skip
    # A game the arena stopped at its move cap goes on for the engine.
    results = ["*" if "move cap" in record.result else record.result for record in records]
    expected = [f"= {answer}" for result in results for answer in ("", result, "raumschach")]
    assert replayed.stdout.split("\n\n") == [*expected, ""]


def test_the_baselines_play_raumschach_with_promotions(tmp_path: Path) -> None:
    """greedy against random: two games of 120 plies, the moves the referee's, a promotion
    among them (greedy takes one as it takes a queen; the seed is one that promotes)."""
    games = tmp_path / "games.txt"
    result = arena("greedy", "random", "--variant", "raumschach", "--games", "2", "--seed", "10",
                   "--move-cap", "120", "--records", str(games), tmp_path=tmp_path)  # fmt: skip
    assert result.returncode == 0, result.stderr
    text = games.read_text(encoding="utf-8")
    records = parse_records(text)
    assert [record.headers["Variant"] for record in records] == ["raumschach"] * 2
    promotions = [move for record in records for move in record.moves if "=" in move]
    assert promotions, "no pawn promoted in two whole games"
    assert all(move[0] in "Pp" and move[-1] in "QRBUNqrbun" for move in promotions)


@pytest.mark.parametrize(
    ("behaviour", "message"),
    [
        ("--no-variant", "does not know the command variant, so it cannot be told to play "
         "raumschach (--variant raumschach)"),
        # It knows `variant`, but its new_game is a cube game of its own.
        ("", "does not start a 5x5x5 game where the referee does: it has '[###rk,"),
    ],
    ids=["no-variant", "other-start"],
)  # fmt: skip
def test_a_player_that_cannot_play_the_variant_is_refused(
    tmp_path: Path, behaviour: str, message: str
) -> None:
    """Refused before any game, one line naming the player and why; no records written."""
    games = tmp_path / "games.txt"
    player = f"{FAKE} {behaviour}".strip()
    result = arena("random", player, "--variant", "raumschach", "--games", "2", "--records",
                   str(games), tmp_path=tmp_path)  # fmt: skip
    assert result.returncode == 2
    assert result.stderr.startswith(f"arena: player 2 ({player}) {message}")
    assert result.stderr.count("\n") == 1
    assert result.stdout == ""
    assert not games.exists() or games.read_text() == ""


@pytest.mark.parametrize(
    ("words", "message"),
    [
        (["--variant", "chess"],
         "arena: --variant: unknown variant 'chess' (known: cube, raumschach)\n"),
        (["--variant", "raumschach", "--size", "4"],
         "arena: --size 4: raumschach is played on a board of size 5 only\n"),
    ],
    ids=["unknown", "size"],
)  # fmt: skip
def test_a_variant_that_cannot_be_played_is_refused(
    tmp_path: Path, words: list[str], message: str
) -> None:
    result = arena("random", "random", *words, tmp_path=tmp_path, timeout=TIMEOUT)
    assert (result.returncode, result.stderr, result.stdout) == (2, message, "")


# -- the referee


def test_the_referee_starts_raumschach_and_draws_openings_with_pawns(referee: Referee) -> None:
    opening = StartOpening().set_up(referee, 5, 1, 0)
    assert opening.lines == ("new_game 5 raumschach",)
    assert referee.position().board.startswith("[rnknr,ppppp,")
    assert len(referee.legal_moves()) == 61
    drawn = RandomPlies(6).set_up(referee, 5, 3, 11)
    assert drawn.lines[0] == "new_game 5 raumschach"
    assert len(drawn.lines) == 7
    # The same pair and seed give the same opening.
    assert RandomPlies(6).set_up(referee, 5, 3, 11) == drawn


def test_the_referee_judges_a_promotion(referee: Referee) -> None:
    """A promotion must name its piece; any spelling the engine reads is recorded as
    legal_moves writes it; the promotion that mates ends the game."""
    referee.set_board(PROMOTION_MATE)
    legal = referee.legal_moves()
    assert {f"Pa4(V)xb5(V)={piece}" for piece in "QRBUN"} <= set(legal)
    with pytest.raises(IllegalMove, match=r"promotes on b5\(V\): write what it becomes"):
        judge_move(referee, "Pa4(V)xb5(V)", legal)
    with pytest.raises(IllegalMove):
        judge_move(referee, "Pa4(V)xb5(V)=K", legal)
    assert referee.result() == GOING_ON
    for spelling in ("a4(V)xb5(V)=n", "PEa4xEb5=N"):
        assert judge_move(referee, spelling, legal) == "Pa4(V)xb5(V)=N"
        assert referee.position().board.startswith("[kN###,#####,")
        referee.undo()
    assert judge_move(referee, "Pa4(V)xb5(V)=Q", legal) == "Pa4(V)xb5(V)=Q"
    assert referee.result() == "1-0 (checkmate)"


def quiet_plies(referee: Referee, count: int, rng: random.Random, seen: set[str]) -> None:
    """Play `count` plies that neither take nor move a pawn, each to a position not seen
    before (no repetition) where the side to move is not in check."""
    for _ in range(count):
        moves = [move for move in referee.legal_moves() if "x" not in move and move[0] not in "Pp"]
        rng.shuffle(moves)
        for move in moves:
            referee.play(move)
            reached = referee.position().notation()
            # No check either: the side checked may have no quiet move to answer it.
            if reached not in seen and referee.ask("status") == "normal":
                seen.add(reached)
                break
            referee.undo()
        else:
            raise AssertionError("no quiet move left")


def test_a_pawn_move_starts_the_fifty_move_count_again(referee: Referee) -> None:
    """99 quiet plies, a pawn's step, 99 quiet plies: the game goes on; one more quiet ply
    and it is drawn by the fifty-move rule. Without the pawn's step the hundredth quiet ply
    draws."""
    rng = random.Random(48)
    referee.set_board(QUIET_WALK)
    seen = {referee.position().notation()}
    quiet_plies(referee, 99, rng, seen)
    assert referee.result() == GOING_ON
    pawn = next(move for move in referee.legal_moves() if move[0] in "Pp" and "x" not in move)
    referee.play(pawn)
    assert referee.result() == GOING_ON
    referee.undo()
    # Without it, any quiet ply is the hundredth.
    quiet = next(move for move in referee.legal_moves() if "x" not in move and move[0] not in "Pp")
    referee.play(quiet)
    assert referee.result() == "1/2-1/2 (fifty-move rule)"
    referee.undo()
    referee.play(pawn)
    seen.add(referee.position().notation())
    quiet_plies(referee, 99, rng, seen)
    assert referee.result() == GOING_ON
    quiet = next(move for move in referee.legal_moves() if "x" not in move and move[0] not in "Pp")
    referee.play(quiet)
    assert referee.result() == "1/2-1/2 (fifty-move rule)"


def test_greedy_takes_a_promotion_as_it_takes_a_piece(referee: Referee) -> None:
    """On the mate-by-promotion position greedy takes the rook and becomes a queen: 5 + 8."""
    referee.set_board(PROMOTION_MATE)
    choices = {choose_greedy(referee, random.Random(seed)) for seed in range(8)}
    assert choices == {"Pa4(V)xb5(V)=Q"}
