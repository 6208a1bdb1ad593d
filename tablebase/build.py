"""Building every ending of up to K pieces on the n-cube, smaller endings first (captures lead
into them), each into its file; a table already in the folder (and sound) is kept, so that a
build interrupted and started again goes on where it stopped.
"""

from __future__ import annotations

import time
from collections.abc import Callable
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


def build(
    folder: Path, size: int, pieces: int, compiled: bool = True, report: Report | None = None
) -> list[Built]:
    """Build (or keep) every table of SMALLEST_PIECES ... `pieces` pieces on the n-cube."""
    if not SMALLEST_PIECES <= pieces <= LARGEST_PIECES:
        raise BuildError(f"--pieces must be {SMALLEST_PIECES} ... {LARGEST_PIECES}, not {pieces}")
    if not 3 <= size <= 31:
        raise BuildError(f"--size must be 3 ... 31, not {size}")
    if folder.exists() and not folder.is_dir():
        raise BuildError(f"{folder}: not a folder")
    folder.mkdir(parents=True, exist_ok=True)
    solver = compiled_solver() if compiled else None
    loaded: dict[str, bytes] = {}

    def load(name: str) -> bytes:
        if name not in loaded:
            loaded[name] = read_table(folder / file_name(name, size), name, size)
        return loaded[name]

    done: list[Built] = []
    for count in range(SMALLEST_PIECES, pieces + 1):
        for name in endings(count):
            path = folder / file_name(name, size)
            if path.exists():
                try:
                    read_table(path, name, size)
                except TableError as error:
                    raise BuildError(f"{error}; remove it to build the table again") from None
                done.append(Built(name, path, False, 0.0))
                if report:
                    report(f"{name} on the {size}-cube: kept {path}")
                continue
            path.with_name(path.name + ".part").unlink(missing_ok=True)
            if report:
                report(f"{name} on the {size}-cube: solving ...")
            start = time.perf_counter()
            table = Table(name, size)
            captures = captures_of(name, load)
            values = (
                solver(size, name, captures)
                if solver is not None
                else solve(size, name, captures, report)
            )
            write_table(folder, table, bytes(values))
            seconds = time.perf_counter() - start
            done.append(Built(name, path, True, seconds))
            if report:
                report(f"{name} on the {size}-cube: {len(values):,} entries in {seconds:.1f} s")
    return done
