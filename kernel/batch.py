"""Batch work: many positions through many engine processes, on one machine or a Dask cluster.

    python -m kernel.batch [INPUT] [-o OUTPUT] [--ask COMMAND]... [--jobs N | --dask ADDRESS]
                           [--resume] [--generate FAMILY --count N --seed S] [--keep FILTER]

Reads positions (one per line as `BOARD [SIDE]`, or JSON lines with `board` and optional `id`
and `side`), sets each on a real engine process (`python main.py`), asks it every `--ask`
command, and writes one JSON line per position, in input order:

    {"id": 7, "board": "...", "side": "b", "answers": {"status": "check"}, "errors": {}}

Exit codes: 0 done; 1 done, but some positions failed (they are in the output with `failed`);
2 bad options or input; 130 interrupted (the output holds whole lines; `--resume` continues).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shlex
import signal
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import IO, Any, NoReturn, Protocol

from tqdm import tqdm

from kernel.batch_engine import (
    EngineDied,
    EngineProcess,
    EngineSpec,
    Job,
    Outcome,
    close_engines,
    run_chunk,
)
from kernel.batch_generate import FAMILIES, GenerateError, family, generate
from kernel.batch_keep import Filter, FilterError, parse_filter

SIDES = {"w": "w", "white": "w", "b": "b", "black": "b"}
#: Commands a batch may not ask: they would end or confuse the engine under it.
FORBIDDEN_ASKS = {"quit"}
#: Chunks in flight per worker thread: enough to keep every worker busy while the oldest
#: chunk is written, few enough that an interrupted run has little work to throw away.
CHUNKS_PER_WORKER = 4


class BatchError(Exception):
    """Bad options, input or output file; the message is shown as it is, exit code 2."""


# -- input


def parse_bare(text: str, number: int) -> Job:
    """Read a `BOARD [SIDE]` line; SIDE counts only after a closing bracket or quote."""
    words = text.rsplit(None, 1)
    side = "w"
    board = text
    if len(words) == 2 and words[1].lower() in SIDES and words[0].rstrip()[-1:] in "]\"'":
        board, side = words[0].rstrip(), SIDES[words[1].lower()]
    return Job(number, board, side)


def parse_json(text: str, number: int) -> Job:
    """Read a JSON line with `board` and optional `id` and `side`."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise BatchError(f"input line {number}: not valid JSON: {error}") from None
    if not isinstance(data, dict):
        raise BatchError(f"input line {number}: a JSON line must be an object")
    board = data.get("board")
    if not isinstance(board, str) or not board.strip():
        raise BatchError(f'input line {number}: no "board" text')
    identity = data.get("id", number)
    if isinstance(identity, bool) or not isinstance(identity, int | str):
        raise BatchError(f'input line {number}: "id" must be a whole number or a string')
    side = data.get("side", "w")
    if not isinstance(side, str) or side.lower() not in SIDES:
        raise BatchError(f'input line {number}: "side" must be w, b, white or black')
    return Job(identity, board.strip(), SIDES[side.lower()])


def read_jobs(lines: Iterable[str]) -> Iterator[Job]:
    """Yield the positions of the input; blank lines and `#` comments are skipped."""
    seen: set[int | str] = set()
    for number, raw in enumerate(lines, start=1):
        text = raw.strip()
        if not text or text.startswith("#"):
            continue
        job = parse_json(text, number) if text.startswith("{") else parse_bare(text, number)
        if any(ord(character) < 32 for character in job.board):
            raise BatchError(f"input line {number}: control characters in the board")
        if job.id in seen:
            raise BatchError(f"input line {number}: id {job.id!r} is used twice")
        seen.add(job.id)
        yield job


def count_positions(path: Path) -> int:
    """Count the position lines of an input file, for the progress bar."""
    with path.open(encoding="utf-8", errors="replace") as lines:
        return sum(1 for line in lines if line.strip() and not line.lstrip().startswith("#"))


# -- resuming


