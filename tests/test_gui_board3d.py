"""The 3D board a player can trust (issue 62), measured through the real page in headless Chromium.

Picking: at the default camera, at 1400 × 900 and 390 × 844, on the cube's 5³ start, Raumschach's
start and a position of a random Raumschach game, every piece of the side to move is selected by
a click on its figure (the point ``window.cubemate3d.pixelOf(cell, "figure")`` gives), and every
one of its legal targets has a visible point that picks it: the pointer there lights that cell
(``hovered()``), and a click there sends the move to that very cell. So that a few hundred target
clicks take seconds, they are made in the page (the view's own pointer handlers, SWEEP) and the
page's ``play`` requests are read there and refused as a network failure would be (the page
keeps the piece selected and says the server could not be reached); one move of each position
is clicked with the mouse and played in the engine. Readability: the pixels of every white figure
are lighter than those of every black one at Raumschach's start, from White's, Black's and the
side's view. Figures behind figures: from every 30° around and 30°, 60° and 90° from above, on
both starts (white to move in Raumschach, black on 5³), every figure is picked by clicks on
its middle, the clicks there cycling through the figures under it front to back, each lit
before it is clicked; two mouse clicks on c2(II)'s sliver pick the figure in front, then
c2(II), and so do taps on a touch screen. The sweeps read the hover with ``hovered()``,
which runs a pointer move still waiting for its frame, and wait for the page in microtasks, so
that no frame is drawn between their clicks. The module shares the browser and the server
fixtures of tests/test_gui.py.
"""

from __future__ import annotations

import base64
import math
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from tests.sweep import SWEEP as SWEEP_FACTOR

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

pytestmark = [pytest.mark.xdist_group("browser-3d"), needs_three]

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
        # What a test chose and the page keeps (localStorage) is not the next test's.
        page.select_option("#levels-shown", "all")
        page.select_option("#opponent", "none")


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


#: In the page, for each piece of the side to move: the hook's point on its figure, the pointer
#: moved there (the view's own pointermove handler) and the cell lit, a click there (its
#: pointerdown and pointerup handlers) and the piece selected; then for each of its legal
#: targets the same, and the move the click sends. The page's `play` requests are read and
#: refused as a network failure would be (the page keeps the piece selected and says it could
#: not reach the server), so that hundreds of clicks take seconds; one answer per piece.
SWEEP = """async () => {
  const canvas = document.getElementById("scene-canvas");
  const hook = window.cubemate3d;
  const tick = () => new Promise((r) => setTimeout(r, 0));
  const idle = async () => {
    for (let k = 0; document.body.dataset.pending !== "0"; k++) await (k < 200 ? null : tick());
  };
  const cells = (selector) => [...document.querySelectorAll(selector)].map((e) => e.dataset.cell);
  const sent = [];
  const fetched = window.fetch;
  window.fetch = (url, options) => {
    const body = JSON.parse((options && options.body) || "{}");
    const plays = (body.lines || [body.line]).filter((line) => line && line.startsWith("play "));
    if (!plays.length) return fetched(url, options);
    sent.push(...plays);
    return Promise.reject(new TypeError("held by the test"));
  };
  const click = async (cell, kind) => {
    const at = hook.pixelOf(cell, kind);
    if (!at) return { at };
    const event = (type) => canvas.dispatchEvent(new PointerEvent(type, {
      clientX: at.x, clientY: at.y, bubbles: true, pointerId: 1, isPrimary: true }));
    event("pointermove");
    const lit = hook.hovered(), picked = hook.cellAt(at.x, at.y);
    const before = sent.length;
    event("pointerdown");
    event("pointerup");
    await idle();
    return { at, lit, picked, sent: sent.slice(before) };
  };
  const white = document.getElementById("turn").dataset.side === "w";
  const mine = [...document.querySelectorAll("#boards .cell")].filter((e) => e.dataset.piece
    && (e.dataset.piece === e.dataset.piece.toUpperCase()) === white);
  const out = [];
  try {
    for (const el of mine) {
      const cell = el.dataset.cell, piece = el.dataset.piece;
      const select = await click(cell, "figure");
      const selected = cells("#boards .cell.sel");
      const targets = [];
      for (const target of cells("#boards .cell.target")) {
        const capture = document.querySelector(`[data-cell="${target}"]`).dataset.piece !== "";
        const kind = hook.pixelOf(target, "square") ? "square" : "figure";
        targets.push({ target, capture, ...(await click(target, kind)) });
      }
      await click(cell, "figure"); // put down again
      out.push({ cell, piece, select, selected, targets });
    }
  } finally {
    window.fetch = fetched;
  }
  return out;
}"""


