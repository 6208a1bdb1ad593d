"""Batch work: many positions through many engine processes, on one machine or a Dask cluster.

    python -m batch [INPUT] [-o OUTPUT] [--ask COMMAND]... [--jobs N | --dask ADDRESS]
                    [--resume] [--generate FAMILY --count N --seed S] [--keep FILTER]
                    [--variant NAME]

Reads positions (one per line as `BOARD [SIDE]`, or JSON lines with `board` and optional `id`
and `side`), sets each on a real engine process (`python main.py`; told `variant NAME` first
with `--variant NAME`), asks it every `--ask` command, and writes one JSON line per position,
in input order:

    {"id": 7, "board": "...", "side": "b", "answers": {"status": "check"}, "errors": {}}

Exit codes: 0 done; 1 done, but some positions failed (they are in the output with `failed`);
2 bad options, input or output; 130 interrupted (the output holds whole lines; `--resume`
continues).
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import shlex
import stat
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from batch.generate import FAMILIES, GenerateError, family, generate
from batch.jobs import BatchError, Job
from batch.keep import FilterError, parse_filter
from batch.output import Plan, Sink, Written, load_written
from batch.runners import DaskRunner, LocalRunner, Runner, Tally, run
from batch.source import SIDES, open_input, read_jobs, scan
from batch.work import EngineSpec, lend, tell_variant
from client.cores import usable_cores
from client.engine import EngineDied
from client.stop import stop_on_signals

if TYPE_CHECKING:
    from tqdm import tqdm

#: Commands a batch may not ask: they would end or confuse the engine under it.
FORBIDDEN_ASKS = {"quit"}
#: More local workers than this would be more engine processes than any machine runs well.
MAX_JOBS = 256


class OneLineErrorParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on stderr and exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"batch: {message} (try --help)\n")


def parse_arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    """Read the command line."""
    parser = OneLineErrorParser(
        prog="python -m batch", description=__doc__.split("\n")[0] if __doc__ else None
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
        " one key' (the language: docs/batch.md, batch/keep.py)",
    )  # fmt: skip
    parser.add_argument("--jobs", type=int, default=usable_cores(),
                        help="local workers (default: the usable cores)")  # fmt: skip
    parser.add_argument("--dask", metavar="ADDRESS", help="run on this Dask scheduler")
    parser.add_argument("--chunk", type=int, default=8, help="positions per task (default 8)")
    parser.add_argument("--resume", action="store_true", help="continue the output file")
    parser.add_argument("--overwrite", action="store_true", help="replace a non-empty output")
    parser.add_argument("--engine", help="engine command line (default: python main.py)")
    parser.add_argument(
        "--variant", metavar="NAME",
        help="read the positions by these rules (each engine is told `variant NAME` first): "
        "cube, raumschach (default: the engine's own, the cube)",
    )  # fmt: skip
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


def check_numbers(arguments: argparse.Namespace) -> None:
    """Refuse counts and times that no run can use."""
    if arguments.jobs < 1 or arguments.chunk < 1:
        raise BatchError("--jobs and --chunk must be 1 or more")
    if arguments.jobs > MAX_JOBS:
        raise BatchError(f"--jobs {arguments.jobs}: at most {MAX_JOBS} local workers")
    timeout = arguments.timeout
    if timeout is not None and not (math.isfinite(timeout) and timeout > 0):
        raise BatchError(f"--timeout must be a positive number of seconds, not {timeout}")


def check_engine(spec: EngineSpec, size: int | None) -> None:
    """Start one engine (it must answer protocol_version, take the variant and boards of the
    size to generate), so that a broken command, a variant it does not play or an impossible
    size fails at once; it then serves the first chunk."""
    engine = spec.engine()
    try:
        refusal = tell_variant(engine, spec.variant)
        if refusal is not None:
            raise BatchError(f"--variant {spec.variant}: the engine refuses it: {refusal}")
        if size is not None:
            answer = engine.ask(f"boardsize {size}")
            if not answer.ok:
                raise BatchError(f"--size {size}: the engine refuses it: {answer.text}")
        else:
            engine.start()
    except (EngineDied, BatchError) as error:
        engine.close()
        raise BatchError(str(error)) from None
    lend(spec, engine)


def earlier_output(arguments: argparse.Namespace, asks: Sequence[str]) -> Written:
    """Check the output before any work, changing nothing: an earlier run's to continue, or
    one that may be written (a non-empty file is replaced only with --overwrite; the input
    never)."""
    path: Path | None = arguments.output
    if path is None:
        if arguments.resume:
            raise BatchError("--resume needs -o OUTPUT")
        return Written(Path("-"))
    if arguments.input is not None:
        with contextlib.suppress(OSError):  # either missing: they cannot be one file
            output, source = os.stat(path), os.stat(arguments.input)
            if stat.S_ISREG(output.st_mode) and os.path.samestat(output, source):
                raise BatchError(f"-o {path} is the input file: write the output elsewhere")
    if arguments.resume:
        return load_written(path, asks, arguments.variant)
    with contextlib.suppress(OSError):  # one that cannot be looked at is refused on opening
        if path.is_file() and path.stat().st_size > 0 and not arguments.overwrite:
            raise BatchError(f"{path} is not empty: --resume continues it, --overwrite replaces it")
    return Written(path)


def open_output(arguments: argparse.Namespace, written: Written) -> Sink:
    """Open the output, last of all, once everything else is checked: stdout, a fresh file,
    or the earlier run's file read into `written`, to append to."""
    path: Path | None = arguments.output
    if path is None:
        return Sink(sys.stdout.fileno(), "stdout", own=False)
    if arguments.resume:
        return Sink.resume(written)
    return Sink.create(path, overwrite=arguments.overwrite)