@dataclass(slots=True)
class Done:
    """What an earlier run already wrote: every id, and the last one (output is in order)."""

    ids: set[int | str] = field(default_factory=set)
    last: int | str | None = None


def load_done(path: Path, asks: Sequence[str]) -> Done:
    """Read an earlier run's output, cutting off a last line that a kill left half-written."""
    done = Done()
    if not path.exists():
        return done
    data = path.read_bytes()
    whole = data[: data.rfind(b"\n") + 1]
    if len(whole) != len(data):
        with path.open("r+b") as output:
            output.truncate(len(whole))
    for number, line in enumerate(whole.decode("utf-8").splitlines(), start=1):
        try:
            record = json.loads(line)
            identity = record["id"]
            answered = set(record["answers"]) | set(record["errors"])
        except (json.JSONDecodeError, KeyError, TypeError) as error:
            raise BatchError(f"--resume: line {number} of {path} is not a batch record") from error
        if "failed" not in record and "set_board" not in answered and answered != set(asks):
            raise BatchError(
                f"--resume: {path} was made with other commands ({', '.join(sorted(answered))})"
            )
        done.ids.add(identity)
        done.last = identity
    return done


def remaining(jobs: Iterable[Job], done: Done, on_skip: Callable[[], None]) -> Iterator[Job]:
    """Yield the positions an earlier run did not finish.

    The output is in input order, so every position up to the last one written was finished
    (those absent were dropped by --keep); after it, any id already written is skipped too.
    """
    behind = done.last is not None
    for job in jobs:
        if behind or job.id in done.ids:
            behind = behind and job.id != done.last
            on_skip()
            continue
        yield job
    if behind:
        raise BatchError(f"--resume: the output ends at id {done.last!r}, which the input lacks")


# -- running


class Pending(Protocol):
    """A chunk on its way: a standard-library or a Dask future."""

    def result(self) -> list[Outcome]: ...


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
        from distributed import Client

        try:
            self.client = Client(address, timeout=30, set_as_default=False)  # type: ignore[no-untyped-call]
        except (OSError, TimeoutError) as error:
            raise BatchError(f"--dask: cannot reach the scheduler at {address}: {error}") from None
        threads = self.client.nthreads()  # type: ignore[no-untyped-call]
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
        self.client.close()  # type: ignore[no-untyped-call]


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


def in_order(runner: Runner, jobs: Iterable[Job], chunk_size: int) -> Iterator[list[Outcome]]:
    """Yield each chunk's outcomes in input order, keeping a bounded number in flight."""
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
        yield window.popleft().result()


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
    output: IO[bytes],
    keep: Filter | None = None,
    chunk_size: int = 8,
    progress: tqdm[Any] | None = None,
) -> Tally:
    """Examine every position and write the kept ones in order; return the tally."""
    tally = Tally()
    for outcomes in in_order(runner, jobs, chunk_size):
        lines = []
        for outcome in outcomes:
            tally.examined += 1
            tally.failed += outcome.failed is not None
            # A failed position is always written: never silently dropped.
            if keep is None or keep(outcome) or outcome.failed is not None:
                tally.kept += 1
                record = json.dumps(outcome.record(), ensure_ascii=False)
                lines.append(record + "\n")
        if lines:
            # One write per chunk, whole lines only: a kill leaves at most a partial last
            # line, which --resume cuts off.
            output.write("".join(lines).encode("utf-8"))
            output.flush()
        if progress is not None:
            counts = {"failed": tally.failed}
            if keep is not None:
                counts["kept"] = tally.kept
            # Set before the update, which redraws the bar with it.
            progress.set_postfix(counts, refresh=False)
            progress.update(len(outcomes))
    return tally


# -- command line


