"""The 3D board a player can trust (issue 62), measured through the real page in headless Chromium.

Picking: at the default camera, at 1400 × 900 and 390 × 844, on the cube's 5³ start, Raumschach's
start and a position of a random Raumschach game, every piece of the side to move is selected by
a click on its figure (the point ``window.cubemate3d.pixelOf(cell, "figure")`` gives), and every
one of its legal targets has a visible point that picks it: the pointer there lights that cell
(``hovered()``), and a click there sends the move to that very cell. So that a few hundred target
clicks take seconds, the page's ``play`` requests are held and dropped after the line is read
(the page keeps the piece selected and says the server could not be reached); one move of each
position is let through and checked in the engine. Readability: the pixels of every white figure
are lighter than those of every black one at Raumschach's start, from White's, Black's and the
side's view. The module shares the browser and the server fixtures of tests/test_gui.py.
"""

from __future__ import annotations

import json
import random
import struct
import zlib
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, Route

# The fixtures of tests/test_gui.py, imported to be used by name (their parameters).
# ruff: noqa: F811
from tests.test_gui import (  # noqa: F401
    RAUMSCHACH_START,
    browser,
    engine_board,
    load,
    loaded,
    needs_three,
    post_line,
    post_line_batch,
    server_url,
    settle,
    shared_tab,
    shown_3d,
    wait_until,
)

pytestmark = [pytest.mark.xdist_group("browser"), needs_three]

#: The cube's start on 5³ (rules.md, "The start position").
CUBE_START = (
    "[rnknr,nbqbn,#####,#####,#####],[#####,#####,#####,#####,#####],"
    "[#####,#####,#####,#####,#####],[#####,#####,#####,#####,#####],"
    "[#####,#####,#####,NBQBN,RNKNR]"
)
VIEWPORTS = [(1400, 900), (390, 844)]


def random_position(url: str, plies: int = 16, seed: int = 62) -> str:
    """A position of a Raumschach game of random legal moves (no promotion), from the engine."""
    chooser = random.Random(seed)
    post_line_batch(url, ["new_game 5 raumschach"])
    for _ in range(plies):
        _, answer = post_line(url, "legal_moves")
        moves = [m for m in answer["text"].split() if "=" not in m]
        if not moves:
            break
        post_line(url, f"play {chooser.choice(moves)}")
    return engine_board(url)


@pytest.fixture()
def board_page(shared_tab: Page, server_url: str, request: pytest.FixtureRequest) -> Iterator[Page]:
    """The page in 3D at the viewport asked for, in Play, with nobody for the computer."""
    width, height = request.param
    with loaded(shared_tab, server_url, width, height, view="3d") as page:
        page.check('#mode input[value="play"]')
        yield page


def side_pieces(page: Page) -> list[str]:
    """The cells of the side to move's pieces, as the layers show them."""
    white = page.get_attribute("#turn", "data-side") == "w"
    found: list[str] = page.evaluate(
        """(white) => [...document.querySelectorAll('#boards .cell')]
            .filter((e) => e.dataset.piece
              && (e.dataset.piece === e.dataset.piece.toUpperCase()) === white)
            .map((e) => e.dataset.cell)""",
        white,
    )
    return found


def point(page: Page, cell: str, kind: str) -> dict[str, float] | None:
    """The hook's point that picks `cell`'s figure or square, or None."""
    found: dict[str, float] | None = page.evaluate(
        "([c, k]) => window.cubemate3d.pixelOf(c, k)", [cell, kind]
    )
    return found


def hover(page: Page, at: dict[str, float], cell: str) -> None:
    """Move the pointer to `at` and wait until the view lights `cell` there."""
    page.mouse.move(at["x"], at["y"])
    page.wait_for_function("(c) => window.cubemate3d.hovered() === c", arg=cell)


class PlayLines:
    """Read the page's `play` requests; drop them unless let through."""

    def __init__(self, page: Page) -> None:
        """Route the page's engine requests through `_route`."""
        self.lines: list[str] = []
        self.through = False
        page.route("**/engine", self._route)

    def _route(self, route: Route) -> None:
        body = json.loads(route.request.post_data or "{}")
        lines = body.get("lines") or [body.get("line", "")]
        plays = [line for line in lines if line.startswith("play ")]
        self.lines.extend(plays)
        if plays and not self.through:
            route.abort()
        else:
            route.continue_()