def check_picking(page: Page, url: str) -> tuple[int, int]:
    """Select every piece of the side to move by a click on its figure and click each of its
    targets where the hook says (SWEEP); return (pieces, targets) checked. One more move, the
    last target of the last piece, is clicked with the mouse and played in the engine."""
    page.evaluate("window.scrollTo(0, 0)")
    shown_3d(page)
    swept = page.evaluate(SWEEP)
    assert swept
    targets_checked = 0
    for piece in swept:
        cell, select = piece["cell"], piece["select"]
        assert select["at"] is not None, f"no point picks the figure on {cell}"
        assert select["lit"] == select["picked"] == cell, piece
        assert piece["selected"] == [cell]
        for answer in piece["targets"]:
            target = answer["target"]
            assert answer["at"] is not None, f"no point picks {cell}'s target {target}"
            assert answer["lit"] == answer["picked"] == target, answer
            move = f"{piece['piece']}{cell}{'x' if answer['capture'] else '-'}{target}"
            assert answer["sent"] == [f"play {move}"], answer
        targets_checked += len(piece["targets"])
    cell, target = next(
        (p["cell"], p["targets"][-1]["target"]) for p in reversed(swept) if p["targets"]
    )
    at = point(page, cell, "figure")
    assert at is not None
    hover(page, at, cell)
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
    return len(swept), targets_checked


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


#: In the page: decode a screenshot (PNG, base64) with the browser's own decoder and answer
#: the colour at each point asked (CSS pixels; the screenshot is at the device's ratio), and the
#: box of the pixels inside `clip` that differ from the colour at its corner (the background).
READ_SHOT = """async ([png, points, clip]) => {
  const bytes = Uint8Array.from(atob(png), (c) => c.charCodeAt(0));
  const bitmap = await createImageBitmap(new Blob([bytes], { type: "image/png" }));
  const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
  const g = canvas.getContext("2d", { willReadFrequently: true });
  g.drawImage(bitmap, 0, 0);
  const ratio = bitmap.width / window.innerWidth;
  const at = (x, y) => [
    ...g.getImageData(Math.round(x * ratio), Math.round(y * ratio), 1, 1).data.slice(0, 3)];
  const colours = points.map((p) => at(p.x, p.y));
  let box = null;
  if (clip) {
    const [x0, y0, w, h] = clip.map((v) => Math.round(v * ratio));
    const data = g.getImageData(x0, y0, w, h).data;
    const back = data.slice(0, 3); // the view's background, at the clip's corner
    let left = w, right = -1, top = h, bottom = -1;
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) {
      const k = 4 * (y * w + x);
      const off = Math.abs(data[k] - back[0]) + Math.abs(data[k + 1] - back[1])
        + Math.abs(data[k + 2] - back[2]);
      if (off > 12) {
        left = Math.min(left, x); right = Math.max(right, x);
        top = Math.min(top, y); bottom = Math.max(bottom, y);
      }
    }
    box = { left, right, top, bottom, width: w, height: h };
  }
  return { colours, box };
}"""


def read_shot(
    page: Page, points: list[dict[str, float]], clip: list[float] | None = None
) -> dict[str, Any]:
    """A screenshot of the page read back in the page: see READ_SHOT."""
    png = base64.b64encode(page.screenshot()).decode()
    answer: dict[str, Any] = page.evaluate(READ_SHOT, [png, points, clip])
    return answer


