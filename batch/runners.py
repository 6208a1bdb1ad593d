"""Where a batch's chunks run (worker threads here, or a Dask cluster), and the loop that
hands them out and writes their outcomes in input order."""

from __future__ import annotations

import contextlib
import json
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from batch.jobs import BatchError, Id, Job, Outcome
from batch.keep import Filter
from batch.work import EngineSpec, close_engines, run_chunk
from client.stop import StopFlag

if TYPE_CHECKING:
    from tqdm import tqdm

#: Chunks in flight per worker thread: enough to keep every worker busy while the oldest
#: chunk is written, few enough that an interrupted run has little work to throw away.
CHUNKS_PER_WORKER = 4
#: How often the loop, waiting for a chunk, looks whether a signal asked it to stop.
POLL_SECONDS = 0.1


class Output(Protocol):
    """Where the records go: whole lines, with the ids they are for (batch/output.py)."""

    def write(self, lines: Sequence[str], ids: Sequence[Id]) -> None: ...


class Pending(Protocol):
    """A chunk on its way: a standard-library or a Dask future."""

    def result(self, timeout: float | None = None) -> list[Outcome]: ...

    def add_done_callback(self, fn: Callable[[Any], object]) -> None: ...


class Runner(Protocol):
    """Where chunks run: submit one, get a future of its outcomes."""

    workers: int

    def submit(self, jobs: list[Job]) -> Pending: ...

    def stop(self) -> None: ...


class LocalRunner:
    """Worker threads in this process, each with its own engine process."""

    def __init__(
        self, workers: int, asks: Sequence[str], spec: EngineSpec, keep: str | None = None
    ) -> None:
        self.workers = workers
        self.asks = list(asks)
        self.spec = spec
        self.keep = keep
        self.halt = threading.Event()
        self.pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="batch-worker")

    def submit(self, jobs: list[Job]) -> Future[list[Outcome]]:
        """Queue one chunk on the pool."""
        return self.pool.submit(run_chunk, jobs, self.asks, self.spec, self.halt, self.keep)

    def stop(self) -> None:
        """Drop queued chunks, let running ones stop at their next position, close engines."""
        self.halt.set()
        self.pool.shutdown(wait=True, cancel_futures=True)
        close_engines()


class DaskRunner:
    """Tasks on a Dask distributed cluster; each worker thread keeps its own engine."""

    def __init__(
        self, address: str, asks: Sequence[str], spec: EngineSpec, keep: str | None = None
    ) -> None:
        try:
            from distributed import Client
        except ImportError:
            raise BatchError(
                "--dask needs Dask's distributed package: pip install 'cubemate[dask]'"
            ) from None
        try:
            self.client = Client(address, timeout=30, set_as_default=False)
        except (OSError, TimeoutError, ValueError) as error:
            raise BatchError(f"--dask: cannot reach the scheduler at {address}: {error}") from None
        threads = self.client.nthreads()
        self.workers = max(1, sum(threads.values()))
        self.asks = list(asks)
        self.spec = spec
        self.keep = keep

    def submit(self, jobs: list[Job]) -> Pending:
        """Send one chunk to the cluster (never cached: pure=False)."""
        future: Pending = self.client.submit(
            run_chunk, jobs, self.asks, self.spec, None, self.keep, pure=False
        )
        return future

    def stop(self) -> None:
        """Close the workers' engines and disconnect; tasks no client holds are dropped."""
        with contextlib.suppress(Exception):
            self.client.run(close_engines)
        self.client.close()


def chunks(jobs: Iterable[Job], size: int) -> Iterator[list[Job]]:
    """Cut the positions into lists of `size` (the last may be shorter)."""
    chunk: list[Job] = []
    for job in jobs:
        chunk.append(job)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def outcomes_of(pending: Pending, interrupted: StopFlag) -> list[Outcome]:
    """Wait for a chunk's outcomes; raise KeyboardInterrupt once `interrupted` is set.

    The stop is raised here, outside any lock: raised by a signal handler itself, it could
    land inside the future's wait, between taking a lock and giving it back, and break the
    clean stop (seen once in 90 runs: "cannot release un-acquired lock"). The result is asked
    for once the chunk is done, never with a timeout: a Dask future's timed `result` can fail
    with UnboundLocalError when the chunk finishes just as the time runs out (distributed
    2026.8's `sync`, seen under load).
    """
    finished = threading.Event()
    pending.add_done_callback(lambda _: finished.set())
    while not interrupted.is_set():
        if finished.wait(POLL_SECONDS):
            return pending.result()
    raise KeyboardInterrupt


def in_order(
    runner: Runner,
    jobs: Iterable[Job],
    chunk_size: int,
    interrupted: StopFlag | None = None,
) -> Iterator[list[Outcome]]:
    """Yield each chunk's outcomes in input order, keeping a bounded number in flight."""
    interrupted = interrupted or StopFlag()
    window: deque[Pending] = deque()
    limit = runner.workers * CHUNKS_PER_WORKER
    pending = chunks(jobs, chunk_size)
    exhausted = False
    while True:
        while not exhausted and len(window) < limit:
            chunk = next(pending, None)
            if chunk is None:
                exhausted = True
            else:
                window.append(runner.submit(chunk))
        if not window:
            return
        yield outcomes_of(window.popleft(), interrupted)


@dataclass(slots=True)
class Tally:
    """What a run did, for the progress bar and the exit code."""

    examined: int = 0
    kept: int = 0
    failed: int = 0


def run(
    jobs: Iterable[Job],
    asks: Sequence[str],
    runner: Runner,
    output: Output,
    keep: Filter | None = None,
    chunk_size: int = 8,
    progress: tqdm[Any] | None = None,
    interrupted: StopFlag | None = None,
) -> Tally:
    """Examine every position and write the kept ones in order; return the tally. Raise
    KeyboardInterrupt between two chunks once `interrupted` is set (by a signal handler)."""
    tally = Tally()
    for outcomes in in_order(runner, jobs, chunk_size, interrupted):
        lines = []
        ids = []
        for outcome in outcomes:
            tally.examined += 1
            tally.failed += outcome.failed is not None
            # A failed position is always written: never silently dropped.
            if keep is None or keep(outcome) or outcome.failed is not None:
                tally.kept += 1
                lines.append(json.dumps(outcome.record(), ensure_ascii=False) + "\n")
                ids.append(outcome.id)
        if lines:
            # One write per chunk, whole lines only: a kill leaves at most a partial last
            # line, which --resume cuts off.
            output.write(lines, ids)
        if progress is not None:
            counts = {"failed": tally.failed}
            if keep is not None:
                counts["kept"] = tally.kept
            # Set before the update, which redraws the bar with it.
            progress.set_postfix(counts, refresh=False)
            progress.update(len(outcomes))
    return tally
