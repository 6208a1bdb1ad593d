"""One game between two players, judged by the referee, and how it ended.

A game ends when the referee's `result` says so; at the move cap (a draw, said so); or when a
player crashes, times out, answers too long or out of step, answers a move that is not legal,
resigns or refuses what the game needs (a loss for it, said so in the result: `0-1 (white's
move was illegal: Kc1(I)-c3(I))`). A player process that lost by anything but resigning is
replaced for the next game: one that answered a line twice, or an answer late, is out of step
and would read every answer after as the line before's. A player whose position after set-up
is not the referee's is replaced and set up once more; if the fresh process disagrees too,
the match stops (PlayerDisagrees): every game it played would be judged on another board
than its own.
"""

from __future__ import annotations

import datetime
import shlex
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from arena.clock import Clock
from arena.judge import IllegalMove, disagreement, judge_move
from arena.openings import Opening
from arena.players import PlayerSpec
from arena.records import record_text
from arena.referee import DEFAULT_VARIANT, GOING_ON, SIDES, Position, RefereeError
from arena.speaker import Reply, Speaker, SpeakerDied
from arena.table import Setup, Table, table_for

#: The most of a player's message that goes into a result, and of a failure's details into
#: the record's Adjudication header.
MESSAGE_CHARS = 80
DETAIL_CHARS = 400
#: How many times a game is tried on a fresh referee before the match gives up.
REFEREE_ATTEMPTS = 2


class Stopped(Exception):
    """The match stopped (Ctrl-C, or the SPRT decided) while this game was under way."""


class PlayerDisagrees(Exception):
    """A player's position after set-up is not the referee's: the match cannot go on."""


@dataclass(frozen=True, slots=True)
class GameTask:
    """Everything one game needs; plain data, so that it travels pickled to Dask workers."""

    number: int  # from 1; odd games give player 1 white, even ones black, on the same opening
    size: int
    seed: int
    move_cap: int  # plies after the opening
    opening: Opening
    players: tuple[PlayerSpec, PlayerSpec]
    setup: Setup
    match: str  # the Match header: the settings that decide the games
    time_margin: float  # seconds a clocked move may run over before it is lost on time

    @property
    def pair(self) -> int:
        return (self.number + 1) // 2

    def seat(self, colour: str) -> int:
        """Which player (0 for player 1, 1 for player 2) has this colour."""
        white = (self.number - 1) % 2
        return white if colour == "white" else 1 - white


@dataclass(frozen=True, slots=True)
class GameOutcome:
    """A finished game: its number, result, record text and plies, and a warning for people
    when a player failed (crash or timeout, with the process's last words)."""

    number: int
    result: str
    record: str
    plies: int
    warning: str | None = None


class Forfeit(Exception):
    """A player lost the game by what it did (or did not do); its process is replaced for
    the next game unless `keep` (it resigned: nothing says it is out of step)."""

    def __init__(
        self, colour: str, reason: str, detail: str | None = None, *, keep: bool = False
    ) -> None:
        super().__init__(reason)
        self.colour = colour
        self.reason = reason
        self.detail = detail
        self.keep = keep

    def result(self) -> str:
        """The result: a win for the other side, and why."""
        return f"{'0-1' if self.colour == 'white' else '1-0'} ({self.reason})"


def other(colour: str) -> str:
    return "black" if colour == "white" else "white"


def shortened(text: str, most: int = MESSAGE_CHARS) -> str:
    """One line of a player's message, cut short."""
    line = " ".join(text.split())
    return line if len(line) <= most else line[: most - 3] + "..."


def play_game(task: GameTask, halt: threading.Event | None = None) -> GameOutcome:
    """Play one game on this thread's table; a game the referee fails is played once more.

    Raises Stopped when `halt` is set, RefereeError when the referee fails twice.
    """
    table = table_for(task.setup)
    failures = 0
    while True:
        try:
            return Game(task, table, halt).play()
        except RefereeError:
            if halt is not None and halt.is_set():
                raise Stopped from None
            table.discard_referee()
            failures += 1
            if failures == REFEREE_ATTEMPTS:
                raise


