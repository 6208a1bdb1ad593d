"""The GUI's 3D view in `make bench`: its first picture and its frames, by `python -m gui.frames`.

gui.frames opens the page as a first visit does (a 5³ game's start, 40 pieces, the 3D view) in
headless Chromium with software WebGL and times the first picture and the frames of a camera
turning a full circle (docs/gui.md). It runs as a process of its own, since it starts the GUI
server and the browser; where Chromium or three.js is missing the section says so and sets no
goal.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from bench.report import Goal

REPO = Path(__file__).resolve().parent.parent
#: Issue 50's goals: a frame at most this many milliseconds (median), the first picture within
#: this many after the page began loading.
FRAME_GOAL_MS = 16.0
FIRST_PICTURE_GOAL_MS = 1000.0
#: The viewports measured: a desktop's and a phone's.
VIEWPORTS = ((1400, 900), (390, 844))
FIRST = re.compile(r"first picture ([0-9.]+) ms")
MEDIAN = re.compile(r"median ([0-9.]+) ms")


def measure(width: int, height: int, frames: int) -> tuple[float, float] | str:
    """Run gui.frames once; return the first picture and the median frame in ms, or why not."""
    command = [sys.executable, "-m", "gui.frames", "--frames", str(frames)]
    command += ["--width", str(width), "--height", str(height)]
    try:
        done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return "gui.frames took over 300 s"
    first, median = FIRST.search(done.stdout), MEDIAN.search(done.stdout)
    if done.returncode != 0 or first is None or median is None:
        lines = (done.stderr.strip() or done.stdout.strip() or "no output").splitlines()
        return f"not measured: {lines[-1]}"
    return float(first.group(1)), float(median.group(1))


def section(quick: bool = False) -> tuple[str, list[Goal]]:
    """Measure each viewport; return the section's text and its goals."""
    frames = 20 if quick else 120
    lines = [f"The GUI's 3D view (issue 50): a 5³ start in headless Chromium, {frames} frames"]
    found: list[Goal] = []
    for width, height in VIEWPORTS[:1] if quick else VIEWPORTS:  # quick: the path, once
        result = measure(width, height, frames)
        if isinstance(result, str):
            lines.append(f"{width}×{height}: {result}")
            continue
        first, median = result
        lines.append(
            f"{width}×{height}: first picture {first:.0f} ms, median frame {median:.1f} ms"
        )
        found.append(
            Goal(f"3D frame at {width}×{height}", f"{median:.1f} ms", f"≤ {FRAME_GOAL_MS:g} ms",
                 median <= FRAME_GOAL_MS)
        )  # fmt: skip
        found.append(
            Goal(f"3D first picture at {width}×{height}", f"{first:.0f} ms",
                 f"≤ {FIRST_PICTURE_GOAL_MS:g} ms", first <= FIRST_PICTURE_GOAL_MS)
        )  # fmt: skip
    return "\n".join(lines), found


if __name__ == "__main__":
    text, goals = section("--quick" in sys.argv[1:])
    print(text)
    for goal in goals:
        print(f"{goal.verdict} {goal.name}: {goal.measured} ({goal.limit})")