def lightness(page: Page, cells: list[str]) -> dict[str, float]:
    """Each cell's figure's lightness (0 … 255) at the hook's point for it, from one screenshot."""
    points = {cell: point(page, cell, "figure") for cell in cells}
    missing = [cell for cell, at in points.items() if at is None]
    assert not missing, f"figures no point picks: {missing}"
    colours = read_shot(page, [at for at in points.values() if at])["colours"]
    return {
        cell: 0.299 * r + 0.587 * g + 0.114 * b
        for cell, (r, g, b) in zip(points, colours, strict=True)
    }


@pytest.mark.parametrize("board_page", [(1400, 900)], indirect=True, ids=["1400"])
def test_white_figures_are_lighter_than_black_ones(board_page: Page) -> None:
    """At Raumschach's start, from White's, Black's, the side's and the top view, every figure
    has a point that picks it, and every white figure's pixel there is lighter than every black
    figure's: no level tints or hides them."""
    board_page.select_option("#variant", "raumschach")
    wait_until(board_page, 'body[data-variant="raumschach"]')
    settle(board_page)
    pieces: dict[str, str] = board_page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll('#boards .cell')]
            .filter((e) => e.dataset.piece).map((e) => [e.dataset.cell, e.dataset.piece]))"""
    )
    cells = list(pieces)
    assert len(cells) == 40
    for preset in ("white", "black", "side", "top"):
        board_page.click(f'#camera-presets [data-preset="{preset}"]')
        shown_3d(board_page)
        light = lightness(board_page, cells)
        white = [light[c] for c in cells if pieces[c].isupper()]
        black = [light[c] for c in cells if pieces[c].islower()]
        assert len(white) == len(black) == 20
        assert min(white) > max(black), (preset, min(white), max(black))


# ---------------------------------------------------------------- the game around the board


def random_record(url: str, plies: int, seed: int = 61) -> tuple[str, str, list[str]]:
    """A record of `plies` random moves (no promotion) from a position a few random plies into
    a Raumschach game, set as a board of its own (so that the record's Start is no start
    position); return the record's text, its start and its moves as the engine wrote them."""
    chooser = random.Random(seed)
    start = random_position(url, plies=6, seed=seed)
    post_line(url, f"set_board {start}")
    played = 0
    for _ in range(plies):
        _, answer = post_line(url, "legal_moves")
        moves = [m for m in answer["text"].split() if "=" not in m]
        if not moves:
            break
        post_line(url, f"play {chooser.choice(moves)}")
        played += 1
    _, record = post_line(url, "printgame long")
    text: str = record["text"].lstrip("\n") + "\n"
    moves = [word for line in text.splitlines() if line[:1].isdigit() for word in line.split()[1:]]
    assert len(moves) == played
    return text, start, moves


def current_in_view(page: Page) -> bool:
    """Whether the move list's current ply lies inside the list's visible box."""
    inside: bool = page.evaluate(
        """() => {
          const list = document.getElementById("moves").getBoundingClientRect();
          const ply = document.querySelector("#moves .current");
          if (!ply) return false;
          const box = ply.getBoundingClientRect();
          return box.top >= list.top - 1 && box.bottom <= list.bottom + 1;
        }"""
    )
    return inside