#: In the page, for the piece selected: each legal target's point from the hook, the pointer
#: moved there (the view's own pointermove handler), the cell it lights, a click there (its
#: pointerdown and pointerup handlers), and the page's queue waited for; one answer per target.
SWEEP_TARGETS = """async () => {
  const canvas = document.getElementById("scene-canvas");
  const frame = () => new Promise((r) => requestAnimationFrame(r));
  const tick = () => new Promise((r) => setTimeout(r, 0));
  const idle = async () => { while (document.body.dataset.pending !== "0") await tick(); };
  const hook = window.cubemate3d;
  const out = [];
  const targets = [...document.querySelectorAll("#boards .cell.target")].map((e) => e.dataset.cell);
  for (const target of targets) {
    const at = hook.pixelOf(target, "square") || hook.pixelOf(target, "figure");
    if (!at) { out.push({ target, at: null }); continue; }
    const event = (type) => canvas.dispatchEvent(new PointerEvent(type, {
      clientX: at.x, clientY: at.y, bubbles: true, pointerId: 1, isPrimary: true }));
    event("pointermove");
    await frame();
    const lit = hook.hovered();
    const picked = hook.cellAt(at.x, at.y);
    event("pointerdown");
    event("pointerup");
    await idle();
    const piece = document.querySelector(`[data-cell="${target}"]`).dataset.piece;
    out.push({ target, at, lit, picked, capture: piece !== "", after: hook.hovered() });
  }
  return out;
}"""


def check_picking(page: Page, url: str) -> tuple[int, int]:
    """Select every piece of the side to move by a click on its figure (the mouse, where the
    hook says) and click each of its targets (SWEEP_TARGETS); return (pieces, targets) checked.
    The last target of the last piece is clicked with the mouse and played in the engine."""
    page.evaluate("window.scrollTo(0, 0)")
    shown_3d(page)
    plays = PlayLines(page)
    pieces = side_pieces(page)
    assert pieces
    targets_checked = 0
    last: tuple[str, str, dict[str, float]] | None = None
    for cell in pieces:
        at = point(page, cell, "figure")
        assert at is not None, f"no point picks the figure on {cell}"
        hover(page, at, cell)
        page.mouse.click(at["x"], at["y"])
        wait_until(page, f'[data-cell="{cell}"].sel')
        letter = page.get_attribute(f'[data-cell="{cell}"]', "data-piece")
        before = len(plays.lines)
        swept = page.evaluate(SWEEP_TARGETS)
        expected = []
        for answer in swept:
            target = answer["target"]
            assert answer["at"] is not None, f"no point picks {cell}'s target {target}"
            assert answer["lit"] == answer["picked"] == answer["after"] == target, answer
            expected.append(f"play {letter}{cell}{'x' if answer['capture'] else '-'}{target}")
        assert plays.lines[before:] == expected
        targets_checked += len(swept)
        if swept:
            last = (cell, swept[-1]["target"], at)
        page.mouse.click(at["x"], at["y"])  # the piece put down again
        wait_until(page, f'[data-cell="{cell}"]:not(.sel)')
    assert last is not None
    cell, target, at = last
    plays.through = True
    page.mouse.click(at["x"], at["y"])
    wait_until(page, f'[data-cell="{cell}"].sel')
    spot = point(page, target, "square") or point(page, target, "figure")
    assert spot is not None
    hover(page, spot, target)
    page.mouse.click(spot["x"], spot["y"])
    wait_until(page, "#moves .ply")
    settle(page)
    assert page.get_attribute("body", "data-board") == engine_board(url)
    assert page.get_attribute(f'[data-cell="{target}"]', "data-last-move") == "to"
    return len(pieces), targets_checked


@pytest.mark.parametrize("board_page", VIEWPORTS, indirect=True, ids=["1400", "390"])
def test_every_piece_and_target_is_picked_at_the_cube_start(
    board_page: Page, server_url: str
) -> None:
    """The 5³ start: 10 white pieces by their figures, each target where it is lit."""
    board_page.select_option("#size", "5")
    board_page.click("#new-game")
    settle(board_page)
    assert board_page.get_attribute("body", "data-board") == CUBE_START
    pieces, targets = check_picking(board_page, server_url)
    assert pieces == 10 and targets > 60


