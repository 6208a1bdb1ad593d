"""A match: its games scheduled on worker threads or a Dask cluster, each finished game
handed on as it comes, and a stop that leaves nothing half done.

Games run `concurrency` at a time (Dask: as many as the cluster has threads), each on its own
table of processes. The caller sees every finished game in the order they finish and may stop
the match at any point (the SPRT decided, Ctrl-C): the games under way are then abandoned
(their processes killed), and a game that finished meanwhile is still handed on.
"""

from __future__ import annotations

import contextlib
import queue
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Protocol

from arena.game import GameOutcome, GameTask, play_game
from arena.openings import Opening
from arena.players import PlayerSpec
from arena.referee import DEFAULT_VARIANT
from arena.stats import Sprt
from arena.table import Setup, close_tables, kill_tables
from client.stop import StopFlag

#: How often the waiting main thread wakes up, so that Ctrl-C is never held up for long.
POLL_SECONDS = 0.2


@dataclass(frozen=True, slots=True)
class MatchSettings:
    """What decides a match's games, and how many to play."""

    size: int
    games: int
    seed: int
    move_cap: int
    opening: Opening
    players: tuple[PlayerSpec, PlayerSpec]
    setup: Setup
    time_margin: float
    sprt: Sprt | None = None

    def fingerprint(self) -> str:
        """The settings a resumed match must share, as the records' Match header (a cube
        match's says no variant, as before variants were)."""
        one, two = self.players
        variant = "" if self.setup.variant == DEFAULT_VARIANT else f"variant {self.setup.variant}; "
        return (
            f"{variant}size {self.size}; openings {self.opening.describe()}; seed {self.seed}; "
            f"move cap {self.move_cap}; player 1 {one.label}; player 2 {two.label}"
        )

    def task(self, number: int) -> GameTask:
        return GameTask(
            number,
            self.size,
            self.seed,
            self.move_cap,
            self.opening,
            self.players,
            self.setup,
            self.fingerprint(),
            self.time_margin,
        )


class Pending(Protocol):
    """A game on its way: a standard-library or a Dask future."""

    def result(self) -> GameOutcome: ...

    def add_done_callback(self, callback: Callable[[Any], object]) -> None: ...


class Runner(Protocol):
    """Where games run."""

    slots: int

    def submit(self, task: GameTask) -> Pending: ...

    def stop(self) -> None: ...


class LocalRunner:
    """Worker threads in this process, each with its own table of processes."""

    def __init__(self, concurrency: int) -> None:
        self.slots = concurrency
        self.halt = threading.Event()
        self.pool = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="arena-game")
        self.futures: list[Future[GameOutcome]] = []

    def submit(self, task: GameTask) -> Future[GameOutcome]:
        future = self.pool.submit(play_game, task, self.halt)
        self.futures.append(future)
        return future

    def stop(self) -> None:
        """Abandon the games under way (killing their processes), then close every table
        (politely: `quit`, when no game was under way)."""
        self.halt.set()
        if not all(future.done() for future in self.futures):
            kill_tables()
        self.pool.shutdown(wait=True, cancel_futures=True)
        close_tables()


class DaskRunner:
    """Games as tasks on a Dask distributed cluster; each worker thread keeps its own table."""

    def __init__(self, address: str, concurrency: int | None = None) -> None:
        from distributed import Client

        self.client = Client(address, timeout=30, set_as_default=False)
        threads = sum(self.client.nthreads().values())
        # As many games at once as the cluster has threads, unless told fewer or more.
        self.slots = concurrency or max(1, threads)
        self.futures: list[Any] = []

    def submit(self, task: GameTask) -> Pending:
        future: Pending = self.client.submit(play_game, task, pure=False)
        self.futures.append(future)
        return future

    def stop(self) -> None:
        """Cancel what is queued, kill the workers' processes, and disconnect."""
        with contextlib.suppress(Exception):
            self.client.cancel(self.futures)
        with contextlib.suppress(Exception):
            self.client.run(kill_tables)
            self.client.run(close_tables)
        self.client.close()


def run_games(
    tasks: Iterable[GameTask],
    runner: Runner,
    on_outcome: Callable[[GameOutcome], bool],
    interrupted: StopFlag | None = None,
) -> None:
    """Run the games, `runner.slots` at a time, and hand each finished one to `on_outcome`,
    which answers True to stop the match; stop too when `interrupted` is set (a signal
    handler sets it: a finished game is never half counted). Always stops the runner; a game
    that finished while the match was stopping is still handed on.

    A failure of the referee (RefereeError) stops the match and is raised.
    """
    done: queue.Queue[Pending] = queue.Queue()
    pending: Iterator[GameTask] = iter(tasks)
    in_flight = 0

    def stopping() -> bool:
        return interrupted is not None and interrupted.is_set()

    def submit_next() -> bool:
        task = next(pending, None)
        if task is None:
            return False
        runner.submit(task).add_done_callback(done.put)
        return True

    try:
        while in_flight < runner.slots and submit_next():
            in_flight += 1
        while in_flight and not stopping():
            try:
                future = done.get(timeout=POLL_SECONDS)
            except queue.Empty:
                continue
            in_flight -= 1
            if on_outcome(future.result()) or stopping():
                return
            in_flight += submit_next()
    finally:
        runner.stop()
        drain(done, on_outcome)


def drain(done: queue.Queue[Pending], on_outcome: Callable[[GameOutcome], bool]) -> None:
    """Hand on the games that finished while the match stopped; drop the abandoned ones."""
    while True:
        try:
            future = done.get_nowait()
        except queue.Empty:
            return
        try:
            outcome = future.result()
        except Exception:
            continue  # abandoned (stopped, cancelled or killed): not a finished game
        on_outcome(outcome)
