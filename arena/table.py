"""A table per worker thread: its referee and its two engine players, kept across its games.

Concurrent games never share a process: each thread (a local worker or a Dask worker's
thread) has its own table. A process that fails is discarded and a fresh one started for the
next game that needs it.
"""

from __future__ import annotations

import atexit
import contextlib
import threading
from dataclasses import dataclass

from arena.baselines import Baseline
from arena.players import PlayerSpec, runs_cubemate
from arena.referee import DEFAULT_VARIANT, Referee, RefereeError
from arena.speaker import Launch, ProcessSpeaker, Speaker, SpeakerDied

#: The longest answer a player may write, in bytes: its longest is `get_board`, 8 MB on the
#: largest board (200³), and a move is a few bytes; a longer answer is its forfeit (`answered
#: too long`). The referee, asked `legal_moves`, may answer the client's 64 MiB.
PLAYER_ANSWER_BYTES = 16 << 20


@dataclass(frozen=True, slots=True)
class Setup:
    """How a table starts its processes: the referee's command, the longest any answer may
    take when no clock bounds it, cubemate engines' log folder (None: a temporary one each),
    whether lines carry ids, whether every player gets its start by `set_board`, and the
    variant whose rules the referee judges by and the players are told."""

    referee: tuple[str, ...]
    timeout: float | None
    log_dir: str | None = None
    ids: bool = False
    set_board: bool = False
    variant: str = DEFAULT_VARIANT

    def referee_launch(self) -> Launch:
        cubemate = runs_cubemate(self.referee, None)
        return Launch(self.referee, self.ids, cubemate, self.log_dir)

    def player_launch(self, spec: PlayerSpec) -> Launch:
        """How to start an engine player: its own settings, else the match's."""
        cubemate = spec.cubemate_logs
        if cubemate is None:
            cubemate = runs_cubemate(spec.command, spec.cwd)
        ids = self.ids if spec.ids is None else spec.ids
        return Launch(spec.command, ids, cubemate, self.log_dir, spec.cwd, PLAYER_ANSWER_BYTES)

    def uses_set_board(self, spec: PlayerSpec) -> bool:
        return self.set_board or spec.set_board


class Table:
    """One thread's processes."""

    def __init__(self, setup: Setup) -> None:
        self.setup = setup
        self._referee: Referee | None = None
        #: Engine players by seat: 0 for player 1, 1 for player 2 (a self-play match still
        #: gets two processes).
        self._engines: dict[int, tuple[PlayerSpec, Speaker]] = {}
        self._lock = threading.Lock()

    def start(self, launch: Launch) -> Speaker:
        """Start an engine process (tests put fakes here)."""
        return ProcessSpeaker(launch, self.setup.timeout)

    def referee(self) -> Referee:
        """The referee, started when there is none."""
        if self._referee is None:
            try:
                speaker = self.start(self.setup.referee_launch())
            except SpeakerDied as death:
                raise RefereeError(f"the referee does not start: {death.detail}") from None
            self._referee = Referee(speaker, self.setup.timeout, self.setup.variant)
        return self._referee

    def player(self, seat: int, spec: PlayerSpec, seed: str) -> Speaker:
        """The player in a seat: a fresh seeded baseline, or the seat's engine process."""
        if spec.builtin is not None:
            return Baseline(spec.builtin, self.referee(), seed)
        held = self._engines.get(seat)
        if held is not None and held[0] == spec:
            return held[1]
        self.discard(seat)
        # SpeakerDied: the player fails to start.
        speaker = self.start(self.setup.player_launch(spec))
        with self._lock:
            self._engines[seat] = (spec, speaker)
        return speaker

    def discard(self, seat: int) -> None:
        """Close a seat's engine; the next game starts a fresh one."""
        with self._lock:
            held = self._engines.pop(seat, None)
        if held is not None:
            held[1].close()

    def discard_referee(self) -> None:
        """Close the referee; the next game starts a fresh one."""
        referee, self._referee = self._referee, None
        if referee is not None:
            referee.speaker.close()

    def kill(self) -> None:
        """Stop every process at once (from any thread): a game under way then fails fast."""
        with self._lock:
            speakers: list[Speaker] = [speaker for _, speaker in self._engines.values()]
        if self._referee is not None:
            speakers.append(self._referee.speaker)
        for speaker in speakers:
            with contextlib.suppress(OSError):
                speaker.kill()

    def close(self) -> None:
        """Close every process."""
        for seat in list(self._engines):
            self.discard(seat)
        self.discard_referee()


# One table per (thread, setup); the registry is shared by the threads and guarded.
_TABLES: dict[tuple[int, Setup], Table] = {}
_REGISTRY_LOCK = threading.Lock()


def table_for(setup: Setup) -> Table:
    """This thread's table for `setup`."""
    key = (threading.get_ident(), setup)
    with _REGISTRY_LOCK:
        table = _TABLES.get(key)
        if table is None:
            table = _TABLES[key] = Table(setup)
    return table


def kill_tables() -> None:
    """Kill every table's processes, so that every game under way stops."""
    with _REGISTRY_LOCK:
        tables = list(_TABLES.values())
    for table in tables:
        table.kill()


def close_tables() -> int:
    """Close every table of this process; return how many there were."""
    with _REGISTRY_LOCK:
        tables = list(_TABLES.values())
        _TABLES.clear()
    for table in tables:
        table.close()
    return len(tables)


atexit.register(close_tables)
