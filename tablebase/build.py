"""Building every ending of up to K pieces on the n-cube, smaller endings first (captures lead
into them), each into its file; a table already in the folder (and sound) is kept, so that a
build interrupted and started again goes on where it stopped.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from kernel.tablebase import (
    LARGEST_PIECES,
    SMALLEST_PIECES,
    Table,
    TableError,
    endings,
    file_name,
    letters_of,
    read_table,
)
from tablebase.files import write_table
from tablebase.retrograde import Capture, captures_of, core_captures, solve

Report = Callable[[str], None]


class BuildError(Exception):
    """The build cannot go on: the message names the file or the problem."""


@dataclass
class Built:
    """One table of a build: its name, whether it was built now or kept, and the seconds."""

    name: str
    path: Path
    built: bool
    seconds: float


def compiled_solver() -> Callable[[int, str, list[Capture]], bytearray] | None:
    """Return the compiled solver (kernel/core/retrograde.c) where it was built, else None."""
    try:
        from kernel._core import retrograde
    except ImportError:
        return None

    def solve_compiled(size: int, name: str, captures: list[Capture]) -> bytearray:
        return retrograde(size, letters_of(name), core_captures(captures))

    return solve_compiled


def solve_table(size: int, name: str, captures: list[Capture], compiled: bool = True) -> bytes:
    """Solve one ending: in the compiled core where it was built (and `compiled`), else in
    Python. A task of its own, so that a Dask worker can run it."""
    solver = compiled_solver() if compiled else None
    if solver is not None:
        return bytes(solver(size, name, captures))
    return bytes(solve(size, name, captures))


class Cluster:
    """A Dask cluster solving the endings of one piece count side by side (`--dask`)."""

    def __init__(self, address: str) -> None:
        try:
            from distributed import Client
        except ImportError:
            raise BuildError(
                "--dask needs Dask's distributed package: pip install 'cubemate[dask]'"
            ) from None
        try:
            self.client = Client(address, timeout=30, set_as_default=False)
        except (OSError, TimeoutError, ValueError) as error:
            raise BuildError(f"--dask: cannot reach the scheduler at {address}: {error}") from None

    def solve(
        self, size: int, tasks: list[tuple[str, list[Capture]]], compiled: bool
    ) -> Iterator[tuple[str, bytes]]:
        """Solve every ending given at once; yield each's values, in the order given."""
        futures = [
            (name, self.client.submit(solve_table, size, name, captures, compiled, pure=False))
            for name, captures in tasks
        ]
        for name, future in futures:
            yield name, future.result()

    def close(self) -> None:
        self.client.close()


def build(
    folder: Path,
    size: int,
    pieces: int,
    compiled: bool = True,
    report: Report | None = None,
    dask: str | None = None,
) -> list[Built]:
    """Build (or keep) every table of SMALLEST_PIECES ... `pieces` pieces on the n-cube, on
    this machine, or with `dask` (a scheduler's address) the endings of each piece count
    side by side on the cluster (the same bytes: the solver is deterministic)."""
    if not SMALLEST_PIECES <= pieces <= LARGEST_PIECES:
        raise BuildError(f"--pieces must be {SMALLEST_PIECES} ... {LARGEST_PIECES}, not {pieces}")
    if not 3 <= size <= 31:
        raise BuildError(f"--size must be 3 ... 31, not {size}")
    if folder.exists() and not folder.is_dir():
        raise BuildError(f"{folder}: not a folder")
    folder.mkdir(parents=True, exist_ok=True)
    loaded: dict[str, bytes] = {}

    def load(name: str) -> bytes:
        if name not in loaded:
            loaded[name] = read_table(folder / file_name(name, size), name, size)
        return loaded[name]

    cluster = Cluster(dask) if dask is not None else None
    done: list[Built] = []
    try:
        for count in range(SMALLEST_PIECES, pieces + 1):
            todo = []
            for name in endings(count):
                path = folder / file_name(name, size)
                if not path.exists():
                    path.with_name(path.name + ".part").unlink(missing_ok=True)
                    todo.append(name)
                    continue
                try:
                    read_table(path, name, size)
                except TableError as error:
                    raise BuildError(f"{error}; remove it to build the table again") from None
                done.append(Built(name, path, False, 0.0))
                if report:
                    report(f"{name} on the {size}-cube: kept {path}")
            start = time.perf_counter()
            if cluster is not None:
                if report and todo:
                    report(f"{len(todo)} endings of {count} pieces on the cluster ...")
                tasks = [(name, captures_of(name, load)) for name in todo]
                solved = cluster.solve(size, tasks, compiled)
            else:
                solved = solve_here(size, todo, load, compiled, report)
            for name, values in solved:
                path = write_table(folder, Table(name, size), values)
                seconds = time.perf_counter() - start
                done.append(Built(name, path, True, seconds))
                if report:
                    report(f"{name} on the {size}-cube: {len(values):,} entries in {seconds:.1f} s")
                start = time.perf_counter()
    finally:
        if cluster is not None:
            cluster.close()
    return done


def solve_here(
    size: int,
    names: list[str],
    load: Callable[[str], bytes],
    compiled: bool,
    report: Report | None,
) -> Iterator[tuple[str, bytes]]:
    """Solve endings one after the other in this process."""
    solver = compiled_solver() if compiled else None
    for name in names:
        if report:
            report(f"{name} on the {size}-cube: solving ...")
        captures = captures_of(name, load)
        if solver is not None:
            yield name, bytes(solver(size, name, captures))
        else:
            yield name, bytes(solve(size, name, captures, report))
