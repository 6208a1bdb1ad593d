"""Drive an engine process (the real one or the floor) over its pipes and time it."""

from __future__ import annotations

import os
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

from bench.workloads import Workload

ROOT = Path(__file__).resolve().parent.parent
#: The end of every response: an empty line.
END = b"\n\n"
READ_CHUNK = 1 << 16
#: Seconds without a byte of output after which a process counts as hung.
SILENCE_LIMIT = 60.0


def engine_command(log_dir: Path) -> list[str]:
    """Return the command line of the real engine, logging to log_dir."""
    return [sys.executable, str(ROOT / "main.py"), "--log-dir", str(log_dir)]


def floor_command(log_dir: Path) -> list[str]:
    """Return the command line of the floor, logging to log_dir."""
    return [sys.executable, "-m", "bench.floor", "--log-dir", str(log_dir)]


class Peer:
    """A protocol process with its own temporary log folder, removed when it ends."""

    def __init__(self, kind: str, options: Sequence[str] = ()) -> None:
        self.log_dir = Path(tempfile.mkdtemp(prefix=f"cubemate-bench-{kind}-"))
        command = engine_command if kind == "engine" else floor_command
        self.stderr = (self.log_dir / "stderr.txt").open("wb")
        #: When the process was launched, for the start-up benchmark.
        self.started = time.perf_counter()
        self.process = subprocess.Popen(
            [*command(self.log_dir), *options],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
        )
        assert self.process.stdin is not None and self.process.stdout is not None
        self.stdin = self.process.stdin
        self.stdout_fd = self.process.stdout.fileno()
        # Bytes read after the last complete response: the start of the next one.
        self.pending = b""

    def __enter__(self) -> Peer:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    def send(self, data: bytes) -> None:
        """Write lines to the process."""
        self.stdin.write(data)
        self.stdin.flush()

    def receive(self, count: int) -> list[bytes]:
        """Read exactly `count` responses, each without its closing empty line."""
        responses: list[bytes] = []
        data = self.pending
        while True:
            # Responses never hold an empty line, so every END closes exactly one response.
            *complete, data = data.split(END)
            responses.extend(complete)
            if len(responses) >= count:
                break
            ready, _, _ = select.select([self.stdout_fd], [], [], SILENCE_LIMIT)
            if not ready:
                raise RuntimeError(f"no answer for {SILENCE_LIMIT:.0f} s: {self.stderr_text()}")
            chunk = os.read(self.stdout_fd, READ_CHUNK)
            if not chunk:
                raise RuntimeError(f"process ended early: {self.stderr_text()}")
            data += chunk
        self.pending = END.join([*responses[count:], data])
        return responses[:count]

    def cpu_seconds(self) -> float | None:
        """The CPU time the process has run so far, in nanoseconds' precision (Linux's
        /proc/PID/schedstat); None where there is none."""
        try:
            text = Path(f"/proc/{self.process.pid}/schedstat").read_text()
        except OSError:
            return None
        return int(text.split()[0]) / 1e9

    def ask(self, data: bytes, count: int) -> list[bytes]:
        """Send lines and wait for their `count` responses."""
        self.send(data)
        return self.receive(count)

    def stderr_text(self) -> str:
        """Return what the process wrote on stderr so far."""
        self.stderr.flush()
        return (self.log_dir / "stderr.txt").read_text(errors="replace").strip()

    def close(self) -> None:
        """End the process by closing its input, and remove its logs."""
        try:
            self.stdin.close()
            self.process.wait(timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            self.process.kill()
            self.process.wait()
        finally:
            self.stderr.close()
            if self.process.stdout is not None:
                self.process.stdout.close()
            shutil.rmtree(self.log_dir, ignore_errors=True)


@dataclass(frozen=True, slots=True)
class Run:
    """One timed run of a workload through one process."""

    seconds: float
    per_position: tuple[float, ...]
    answers: tuple[bytes, ...]
    errors: tuple[bytes, ...]
    #: Whatever the process said on stderr: warnings, such as a log it could not write.
    stderr: str
    #: The CPU seconds the process ran over the same span as `seconds` (None where unknown):
    #: on a machine shared by many processes, the wall clock also counts their turns.
    cpu: float | None = None

    @property
    def median_latency(self) -> float:
        """The median time of one position, when positions were timed one by one."""
        return statistics.median(self.per_position)


def checkmate_answers(
    responses: list[bytes], per_position: int = 2
) -> tuple[tuple[bytes, ...], tuple[bytes, ...]]:
    """Split responses into the answers to the first line asked of each position (the one
    after set_board: `checkmate`, by default) and any failures."""
    errors = tuple(response for response in responses if not response.startswith(b"="))
    return tuple(responses[1::per_position]), errors


def set_up(peer: Peer, workload: Workload) -> None:
    """Ask the engine's first answer, after the workload's preamble, before any clock starts;
    a refusal there ends the bench."""
    answers = peer.ask(
        workload.preamble_lines() + b"protocol_version\n", 1 + len(workload.preamble)
    )
    refused = [answer for answer in answers if not answer.startswith(b"=")]
    if refused:
        raise RuntimeError(f"{workload.label}: the preamble was refused: {refused[0]!r}")


def throughput(kind: str, workload: Workload) -> Run:
    """Stream the whole workload into a fresh process; time it from first line to last answer.

    Start-up is left out: the clock starts once the process has answered `protocol_version`.
    A thread writes while this one reads, so neither pipe can fill up and stall the other.
    """
    payload = workload.payload()
    count = workload.per_position * len(workload.positions)
    with Peer(kind) as peer:
        set_up(peer, workload)
        writer = threading.Thread(target=peer.send, args=(payload,))
        cpu_start = peer.cpu_seconds()
        start = time.perf_counter()
        writer.start()
        responses = peer.receive(count)
        seconds = time.perf_counter() - start
        cpu_end = peer.cpu_seconds()
        writer.join()
        stderr = peer.stderr_text()
    answers, errors = checkmate_answers(responses, workload.per_position)
    return Run(seconds, (), answers, errors, stderr, cpu_spent(cpu_start, cpu_end))


def latency(kind: str, workload: Workload) -> Run:
    """Send the positions one at a time, waiting for both answers before the next."""
    times: list[float] = []
    responses: list[bytes] = []
    with Peer(kind) as peer:
        set_up(peer, workload)
        cpu_start = peer.cpu_seconds()
        start = time.perf_counter()
        for index in range(len(workload.positions)):
            lines = workload.lines(index)
            begin = time.perf_counter()
            responses.extend(peer.ask(lines, workload.per_position))
            times.append(time.perf_counter() - begin)
        seconds = time.perf_counter() - start
        cpu_end = peer.cpu_seconds()
        stderr = peer.stderr_text()
    answers, errors = checkmate_answers(responses, workload.per_position)
    return Run(seconds, tuple(times), answers, errors, stderr, cpu_spent(cpu_start, cpu_end))


def cpu_spent(start: float | None, end: float | None) -> float | None:
    """The CPU seconds between two readings, if both were had."""
    return None if start is None or end is None else end - start


KINDS = ("engine", "floor")


@dataclass(slots=True)
class Comparison:
    """Every round of one workload through the engine and through the floor."""

    workload: Workload
    #: True: positions one at a time, timed each; False: streamed, timed as a whole.
    one_by_one: bool
    runs: dict[str, list[Run]] = field(default_factory=lambda: {kind: [] for kind in KINDS})

    def cost(self, run: Run) -> float:
        """Seconds per position of one run: its median latency, or its mean when streamed."""
        if self.one_by_one:
            return run.median_latency
        return run.seconds / len(self.workload.positions)

    def median_cost(self, kind: str) -> float:
        """The median over rounds of one process's seconds per position."""
        return statistics.median(self.cost(run) for run in self.runs[kind])

    def rate(self, kind: str) -> float:
        """The median positions per second of one process."""
        return 1.0 / self.median_cost(kind)

    @property
    def ratio(self) -> float:
        """The median over rounds of engine time / floor time within the round."""
        pairs = zip(self.runs["engine"], self.runs["floor"], strict=True)
        return statistics.median(self.cost(engine) / self.cost(floor) for engine, floor in pairs)

    @property
    def cpu_ratio(self) -> float | None:
        """The median over rounds of engine CPU time / floor CPU time within the round: what
        the wall clock's ratio is on an idle machine, little moved by other processes."""
        pairs = [
            (engine.cpu, floor.cpu)
            for engine, floor in zip(self.runs["engine"], self.runs["floor"], strict=True)
        ]
        ratios = [engine / floor for engine, floor in pairs if engine and floor]
        return statistics.median(ratios) if ratios else None

    @property
    def mates(self) -> int:
        """How many positions the engine answered `true` (the same in every round)."""
        return self.runs["engine"][0].answers.count(b"= true")

    def problems(self) -> list[str]:
        """Describe failed commands, stderr output and, for known positions, wrong answers."""
        found: list[str] = []
        for kind, runs in self.runs.items():
            for run in runs:
                found.extend(
                    f"{kind}: {error.decode(errors='replace')[:120]}" for error in run.errors
                )
                if run.stderr:
                    found.append(f"{kind} stderr: {run.stderr[:200]}")
        expected = self.workload.expected
        if expected is not None:
            wanted = [b"= true" if answer else b"= false" for answer in expected]
            for run in self.runs["engine"]:
                wrong = sum(got != want for got, want in zip(run.answers, wanted, strict=True))
                if wrong:
                    found.append(f"engine: {wrong} wrong checkmate answers")
        return sorted(set(found))