def usable_cores() -> int:
    """The cores this process may run on (the default --jobs)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on every platform
        return os.cpu_count() or 1


class OneLineErrorParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on stderr and exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"batch: {message} (try --help)\n")


def parse_arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    """Read the command line."""
    parser = OneLineErrorParser(
        prog="python -m kernel.batch", description=__doc__.split("\n")[0] if __doc__ else None
    )
    parser.add_argument("input", nargs="?", type=Path, help="positions file (default stdin)")
    parser.add_argument("-o", "--output", type=Path, help="JSON lines file (default stdout)")
    parser.add_argument(
        "--ask", action="append", default=[], metavar="COMMAND",
        help="a protocol command to ask about every position (repeatable; default status)",
    )  # fmt: skip
    parser.add_argument(
        "--keep", metavar="FILTER",
        help="write only the positions that match, e.g. 'mate_in 1 = no key and mate_in 2 ="
        " one key' (the language: README, kernel/batch_keep.py)",
    )  # fmt: skip
    parser.add_argument("--jobs", type=int, default=usable_cores(),
                        help="local workers (default: the usable cores)")  # fmt: skip
    parser.add_argument("--dask", metavar="ADDRESS", help="run on this Dask scheduler")
    parser.add_argument("--chunk", type=int, default=8, help="positions per task (default 8)")
    parser.add_argument("--resume", action="store_true", help="continue the output file")
    parser.add_argument("--overwrite", action="store_true", help="replace a non-empty output")
    parser.add_argument("--engine", help="engine command line (default: python main.py)")
    parser.add_argument("--log-dir", help="keep the engines' logs here (default: none kept)")
    parser.add_argument("--timeout", type=float, help="seconds one answer may take")
    parser.add_argument("--progress", choices=["auto", "on", "off"], default="auto",
                        help="progress bar on stderr (auto: at a terminal)")  # fmt: skip
    mining = parser.add_argument_group("generating positions")
    mining.add_argument("--generate", choices=FAMILIES, help="draw positions of a family")
    mining.add_argument("--count", type=int, default=1000, help="how many (default 1000)")
    mining.add_argument("--seed", type=int, default=1, help="the family's seed (default 1)")
    mining.add_argument("--size", type=int, help="board size n")
    mining.add_argument("--attackers", type=int, help="pieces of the side to move, king aside")
    mining.add_argument("--defenders", type=int, help="pieces of the hunted side, king aside")
    mining.add_argument("--radius", type=int, default=2, help="crowded: king steps (default 2)")
    mining.add_argument("--side", default="b", help="the attacking side, w or b (default b)")
    return parser.parse_args(argv)


def check_ask(ask: str) -> str:
    """Refuse a command that cannot be sent as one protocol line, or would end the engine."""
    text = " ".join(ask.split())
    if not text:
        raise BatchError("--ask: empty command")
    if any(ord(character) < 32 for character in ask.replace("\t", " ")):
        raise BatchError(f"--ask {ask!r}: control characters")
    if text.split()[0] in FORBIDDEN_ASKS or text.split()[0].isdigit():
        raise BatchError(f"--ask {ask!r}: not allowed in a batch (ids are the batch's own)")
    return text


def check_engine(spec: EngineSpec) -> None:
    """Start one engine (it must answer protocol_version), so a broken command fails at once."""
    try:
        EngineProcess(spec).close()
    except EngineDied as error:
        raise BatchError(str(error)) from None


def open_output(arguments: argparse.Namespace, asks: Sequence[str]) -> tuple[IO[bytes], Done]:
    """Open the output: stdout, a fresh file, or an earlier run's file to continue."""
    path: Path | None = arguments.output
    if path is None:
        if arguments.resume:
            raise BatchError("--resume needs -o OUTPUT")
        return sys.stdout.buffer, Done()
    if arguments.resume:
        done = load_done(path, asks)
        return path.open("ab"), done
    if path.exists() and path.stat().st_size > 0 and not arguments.overwrite:
        raise BatchError(f"{path} is not empty: --resume continues it, --overwrite replaces it")
    return path.open("wb"), Done()