@pytest.mark.parametrize("board_page", [(1400, 900)], indirect=True, ids=["1400"])
def test_the_move_list_follows_a_record_and_the_game_survives_a_reload(
    board_page: Page, server_url: str, tmp_path: Path
) -> None:
    """A record of 120 plies opened and taken to its end (▶|) in one exchange: its last move is
    the current one, marked and scrolled into the list's view; a click on its fifth ply goes
    back there, the later plies still listed; after a reload the five moves, the record's
    place, Undo and the engine's record with the record's real Start are there again."""
    page = board_page
    text, start, moves = random_record(server_url, 120)
    assert len(moves) == 120
    path = tmp_path / "long.txt"
    path.write_text(text, encoding="utf-8")
    page.set_input_files("#record-file", str(path))
    wait_until(page, "#replay:not([hidden])")
    settle(page)
    page.click("#replay-end")
    wait_until(page, '#replay[data-ply="120"]')
    settle(page)
    assert page.locator("#moves .ply").count() == 120
    assert page.get_attribute("#moves .current", "data-ply") == "120"
    assert current_in_view(page)
    assert page.get_attribute("body", "data-board") == engine_board(server_url)
    page.click('#moves [data-ply="5"]')
    wait_until(page, '#replay[data-ply="5"]')
    settle(page)
    assert page.locator("#moves .ply").count() == 5
    assert page.locator("#moves .ahead").count() == 115
    assert page.get_attribute("#moves .current", "data-ply") == "5"
    assert current_in_view(page)
    board = page.get_attribute("body", "data-board")
    page.goto(f"{server_url}?view=3d&pause=0")  # a reload, at the position left
    wait_until(page, '#replay[data-ply="5"]')
    settle(page)
    assert page.get_attribute("body", "data-board") == board == engine_board(server_url)
    assert moves_of(page) == [f"{m}" for m in moves[:5]]
    assert page.is_enabled("#undo")
    _, record = post_line(server_url, "printgame long")
    assert f"Start: {start if ' ' in start else start + ' w'}" in record["text"]
    page.click("#undo")
    wait_until(page, '#replay[data-ply="4"]')
    settle(page)
    assert moves_of(page) == moves[:4]
    assert page.get_attribute("body", "data-board") == engine_board(server_url)


def moves_of(page: Page) -> list[str]:
    """The move list's played plies, long, as the engine names them."""
    return [str(ply.get_attribute("data-long")) for ply in page.locator("#moves .ply").all()]


@pytest.mark.parametrize("board_page", [(1400, 900)], indirect=True, ids=["1400"])
def test_camera_presets_frame_the_levels_shown(board_page: Page) -> None:
    """White's, Black's, the top and the side view each frame the levels shown: the drawing
    keeps off the canvas's edges and spans most of its width or height; one level shown fills
    it too; the person playing Black gets Black's view on Reset."""
    page = board_page
    page.select_option("#size", "5")  # an empty 5³ board: nothing covers a square
    settle(page)
    shown_3d(page)

    def spread() -> float:
        """The share of the canvas's width or height the drawing spans (0 … 1), after checking
        that it keeps off every edge of the canvas (a margin of 2 % at least)."""
        canvas = page.locator("#scene-canvas").bounding_box()
        assert canvas is not None
        inset = 12  # inside the view's rounded corners
        clip = [canvas["x"] + inset, canvas["y"] + inset]
        clip += [canvas["width"] - 2 * inset, canvas["height"] - 2 * inset]
        box = read_shot(page, [], clip)["box"]
        width, height = box["width"], box["height"]
        assert box["left"] > 0.02 * width and box["right"] < 0.98 * width, box
        assert box["top"] > 0.02 * height and box["bottom"] < 0.98 * height, box
        return float(
            max((box["right"] - box["left"]) / width, (box["bottom"] - box["top"]) / height)
        )

    thetas = {}
    for preset in ("white", "black", "top", "side"):
        page.click(f'#camera-presets [data-preset="{preset}"]')
        shown_3d(page)
        thetas[preset] = page.evaluate("window.cubemate3d.camera()")
        assert spread() > 0.6, preset
    assert abs(thetas["black"]["theta"] - thetas["white"]["theta"]) == pytest.approx(3.14159, 1e-3)
    assert thetas["top"]["phi"] < 0.35  # from above, 17° towards the player
    page.select_option("#levels-shown", "one")
    page.select_option("#level-from", "3")
    page.click('#camera-presets [data-preset="white"]')
    shown_3d(page)
    assert spread() > 0.5  # a flat board seen at 30°, its coordinates and its name beside it
    page.click('#camera-presets [data-preset="side"]')
    page.select_option("#opponent", "white")  # the person plays Black: the board turns
    settle(page)
    shown_3d(page)
    assert page.evaluate("window.cubemate3d.camera()")["theta"] == pytest.approx(
        thetas["black"]["theta"], abs=1e-6
    )
    page.click('#camera-presets [data-preset="side"]')
    page.click("#camera-reset")  # and Reset turns it there again
    shown_3d(page)
    assert page.evaluate("window.cubemate3d.camera()")["theta"] == pytest.approx(
        thetas["black"]["theta"], abs=1e-6
    )