class Game:
    """The state of one game under way."""

    def __init__(self, task: GameTask, table: Table, halt: threading.Event | None) -> None:
        self.task = task
        self.table = table
        self.halt = halt
        self.speakers: dict[str, Speaker] = {}
        self.clocks: dict[str, Clock] = {}
        #: The players whose clock the arena tells them before each move (`time_left`).
        self.told_time: set[str] = set()
        #: What each side's engine said it is, and what it was sent beyond the position.
        self.identities: dict[str, str] = {}
        self.options: dict[str, list[str]] = {}
        self.moves: list[str] = []
        #: What people should hear of this game besides a failure: a player replaced.
        self.notes: list[str] = []

    def spec(self, colour: str) -> PlayerSpec:
        return self.task.players[self.task.seat(colour)]

    def play(self) -> GameOutcome:
        """Set the game up, play it out, and write its record."""
        task = self.task
        referee = self.table.referee()
        opening = task.opening.set_up(referee, task.size, task.pair, task.seed)
        start = referee.position()
        detail = None
        try:
            for colour in SIDES:
                self.seat(colour, opening.lines, start)
            result = self.play_moves(start.side)
        except Forfeit as forfeit:
            result, detail = forfeit.result(), forfeit.detail
            if not forfeit.keep:
                # Crashed, hung, or answered what it should not: perhaps out of step, so the
                # next game gets a fresh process.
                self.table.discard(task.seat(forfeit.colour))
        warnings = list(self.notes)
        headers = self.headers(opening.description)
        if detail is not None:
            headers["Adjudication"] = shortened(detail, DETAIL_CHARS)
            warnings.append(f"game {task.number}: {result}: {detail}")
        warning = "\n".join(warnings) or None
        text = record_text(task.size, start.notation(), result, self.moves, headers)
        return GameOutcome(task.number, result, text, len(self.moves), warning)

    def headers(self, opening: str) -> dict[str, str]:
        """The record's headers beyond Size, Start and Result."""
        # A cube game's record names no variant, as the engine's own records do.
        variant = self.task.setup.variant
        headers: dict[str, str] = {} if variant == DEFAULT_VARIANT else {"Variant": variant}
        headers |= {
            "White": self.spec("white").label,
            "Black": self.spec("black").label,
            "Date": datetime.datetime.now(datetime.UTC).date().isoformat(),
            "Event": "cubemate arena",
            "Round": str(self.task.number),
            "Opening": opening,
        }
        for colour in SIDES:
            side = colour.capitalize()
            if colour in self.identities:
                headers[f"{side}Engine"] = self.identities[colour]
            spec = self.spec(colour)
            if spec.builtin is None:
                headers[f"{side}Command"] = shlex.join(spec.command)
            if self.options.get(colour):
                headers[f"{side}Options"] = "; ".join(self.options[colour])
        controls = {colour: self.spec(colour).limits.time for colour in SIDES}
        if any(controls.values()):
            headers["TimeControl"] = ", ".join(
                f"{colour} {control.describe()}" for colour, control in controls.items() if control
            )
        headers["Match"] = self.task.match
        return headers

    def check_halt(self) -> None:
        if self.halt is not None and self.halt.is_set():
            raise Stopped

    def ask(self, colour: str, line: str, timeout: float | None) -> Reply:
        """Ask a player; its death is its forfeit (unless the match is stopping)."""
        try:
            return self.speakers[colour].ask(line, timeout)
        except SpeakerDied as death:
            self.check_halt()
            raise Forfeit(colour, f"{colour} {death.failure}", death.detail) from None

    def tell(self, colour: str, line: str) -> None:
        """Send a line the player must accept."""
        reply = self.ask(colour, line, self.task.setup.timeout)
        if not reply.ok:
            raise Forfeit(colour, f"{colour} refused '{shortened(line)}': {shortened(reply.text)}")

    def seat(self, colour: str, opening: tuple[str, ...], start: Position) -> None:
        """Bring a player to the opening and check that it agrees; one that does not is
        replaced by a fresh process and set up again (it may be out of step: an answer read as
        the line after's); a fresh one that does not agree either stops the match."""
        why = self.set_up(colour, opening, start)
        if why is None:
            return
        seat, spec = self.task.seat(colour), self.spec(colour)
        self.table.discard(seat)
        self.notes.append(
            f"game {self.task.number}: player {seat + 1} ({spec.label}) was not at the referee's "
            f"start after set-up ({shortened(why)}); a fresh process was started"
        )
        why = self.set_up(colour, opening, start)
        if why is not None:
            raise PlayerDisagrees(
                f"player {seat + 1} ({spec.label}) is not at the referee's start of game "
                f"{self.task.number} after set-up: {shortened(why, 500)}"
            )

    def set_up(self, colour: str, opening: tuple[str, ...], start: Position) -> str | None:
        """Start (or reuse) a player and bring it to the opening under its limits: the
        opening's lines (`new_game` and its plies), or `set_board` of the referee's start for
        an engine without `new_game` or told so, after `variant NAME` in a match of another
        variant than the cube; return why its `get_board` then disagrees
        with the referee's start (None: it agrees, or cannot say)."""
        spec = self.spec(colour)
        seed = f"{self.task.seed}/{self.task.number}/{colour}"
        try:
            speaker = self.speakers[colour] = self.table.player(self.task.seat(colour), spec, seed)
            knows = self.knows(colour)
            self.identities[colour] = speaker.identity()
            lines = list(opening)
            launch = self.table.setup.player_launch(spec) if spec.builtin is None else None
            options = ["ids on"] if launch is not None and launch.ids else []
            if spec.builtin is None and (
                self.table.setup.uses_set_board(spec) or not knows("new_game")
            ):
                lines = [f"set_board {start.notation()}"]
                options.append("start by set_board")
            variant = self.table.setup.variant
            if spec.builtin is None and variant != DEFAULT_VARIANT:
                # Told first, whatever follows: `set_board` keeps the variant it is given.
                lines.insert(0, f"variant {variant}")
            limits = spec.limits.set_up_lines(knows)
            if spec.limits.uses_clock(knows):
                self.told_time.add(colour)
            self.options[colour] = options + limits
        except SpeakerDied as death:
            self.check_halt()
            raise Forfeit(colour, f"{colour} {death.failure}", death.detail) from None
        for line in (*lines, *limits):
            self.tell(colour, line)
        if spec.limits.time is not None:
            self.clocks[colour] = Clock(spec.limits.time)
        if spec.builtin is None and knows("get_board"):
            reply = self.ask(colour, "get_board", self.task.setup.timeout)
            return disagreement(reply.text, start) if reply.ok else f"get_board: {reply.text}"
        return None

    def knows(self, colour: str) -> Callable[[str], bool]:
        """Whether a player knows a command; its death asking is its forfeit."""

        def knows(command: str) -> bool:
            try:
                return self.speakers[colour].knows(command)
            except SpeakerDied as death:
                self.check_halt()
                raise Forfeit(colour, f"{colour} {death.failure}", death.detail) from None

        return knows

    def play_moves(self, mover: str) -> str:
        """Ask for moves in turn until the game ends; return the result."""
        referee = self.table.referee()
        while True:
            self.check_halt()
            result = referee.result()
            if result != GOING_ON:
                return result
            if len(self.moves) >= self.task.move_cap:
                return f"1/2-1/2 (move cap of {self.task.move_cap} plies)"
            legal = referee.legal_moves()
            move = self.genmove(mover)
            if move == "resign":
                raise Forfeit(mover, f"{mover} resigned", keep=True)
            try:
                move = judge_move(referee, move, legal)
            except IllegalMove:
                raise Forfeit(mover, f"{mover}'s move was illegal: {shortened(move)}") from None
            self.moves.append(move)
            reply = self.ask(other(mover), f"play {move}", self.task.setup.timeout)
            if not reply.ok:
                raise Forfeit(
                    other(mover), f"{other(mover)} refused the move {move}: {shortened(reply.text)}"
                )
            mover = other(mover)

    def genmove(self, colour: str) -> str:
        """Ask a player for its move, on its clock when it has one."""
        clock = self.clocks.get(colour)
        timeout = self.task.setup.timeout
        if clock is not None:
            if colour in self.told_time:
                self.tell(colour, clock.time_left(colour))
            timeout = clock.available() + self.task.time_margin
        started = time.monotonic()
        reply = self.ask(colour, f"genmove {colour}", timeout)
        if clock is not None:
            clock.spend(time.monotonic() - started)
        if not reply.ok:
            raise Forfeit(colour, f"{colour} could not move: {shortened(reply.text)}")
        return reply.text.strip()
