"""Building every ending of up to K pieces on the n-cube, smaller endings first (captures lead
into them), each into its file; a table already in the folder (and sound) is kept, so that a
build interrupted and started again goes on where it stopped. The cube's pieces, or another
variant's (`raumschach`: its bishop on the flat diagonals, the unicorn), each variant's files
named apart.
"""

from __future__ import annotations

import fcntl
import os
import stat
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from kernel.cube.variants import VARIANTS
from kernel.tables.tablebase import (
    COMPACT_VERSION,
    CUBE,
    LARGEST_PIECES,
    LARGEST_SIZE,
    SMALLEST_PIECES,
    SMALLEST_SIZE,
    Table,
    TableError,
    check_table,
    endings,
    entries_of,
    file_name,
    letters_of,
    read_table,
    variant_of_tables,
    version_for,
)
from tablebase.files import WriteError, write_table
from tablebase.lean import solve_lean
from tablebase.retrograde import Capture, captures_of, core_captures

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


Solver = Callable[[int, str, list[Capture], str, int], bytearray]


def compiled_solver() -> Solver | None:
    """Return the compiled lean solver (kernel/core/retrograde.c's retrograde_lean) where it
    was built, else None."""
    try:
        from kernel._core import retrograde_lean
    except ImportError:
        return None

    def solve_compiled(
        size: int, name: str, captures: list[Capture], variant: str, version: int
    ) -> bytearray:
        compact = int(version == COMPACT_VERSION)
        return retrograde_lean(size, letters_of(name), core_captures(captures), variant, compact)

    return solve_compiled


def solve_table(
    size: int,
    name: str,
    captures: list[Capture],
    compiled: bool = True,
    variant: str = CUBE,
    version: int = 1,
    report: Report | None = None,
) -> bytearray:
    """Solve one ending by the lean solve (tablebase/lean.py: the values and a bit an entry):
    in the compiled core where it was built (and `compiled`), else in Python. The values are
    the solver's own buffer, not a copy. A task of its own, so that a Dask worker can run it."""
    solver = compiled_solver() if compiled else None
    if solver is not None:
        return solver(size, name, captures, variant, version)
    return solve_lean(size, name, captures, report, variant, version)


def capture_names(name: str) -> set[str]:
    """The smaller endings an ending's captures lead into (bare kings, which have no table,
    left out)."""
    return {capture.name for capture in captures_of(name, lambda _: b"")} - {"KK"}


class SmallerTables:
    """The smaller tables a build reads for captures, each read once, and held only while an
    ending whose captures lead into it is solved: a five-piece ending of 5³ reads a few of
    the 4-piece tables, not all 208 MB of them."""

    def __init__(self, folder: Path, size: int, variant: str, version: int) -> None:
        self.folder, self.size, self.variant, self.version = folder, size, variant, version
        self.loaded: dict[str, bytes] = {}

    def load(self, name: str) -> bytes:
        if name not in self.loaded:
            path = self.folder / file_name(name, self.size, self.variant)
            self.loaded[name] = read_table(path, name, self.size, self.variant, self.version)
        return self.loaded[name]

    def captures(self, name: str) -> list[Capture]:
        """Where capturing each piece of an ending leads, the tables it needs read; the tables
        of the ending before it that this one does not need let go."""
        needed = capture_names(name)
        for other in [other for other in self.loaded if other not in needed]:
            del self.loaded[other]
        return captures_of(name, self.load)


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
        self,
        size: int,
        tasks: list[tuple[str, list[Capture]]],
        compiled: bool,
        variant: str,
        version: int,
    ) -> Iterator[tuple[str, bytearray]]:
        """Solve every ending given at once; yield each's values as its task finishes, each
        let go on the cluster once fetched. In the order they finish rather than the order
        given: a worker holds a task's values until they are fetched, so waiting on a slow
        ending would leave every faster one's (up to 1.45 GB on 5³) piled on the workers."""
        from distributed import as_completed

        names = {
            self.client.submit(
                solve_table, size, name, captures, compiled, variant, version, pure=False
            ): name
            for name, captures in tasks
        }
        tasks.clear()  # the smaller tables are the cluster's now
        for future in as_completed(list(names), loop=self.client.loop):
            name = names.pop(future)
            values = future.result()
            future.release()
            yield name, values
            del values  # written: not held while the next is fetched

    def close(self) -> None:
        self.client.close()


