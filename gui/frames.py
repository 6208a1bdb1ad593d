"""Time the 3D view in headless Chromium: the first picture, the frames of a turning camera.

Run ``python -m gui.frames [--frames 120] [--width 1400 --height 900]``. It starts
``python -m gui.server --port 0`` with the engine, opens the page as a first visit does (the
start of a game on 5³, 40 pieces, in the 3D view), and prints when the first picture was drawn
after the page began loading, then the median and 90th percentile of the frames while the
camera turns a full circle, each frame timed from the start of its drawing until the pixels
are there (a one-pixel read waits for the software rasteriser). Needs Debian's chromium and
three.js (``make gui``); docs/gui.md has the figures.
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
REPO_ROOT = Path(__file__).resolve().parent.parent


def measure(url: str, frames: int, width: int, height: int) -> tuple[float, list[float]]:
    """Open the page at ``url``; return the first picture's time and the frame times, in ms."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=["--no-sandbox"]
        )
        page = browser.new_context(viewport={"width": width, "height": height}).new_page()
        page.goto(f"{url}?view=3d")
        page.wait_for_selector('body[data-three="ready"]', timeout=30_000)
        page.wait_for_selector('body[data-pending="0"]', timeout=30_000)
        first = float(page.evaluate("document.body.dataset.firstPicture"))
        times: list[float] = page.evaluate(
            """(frames) => {
              for (let k = 0; k < frames; k++) window.cubemate3d.step(2 * Math.PI / frames);
              return window.cubemate3d.frameTimes().slice(-frames);
            }""",
            frames,
        )
        browser.close()
    return first, times


def main(argv: Sequence[str] | None = None) -> int:
    """Start a server, measure, print, stop the server."""
    parser = argparse.ArgumentParser(prog="python -m gui.frames", description=__doc__)
    parser.add_argument("--frames", type=int, default=120, help="frames of a full turn")
    parser.add_argument("--width", type=int, default=1400)
    parser.add_argument("--height", type=int, default=900)
    args = parser.parse_args(argv)
    if not CHROMIUM.exists():
        print("python -m gui.frames: error: needs /usr/bin/chromium", file=sys.stderr)
        return 2
    if not 10 <= args.frames <= 10_000:
        parser.error("--frames must be 10 … 10000")
    server = subprocess.Popen(
        [sys.executable, "-m", "gui.server", "--port", "0"],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        match = re.search(r"http://\S+/", server.stdout.readline())
        if match is None:
            print("python -m gui.frames: error: the server printed no address", file=sys.stderr)
            return 1
        first, times = measure(match.group(0), args.frames, args.width, args.height)
    finally:
        server.terminate()
        server.wait(timeout=30)
    ordered = sorted(times)
    print(f"{args.width}×{args.height}: first picture {first:.0f} ms after the page began loading")
    print(
        f"frames of a turning camera ({len(times)}): median {statistics.median(times):.1f} ms, "
        f"90th percentile {ordered[int(0.9 * (len(ordered) - 1))]:.1f} ms"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