#: A 3³ board with white to move: the rook a1(I) may go to a2(I).
ROOK_BOARD = "[k##,###,###],[###,###,###],[###,###,R#K]"


@pytest.mark.parametrize("board_page", [(1400, 900)], indirect=True, ids=["1400"])
def test_keyboard_play_in_3d(board_page: Page, server_url: str) -> None:
    """Tab once and Enter reach the 3D board; W moves the cursor a rank up, D a file right,
    R a level up, F down; Enter selects the rook and plays it, the rook glides to its cell and
    the move stays marked; the cell under the pointer is named above the board."""
    page = board_page
    load(page, ROOK_BOARD)
    page.goto(f"{server_url}?view=3d&pause=0")  # the position left, the focus at the start
    shown_3d(page)
    wait_until(page, 'body[data-mode="play"]')
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "skip"
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "scene-canvas"
    page.keyboard.press("Enter")  # the cursor starts on a1(I): the rook
    wait_until(page, '[data-cell="a1(I)"].sel')
    assert page.inner_text("#cell-name") == ""  # no pointer over the board yet
    for key in ("r", "f", "d", "a", "w"):
        page.keyboard.press(key)
    assert page.inner_text("#cell-name") == "a2(I)"
    page.evaluate(
        """() => { window.glides = []; new MutationObserver(() => window.glides.push(
            document.getElementById("scene-canvas").dataset.gliding)).observe(
            document.getElementById("scene-canvas"), { attributeFilter: ["data-gliding"] }); }"""
    )
    page.keyboard.press("Enter")
    wait_until(page, "#moves .ply")
    settle(page)
    page.wait_for_function("() => window.glides.join() === '1,0'")  # the rook glided, and arrived
    assert page.inner_text("#moves") == "1. Ra2(I)"
    assert engine_board(server_url) == "[k##,###,###],[###,###,###],[###,R##,##K] b"
    assert page.get_attribute('[data-cell="a2(I)"]', "data-last-move") == "to"
    at = point(page, "a3(III)", "figure")
    assert at is not None
    hover(page, at, "a3(III)")
    assert page.inner_text("#cell-name") == "a3(III) · black king"


def test_the_phone_shows_the_board_the_verdict_and_the_last_moves(
    browser: Browser, server_url: str
) -> None:
    """At 390 × 844 a first visit's header is compact, and the 3D board, the verdict and the
    move list (with the last move played) lie on the first screen."""
    context = browser.new_context(viewport={"width": 390, "height": 844})
    try:
        page = context.new_page()
        page.goto(f"{server_url}?pause=0")
        shown_3d(page)
        wait_until(page, '#verdict[data-state="normal"]')
        page.select_option("#opponent", "none")
        page.evaluate("window.scrollTo(0, 0)")  # choosing scrolled the menu into view
        at = point(page, "b1(I)", "figure")
        assert at is not None
        page.mouse.click(at["x"], at["y"])
        wait_until(page, '[data-cell="b1(I)"].sel')
        spot = point(page, "c3(I)", "square")
        assert spot is not None
        page.mouse.click(spot["x"], spot["y"])
        wait_until(page, "#moves .ply")
        settle(page)
        header = page.locator("header").bounding_box()
        assert header is not None and header["height"] <= 80
        for selector in ("#scene-canvas", "#verdict", "#moves .current"):
            box = page.locator(selector).bounding_box()
            assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 844, selector
    finally:
        context.close()


