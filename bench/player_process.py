"""The player through the engine process (issue 36): a move at n = 64, time use, memory.

- A move at n = 64: each of a few seeded 64-cubes with 300 pieces (both sides to move) is set
  in a fresh engine (`python main.py`, the repository's engine_config.toml), then `genmove`
  at `level time S`; the wall time from sending `genmove` to its answer, and the depth and
  positions of the JSON log's `search` event. Goal: the move ends within 1.1 × S (1.1 s at
  S = 1).
- Time use: a game on 5³ from the start under `time_settings 0 S 1` (S seconds a move,
  byo-yomi of one move; kernel/clock.py gives such a move 0.8 S − 0.05 s), `genmove` for both
  sides in turn: each move's thinking (the `search` event's time_ms) and its wall time from
  sending to the answer, as a share of S; the difference is what the command, the log and
  the pipes cost around the search. Goals: the mean thinking at least 70 % of S for every S,
  and no move's wall time past S.
- Memory: the engine's peak resident memory (VmHWM, the interpreter included) after setting
  the position and after a move, in a fresh process each: the 5³ start and each 64-cube;
  beside the table's budget, `hash_mb`. Printed, no goal.
"""

from __future__ import annotations

import json
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bench.memory import peak_mb
from bench.peer import ROOT, Peer
from bench.report import Goal, table
from kernel.config import load_config
from kernel.cube.start import start_position
from kernel.text.notation import format_board
from tests.positions import noise_game_position
from tests.reference import BLACK, WHITE, board_text

#: The 64-cube's pieces, and how far past its time a move there may end (a share of S).
LARGE_SIZE = 64
LARGE_PIECES = 300
LARGE_OVERRUN = 1.1
#: The least mean thinking under `time_settings 0 S 1`, a share of S.
THINK_SHARE_GOAL = 0.7
#: The board size time use is measured on.
GAME_SIZE = 5


@dataclass(frozen=True, slots=True)
class Move:
    """One `genmove` through the process: its wall time and the search event."""

    move: str
    wall: float
    search: dict[str, Any]

    @property
    def think(self) -> float:
        """The search's own seconds, as its event reports them."""
        return float(self.search["time_ms"]) / 1000


@dataclass(frozen=True, slots=True)
class FreshMove:
    """A move in a fresh engine, and the engine's peak memory before and after it (MB)."""

    label: str
    seconds: float
    move: Move
    before_mb: float
    after_mb: float


@dataclass(frozen=True, slots=True)
class TimeUse:
    """Moves of a game under `time_settings 0 S 1`."""

    seconds: float
    moves: list[Move]

    def mean_share(self, of: Callable[[Move], float]) -> float:
        return statistics.mean(of(move) for move in self.moves) / self.seconds

    @property
    def longest_share(self) -> float:
        return max(move.wall for move in self.moves) / self.seconds


def last_search(peer: Peer) -> dict[str, Any]:
    """Return the last `search` event of the engine's JSON log."""
    lines = (peer.log_dir / "cubemate.jsonl").read_text(encoding="utf-8").splitlines()
    events = (json.loads(line) for line in reversed(lines))
    return next(event for event in events if event["event"] == "search")


def genmove(peer: Peer) -> Move | None:
    """Time one `genmove` from sending to the answer; None when the game is over."""
    began = time.perf_counter()
    reply = peer.ask(b"genmove\n", 1)[0]
    wall = time.perf_counter() - began
    if reply.startswith(b"? game over"):
        return None
    if not reply.startswith(b"= "):
        raise RuntimeError(f"genmove refused: {reply!r}")
    move, search = reply[2:].decode(), last_search(peer)
    if search["move"] != move:
        raise RuntimeError(f"the search event is not genmove's: {search}")
    return Move(move, wall, search)


def set_up(peer: Peer, lines: list[str]) -> None:
    """Send commands that must all be accepted."""
    for reply in peer.ask("".join(f"{line}\n" for line in lines).encode(), len(lines)):
        if not reply.startswith(b"="):
            raise RuntimeError(f"refused: {reply[:200]!r}")


def fresh_move(label: str, setting: str, seconds: float) -> FreshMove:
    """Set a position in a fresh engine and play one move at `level time S`."""
    with Peer("engine") as peer:
        set_up(peer, [setting, f"level time {seconds:g}"])
        before = peak_mb(peer.process.pid)
        move = genmove(peer)
        if move is None:
            raise RuntimeError(f"{label}: the game is over")
        return FreshMove(label, seconds, move, before, peak_mb(peer.process.pid))


def large_moves(count: int, seconds: float) -> list[FreshMove]:
    """A move on each of `count` seeded 64-cubes with 300 pieces, both sides to move."""
    rng = random.Random(f"play-{LARGE_SIZE}-{LARGE_PIECES}")
    moves = []
    for index in range(count):
        side = WHITE if index % 2 == 0 else BLACK
        board = board_text(noise_game_position(rng, LARGE_SIZE, side, LARGE_PIECES))
        label = f"n = {LARGE_SIZE}, {LARGE_PIECES} pieces, {index + 1}"
        moves.append(fresh_move(label, f"set_board {board}", seconds))
    return moves


def start_move(seconds: float) -> FreshMove:
    """A move at the 5³ start in a fresh engine (for its memory, beside the 64-cubes')."""
    board = format_board(start_position(GAME_SIZE), "#")
    return fresh_move(f"start n = {GAME_SIZE}", f"set_board {board}", seconds)