def source(arguments: argparse.Namespace) -> tuple[Iterator[Job], int | None, Any]:
    """Return the positions, how many there are (None if unknown) and a file to close."""
    if arguments.generate is not None:
        if arguments.input is not None:
            raise BatchError("give an INPUT file or --generate, not both")
        side = SIDES.get(arguments.side.lower())
        if side is None:
            raise BatchError(f"--side must be w, b, white or black, not {arguments.side!r}")
        chosen = family(
            arguments.generate,
            arguments.size,
            arguments.attackers,
            arguments.defenders,
            arguments.radius,
            side,
        )
        return generate(chosen, arguments.count, arguments.seed), arguments.count, None
    if arguments.input is None:
        return read_jobs(sys.stdin), None, None
    path: Path = arguments.input
    try:
        total = count_positions(path)
        lines = path.open(encoding="utf-8", errors="replace")
    except OSError as error:
        raise BatchError(f"cannot read {path}: {error.strerror}") from None
    return read_jobs(lines), total, lines


def interrupt(signum: int, frame: FrameType | None) -> None:
    """Turn SIGTERM or SIGHUP into the same clean stop as Ctrl-C."""
    raise KeyboardInterrupt


def execute(arguments: argparse.Namespace, stack: contextlib.ExitStack) -> Tally:
    """Check the options, open everything on `stack` (closed in reverse) and run the batch."""
    asks = [check_ask(ask) for ask in arguments.ask]
    keep = parse_filter(arguments.keep) if arguments.keep is not None else None
    if keep is not None:
        asks += [ask for ask in keep.asks if ask not in asks]
    if not asks:
        asks = ["status"]
    if arguments.jobs < 1 or arguments.chunk < 1:
        raise BatchError("--jobs and --chunk must be 1 or more")
    if arguments.timeout is not None and arguments.timeout <= 0:
        raise BatchError("--timeout must be positive")
    command = None if arguments.engine is None else tuple(shlex.split(arguments.engine))
    if command == ():
        raise BatchError("--engine: empty command")
    spec = EngineSpec(command, arguments.log_dir, arguments.timeout)
    jobs, total, opened = source(arguments)
    if opened is not None:
        stack.callback(opened.close)
    if arguments.dask is None:
        check_engine(spec)
    output, done = open_output(arguments, asks)
    if output is not sys.stdout.buffer:
        stack.callback(output.close)
    show = arguments.progress == "on" or (arguments.progress == "auto" and sys.stderr.isatty())
    bar: tqdm[Any] = tqdm(
        total=total, unit="pos", file=sys.stderr, disable=not show, dynamic_ncols=True
    )
    stack.callback(bar.close)

    def skipped() -> None:
        if bar.total:
            bar.total -= 1

    keep_source = None if keep is None else keep.source
    runner: Runner = (
        LocalRunner(arguments.jobs, asks, spec, keep_source)
        if arguments.dask is None
        else DaskRunner(arguments.dask, asks, spec, keep_source)
    )
    stack.callback(runner.stop)
    # SIGTERM and a closed terminal (SIGHUP) stop as cleanly as Ctrl-C.
    for signum in (signal.SIGTERM, signal.SIGHUP):
        stack.callback(signal.signal, signum, signal.signal(signum, interrupt))
    return run(remaining(jobs, done, skipped), asks, runner, output, keep, arguments.chunk, bar)


def main(argv: Sequence[str] | None = None) -> int:
    """Run a batch from the command line; return the exit code."""
    arguments = parse_arguments(argv)
    try:
        # Everything opened is closed (the bar, the workers, the files) before any message.
        with contextlib.ExitStack() as stack:
            tally = execute(arguments, stack)
    except (BatchError, FilterError, GenerateError) as error:
        print(f"batch: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("batch: interrupted; the output holds whole lines (--resume continues)",
              file=sys.stderr)  # fmt: skip
        return 130
    except BrokenPipeError:
        # The reader of stdout went away (`| head`): stop quietly, as the engine does.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return 0
    if tally.failed:
        print(f"batch: {tally.failed} position(s) failed; see \"failed\" in the output",
              file=sys.stderr)  # fmt: skip
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