def build(
    folder: Path,
    size: int,
    pieces: int,
    compiled: bool = True,
    report: Report | None = None,
    dask: str | None = None,
    variant: str = CUBE,
    compact: bool = False,
    only: list[str] | None = None,
) -> list[Built]:
    """Build (or keep) every table of SMALLEST_PIECES ... `pieces` pieces on the n-cube, on
    this machine, or with `dask` (a scheduler's address) the endings of each piece count
    side by side on the cluster (the same bytes: the solver is deterministic), under a
    variant's rules; with `compact`, numbered by format version 3's index (issue 52); with
    `only`, of the largest piece count just those endings (the smaller ones all)."""
    try:
        variant_of_tables(variant)
    except ValueError as error:
        raise BuildError(f"--variant: {error}") from None
    rules = VARIANTS[variant]
    if not rules.allows_size(size):
        played = ", ".join(f"{n}×{n}×{n}" for n in rules.sizes or ())
        raise BuildError(f"--size {size}: {variant} is played on {played} only")
    if not SMALLEST_PIECES <= pieces <= LARGEST_PIECES:
        raise BuildError(f"--pieces must be {SMALLEST_PIECES} ... {LARGEST_PIECES}, not {pieces}")
    if not SMALLEST_SIZE <= size <= LARGEST_SIZE:
        raise BuildError(f"--size must be {SMALLEST_SIZE} ... {LARGEST_SIZE}, not {size}")
    if folder.exists() and not folder.is_dir():
        raise BuildError(f"{folder}: not a folder")
    for name in only or []:
        if name not in endings(pieces, variant):
            raise BuildError(f"--endings: {name} is no ending of {pieces} pieces of {variant}")
    missing = [
        name
        for count in range(SMALLEST_PIECES, pieces + 1)
        for name in chosen_endings(count, pieces, variant, only)
        if not os.path.lexists(folder / file_name(name, size, variant))
    ]
    version = version_for(variant, compact)
    check_memory(size, missing, compiled and compiled_solver() is not None, variant, version)
    folder.mkdir(parents=True, exist_ok=True)
    with FolderLock(folder, report):
        return build_locked(folder, size, pieces, compiled, report, dask, variant, version, only)


def chosen_endings(count: int, pieces: int, variant: str, only: list[str] | None) -> list[str]:
    """The endings of `count` pieces a build makes: all of them, or of the largest count
    (`pieces`) those asked for."""
    if only is None or count < pieces:
        return endings(count, variant)
    return [name for name in endings(count, variant) if name in only]


def build_locked(
    folder: Path,
    size: int,
    pieces: int,
    compiled: bool,
    report: Report | None,
    dask: str | None,
    variant: str = CUBE,
    version: int = 1,
    only: list[str] | None = None,
) -> list[Built]:
    """Build, the folder's lock held: every table of one variant, numbered by one version's
    index (a table kept must be too: captures read the smaller tables by it)."""
    smaller = SmallerTables(folder, size, variant, version)
    # How a build's lines name an ending: KQK on the 5-cube, or of Raumschach's KBUK.
    whose = "" if variant == CUBE else f" ({variant})"

    cluster = Cluster(dask) if dask is not None else None
    done: list[Built] = []
    try:
        for count in range(SMALLEST_PIECES, pieces + 1):
            todo = []
            for name in chosen_endings(count, pieces, variant, only):
                path = folder / file_name(name, size, variant)
                if not os.path.lexists(path):  # a link to nothing is something: refused
                    todo.append(name)
                    continue
                try:
                    check_table(path, name, size, variant, version)
                except TableError as error:
                    raise BuildError(f"{error}; remove it to build the table again") from None
                done.append(Built(name, path, False, 0.0))
                if report:
                    report(f"{name} on the {size}-cube{whose}: kept {path}")
            start = time.perf_counter()
            if cluster is not None:
                if report and todo:
                    report(f"{len(todo)} endings of {count} pieces on the cluster ...")
                tasks = [(name, smaller.captures(name)) for name in todo]
                solved = cluster.solve(size, tasks, compiled, variant, version)
            else:
                solved = solve_here(size, todo, smaller, compiled, report, variant, version)
            for name, values in solved:
                try:
                    # The solver's own buffer, not a copy.
                    table = Table(name, size, variant, version)
                    path = write_table(folder, table, values)
                except WriteError as error:
                    raise BuildError(f"{error} (the tables written before it are whole)") from None
                seconds = time.perf_counter() - start
                done.append(Built(name, path, True, seconds))
                if report:
                    report(
                        f"{name} on the {size}-cube{whose}: {len(values):,} entries in "
                        f"{seconds:.1f} s"
                    )
                del values  # written: not held while the next ending is solved
                start = time.perf_counter()
    finally:
        if cluster is not None:
            cluster.close()
    return done