def time_use(seconds: float, count: int) -> TimeUse:
    """Play `count` moves of a 5³ game under `time_settings 0 S 1`, a new game when one ends."""
    start = [f"new_game {GAME_SIZE}", f"time_settings 0 {seconds:g} 1"]
    moves: list[Move] = []
    with Peer("engine") as peer:
        set_up(peer, start)
        while len(moves) < count:
            move = genmove(peer)
            if move is None:
                set_up(peer, start)
            else:
                moves.append(move)
    return TimeUse(seconds, moves)


@dataclass(frozen=True, slots=True)
class Measured:
    """Everything this module measures: the 5³ start and the 64-cubes, one move each in a
    fresh engine, and the time use under each S."""

    start: FreshMove
    large: list[FreshMove]
    uses: list[TimeUse]


def measure(
    large: int,
    seconds: float,
    byo_yomi: tuple[float, ...],
    byo_moves: int,
    progress: Callable[[str], None],
) -> Measured:
    """Play the moves through the process: `large` 64-cubes and the 5³ start at `level time
    seconds`, then `byo_moves` moves under `time_settings 0 S 1` for each S of `byo_yomi`."""
    progress(f"player: n = {LARGE_SIZE}, {large} move(s) through the process")
    moves = large_moves(large, seconds)
    progress(f"player: start n = {GAME_SIZE} through the process")
    start = start_move(seconds)
    uses = []
    for byo_time in byo_yomi:
        progress(f"player: time_settings 0 {byo_time:g} 1")
        uses.append(time_use(byo_time, byo_moves))
    return Measured(start, moves, uses)


def hash_mb() -> int:
    """The table's budget of the engine the process runs (the repository's config)."""
    return load_config(ROOT / "engine_config.toml").hash_mb


def large_rows(moves: list[FreshMove]) -> list[list[str]]:
    """One row per move in a fresh engine: time, depth, positions, memory."""
    return [
        [
            fresh.label,
            f"{fresh.seconds:g}",
            f"{fresh.move.wall:.3f}",
            f"{fresh.move.think:.3f}",
            str(fresh.move.search["depth"]),
            f"{fresh.move.search['nodes']:,}",
            f"{fresh.before_mb:.0f}",
            f"{fresh.after_mb:.0f}",
        ]
        for fresh in moves
    ]


def time_rows(uses: list[TimeUse]) -> list[list[str]]:
    """One row per S: thinking and wall time as shares of S, the overhead, the depths."""
    return [
        [
            f"{use.seconds:g}",
            str(len(use.moves)),
            f"{use.mean_share(lambda move: move.think):.0%}",
            f"{use.mean_share(lambda move: move.wall):.0%}",
            f"{use.longest_share:.0%}",
            f"{statistics.mean(move.wall - move.think for move in use.moves) * 1e3:.1f}",
            f"{statistics.mean(move.search['depth'] for move in use.moves):.1f}",
        ]
        for use in uses
    ]


def goals(measured: Measured) -> list[Goal]:
    """The move at n = 64 within 1.1 S; thinking ≥ 70 % of S on average, never past S."""
    large = measured.large
    slowest = max(large, key=lambda fresh: fresh.move.wall)
    thinking = [(use.mean_share(lambda move: move.think), use.seconds) for use in measured.uses]
    least, least_at = min(thinking)
    longest = max(measured.uses, key=lambda use: use.longest_share)
    return [
        Goal(
            f"genmove n = 64, 300 pieces, level time {slowest.seconds:g}: slowest of {len(large)}",
            f"{slowest.move.wall:.3f} s",
            f"≤ {LARGE_OVERRUN * slowest.seconds:.2f} s",
            slowest.move.wall <= LARGE_OVERRUN * slowest.seconds,
        ),
        Goal(
            "time_settings 0 S 1: mean thinking / S, least over S",
            f"{least:.0%} (S = {least_at:g})",
            f"≥ {THINK_SHARE_GOAL:.0%}",
            least >= THINK_SHARE_GOAL,
        ),
        Goal(
            "time_settings 0 S 1: longest move's wall / S",
            f"{longest.longest_share:.0%} (S = {longest.seconds:g})",
            "≤ 100%",
            longest.longest_share <= 1,
        ),
    ]


def text(measured: Measured) -> str:
    """The two tables through the process and how to read them."""
    return "\n".join(
        [
            "The player through the process: one genmove at level time S in a fresh engine",
            f"  (python main.py, its engine_config.toml: compiled search, hash_mb = {hash_mb()});",
            "  wall = from sending genmove to the answer; think = the search event's time_ms;",
            "  peak = the process's peak resident memory (VmHWM, the interpreter included),",
            "  after set-up and after the move",
            "",
            table(
                ["position", "S", "wall s", "think s", "depth", "positions", "peak MB", "after"],
                large_rows([measured.start, *measured.large]),
            ),
            "",
            f"Time use: a game on {GAME_SIZE}³ from the start under time_settings 0 S 1, "
            "genmove for both sides;",
            "  think and wall as shares of S (mean, and the longest wall); overhead = mean "
            "wall − think",
            "",
            table(
                ["S", "moves", "think", "wall", "longest", "overhead ms", "depth"],
                time_rows(measured.uses),
            ),
        ]
    )