# ---------------------------------------------------------------- figures behind figures

#: The camera's angles of the sweep, in degrees: theta around the vertical (0: from rank 1's
#: side) every 30°, phi from straight above at 30° (where c2(II) of Raumschach's start kept a
#: sliver of 2 px at theta 150° before clicks cycled), 60° and 90° (the levels edge on, rows of
#: five figures in line). With CUBEMATE_SWEEP every 15° around and from 1° to 179° of tilt (the
#: controls' whole range).
SWEEP_THETAS = range(0, 360, 15 if SWEEP_FACTOR > 1 else 30)
SWEEP_PHIS = (
    (1, 15, 30, 45, 60, 75, 90, 105, 120, 135, 150, 165, 179) if SWEEP_FACTOR > 1 else (30, 60, 90)
)

#: In the page, at each camera angle asked (radians), for each figure: the hook's point on it
#: (`pixelOf(cell, "stack")`, nearest the figure's middle), the figures under that point
#: (`figuresAt`) and what a click there picks (`cellAt`). Where the figure lies behind others,
#: the pointer is moved there (the view's own handlers) and clicks there follow until one picks
#: it, at most as many as figures lie there, each with the cell lit before it (`hovered()`),
#: the cell the hook says it picks (`cellAt`) and the selection after it. Before a click that
#: would send a move or put the selected piece down (a click on the other side's figure, or on
#: the selected one), Escape clears the selection: a click on the other side's figure then only
#: says whose move it is. Where the last click was within 4 px, the pointer leaves the view
#: first, so that each figure's clicks begin afresh.
STACK_SWEEP = """(angles) => {
  const canvas = document.getElementById("scene-canvas");
  const hook = window.cubemate3d;
  const fire = (type, at) => canvas.dispatchEvent(new PointerEvent(type, {
    clientX: at.x, clientY: at.y, bubbles: true, pointerId: 1, isPrimary: true }));
  const escape = () => document.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape" }));
  const selected = () => [...document.querySelectorAll("#boards .cell.sel")]
    .map((e) => e.dataset.cell);
  const white = document.getElementById("turn").dataset.side === "w";
  const own = new Set([...document.querySelectorAll("#boards .cell")].filter((e) => e.dataset.piece
    && (e.dataset.piece === e.dataset.piece.toUpperCase()) === white).map((e) => e.dataset.cell));
  const figures = [...document.querySelectorAll("#boards .cell")].filter((e) => e.dataset.piece)
    .map((e) => e.dataset.cell);
  const out = [];
  let last = { x: -99, y: -99 };
  for (const [theta, phi] of angles) {
    hook.camera(theta, phi);
    fire("pointerleave", last);
    const rows = figures.map((cell) => {
      const at = hook.pixelOf(cell, "stack");
      return { theta, phi, cell, own: own.has(cell), at, clicks: [],
               stack: at ? hook.figuresAt(at.x, at.y) : [], picks: at && hook.cellAt(at.x, at.y) };
    });
    out.push(...rows);
    for (const row of rows) {
      if (!row.at || row.stack.indexOf(row.cell) < 1) continue;
      const at = row.at;
      if (Math.hypot(at.x - last.x, at.y - last.y) <= 4) fire("pointerleave", at);
      fire("pointermove", at);
      for (let k = 0; k < row.stack.length; k++) {
        const lit = hook.hovered(), picks = hook.cellAt(at.x, at.y);
        const now = selected();
        if (now.length && (!own.has(lit) || now.includes(lit))) escape();
        fire("pointerdown", at);
        fire("pointerup", at);
        last = at;
        row.clicks.push({ lit, picks, selected: selected() });
        if (picks === row.cell) break;
      }
    }
  }
  return { rows: out, own: [...own] };
}"""