#: Bytes of memory a solve takes for each entry of its ending: the value and a bit an entry
#: (the lean solve, tablebase/lean.py; compiled or in Python alike, the frontier found by
#: scanning the values, no lists). Today's solver (retrograde.py) took 4, 8 in Python.
BYTES_AN_ENTRY = 1.125
#: What the process holds besides: the interpreter, the engine's modules, the rules' tables.
BASE_MEMORY = 200 << 20
#: The name of a folder's lock file (see FolderLock).
LOCK_NAME = ".tablebase-build.lock"


def size_text(count: float) -> str:
    """Write a count of bytes as people read it: 5.8 TB, 543 MB."""
    for unit in ("B", "kB", "MB", "GB", "TB", "PB"):
        if count < 1000:
            return f"{count:.3g} {unit}"
        count /= 1000
    return f"{count:.3g} EB"


def available_memory() -> int | None:
    """The memory this machine has free for a new process (Linux's MemAvailable), else its
    physical memory, else None when neither can be read."""
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):
        return None


def memory_needed(
    size: int, names: list[str], compiled: bool, variant: str = CUBE, version: int = 1
) -> tuple[int, str]:
    """Estimate the most memory a build of these endings takes, and the ending that takes
    it: one ending's solve and the smaller tables its captures lead into (the build holds
    no others: SmallerTables). The same compiled or not (`compiled` kept for the callers)."""
    most, largest = 0, ""
    for name in names:
        kept = sum(entries_of(other, size, version) for other in capture_names(name))
        need = int(BYTES_AN_ENTRY * entries_of(name, size, version)) + kept
        if need > most:
            most, largest = need, name
    return BASE_MEMORY + most, largest


def check_memory(
    size: int, names: list[str], compiled: bool, variant: str = CUBE, version: int = 1
) -> None:
    """Refuse a build that cannot fit in this machine's memory before anything is solved,
    saying the estimate."""
    if not names:
        return
    need, largest = memory_needed(size, names, compiled, variant, version)
    have = available_memory()
    if have is not None and need > have:
        raise BuildError(
            f"{largest} on the {size}-cube needs about {size_text(need)} of memory to solve "
            f"({BYTES_AN_ENTRY} bytes for each of its "
            f"{entries_of(largest, size, version):,} "
            f"entries, with the smaller tables it reads); this machine has {size_text(have)} "
            f"free: build fewer pieces or a smaller size"
        )


class FolderLock:
    """One build at a time in a folder: an advisory lock (flock) on a file of the folder,
    held while the build runs and let go by the system when the process ends however it ends.
    A second build waits for the first, then keeps the tables it finds written."""

    def __init__(self, folder: Path, report: Report | None) -> None:
        self.path = folder / LOCK_NAME
        self.report = report
        self.descriptor = -1

    def __enter__(self) -> FolderLock:
        try:
            self.descriptor = os.open(
                self.path,
                os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC,
                0o644,
            )
        except OSError as error:
            raise BuildError(
                f"{self.path}: cannot make the build's lock: {error.strerror}"
            ) from None
        if not stat.S_ISREG(os.fstat(self.descriptor).st_mode):
            os.close(self.descriptor)
            raise BuildError(f"{self.path}: not the build's lock file; remove it")
        try:
            fcntl.flock(self.descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(self.descriptor, 32, 0).decode("ascii", "replace").strip()
            if self.report:
                self.report(f"another build (pid {holder or '?'}) is writing here; waiting for it")
            fcntl.flock(self.descriptor, fcntl.LOCK_EX)
        os.ftruncate(self.descriptor, 0)
        os.pwrite(self.descriptor, f"{os.getpid()}\n".encode(), 0)
        return self

    def __exit__(self, *exception: object) -> None:
        os.close(self.descriptor)  # lets the lock go; the file stays (removing it would race)


def solve_here(
    size: int,
    names: list[str],
    smaller: SmallerTables,
    compiled: bool,
    report: Report | None,
    variant: str = CUBE,
    version: int = 1,
) -> Iterator[tuple[str, bytearray]]:
    """Solve endings one after the other in this process."""
    whose = "" if variant == CUBE else f" ({variant})"
    for name in names:
        if report:
            report(f"{name} on the {size}-cube{whose}: solving ...")
        captures = smaller.captures(name)
        values = solve_table(size, name, captures, compiled, variant, version, report)
        del captures  # let the next ending's captures read theirs without these
        yield name, values
        del values  # written: not held while the next ending is solved