def source(arguments: argparse.Namespace) -> tuple[Iterator[Job], list[Any] | None]:
    """Return the positions and, when the input can be read ahead, their ids in order."""
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
        ids: list[Any] = list(range(1, arguments.count + 1))
        return generate(chosen, arguments.count, arguments.seed), ids
    if arguments.input is None:
        return read_jobs(sys.stdin), None
    path: Path = arguments.input
    ids = scan(path)
    return read_jobs(open_input(path)), ids


def progress_bar(total: int | None) -> tqdm[Any]:
    """Open the progress bar on stderr (tqdm is imported here: most runs show no bar, and
    loading it costs a tenth of a second at every start)."""
    from tqdm import tqdm

    return tqdm(total=total, unit="pos", file=sys.stderr, dynamic_ncols=True)


def execute(arguments: argparse.Namespace, stack: contextlib.ExitStack) -> Tally:
    """Check the options, open everything on `stack` (closed in reverse) and run the batch."""
    asks = [check_ask(ask) for ask in arguments.ask]
    keep = parse_filter(arguments.keep) if arguments.keep is not None else None
    if keep is not None:
        asks += [ask for ask in keep.asks if ask not in asks]
    if not asks:
        asks = ["status"]
    check_numbers(arguments)
    command = None if arguments.engine is None else tuple(shlex.split(arguments.engine))
    if command == ():
        raise BatchError("--engine: empty command")
    if arguments.variant is not None and arguments.generate is not None:
        raise BatchError(
            f"--generate draws positions of the cube's rules, not of --variant {arguments.variant}"
        )
    spec = EngineSpec(command, arguments.log_dir, arguments.timeout, arguments.variant)
    jobs, ids = source(arguments)
    plan = Plan(earlier_output(arguments, asks), filtered=keep is not None)
    if arguments.resume and ids is not None:
        plan.check_input(ids)
    if arguments.dask is None:
        check_engine(spec, arguments.size if arguments.generate else None)
    keep_source = None if keep is None else keep.source
    runner: Runner = (
        LocalRunner(arguments.jobs, asks, spec, keep_source)
        if arguments.dask is None
        else DaskRunner(arguments.dask, asks, spec, keep_source)
    )
    stack.callback(runner.stop)
    output = open_output(arguments, plan.written)
    stack.callback(output.close)
    total = None if ids is None else len(ids)
    show = arguments.progress == "on" or (arguments.progress == "auto" and sys.stderr.isatty())
    bar = progress_bar(total) if show else None
    if bar is not None:
        stack.callback(bar.close)

    def skipped() -> None:
        if bar is not None and bar.total:
            bar.total -= 1

    # While chunks run, Ctrl-C, SIGTERM and a closed terminal (SIGHUP) only ask the batch to
    # stop; it stops between two chunks (client/stop.py says why).
    interrupted = stop_on_signals(stack)
    if not arguments.resume:
        return run(jobs, asks, runner, output, keep, arguments.chunk, bar, interrupted)
    remaining = plan.remaining(jobs, skipped)
    tally = run(remaining, asks, runner, output, keep, arguments.chunk, bar, interrupted)
    plan.tidy(output)
    return tally


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