def sweep_stacks(page: Page, variant: str) -> list[dict[str, Any]]:
    """Every figure at every angle of the sweep (STACK_SWEEP), checked: it has a point with it
    under the pointer; in front there, a click there picks it; behind others, the clicks there
    pick the figures under it front to back until it, each the cell lit before it, and each
    piece of the side to move among them is selected by its click. Return the rows."""
    angles = [[math.radians(t), math.radians(p)] for p in SWEEP_PHIS for t in SWEEP_THETAS]
    swept: dict[str, Any] = page.evaluate(STACK_SWEEP, angles)
    rows: list[dict[str, Any]] = swept["rows"]
    own = set(swept["own"])
    for row in rows:
        where = f"{variant} {row['cell']} at theta {math.degrees(row['theta']):.0f}°"
        where += f", phi {math.degrees(row['phi']):.0f}°"
        assert row["at"] is not None, f"{where}: no point has the figure under it"
        stack, clicks = row["stack"], row["clicks"]
        assert row["cell"] in stack, (where, stack)
        assert row["picks"] == stack[0], (where, row)
        if stack[0] == row["cell"]:
            continue
        assert [c["lit"] for c in clicks] == [c["picks"] for c in clicks], (where, row)
        assert [c["picks"] for c in clicks] == stack[: stack.index(row["cell"]) + 1], (where, row)
        for click in clicks:
            mine = [click["picks"]] if click["picks"] in own else []
            assert click["selected"] == mine, (where, row)
    return rows


@pytest.mark.parametrize("board_page", [(1400, 900)], indirect=True, ids=["1400"])
def test_every_figure_is_picked_from_every_angle(board_page: Page) -> None:
    """Raumschach's start (white to move) and the 5³ start (black to move), the camera at
    every 30° around and 30°, 60° and 90° from above: every figure has a point under which it
    lies; there a click picks it, or, behind others, the clicks pick the figures under it front
    to back until it, each what the pointer lit before it, the side to move's pieces selected.
    Before clicks cycled, a figure hidden but for a sliver (c2(II) at theta 150°, phi 30°) had
    no point that picked it."""
    page = board_page
    page.select_option("#variant", "raumschach")
    wait_until(page, 'body[data-variant="raumschach"]')
    settle(page)
    shown_3d(page)
    rows = sweep_stacks(page, "raumschach")
    page.select_option("#variant", "cube")
    settle(page)
    load(page, f"{CUBE_START} b")  # black to move: black's pieces are the ones selected here
    assert page.get_attribute("body", "data-board") == f"{CUBE_START} b"
    assert page.get_attribute("#turn", "data-side") == "b"
    rows += sweep_stacks(page, "5³")
    assert len(rows) == 60 * len(SWEEP_THETAS) * len(SWEEP_PHIS)
    clicks = [max(1, len(row["clicks"])) for row in rows]
    # The sweep reaches figures behind others: c2(II) where it kept 2 px, and deeper ones.
    c2 = next(
        r
        for r in rows
        if r["cell"] == "c2(II)"
        and round(math.degrees(r["theta"])) == 150
        and round(math.degrees(r["phi"])) == 30
    )
    assert len(c2["clicks"]) == 2, c2
    assert max(clicks) >= 3
    page.click("#camera-reset")  # the camera kept for the next test is the default one


