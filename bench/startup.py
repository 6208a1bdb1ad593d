"""Start-up: launching the engine until it answers, against a bare `import structlog`."""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from dataclasses import dataclass

from bench.peer import ROOT, Peer


@dataclass(frozen=True, slots=True)
class StartUp:
    """Median start-up times in seconds."""

    engine: float
    structlog: float
    runs: int

    @property
    def ratio(self) -> float:
        return self.engine / self.structlog


def engine_once() -> float:
    """Time from launching main.py to its answer to `protocol_version`."""
    with Peer("engine") as peer:
        answer = peer.ask(b"protocol_version\n", 1)
        seconds = time.perf_counter() - peer.started
    if answer != [b"= 2"]:
        raise RuntimeError(f"protocol_version answered {answer!r}")
    return seconds


def structlog_once() -> float:
    """Time a Python process that only imports structlog, from launch to exit."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import structlog"], check=True)
    return time.perf_counter() - start


def compile_sources() -> None:
    """Write the engine's bytecode caches, as any ordinary first run does.

    structlog's were written when it was installed; the engine's own are written on its first
    import, unless PYTHONDONTWRITEBYTECODE is set, when every launch would compile them again
    and the comparison would time the compiler.
    """
    import compileall

    compileall.compile_dir(ROOT / "kernel", quiet=1)


def measure(runs: int) -> StartUp:
    """Alternate the two launches `runs` times each and keep the medians."""
    compile_sources()
    engine: list[float] = []
    bare: list[float] = []
    for _ in range(runs):
        engine.append(engine_once())
        bare.append(structlog_once())
    return StartUp(statistics.median(engine), statistics.median(bare), runs)