@pytest.mark.parametrize("board_page", VIEWPORTS, indirect=True, ids=["1400", "390"])
def test_every_piece_and_target_is_picked_at_the_raumschach_start(
    board_page: Page, server_url: str
) -> None:
    """Raumschach's start: 20 white pieces by their figures, each target where it is lit."""
    board_page.select_option("#variant", "raumschach")
    wait_until(board_page, 'body[data-variant="raumschach"]')
    settle(board_page)
    assert board_page.get_attribute("body", "data-board") == RAUMSCHACH_START
    pieces, targets = check_picking(board_page, server_url)
    assert pieces == 20 and targets > 30


@pytest.mark.parametrize("board_page", VIEWPORTS, indirect=True, ids=["1400", "390"])
def test_every_piece_and_target_is_picked_in_a_random_game(
    board_page: Page, server_url: str
) -> None:
    """A position 16 random plies into a Raumschach game: the same for the side to move."""
    board_page.select_option("#variant", "raumschach")
    wait_until(board_page, 'body[data-variant="raumschach"]')
    settle(board_page)
    position = random_position(server_url)
    load(board_page, position)
    assert board_page.get_attribute("body", "data-board") == position
    pieces, targets = check_picking(board_page, server_url)
    assert pieces >= 10 and targets > 20


def png_pixels(data: bytes) -> tuple[int, int, list[bytes]]:
    """Decode a PNG of 8-bit RGB or RGBA (what Chromium's screenshots are): width, height and
    each row's bytes."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    at, chunks, width, height, channels = 8, b"", 0, 0, 0
    while at < len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        kind, body = data[at + 4 : at + 8], data[at + 8 : at + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and colour in (2, 6)
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            chunks += body
        at += 12 + length
    raw = zlib.decompress(chunks)
    stride = width * channels
    rows: list[bytes] = []
    previous = bytearray(stride)
    for y in range(height):
        method = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for x in range(stride):
            left = line[x - channels] if x >= channels else 0
            up = previous[x]
            corner = previous[x - channels] if x >= channels else 0
            if method == 1:
                line[x] = (line[x] + left) & 255
            elif method == 2:
                line[x] = (line[x] + up) & 255
            elif method == 3:
                line[x] = (line[x] + (left + up) // 2) & 255
            elif method == 4:
                guess = left + up - corner
                pa, pb, pc = abs(guess - left), abs(guess - up), abs(guess - corner)
                pick = left if pa <= pb and pa <= pc else up if pb <= pc else corner
                line[x] = (line[x] + pick) & 255
        rows.append(bytes(line))
        previous = line
    return width, height, rows


def lightness(page: Page, cells: list[str]) -> dict[str, float]:
    """Each cell's figure's lightness (0 … 255) at the hook's point for it, from one screenshot."""
    points = {cell: point(page, cell, "figure") for cell in cells}
    missing = [cell for cell, at in points.items() if at is None]
    assert not missing, f"figures no point picks: {missing}"
    shot = page.screenshot()
    ratio = page.evaluate("window.devicePixelRatio")
    width, _, rows = png_pixels(shot)
    channels = len(rows[0]) // width
    out = {}
    for cell, at in points.items():
        assert at is not None
        x, y = round(at["x"] * ratio), round(at["y"] * ratio)
        r, g, b = rows[y][x * channels : x * channels + 3]
        out[cell] = 0.299 * r + 0.587 * g + 0.114 * b
    return out


@pytest.mark.parametrize("board_page", [(1400, 900)], indirect=True, ids=["1400"])
def test_white_figures_are_lighter_than_black_ones(board_page: Page) -> None:
    """At Raumschach's start, from White's, Black's and the side's view, every white figure's
    pixel is lighter than every black figure's: no level tints or hides them."""
    board_page.select_option("#variant", "raumschach")
    wait_until(board_page, 'body[data-variant="raumschach"]')
    settle(board_page)
    pieces: dict[str, str] = board_page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll('#boards .cell')]
            .filter((e) => e.dataset.piece).map((e) => [e.dataset.cell, e.dataset.piece]))"""
    )
    cells = list(pieces)
    assert len(cells) == 40
    for preset in ("white", "black", "side"):
        board_page.click(f'#camera-presets [data-preset="{preset}"]')
        shown_3d(board_page)
        light = lightness(board_page, cells)
        white = [light[c] for c in cells if pieces[c].isupper()]
        black = [light[c] for c in cells if pieces[c].islower()]
        assert len(white) == len(black) == 20
        assert min(white) > max(black), (preset, min(white), max(black))