@pytest.mark.parametrize("board_page", [(1400, 900)], indirect=True, ids=["1400"])
def test_a_click_again_picks_the_figure_behind(board_page: Page) -> None:
    """Raumschach's start from theta 150°, phi 30° (from Black's side, high), where white's
    c2(II) lies behind black's d4(IV) but for a sliver, clicked with the mouse on c2(II)'s
    middle: the pointer lights d4(IV) and the corner says what a click again picks; a click
    there says it is white's move, and the pointer then lights c2(II), saying so. Moving the
    pointer off the spot and back, or turning the camera and back, starts afresh (d4(IV) lit
    again); two clicks select c2(II), and the pointer lights d4(IV) again."""
    page = board_page
    page.select_option("#variant", "raumschach")
    wait_until(page, 'body[data-variant="raumschach"]')
    settle(page)
    page.evaluate(f"window.cubemate3d.camera({math.radians(150)}, {math.radians(30)})")
    shown_3d(page)
    assert point(page, "c2(II)", "figure") is None  # no point picks it at a first click
    at = point(page, "c2(II)", "stack")
    assert at is not None
    x, y = at["x"], at["y"]
    assert page.evaluate(f"window.cubemate3d.figuresAt({x}, {y})") == ["d4(IV)", "c2(II)"]
    hover(page, at, "d4(IV)")
    corner = "#cell-name"
    front = "d4(IV) · black pawn · 1 of 2 here, click again: c2(II)"
    back = "c2(II) · white pawn · 2 of 2 here, click again: d4(IV)"
    assert page.inner_text(corner) == front
    page.mouse.click(x, y)
    page.wait_for_function("() => window.cubemate3d.hovered() === 'c2(II)'")
    assert page.inner_text("#message") == "it is white's move: click a white piece"
    assert page.inner_text(corner) == back
    page.mouse.move(x + 10, y)
    hover(page, at, "d4(IV)")  # back on the spot: afresh
    assert page.inner_text(corner) == front
    page.mouse.click(x, y)
    assert page.evaluate("window.cubemate3d.hovered()") == "c2(II)"
    page.keyboard.press("ArrowLeft")  # the click put the focus on the view
    page.keyboard.press("ArrowRight")
    assert page.evaluate("window.cubemate3d.hovered()") == "d4(IV)"
    page.mouse.click(x, y)
    page.mouse.click(x, y)
    wait_until(page, '[data-cell="c2(II)"].sel')
    assert page.evaluate("window.cubemate3d.hovered()") == "d4(IV)"
    assert page.inner_text(corner) == front
    page.click("#camera-reset")  # the camera kept for the next test is the default one


def test_taps_again_pick_the_figure_behind(browser: Browser, server_url: str) -> None:
    """On a 390 × 844 touch screen, Raumschach's start from theta 150°, phi 30°: taps on the
    middle of c2(II), which lies behind another figure, go through the figures there (the
    finger's lift, which leaves the view, does not start afresh) and select c2(II); after each
    tap the cell lit and the corner name the figure the next tap picks (a phone has no hover
    to show it), until a turn of the camera starts afresh."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True)
    try:
        page = context.new_page()
        page.goto(f"{server_url}?pause=0&view=3d")
        shown_3d(page)
        page.select_option("#opponent", "none")
        page.check('#mode input[value="play"]')
        page.select_option("#variant", "raumschach")
        wait_until(page, 'body[data-variant="raumschach"]')
        settle(page)
        page.evaluate("window.scrollTo(0, 0)")
        page.evaluate(f"window.cubemate3d.camera({math.radians(150)}, {math.radians(30)})")
        shown_3d(page)
        at = point(page, "c2(II)", "stack")
        assert at is not None
        stack = page.evaluate(f"window.cubemate3d.figuresAt({at['x']}, {at['y']})")
        assert stack.index("c2(II)") >= 1, stack
        behind = stack.index("c2(II)")
        for taps in range(1, behind + 1):
            page.touchscreen.tap(at["x"], at["y"])
            following = stack[taps]
            assert page.evaluate("window.cubemate3d.hovered()") == following
            corner = page.inner_text("#cell-name")
            assert corner.startswith(f"{following} · "), corner
            assert f" · {taps + 1} of {len(stack)} here, click again: " in corner, corner
            assert page.evaluate(f"window.cubemate3d.cellAt({at['x']}, {at['y']})") == following
        page.touchscreen.tap(at["x"], at["y"])
        wait_until(page, '[data-cell="c2(II)"].sel')
        # A turn of the camera: the next tap there picks afresh, and the hint goes.
        page.evaluate(f"window.cubemate3d.camera({math.radians(120)}, {math.radians(30)})")
        assert page.evaluate("window.cubemate3d.hovered()") is None
        assert page.inner_text("#cell-name") == ""
    finally:
        context.close()
