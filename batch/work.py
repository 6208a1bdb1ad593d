"""The worker's side of a batch: engines lent to worker threads, asked about each position.

A worker thread (a local thread or a Dask worker's thread) borrows an engine process
(client/engine.py) for each chunk and sends it `set_board` and then each asked command, every
line with an id that the answer must echo. An engine that dies, hangs past the timeout or
answers out of step is killed and replaced, and the position is tried once more; a second
death marks it failed.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import threading
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

from batch.jobs import Job, Outcome
from batch.keep import Filter, parse_filter
from client.engine import TEMPORARY, Engine, EngineDied, Logs


@dataclass(frozen=True, slots=True)
class EngineSpec:
    """How to start an engine: the command (None: this project's engine), the log folder
    (None: a temporary one per engine, gone with it), the seconds one answer may take
    (None: no limit) and the variant every process is told before its first position.
    Small and picklable: it travels to Dask workers."""

    command: tuple[str, ...] | None = None
    log_dir: str | None = None
    timeout: float | None = None
    #: The rules the positions are read by (None: the engine's own, the cube for ours).
    variant: str | None = None

    def engine(self) -> Engine:
        """A new engine, not started yet, that must answer protocol_version when it is."""
        logs: str | Logs = TEMPORARY if self.log_dir is None else self.log_dir
        return Engine(self.command, log_dir=logs, timeout=self.timeout, handshake=True)


class Stopped(Exception):
    """The run was interrupted; the rest of the chunk is not examined."""


# The engines of this process, by spec. Each chunk borrows an idle one (or a new one) and
# gives it back, so that no two threads ever talk to one engine at once, and an engine made
# before the run (the batch's check) serves the first chunk instead of idling.
_IDLE: dict[EngineSpec, list[Engine]] = defaultdict(list)
_ALL: list[Engine] = []
_LOCK = threading.Lock()

# The process each engine was last told the variant in (an engine replaces a process that
# died with a fresh one, which must be told again), by the engine's id.
_TOLD: dict[int, int | None] = {}


def lend(spec: EngineSpec, engine: Engine) -> None:
    """Put an engine made for `spec` among the idle ones."""
    with _LOCK:
        if engine not in _ALL:
            _ALL.append(engine)
        _IDLE[spec].append(engine)


@contextlib.contextmanager
def borrowed(spec: EngineSpec) -> Iterator[Engine]:
    """Lend this thread an engine for `spec` while inside."""
    with _LOCK:
        idle = _IDLE[spec]
        engine = idle.pop() if idle else None
    if engine is None:
        engine = spec.engine()
    try:
        yield engine
    finally:
        lend(spec, engine)


def close_engines() -> int:
    """Close every engine this process keeps; return how many there were."""
    with _LOCK:
        engines = list(_ALL)
        _ALL.clear()
        _IDLE.clear()
        _TOLD.clear()
    for engine in engines:
        engine.close()
    return len(engines)


atexit.register(close_engines)


def tell_variant(engine: Engine, variant: str | None) -> str | None:
    """Tell the engine's process the variant, once a process; return its refusal, if any."""
    if variant is None or (engine.alive and _TOLD.get(id(engine)) == engine.pid):
        return None
    answer = engine.ask(f"variant {variant}")
    if not answer.ok:
        return answer.text
    _TOLD[id(engine)] = engine.pid
    return None


def examine(
    engine: Engine,
    job: Job,
    asks: Sequence[str],
    keep: Filter | None = None,
    variant: str | None = None,
) -> Outcome:
    """Set the position (after the variant, in a fresh process), then ask each command in
    turn; a refused set_board skips the asks.

    With a filter, stop asking as soon as the answers so far rule the position out: a mining
    run then skips the costly mate_in 2 of every position that already mates in 1.
    """
    refusal = tell_variant(engine, variant)
    if refusal is not None:
        return Outcome(job.id, job.board, job.side, errors={f"variant {variant}": refusal})
    side = " b" if job.side == "b" else ""
    answer = engine.ask(f"set_board {job.board}{side}")
    if not answer.ok:
        return Outcome(job.id, job.board, job.side, errors={"set_board": answer.text})
    outcome = Outcome(job.id, job.board, job.side)
    asked: set[str] = set()
    for ask in asks:
        answer = engine.ask(ask)
        (outcome.answers if answer.ok else outcome.errors)[ask] = answer.text
        asked.add(ask)
        if keep is not None and len(asked) < len(asks) and keep.rejects(outcome, asked):
            return replace(outcome, rejected=True)
    return outcome


def run_job(
    engine: Engine,
    job: Job,
    asks: Sequence[str],
    keep: Filter | None = None,
    variant: str | None = None,
) -> Outcome:
    """Examine one position, on a new engine after a death, retrying once before giving up."""
    deaths: list[str] = []
    for _attempt in range(2):
        try:
            return replace(examine(engine, job, asks, keep, variant), variant=variant)
        except EngineDied as death:
            # The engine is gone already; the next ask starts a new one.
            deaths.append(f"engine {engine.pid}: {death}")
    reason = "the engine died on this position twice: " + " / ".join(deaths)
    return Outcome(job.id, job.board, job.side, failed=reason, variant=variant)


def run_chunk(
    jobs: Sequence[Job],
    asks: Sequence[str],
    spec: EngineSpec,
    stop: threading.Event | None = None,
    keep_source: str | None = None,
) -> list[Outcome]:
    """Examine several positions in order on this thread's engine; the unit of scheduling.

    The filter travels as its text (a parsed one holds closures, which do not pickle for
    Dask) and is parsed here, once per process.
    """
    keep = None if keep_source is None else parsed_filter(keep_source)
    outcomes: list[Outcome] = []
    with borrowed(spec) as engine:
        for job in jobs:
            if stop is not None and stop.is_set():
                raise Stopped
            outcomes.append(run_job(engine, job, asks, keep, spec.variant))
    return outcomes


@functools.cache
def parsed_filter(source: str) -> Filter:
    """Parse a filter once per process."""
    return parse_filter(source)
