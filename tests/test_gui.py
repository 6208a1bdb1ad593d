"""Drive the GUI in a real headless Chromium against the real engine.

The module starts ``python -m gui.server --port 0`` itself, with the engine's logs in a temporary
folder, and stops it at the end. One browser and one tab serve the tests: each test loads the
page afresh in the tab (a new document, so nothing of the page's state survives; the routes a
test set are taken off after it), which costs a fraction of a new tab. A test that installs a
fake clock gets a tab in a context of its own, since the clock stays with its context. It is
skipped when ``/usr/bin/chromium`` is missing. The tests wait for page states (the page counts
its engine jobs in ``body[data-pending]``), looked up every 20 ms, never for fixed times; where a
race must be provoked, the engine's answers are held back with a route. The screenshots of docs/
are written to a temporary folder, and to docs/ only when ``CUBEMATE_REFRESH_SCREENSHOTS=1`` asks
for them.

The edit pause: the page sends an edit to the engine once 300 ms pass without another
(docs/gui.md), and ``?pause=MS`` in its address sets that pause. The tests about the pause run
with it, on a paused clock: test_no_refusal_flashes_while_cycling at the bare address (the
user's 300 ms, to the millisecond), test_the_address_sets_the_edit_pause with 0 and 1000 ms, and
test_a_pause_the_page_cannot_take_is_named with values it refuses (the default kept). Every other
test loads the page with ``?pause=0``, which sends each edit at once instead of merging the
edits of 300 ms into one. What they check holds either way, so they prove the same 300 ms sooner
per edit: each waits for the page to settle before it asserts; an edit made while an earlier one
is unanswered still queues behind it and a late answer is still dropped (the races below provoke
that on purpose); and where a test counts what reached the engine (one set_board per click), no
pause can merge a double send away.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import queue
import re
import shlex
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Literal

import pytest

from tests.conftest import CHROMIUM

if not CHROMIUM.exists():
    pytest.skip(
        "GUI tests need Debian's chromium at /usr/bin/chromium (apt-get install chromium)",
        allow_module_level=True,
    )

from playwright.sync_api import (
    Browser,
    Error,
    Page,
    Request,
    Route,
    sync_playwright,
)
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from kernel.compiled import COMPILED
from tablebase.build import build
from tests.cases import REFERENCE_CASES, ReferenceCase
from tests.conftest import claim_one_worker

# One browser and one server for the module: its tests stay on one pytest-xdist worker.
pytestmark = pytest.mark.xdist_group("browser")

REPO_ROOT = Path(__file__).resolve().parent.parent
DOCS = REPO_ROOT / "docs"
#: The engine's settings under the GUI (its thinking on stderr), as `make gui` starts it.
GUI_CONFIG = REPO_ROOT / "gui" / "engine_config.toml"
#: Set to 1 to write the screenshots into docs/ instead of a temporary folder.
REFRESH_SCREENSHOTS = "CUBEMATE_REFRESH_SCREENSHOTS"
BROWSER_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
EMPTY_3 = "[###,###,###],[###,###,###],[###,###,###]"
TWO_WHITE_KINGS = "[K#,##],[##,K#]"
# rules.md, "Both sides": black to move mates in 2 by exactly two keys.
MATE_IN_2 = "[###,#k#,#b#],[##b,###,###],[r##,##K,###] b"
MATE_IN_2_KEYS = ["bb1(III)-a2(II)", "bb1(III)-c2(II)"]
MATE_IN_2_EXAMPLE = "11"  # its value in the examples menu
SETTLE_MS = 30_000  # generous: two cores shared with other work
#: How long one look-up of a wait may last, in ms: under 250, Playwright looks every 20 ms.
LOOK_MS = 240
#: The edit pause of the pages whose tests are not about it (the module's docstring says why).
NO_PAUSE = 0
#: The page's edit pause at its bare address (gui/index.html).
DEFAULT_PAUSE_MS = 300


def start_server(
    logs: Path, *engine_args: str, server_args: tuple[str, ...] = ()
) -> tuple[subprocess.Popen[str], str]:
    """Start the GUI server on a free port with a real engine (``engine_args`` added to its
    command line; the GUI's own config when there are none; ``server_args`` to the server's);
    return the process and the URL it prints."""
    options = engine_args or ("--config", str(GUI_CONFIG))
    engine = shlex.join([sys.executable, "main.py", "--log-dir", str(logs), *options])
    process = subprocess.Popen(
        [sys.executable, "-m", "gui.server", "--port", "0", "--engine", engine, *server_args],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    stdout = process.stdout
    assert stdout is not None
    lines: queue.Queue[str] = queue.Queue()
    # Read in a thread so a server that never prints fails the test instead of hanging it.
    threading.Thread(target=lambda: lines.put(stdout.readline()), daemon=True).start()
    first = lines.get(timeout=30)
    # The address ends its line, so that a terminal makes all of it (and only it) a link.
    match = re.search(r"http://127\.0\.0\.1:(\d+)/$", first.rstrip("\n"))
    if not match:
        process.kill()
        _, err = process.communicate(timeout=10)
        raise AssertionError(f"server did not print its address: {first!r} {err!r}")
    return process, match.group(0)


def stop_server(process: subprocess.Popen[str]) -> tuple[int, str]:
    """Stop the server with SIGTERM; return its exit code and what it wrote on stderr."""
    process.send_signal(signal.SIGTERM)
    try:
        _, errors = process.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        _, errors = process.communicate()
    return process.returncode, errors


@pytest.fixture(scope="module")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Start the GUI server on a free port with a real engine; yield its URL; stop it."""
    process, url = start_server(tmp_path_factory.mktemp("engine-logs"))
    try:
        yield url
    finally:
        code, errors = stop_server(process)
    # SIGTERM must end in a clean exit, which is where the server stops its engine.
    assert code == 0, errors


@contextlib.contextmanager
def launched_browser() -> Iterator[Browser]:
    """Launch the system Chromium headless; close it at the end."""
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=BROWSER_ARGS
        )
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def browser(request: pytest.FixtureRequest) -> Iterator[Browser]:
    """Launch the system Chromium headless, once for the module (and its xdist group)."""
    claim_one_worker(request)
    with launched_browser() as chromium:
        yield chromium


@contextlib.contextmanager
def opened_tab(browser: Browser) -> Iterator[Page]:
    """Open a tab in a browser context of its own; close both at the end."""
    context = browser.new_context()
    try:
        yield context.new_page()
    finally:
        context.close()


#: The listeners the present test added to each tab (by id), taken off when `loaded` ends.
TEST_LISTENERS: dict[int, list[tuple[Literal["request", "response"], Callable[[Any], None]]]] = {}


def listen(
    tab: Page, event: Literal["request", "response"], handler: Callable[[Any], None]
) -> None:
    """Call `handler` on each `event` of the tab for the rest of the present test."""
    tab.on(event, handler)
    TEST_LISTENERS.setdefault(id(tab), []).append((event, handler))


@contextlib.contextmanager
def loaded(
    tab: Page,
    url: str,
    width: int = 1280,
    height: int = 800,
    pause: int | str | None = NO_PAUSE,
    view: str = "layers",
) -> Iterator[Page]:
    """Load the GUI afresh in ``tab`` at the viewport given: a new document, so nothing of an
    earlier one's state is kept. ``pause`` is the edit pause in ms (``?pause=`` in the address;
    None leaves it out, the user's 300 ms); the page opens on the editor's empty 3³ board
    (``board=empty``) in the view given (``view=``). Fail on any script error; take the test's
    routes and listeners (`listen`) off at the end."""
    errors: list[str] = []

    def note(error: Error) -> None:
        errors.append(str(error))

    tab.set_viewport_size({"width": width, "height": height})
    tab.on("pageerror", note)
    try:
        tab.goto(f"{url}?{address(pause, view)}")
        tab.wait_for_selector('[data-cell="a1(I)"]', state="attached")
        yield tab
    finally:
        tab.remove_listener("pageerror", note)
        for event, handler in TEST_LISTENERS.pop(id(tab), []):
            tab.remove_listener(event, handler)
        tab.unroute_all(behavior="ignoreErrors")
    assert errors == [], f"script errors on the page: {errors}"


def address(pause: int | str | None = NO_PAUSE, view: str = "layers") -> str:
    """The page's address options: the empty board, the view, and the edit pause if given."""
    options = f"board=empty&view={view}"
    return options if pause is None else f"{options}&pause={pause}"


@contextlib.contextmanager
def open_page(browser: Browser, url: str, pause: int | str | None = NO_PAUSE) -> Iterator[Page]:
    """Load the GUI at 1280 × 800 in a tab of a fresh context, for a test that installs a fake
    clock (which stays with its context)."""
    with opened_tab(browser) as tab, loaded(tab, url, pause=pause) as page:
        yield page


@pytest.fixture(scope="module")
def shared_tab(browser: Browser) -> Iterator[Page]:
    """The tab the module's tests share, each loading the GUI afresh in it (a new tab costs a
    renderer process, about half a CPU-second; a new document a fraction of that)."""
    with opened_tab(browser) as opened:
        yield opened


@pytest.fixture()
def page(shared_tab: Page, server_url: str) -> Iterator[Page]:
    """Load the GUI afresh at 1280 × 800, sending every edit at once."""
    with loaded(shared_tab, server_url) as fresh:
        yield fresh


class Holder:
    """Hold the page's requests to one path (the engine's, unless told) back until released,
    to provoke races on purpose."""

    def __init__(self, page: Page, path: str = "/engine") -> None:
        """Start holding every request to `path`."""
        self.page = page
        self.held: list[Route] = []
        self.holding = True
        page.route(f"**{path}", self._route)

    def _route(self, route: Route) -> None:
        """Keep a request while holding, else let it through."""
        if self.holding:
            self.held.append(route)
        else:
            route.continue_()

    def release(self) -> None:
        """Let the held requests and every later one through."""
        self.holding = False
        for route in self.held:
            route.continue_()
        self.held.clear()


def wait_until(page: Page, selector: str) -> None:
    """Wait until an element matches ``selector``, looking every 20 ms (Playwright's own waits
    back off to once in 500 ms; their look-ups are this often when they last under 250 ms)."""
    deadline = time.monotonic() + SETTLE_MS / 1000
    while True:
        try:
            page.wait_for_selector(selector, state="attached", timeout=LOOK_MS)
            return
        except PlaywrightTimeoutError as error:
            if time.monotonic() > deadline:
                raise AssertionError(f"nothing matched {selector} in {SETTLE_MS} ms") from error


def settle(page: Page) -> None:
    """Wait until every engine exchange the page started has been answered."""
    wait_until(page, 'body[data-pending="0"]')


def load(page: Page, board: str) -> None:
    """Paste a board into the notation box and press Load."""
    page.fill("#notation", board)
    page.click("#load")
    settle(page)


def piece(page: Page, cell: str) -> str:
    """Return the piece letter the page shows on ``cell``."""
    value = page.get_attribute(f'[data-cell="{cell}"]', "data-piece")
    assert value is not None
    return value


def classes(page: Page, cell: str) -> str:
    """Return the class list of ``cell``."""
    return page.get_attribute(f'[data-cell="{cell}"]', "class") or ""


def names(page: Page, selector: str) -> list[str]:
    """Return the sorted cell names matching ``selector``."""
    found = page.locator(selector)
    return sorted(found.nth(i).get_attribute("data-cell") or "" for i in range(found.count()))


def post_json(url: str, payload: dict[str, object]) -> tuple[int, dict[str, Any]]:
    """POST a JSON body to the server's relay and return the status and JSON answer."""
    request = urllib.request.Request(
        url + "engine",
        data=json.dumps(payload).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            status, body = response.status, response.read()
    except urllib.error.HTTPError as exc:
        status, body = exc.code, exc.read()
    answer: dict[str, Any] = json.loads(body)
    return status, answer


def post_line(url: str, line: str) -> tuple[int, dict[str, Any]]:
    """POST one protocol line to the relay."""
    return post_json(url, {"line": line})


def post_line_batch(url: str, lines: object) -> tuple[int, dict[str, Any]]:
    """POST a batch ``{"lines": lines}`` to the relay."""
    return post_json(url, {"lines": lines})


def moves_long(page: Page) -> list[str]:
    """The move list's plies in the long form (each ply carries both of the engine's names)."""
    return [str(ply.get_attribute("data-long")) for ply in page.locator("#moves .ply").all()]


def engine_board(url: str) -> str:
    """Return the engine's ``get_board`` through the server (the page must be settled)."""
    status, answer = post_line(url, "get_board")
    assert status == 200 and answer["ok"], answer
    text: str = answer["text"]
    return text


def engine_answer(line: str, logs: Path) -> str:
    """Ask the engine directly, as the terminal would, and return its raw response."""
    result = subprocess.run(
        [sys.executable, "main.py", "--log-dir", str(logs)],
        cwd=REPO_ROOT,
        input=line + "\n",
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    return result.stdout


def watch_verdict(page: Page) -> None:
    """Record, from now on, every moment the verdict names a board other than the one shown."""
    page.evaluate(
        """() => {
        window.verdictFaults = [];
        const v = document.getElementById("verdict");
        const check = () => {
          const state = v.dataset.state, shown = document.body.dataset.board;
          if (state !== "pending" && state !== "none" && v.dataset.for !== shown) {
            window.verdictFaults.push(`${state} for ${v.dataset.for} on ${shown}`);
          }
        };
        const all = { attributes: true, childList: true, subtree: true };
        new MutationObserver(check).observe(v, all);
        new MutationObserver(check).observe(document.body, { attributes: true });
      }"""
    )


def watch_refusals(page: Page) -> None:
    """Record every refusal the message box shows from now on."""
    page.evaluate(
        """() => {
        window.refusals = [];
        const m = document.getElementById("message");
        new MutationObserver(() => {
          if (m.className === "refused") window.refusals.push(m.textContent);
        }).observe(m, { attributes: true, childList: true, subtree: true, characterData: true });
      }"""
    )


def engine_lines(page: Page) -> list[str]:
    """Start recording the protocol lines the page sends; return the (growing) list."""
    sent: list[str] = []

    def record(request: Request) -> None:
        if request.url.endswith("/engine") and request.method == "POST":
            body = json.loads(request.post_data or "{}")
            sent.extend(body["lines"] if "lines" in body else [body["line"]])

    listen(page, "request", record)
    return sent


# ---------------------------------------------------------------- the board and the verdict


@pytest.mark.parametrize("case", REFERENCE_CASES, ids=[f"case{c.number}" for c in REFERENCE_CASES])
def test_reference_case_verdict(page: Page, case: ReferenceCase) -> None:
    """Load each reference case through the notation box and read the verdict."""
    number, size, board, _, verdict = case
    load(page, board)
    assert page.inner_text("#verdict") == verdict, f"case {number}"
    assert page.get_attribute("#verdict", "data-for") == board
    assert page.input_value("#notation") == board
    assert page.input_value("#size") == str(size)
    assert page.locator("#boards [data-cell]").count() == size**3
    assert page.inner_text("#message") == ""
    assert page.inner_text("#explain").strip() != ""
    king = page.locator('[data-piece="K"]')
    assert "king" in (king.get_attribute("class") or "")
    if verdict in ("check", "checkmate"):
        assert page.locator(".checker").count() >= 1
    else:
        assert page.locator(".checker").count() == 0


def test_clicks_place_pieces_and_update_notation(page: Page) -> None:
    """Build a board by clicking on the empty board; the notation box follows every click."""
    assert page.input_value("#notation") == EMPTY_3
    page.click('[data-cell="a3(III)"]')  # K
    settle(page)
    assert piece(page, "a3(III)") == "K"
    assert page.input_value("#notation") == "[K##,###,###],[###,###,###],[###,###,###]"
    for _ in range(5):  # Q R B N k
        page.click('[data-cell="a3(III)"]')
    settle(page)
    assert piece(page, "a3(III)") == "k"
    # A board without a white king is refused: the page says so calmly and keeps working.
    assert "white king" in page.inner_text("#message")
    assert page.inner_text("#verdict") == ""

    page.click('[data-cell="c1(I)"]')
    settle(page)
    assert page.input_value("#notation") == "[k##,###,###],[###,###,###],[###,###,##K]"
    assert page.inner_text("#verdict") == "normal"
    assert page.inner_text("#message") == ""
    # The new king is selected: its corner moves are marked, except b2(II) next to the black king.
    assert names(page, ".cell.target") == ["b1(I)", "b1(II)", "b2(I)", "c1(II)", "c2(I)", "c2(II)"]

    for _ in range(11):  # a full cycle comes back to the king
        page.click('[data-cell="c1(I)"]')
    settle(page)
    assert piece(page, "c1(I)") == "K"
    for _ in range(3):  # K Q R
        page.click('[data-cell="b2(II)"]')
    settle(page)
    assert page.input_value("#notation") == "[k##,###,###],[###,#R#,###],[###,###,##K]"


def test_drag_moves_a_piece(page: Page) -> None:
    """Drag a piece to another cell."""
    load(page, "[###,###,###],[###,###,###],[###,###,bRK]")
    page.drag_and_drop('[data-cell="b1(I)"]', '[data-cell="b3(III)"]')
    settle(page)
    assert piece(page, "b1(I)") == ""
    assert piece(page, "b3(III)") == "R"
    assert page.input_value("#notation") == "[#R#,###,###],[###,###,###],[###,###,b#K]"
    assert page.inner_text("#verdict") == "normal"


def test_right_click_shows_legal_moves(page: Page) -> None:
    """Selecting a white piece marks exactly its legal moves, captures included."""
    load(page, "[###,###,###],[###,###,###],[###,###,bRK]")
    page.click('[data-cell="b1(I)"]', button="right")
    # The rook's legal moves: a1(I) capture, b2(I), b3(I), b1(II), b1(III).
    assert names(page, ".cell.target") == ["a1(I)", "b1(II)", "b1(III)", "b2(I)", "b3(I)"]
    assert "capture" in classes(page, "a1(I)")
    assert piece(page, "b1(I)") == "R"  # selecting does not change the board


def test_refused_board_shows_engine_message(
    page: Page, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """A board the engine refuses shows the engine's own message and keeps the last board."""
    expected = engine_answer(f"set_board {TWO_WHITE_KINGS}", tmp_path_factory.mktemp("direct"))
    assert expected.startswith("? invalid board")
    load(page, REFERENCE_CASES[0].board)
    load(page, TWO_WHITE_KINGS)
    assert page.inner_text("#message").strip() == expected.strip()
    assert page.input_value("#size") == "3"
    assert page.inner_text("#verdict") == "checkmate"


# ---------------------------------------------------------------- no stale or lost state


def test_verdict_never_shows_another_boards(page: Page) -> None:
    """Fast successive loads, examples and clicks: the verdict is pending or the board's own."""
    watch_verdict(page)
    for case in REFERENCE_CASES[:4]:
        page.fill("#notation", case.board)
        page.click("#load")  # no waiting in between
    for k in ("4", "0", "7"):
        page.select_option("#examples", k)
    page.click('#palette [data-palette="R"]')
    page.click('[data-cell="a1(II)"]')
    page.click('[data-cell="b1(II)"]')
    settle(page)
    assert page.evaluate("window.verdictFaults") == []
    # Case 8 with two white rooks added on level II: still check, but the rook can take.
    assert page.input_value("#notation") == "[#q,RR],[##,K#]"
    assert page.get_attribute("#verdict", "data-for") == "[#q,RR],[##,K#]"
    assert page.inner_text("#verdict") == "check"


def test_typing_during_a_load_is_kept(page: Page) -> None:
    """Text typed while an earlier load is answered is neither overwritten nor refused."""
    holder = Holder(page)
    page.fill("#notation", REFERENCE_CASES[0].board)
    with page.expect_request("**/engine"):
        page.click("#load")
    mine = "[#q,##],[##,K#"  # half typed: the user is still at it
    page.fill("#notation", mine)
    holder.release()
    settle(page)
    assert page.input_value("#notation") == mine
    assert "invalid" not in page.inner_text("#message")
    assert page.inner_text("#verdict") == "checkmate"  # the first load did land
    assert page.inner_text("#notation-state") == "edited, not loaded"
    page.click("#revert")
    assert page.input_value("#notation") == REFERENCE_CASES[0].board


def test_edits_during_a_load_apply_to_the_loaded_board(page: Page, server_url: str) -> None:
    """A click made while a pasted board loads is applied to that board, not dropped."""
    holder = Holder(page)
    page.fill("#notation", REFERENCE_CASES[4].board)  # case 5: c3(III) is empty
    with page.expect_request("**/engine"):
        page.click("#load")
    page.click('#palette [data-palette="n"]')
    page.click('[data-cell="c3(III)"]')  # still the empty board on screen
    holder.release()
    settle(page)
    assert page.input_value("#notation") == "[##n,##b,r#r],[###,###,###],[#k#,###,#K#]"
    assert engine_board(server_url) == "[##n,##b,r#r],[###,###,###],[#k#,###,#K#]"


def test_click_right_after_choosing_an_example(page: Page) -> None:
    """An example shows at once, so a click that follows goes to it and the example stays."""
    holder = Holder(page)
    with page.expect_request("**/engine"):
        page.select_option("#examples", "0")
    page.click('#palette [data-palette="q"]')
    page.click('[data-cell="a3(III)"]')
    holder.release()
    settle(page)
    assert page.input_value("#notation") == "[q##,n##,#rr],[#b#,###,###],[###,###,bRK]"
    assert page.inner_text("#verdict") == "checkmate"


def test_deleted_checker_loses_its_mark_at_once(page: Page) -> None:
    """Removing a checker clears the marks and the verdict before the engine answers."""
    load(page, REFERENCE_CASES[7].board)  # case 8: qb2(II) checks
    assert names(page, ".cell.checker") == ["b2(II)"]
    holder = Holder(page)
    page.focus('[data-cell="b2(II)"]')
    page.keyboard.press("Delete")
    assert names(page, ".cell.checker") == []
    assert page.get_attribute("#verdict", "data-state") == "pending"
    assert page.inner_text("#verdict") == "thinking…"
    holder.release()
    settle(page)
    assert page.inner_text("#verdict") == "normal"


def test_answer_is_cleared_by_clear_and_size(page: Page) -> None:
    """The answer of a button belongs to its board: Clear board and a new size remove it."""
    for action in ("clear", "size"):
        load(page, REFERENCE_CASES[0].board)
        page.click("#btn-checkmate")
        settle(page)
        assert page.inner_text("#answer") == "checkmate → true"
        if action == "clear":
            page.click("#clear")
        else:
            page.select_option("#size", "4")
        assert page.inner_text("#answer") == ""
        settle(page)
        assert page.inner_text("#answer") == ""


def test_console_keeps_the_users_refused_board(page: Page) -> None:
    """A console command does not swap the user's refused edit for the engine's last board."""
    load(page, REFERENCE_CASES[0].board)
    page.click('#palette [data-palette="K"]')
    page.click('[data-cell="a3(III)"]')  # a second white king: refused
    settle(page)
    mine = "[K##,n##,#rr],[#b#,###,###],[###,###,bRK]"
    assert page.input_value("#notation") == mine
    assert "2 white kings" in page.inner_text("#message")
    page.click("#console-box summary")
    page.fill("#command", "showboard")
    page.press("#command", "Enter")
    settle(page)
    assert page.input_value("#notation") == mine
    assert piece(page, "a3(III)") == "K"
    assert "2 white kings" in page.inner_text("#message")
    assert "level III" in page.inner_text("#console")


def test_console_play_is_adopted(page: Page) -> None:
    """A console command that changes the engine's position (play) is shown on the board."""
    load(page, "[k##,###,###],[###,###,###],[###,###,R#K]")
    page.click("#console-box summary")
    page.fill("#command", "play Ra1(I)-a2(I)")
    page.press("#command", "Enter")
    settle(page)
    assert page.input_value("#notation") == "[k##,###,###],[###,###,###],[###,R##,##K] b"
    assert page.inner_text("#moves") == "1. Ra2(I)"  # in pairs, short, as printgame writes


def test_restarted_engine_gets_the_page_board(page: Page, server_url: str) -> None:
    """After the engine dies the page sends its own board to the new one, never adopts its."""
    load(page, REFERENCE_CASES[0].board)
    status, answer = post_line(server_url, "quit")  # the engine exits
    assert (status, answer["ok"]) == (200, True)
    page.click("#console-box summary")
    page.fill("#command", "showboard")
    page.press("#command", "Enter")
    settle(page)
    assert page.input_value("#notation") == REFERENCE_CASES[0].board
    assert engine_board(server_url) == REFERENCE_CASES[0].board
    assert "new one" in page.inner_text("#message")
    page.click("#btn-checkmate")
    settle(page)
    assert page.inner_text("#answer") == "checkmate → true"


# ---------------------------------------------------------------- play, undo, solve


def play(page: Page, origin: str, target: str) -> None:
    """Click a piece, then its target, and wait for the engine."""
    page.click(f'[data-cell="{origin}"]')
    page.click(f'[data-cell="{target}"]')
    settle(page)


def test_play_a_line_by_clicks_and_take_back(page: Page, server_url: str) -> None:
    """Three moves by clicks, the page and the engine agreeing after each; undo twice."""
    load(page, "[k##,###,###],[###,###,###],[###,###,R#K]")
    page.check('#mode input[value="play"]')
    assert page.inner_text("#turn") == "White to move"
    line = [
        ("a1(I)", "a2(I)", "[k##,###,###],[###,###,###],[###,R##,##K] b", "Black to move"),
        ("a3(III)", "b3(III)", "[#k#,###,###],[###,###,###],[###,R##,##K]", "White to move"),
        ("c1(I)", "c2(I)", "[#k#,###,###],[###,###,###],[###,R#K,###] b", "Black to move"),
    ]
    page.click('[data-cell="a1(I)"]')
    assert "a2(I)" in names(page, ".cell.target")  # the rook's targets light up
    page.click('[data-cell="a1(I)"]')  # and a second click puts it down again
    assert names(page, ".cell.target") == []
    for origin, target, board, turn in line:
        play(page, origin, target)
        assert page.input_value("#notation") == board
        assert engine_board(server_url) == board
        assert page.inner_text("#turn") == turn
        assert page.inner_text("#message") == ""
        assert page.get_attribute("#verdict", "data-for") == board
    assert page.locator("#moves .ply").all_inner_texts() == ["Ra2(I)", "Kb3(III)", "Kc2(I)"]
    page.click("#undo")
    settle(page)
    page.keyboard.press("Control+z")
    settle(page)
    assert page.input_value("#notation") == line[0][2]
    assert engine_board(server_url) == line[0][2]
    assert page.locator("#moves .ply").all_inner_texts() == ["Ra2(I)"]
    assert page.inner_text("#turn") == "Black to move"


#: 5³: white's rook on e1(I) and king on a1(I), black's king on e5(V), over e5(I).
CHECK_BOARD = (
    "[####k,#####,#####,#####,#####],[#####,#####,#####,#####,#####],"
    "[#####,#####,#####,#####,#####],[#####,#####,#####,#####,#####],"
    "[#####,#####,#####,#####,K###R]"
)


def test_the_move_list_is_short_with_checks_or_long(page: Page) -> None:
    """The move list writes the engine's short names, a check's `+` included, in pairs, each
    ply's long form its tooltip; Long writes the long forms, also after a take-back, and the
    choice is there again after a reload."""
    load(page, CHECK_BOARD)
    page.check('#mode input[value="play"]')
    play(page, "e1(I)", "e5(I)")  # up the e5 column: check
    play(page, "e5(V)", "d4(V)")
    play(page, "e5(I)", "d5(I)")
    assert page.inner_text("#moves") == "1. Re5(I)+ Kd4(V)\n2. Rd5(I)"
    assert page.get_attribute("#moves .ply >> nth=0", "title") == "Re1(I)-e5(I)"
    page.check('#move-notation input[value="long"]')
    longs = ["Re1(I)-e5(I)", "ke5(V)-d4(V)", "Re5(I)-d5(I)"]
    assert page.locator("#moves .ply").all_inner_texts() == longs
    assert page.get_attribute("#moves .ply >> nth=0", "title") == "Re5(I)+"
    page.click("#undo")
    settle(page)
    assert page.locator("#moves .ply").all_inner_texts() == longs[:2]
    page.reload()
    page.wait_for_selector('[data-cell="a1(I)"]', state="attached")
    assert page.is_checked('#move-notation input[value="long"]')
    page.check('#move-notation input[value="short"]')  # the next tests' tab lists them short


def test_illegal_move_shows_the_engine_message(page: Page, server_url: str) -> None:
    """A move the engine refuses shows its own message and changes nothing."""
    board = "[k##,###,###],[###,###,###],[###,###,R#K]"
    load(page, board)
    page.check('#mode input[value="play"]')
    play(page, "a1(I)", "b2(I)")  # a rook does not move on a diagonal
    message = page.inner_text("#message")
    assert message.startswith("? illegal move"), message
    assert page.input_value("#notation") == board
    assert engine_board(server_url) == board
    assert page.locator("#moves .ply").count() == 0


def test_side_to_move_switch(page: Page, server_url: str) -> None:
    """Switching the side to move sends it to the engine and judges black's king."""
    load(page, "[###,#k#,###],[###,###,###],[###,###,R#K]")
    page.check('#side input[value="b"]')
    settle(page)
    assert page.inner_text("#turn") == "Black to move"
    assert page.input_value("#notation").endswith(" b")
    assert engine_board(server_url) == "[###,#k#,###],[###,###,###],[###,###,R#K] b"
    assert "king" in classes(page, "b2(III)")  # the king to move is the black one


def test_solve_mate_in_2(page: Page) -> None:
    """Solve the rules.md example: exactly its two keys, marked, listed and with their tree."""
    page.select_option("#examples", MATE_IN_2_EXAMPLE)
    settle(page)
    assert page.input_value("#notation") == MATE_IN_2
    page.fill("#mate-depth", "1")
    page.click("#solve")
    settle(page)
    assert page.inner_text("#solve-status") == "no mate in 1 for black"
    page.fill("#mate-depth", "2")
    page.click("#solve")
    settle(page)
    assert page.locator("#keys button").all_inner_texts() == MATE_IN_2_KEYS
    assert page.inner_text("#solve-status") == "Black mates in 2: 2 keys"
    tree = page.inner_text("#solution")
    keys = [row for row in tree.splitlines() if row and not row.startswith(" ")]
    assert keys == MATE_IN_2_KEYS
    assert all(row.endswith(" #") for row in tree.splitlines() if row.startswith("  "))
    assert names(page, ".cell.key-from") == ["b1(III)"]
    assert names(page, ".cell.key-to") == ["a2(II)", "c2(II)"]
    # Each key is numbered at both its ends: two keys of one piece are told apart.
    assert page.get_attribute('[data-cell="b1(III)"]', "data-keys") == "1 2"
    assert page.get_attribute('[data-cell="a2(II)"]', "data-keys") == "1"
    assert page.get_attribute('[data-cell="c2(II)"]', "data-keys") == "2"
    # Any edit makes the solution stale: it goes.
    page.click('[data-cell="c3(III)"]')
    assert page.locator("#keys button").count() == 0
    assert names(page, ".cell.key-from") == []
    settle(page)


def test_solve_a_selfmate_and_a_helpmate(page: Page) -> None:
    """The stipulation menu: a selfmate's key and tree, then a helpmate's solutions, whose
    first moves are the keys shown; changing the stipulation clears the keys."""
    load(page, "[###,q##,#B#],[##Q,###,#k#],[##K,###,#b#]")
    page.select_option("#stipulation", "selfmate")
    page.fill("#mate-depth", "1")
    page.click("#solve")
    settle(page)
    assert page.inner_text("#solve-status") == "White selfmates in 1: 1 key"
    assert page.locator("#keys button").all_inner_texts() == ["Qc3(II)-b2(II)"]
    assert page.inner_text("#solution").splitlines() == ["Qc3(II)-b2(II)", "  qa2(III)xb2(II) #"]
    page.select_option("#stipulation", "helpmate")
    assert page.locator("#keys button").count() == 0
    load(page, "[###,B##,###],[K#k,###,#N#],[###,###,##Q] b")
    page.click("#solve")
    settle(page)
    assert page.inner_text("#solve-status") == "Black is helpmated in 1: 1 solution"
    assert page.locator("#keys button").all_inner_texts() == ["kc3(II)-c2(III)"]
    assert page.inner_text("#solution") == "kc3(II)-c2(III) Qc1(I)-b2(II)"
    page.fill("#mate-depth", "2")
    page.click("#solve")
    settle(page)
    assert page.inner_text("#solve-status").startswith("Black is helpmated in 2: ")


def test_page_stays_usable_while_solving(page: Page) -> None:
    """While the engine searches, edits still land; a result for an older board is dropped."""
    page.select_option("#examples", MATE_IN_2_EXAMPLE)
    settle(page)
    holder = Holder(page)
    with page.expect_request(lambda r: "mate_in" in (r.post_data or "")):
        page.click("#solve")
    assert page.inner_text("#solve") == "Solving…"
    page.click('#palette [data-palette="n"]')
    page.click('[data-cell="a3(III)"]')  # an edit while the search runs
    assert piece(page, "a3(III)") == "n"
    assert page.get_attribute("#verdict", "data-state") == "pending"
    holder.release()
    settle(page)
    assert page.inner_text("#solve-status") == "the board changed during the search: solve again"
    assert page.locator("#keys button").count() == 0
    assert names(page, ".cell.key-from") == []
    assert page.inner_text("#solve") == "Solve"
    assert page.input_value("#notation") == "[n##,#k#,#b#],[##b,###,###],[r##,##K,###] b"
    assert page.get_attribute("#verdict", "data-for") == page.input_value("#notation")


def test_search_limit_shows_the_engine_message(shared_tab: Page, tmp_path: Path) -> None:
    """Over search.max_nodes the engine's own message is shown and the page goes on."""
    config = tmp_path / "small.toml"
    config.write_text("[search]\nmax_nodes = 50\n")
    process, url = start_server(tmp_path / "logs", "--config", str(config))
    try:
        with loaded(shared_tab, url) as tab:
            tab.select_option("#examples", MATE_IN_2_EXAMPLE)
            tab.click("#solve")
            settle(tab)
            status = tab.inner_text("#solve-status")
            counted = re.fullmatch(r"\? search limit reached after (\d+) positions", status)
            assert counted is not None and 1 <= int(counted.group(1)) <= 50, status
            assert tab.locator("#keys button").count() == 0
            assert tab.inner_text("#verdict") == "normal"
            tab.click('[data-cell="a3(III)"]')
            settle(tab)
            assert piece(tab, "a3(III)") == "K"  # the page goes on working
    finally:
        code, errors = stop_server(process)
        assert code == 0, errors


def test_playing_a_key_from_the_solution(page: Page) -> None:
    """A key in the list plays on click; the move list and the turn follow."""
    page.select_option("#examples", MATE_IN_2_EXAMPLE)
    page.click("#solve")
    settle(page)
    page.click(f'#keys button[data-move="{MATE_IN_2_KEYS[0]}"]')
    settle(page)
    assert moves_long(page) == [MATE_IN_2_KEYS[0]]
    assert page.inner_text("#turn") == "White to move"
    assert page.is_checked('#mode input[value="play"]')


# ---------------------------------------------------------------- usability


def test_keyboard_reaches_every_cell_and_places(page: Page) -> None:
    """Arrows move along file and rank, PageUp/PageDown between levels; letters place."""
    page.click("#clear")
    settle(page)
    page.focus('#boards .cell[tabindex="0"]')
    start = page.evaluate("document.activeElement.dataset.cell")
    assert start == "a1(I)"
    for key in ("ArrowRight", "ArrowRight", "ArrowRight", "ArrowUp", "PageUp", "PageUp", "PageUp"):
        page.keyboard.press(key)  # the extra presses stop at the edge
    assert page.evaluate("document.activeElement.dataset.cell") == "c2(III)"
    assert page.evaluate("document.activeElement.matches(':focus-visible')")
    page.keyboard.press("K")
    page.keyboard.press("PageDown")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("q")
    settle(page)
    assert page.input_value("#notation") == "[###,##K,###],[###,#q#,###],[###,###,###]"
    label = page.get_attribute('[data-cell="c2(III)"]', "aria-label") or ""
    assert label.startswith("c2(III), white king")
    page.keyboard.press("Delete")
    settle(page)
    assert piece(page, "b2(II)") == ""
    assert (page.get_attribute('[data-cell="b2(II)"]', "aria-label") or "").startswith(
        "b2(II), empty"
    )


def test_keyboard_plays_with_enter(page: Page) -> None:
    """In Play mode Enter selects a piece and Enter on a target moves it."""
    load(page, "[k##,###,###],[###,###,###],[###,###,R#K]")
    page.check('#mode input[value="play"]')
    page.focus('[data-cell="a1(I)"]')
    page.keyboard.press("Enter")
    page.keyboard.press("ArrowUp")
    page.keyboard.press("Enter")
    settle(page)
    assert page.input_value("#notation") == "[k##,###,###],[###,###,###],[###,R##,##K] b"


def test_one_click_per_piece(page: Page) -> None:
    """With a piece picked, one click places it and the engine hears about it once."""
    load(page, "[###,###,###],[###,###,###],[###,###,##K]")
    sent = engine_lines(page)
    page.click('#palette [data-palette="q"]')
    assert page.get_attribute('#palette [data-palette="q"]', "aria-pressed") == "true"
    page.click('[data-cell="a3(III)"]')
    settle(page)
    assert piece(page, "a3(III)") == "q"
    assert [line for line in sent if line.startswith("set_board")] == [
        "set_board [q##,###,###],[###,###,###],[###,###,##K]"
    ]
    assert page.inner_text("#verdict") == "check"  # along the triagonal through b2(II)


def test_no_refusal_flashes_while_cycling(browser: Browser, server_url: str) -> None:
    """Clicks that cycle through impossible boards send nothing until the user pauses (the
    default pause, on a paused clock)."""
    with open_page(browser, server_url, pause=None) as page:
        load(page, REFERENCE_CASES[0].board)
        page.clock.install()
        page.clock.pause_at(page.evaluate("Date.now()") + 1000)
        watch_refusals(page)
        sent = engine_lines(page)
        for _ in range(7):  # K Q R B N k q on a3(III): two white kings, then two black ones (fine)
            page.click('[data-cell="a3(III)"]')
        assert sent == []  # nothing reached the engine while the user clicked
        assert page.get_attribute("#verdict", "data-state") == "pending"
        page.clock.run_for(DEFAULT_PAUSE_MS - 1)
        assert sent == []  # nor before the default pause has passed
        page.clock.run_for(1)
        settle(page)
        assert page.evaluate("window.refusals") == []
        assert [line for line in sent if line.startswith("set_board")] == [
            "set_board [q##,n##,#rr],[#b#,###,###],[###,###,bRK]"
        ]
        assert page.inner_text("#verdict") == "checkmate"


def assert_edit_waits(page: Page, pause: int) -> None:
    """Check on a paused clock that an edit reaches the engine after ``pause`` ms, not before."""
    page.clock.install()
    page.clock.pause_at(page.evaluate("Date.now()") + 1000)
    sent = engine_lines(page)
    page.click('[data-cell="a3(III)"]')  # the white king, alone on the empty board
    if pause:
        page.clock.run_for(pause - 1)
        assert sent == []
        assert page.get_attribute("#verdict", "data-state") == "pending"
        page.clock.run_for(1)
    settle(page)
    board = "[K##,###,###],[###,###,###],[###,###,###]"
    assert [line for line in sent if line.startswith("set_board")] == [f"set_board {board}"]
    assert page.get_attribute("#verdict", "data-for") == board


@pytest.mark.parametrize("pause", [0, 1000])
def test_the_address_sets_the_edit_pause(browser: Browser, server_url: str, pause: int) -> None:
    """`?pause=MS` sends an edit once MS ms pass without another; 0 sends it at once."""
    with open_page(browser, server_url, pause=pause) as page:
        assert page.inner_text("#message").startswith("Empty board")
        assert_edit_waits(page, pause)


def test_a_pause_the_page_cannot_take_is_named(browser: Browser, server_url: str) -> None:
    """A pause that is not a whole number of ms from 0 to 10000 is named, and the default kept."""
    with open_page(browser, server_url, pause="soon") as page:
        for pause in ("soon", "-1", "10001", "2.5", ""):
            page.goto(f"{server_url}?{address(pause)}")
            assert page.inner_text("#message") == (
                f'the address asks for pause="{pause}": the edit pause is a whole number of '
                f"milliseconds from 0 to 10000; using {DEFAULT_PAUSE_MS}"
            )
        assert_edit_waits(page, DEFAULT_PAUSE_MS)


def test_examples_menu_shows_the_loaded_case(page: Page) -> None:
    """The menu names the loaded case until the board is edited."""
    page.select_option("#examples", "2")
    settle(page)
    assert page.input_value("#examples") == "2"
    assert page.inner_text("#verdict") == REFERENCE_CASES[2].status
    page.click('[data-cell="a3(III)"]', button="right")  # selecting is not editing
    assert page.input_value("#examples") == "2"
    page.click('[data-cell="a3(III)"]')
    assert page.input_value("#examples") == ""
    settle(page)


def test_big_board_keeps_the_verdict_in_view(shared_tab: Page, server_url: str) -> None:
    """At n = 10 scrolled to the bottom, the verdict is still on screen; layers wrap; zoom."""
    with loaded(shared_tab, server_url, 1400, 800) as tab:
        tab.select_option("#size", "10")
        tab.click('[data-cell="a1(I)"]')
        settle(tab)
        assert tab.inner_text("#verdict") == "normal"
        tab.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
        tab.wait_for_function("window.scrollY > 0")
        box = tab.locator("#verdict").bounding_box()
        assert box is not None
        assert box["y"] >= 0 and box["y"] + box["height"] <= 800
        # Three layers of ten fit next to each other at 1400 px.
        tops = tab.evaluate(
            "[...document.querySelectorAll('.layer')].slice(0, 3).map((l) => l.offsetTop)"
        )
        assert len(set(tops)) == 1
        width = tab.evaluate("document.querySelector('.cell').offsetWidth")
        tab.fill("#zoom", "200")
        assert tab.evaluate("document.querySelector('.cell').offsetWidth") == 2 * width
        assert tab.evaluate("document.documentElement.scrollWidth") <= 1400  # they wrap


# ---------------------------------------------------------------- the endgame tables

#: KQKR on 3³, white to move: the ending's longest win, mate in 4 (docs/tablebases.md).
KQKR_WIN_4 = "[###,###,###],[##Q,###,###],[###,r##,K#k]"
#: The same with the colours exchanged, black to move.
KRKQ_BLACK_WINS_4 = "[###,###,###],[##q,###,###],[###,R##,k#K] b"
#: KQK on 3³, white to move: Qa3(I)-b2(I) mates.
KQK_WIN_1 = "[###,###,###],[###,###,###],[Q##,##k,K##]"
#: Five pieces: the tables of the test hold four at most.
KQRKR = "[###,###,###],[##Q,###,###],[###,rR#,K#k]"
#: KQK on the 4-cube, white to move.
KQK_4 = "[####,####,####,####],[####,####,####,####],[####,####,####,####],[####,####,###k,KQ##]"


@pytest.fixture(scope="module")
def tables_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A GUI server started with --tablebases: every table of up to four pieces on 3³, built
    here (half a second with the compiled core)."""
    if not COMPILED:
        pytest.skip("four-piece tables need the compiled core")
    folder = tmp_path_factory.mktemp("tables")
    build(folder, 3, 4)
    logs = tmp_path_factory.mktemp("tables-engine-logs")
    process, url = start_server(
        logs, "--config", str(GUI_CONFIG), server_args=("--tablebases", str(folder))
    )
    try:
        yield url
    finally:
        code, errors = stop_server(process)
    assert code == 0, errors


def table_line(page: Page) -> str:
    """The endgame table's line under the board, "" when it is empty; an empty line must not
    show, and a shown one must name the board on screen."""
    text = page.inner_text("#tablebase")
    assert page.is_visible("#tablebase") == bool(text)
    if text:
        assert page.get_attribute("#tablebase", "data-for") == page.input_value("#notation")
    return text


def test_the_tables_verdict_shows_under_the_board(shared_tab: Page, tables_url: str) -> None:
    """Set up a position of a table, play moves and take one back: the line under the board
    gives the table's verdict in colours after each, worded for a person."""
    with loaded(shared_tab, tables_url) as page:
        load(page, KQKR_WIN_4)
        assert table_line(page) == "Endgame table: White wins in 4 moves"
        page.check('#mode input[value="play"]')
        play(page, "a1(I)", "a1(II)")  # the fastest win: black to move is lost in 3
        assert page.input_value("#notation") == "[###,###,###],[##Q,###,K##],[###,r##,##k] b"
        assert table_line(page) == "Endgame table: White wins in 3 moves"
        page.click("#undo")
        settle(page)
        assert table_line(page) == "Endgame table: White wins in 4 moves"
        play(page, "a1(I)", "a2(I)")  # the king takes the rook: KQK, black to move, drawn
        assert page.input_value("#notation") == "[###,###,###],[##Q,###,###],[###,K##,##k] b"
        assert table_line(page) == "Endgame table: draw"
        load(page, KRKQ_BLACK_WINS_4)  # read from KQKR with the colours exchanged
        assert table_line(page) == "Endgame table: Black wins in 4 moves"
        load(page, KQK_WIN_1)
        assert table_line(page) == "Endgame table: White wins in 1 move"
        play(page, "a3(I)", "b2(I)")
        assert page.inner_text("#verdict") == "checkmate"
        assert table_line(page) == "Endgame table: Black is checkmated"
        assert page.inner_text("#message") == ""


def test_no_table_shows_no_verdict(shared_tab: Page, tables_url: str, server_url: str) -> None:
    """Material no table holds (five pieces; KQK on the 4-cube), or a server without tables:
    the line stays empty and hidden, no message, and the board is judged as ever."""
    with loaded(shared_tab, tables_url) as page:
        load(page, KQKR_WIN_4)
        assert table_line(page) != ""
        load(page, KQRKR)  # the line of the board before goes with it
        assert table_line(page) == ""
        assert page.inner_text("#verdict") == "check"
        load(page, KQK_4)  # the tables are of the 3-cube only
        assert table_line(page) == ""
        assert page.inner_text("#verdict") == "normal"
        assert page.inner_text("#message") == ""
    with loaded(shared_tab, server_url) as page:
        load(page, KQKR_WIN_4)
        assert table_line(page) == ""
        assert page.inner_text("#verdict") == "check"  # the rook beside white's king
        assert page.inner_text("#message") == ""


def test_a_restarted_engine_keeps_the_tables(tables_url: str) -> None:
    """The server starts a dead engine again with the same --tablebases."""
    status, answer = post_line(tables_url, "quit")
    assert (status, answer["ok"]) == (200, True)
    status, answer = post_line_batch(tables_url, [f"set_board {KQKR_WIN_4}", "tb_probe"])
    assert status == 200 and answer["replies"][0]["restarted"], answer
    assert answer["replies"][1]["text"] == "win 4"


# ---------------------------------------------------------------- the server


def test_server_refuses_smuggled_lines(server_url: str) -> None:
    """A line break inside the line is refused with HTTP 400; a plain line is relayed."""
    for line in ("status\nquit", "status\rquit", "status\r\n", "status\u2028quit"):
        status, answer = post_line(server_url, line)
        assert status == 400, line
        assert answer["ok"] is False
        assert "line break" in answer["error"]
    status, answer = post_line(server_url, "protocol_version")
    assert (status, answer["ok"], answer["text"], answer["raw"]) == (200, True, "2", "= 2\n\n")
    status, answer = post_line(server_url, "7 no_such_command")
    assert status == 200
    assert answer["ok"] is False
    assert answer["raw"].startswith("?7 ")


def test_server_relays_a_batch(server_url: str) -> None:
    """A list of lines is sent in order in one request and answered one reply per line."""
    status, answer = post_line_batch(server_url, ["set_board [#q,##],[##,K#]", "status", "foo"])
    assert status == 200
    assert answer["ok"] is False  # one line was refused
    replies = answer["replies"]
    assert [(r["ok"], r["text"]) for r in replies[:2]] == [(True, ""), (True, "check")]
    assert replies[2]["ok"] is False
    assert replies[2]["text"].startswith("unknown command")
    for bad in ([], ["status", "quit\nstatus"], [1], ["status"] * 17, "status"):
        status, answer = post_line_batch(server_url, bad)
        assert status == 400, bad
        assert answer["ok"] is False


def test_server_restarts_a_dead_engine(server_url: str) -> None:
    """After the engine quits, the next line starts a new one and says so."""
    status, answer = post_line(server_url, "quit")
    assert (status, answer["ok"]) == (200, True)
    status, answer = post_line(server_url, "protocol_version")
    assert (status, answer["ok"], answer["restarted"]) == (200, True, True)
    assert "restart" in answer["notice"] or "new one" in answer["notice"]
    status, answer = post_line(server_url, "protocol_version")
    assert answer["restarted"] is False


def test_server_listens_on_loopback_only(server_url: str) -> None:
    """The listening socket is bound to 127.0.0.1 and nothing else."""
    port = int(server_url.rstrip("/").rsplit(":", 1)[1])
    tables = [Path("/proc/net/tcp"), Path("/proc/net/tcp6")]
    if not tables[0].exists():
        pytest.skip("needs Linux /proc/net/tcp to list listening sockets")
    listening: list[str] = []
    for table in tables:
        if not table.exists():
            continue
        for row in table.read_text().splitlines()[1:]:
            fields = row.split()
            address, port_hex = fields[1].rsplit(":", 1)
            if int(port_hex, 16) == port and fields[3] == "0A":  # 0A is TCP LISTEN
                listening.append(address)
    assert listening == ["0100007F"]  # 127.0.0.1, little-endian hex


def test_busy_port_says_so(server_url: str, tmp_path: Path) -> None:
    """A second server on a taken port stops with a hint to pick another, PORT=0 included."""
    port = server_url.rstrip("/").rsplit(":", 1)[1]
    result = subprocess.run(
        [sys.executable, "-m", "gui.server", "--port", port, "--engine", "false"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert f"port {port} on 127.0.0.1 is already in use" in result.stderr
    assert "PORT=0" in result.stderr
    assert result.stdout == ""


def test_server_answers_expect_100_continue_at_once(server_url: str) -> None:
    """A client that waits for `100 Continue` before the body (curl does) gets it unbuffered."""
    port = int(server_url.rstrip("/").rsplit(":", 1)[1])
    body = json.dumps({"line": "protocol_version"}).encode()
    with socket.create_connection(("127.0.0.1", port), timeout=20) as conn:
        conn.sendall(
            b"POST /engine HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/json\r\nExpect: 100-continue\r\n"
            + f"Content-Length: {len(body)}\r\n\r\n".encode()
        )
        interim = conn.recv(4096)  # times out (fails) if the server held it back
        assert interim.startswith(b"HTTP/1.1 100")
        conn.sendall(body)
        answer = b""
        while not answer.endswith(b"}"):
            chunk = conn.recv(4096)
            assert chunk, "the server closed the connection"
            answer += chunk
    assert answer.split(b"\r\n", 1)[0] == b"HTTP/1.1 200 OK"
    assert json.loads(answer.split(b"\r\n\r\n", 1)[1])["text"] == "2"


# ---------------------------------------------------------------- the 3D view

#: three.js as `make gui` installs it (npm ci from gui/package-lock.json).
THREE_MODULE = REPO_ROOT / "gui" / "node_modules" / "three" / "build" / "three.module.js"
needs_three = pytest.mark.skipif(
    not THREE_MODULE.exists(),
    reason="the 3D view needs three.js: run `make gui` (npm ci --prefix gui); without npm "
    "the page keeps the layer view, which test_the_page_keeps_the_layers_without_three checks",
)
#: A 3³ board with white to move: the rook a1(I) may go to a2(I).
ROOK_BOARD = "[k##,###,###],[###,###,###],[###,###,R#K]"


def shown_3d(page: Page) -> None:
    """Wait until the 3D view has drawn the board shown (two frames after the last paint)."""
    wait_until(page, 'body[data-three="ready"]')
    settle(page)
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")


def click_3d(page: Page, cell: str) -> None:
    """Click the 3D view where the hook says `cell` lies on screen; the hook must agree that
    the pixel is that cell's (the nearest under the pointer, or a legal target along it)."""
    point = page.evaluate(f"window.cubemate3d.pixelOf('{cell}')")
    assert page.evaluate(f"window.cubemate3d.cellAt({point['x']}, {point['y']})") == cell
    page.mouse.click(point["x"], point["y"])


@needs_three
def test_a_move_clicked_in_3d_reaches_the_engine(page: Page, server_url: str) -> None:
    """The 3D view draws the position (its pixels change when a piece moves), a click on a
    piece selects it in both views, and a click on its target plays the move in the engine."""
    page.goto(f"{server_url}?{address(view='3d')}")
    load(page, ROOK_BOARD)
    page.check('#mode input[value="play"]')
    shown_3d(page)
    canvas = page.locator("#scene-canvas")
    before = canvas.screenshot()
    click_3d(page, "a1(I)")
    assert names(page, ".cell.sel") == ["a1(I)"]
    click_3d(page, "a2(I)")
    settle(page)
    board = "[k##,###,###],[###,###,###],[###,R##,##K] b"
    assert engine_board(server_url) == board
    assert page.get_attribute("body", "data-board") == board
    assert page.inner_text("#moves") == "1. Ra2(I)"
    shown_3d(page)
    assert canvas.screenshot() != before


@needs_three
def test_camera_keys_turn_it_and_it_survives_a_reload(page: Page, server_url: str) -> None:
    """Arrow keys turn the camera 15°, + zooms in, 0 resets; the view and the camera chosen
    are there again after a reload (localStorage)."""
    page.goto(f"{server_url}?board=empty&pause=0")  # the view the person chose, not the address's
    page.check('#view input[value="3d"]')
    shown_3d(page)
    start = page.evaluate("window.cubemate3d.camera()")
    page.focus("#scene-canvas")
    page.keyboard.press("ArrowRight")
    turned = page.evaluate("window.cubemate3d.camera()")
    assert turned["theta"] - start["theta"] == pytest.approx(math.pi / 12)
    page.keyboard.press("+")
    zoomed = page.evaluate("window.cubemate3d.camera()")
    assert zoomed["radius"] == pytest.approx(start["radius"] / 1.2)
    page.reload()
    shown_3d(page)
    assert page.get_attribute("body", "data-view") == "3d"
    again = page.evaluate("window.cubemate3d.camera()")
    assert again == pytest.approx(zoomed)
    page.focus("#scene-canvas")
    page.keyboard.press("0")
    assert page.evaluate("window.cubemate3d.camera()") == pytest.approx(start)
    page.check('#view input[value="layers"]')  # the next tests' tab opens on the layers


def test_the_page_keeps_the_layers_without_three(page: Page, server_url: str) -> None:
    """Where three.js cannot be loaded the page says so, shows the layers, and plays on them."""
    page.route("**/three/**", lambda route: route.abort())
    page.goto(f"{server_url}?{address(view='both')}")
    wait_until(page, 'body[data-three="missing"]')
    assert page.get_attribute("body", "data-view") == "layers"
    assert page.inner_text("#view3d-note").startswith("No 3D view")
    load(page, ROOK_BOARD)
    page.check('#mode input[value="play"]')
    play(page, "a1(I)", "a2(I)")
    assert engine_board(server_url) == "[k##,###,###],[###,###,###],[###,R##,##K] b"


def test_the_server_serves_its_list_and_nothing_else(server_url: str) -> None:
    """three.js comes from its npm install, the page's modules from gui/app; any other path,
    a file of the repository or of node_modules included, is answered 404."""
    for path in (
        "gui/server.py",
        "app/../server.py",
        "node_modules/three/package.json",
        "three/../server.py",
        "three/three.cjs",
        "app/view3d.ts",
    ):
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(server_url + path, timeout=30)
        assert refused.value.code == 404, path
    with urllib.request.urlopen(server_url + "app/main.js", timeout=30) as response:
        assert response.headers["Content-Type"].startswith("text/javascript")
    if THREE_MODULE.exists():
        with urllib.request.urlopen(server_url + "three/three.module.js", timeout=30) as response:
            assert response.read() == THREE_MODULE.read_bytes()


@needs_three
def test_the_phone_opens_on_a_game_with_the_verdict_in_view(
    browser: Browser, server_url: str
) -> None:
    """A first visit at 390 × 844 opens on the start of a game on 5³ against the computer, in
    3D, with the board and the verdict on one screen; a reload opens where it was left."""
    context = browser.new_context(viewport={"width": 390, "height": 844})
    try:
        page = context.new_page()
        page.goto(server_url)
        shown_3d(page)
        wait_until(page, '#verdict[data-state="normal"]')
        assert page.get_attribute("body", "data-view") == "3d"
        assert page.input_value("#opponent") == "black"
        assert page.is_checked('#mode input[value="play"]')
        start = page.get_attribute("body", "data-board") or ""
        assert start.count("[") == 5 and start.count("K") == 1 and start.count("k") == 1
        for selector in ("#scene-canvas", "#verdict"):
            box = page.locator(selector).bounding_box()
            assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 844, selector
        page.reload()
        shown_3d(page)
        assert page.get_attribute("body", "data-board") == start
        assert page.inner_text("#message").startswith("The position you left")
    finally:
        context.close()


# ---------------------------------------------------------------- Raumschach

#: rules.md, "Variants": Raumschach's start, white's levels I (A) and II (B) at the bottom.
RAUMSCHACH_START = (
    "[rnknr,ppppp,#####,#####,#####],[ubqub,ppppp,#####,#####,#####],"
    "[#####,#####,#####,#####,#####],[#####,#####,#####,PPPPP,BUQBU],"
    "[#####,#####,#####,PPPPP,RNKNR]"
)
EMPTY_LEVEL_5 = "[#####,#####,#####,#####,#####]"
#: White to move: the pawn b4(V) promotes on b5(V), to any of five pieces.
PROMOTION_BOARD = (
    f"[####k,#P###,#####,#####,#####],{EMPTY_LEVEL_5},{EMPTY_LEVEL_5},{EMPTY_LEVEL_5},"
    "[#####,#####,#####,#####,K####]"
)


def choose_raumschach(page: Page) -> list[str]:
    """Choose Raumschach in the page's Rules menu; return the lines the page sent meanwhile."""
    sent = engine_lines(page)
    page.select_option("#variant", "raumschach")
    wait_until(page, 'body[data-variant="raumschach"]')
    settle(page)
    return sent


def level_titles(page: Page) -> list[str]:
    """The layer view's level titles, top first, without their top/bottom notes."""
    return [title.split("\n")[0] for title in page.locator("#boards h2").all_inner_texts()]


def test_raumschach_starts_from_the_chooser(
    shared_tab: Page, server_url: str, tmp_path: Path
) -> None:
    """Choosing Raumschach starts its game in the engine: the start with its pawns and unicorns,
    on 5³ only, the levels named V (E) … I (A), U and P in the palette, a hovered bishop's lines
    on the flat diagonals and a pawn's by its colour; a reload opens on it again, telling the
    engine its rules first."""
    with loaded(shared_tab, server_url, 1400, 900, view="both") as page:
        sent = choose_raumschach(page)
        assert sent[0] == "new_game 5 raumschach"
        assert page.input_value("#notation") == RAUMSCHACH_START
        assert engine_board(server_url) == RAUMSCHACH_START
        assert post_line(server_url, "variant")[1]["text"] == "raumschach"
        cells = ("a2(I)", "b1(II)", "c1(II)", "a4(IV)", "a5(IV)", "c5(V)")
        assert [piece(page, cell) for cell in cells] == ["P", "U", "Q", "p", "u", "k"]
        assert page.input_value("#size") == "5"
        assert page.is_disabled('#size option[value="4"]')
        romans = ["V", "IV", "III", "II", "I"]
        assert level_titles(page) == [f"Level {r} ({'EDCBA'[k]})" for k, r in enumerate(romans)]
        assert page.locator("#level-from option").first.inner_text() == "Level I (A)"
        for letter in "UuPp":
            assert page.is_visible(f'#palette [data-palette="{letter}"]'), letter
        # The bishop a1(II) on the 12 flat diagonals, each up to its first piece (none of the
        # cube's triagonals: b2(III) stays dark); the pawn c2(I): pushes and captures.
        page.hover('[data-cell="a1(II)"]')
        wait_until(page, '[data-cell="d1(V)"].reach')
        assert names(page, ".cell.reach") == sorted(
            ["b2(II)", "b1(III)", "c1(IV)", "d1(V)", "a2(III)", "a3(IV)", "a4(V)", "b1(I)", "a2(I)"]
        )
        page.hover('[data-cell="c2(I)"]')
        wait_until(page, '[data-cell="c3(II)"].reach')
        assert names(page, ".cell.reach") == sorted(
            ["c3(I)", "c2(II)", "b3(I)", "d3(I)", "b2(II)", "d2(II)", "c3(II)"]
        )
        if THREE_MODULE.exists():  # the 3D labels; the unicorn's lines in 3D, for docs/gui.md
            page.evaluate("window.scrollTo(0, 0)")
            shown_3d(page)
            labels = page.evaluate("window.cubemate3d.labels()")
            assert labels == [f"{r} ({'ABCDE'[k]})" for k, r in enumerate(reversed(romans))]
            unicorn = page.evaluate("window.cubemate3d.pixelOf('b1(II)')")
            page.mouse.move(unicorn["x"], unicorn["y"])
            wait_until(page, '[data-cell="e4(V)"].reach')
            shown_3d(page)
        path = screenshot_folder(tmp_path) / "gui-raumschach.png"
        page.screenshot(path=str(path))
        assert path.stat().st_size > 10_000

        sent.clear()
        page.goto(f"{server_url}?view=layers&pause=0")  # where the person left
        wait_until(page, 'body[data-variant="raumschach"]')
        settle(page)
        assert page.input_value("#variant") == "raumschach"
        assert page.input_value("#notation") == RAUMSCHACH_START
        assert level_titles(page)[0] == "Level V (E)"
        assert sent[:2] == ["new_game 5 raumschach", f"set_board {RAUMSCHACH_START}"]
        page.select_option("#variant", "cube")  # back to the cube: no unicorn offered
        wait_until(page, 'body[data-variant="cube"]')
        settle(page)
        assert page.is_hidden('#palette [data-palette="U"]')
        assert level_titles(page)[0] == "Level V"
        assert post_line(server_url, "variant")[1]["text"] == "cube"


def test_a_promotion_asks_which_piece(page: Page, server_url: str) -> None:
    """A pawn's move to its last cell asks which piece it becomes, strongest first; Esc plays
    nothing; a choice plays that move, with its =U, in the engine."""
    choose_raumschach(page)
    load(page, PROMOTION_BOARD)
    sent = engine_lines(page)
    page.click('[data-cell="b4(V)"]')
    # Five moves, one per piece it may become, to one cell (issue 63: it said "1 legal move").
    assert page.inner_text("#selection") == "Selected b4(V) — white pawn: 5 legal moves"
    page.click('[data-cell="b5(V)"]')
    wait_until(page, "#promotion[open]")
    choices = page.locator("#promotion-choices button")
    assert [choices.nth(k).get_attribute("data-promotion") for k in range(5)] == list("QRBUN")
    assert choices.count() == 5
    page.keyboard.press("Escape")
    wait_until(page, "#promotion:not([open])")
    settle(page)
    assert not [line for line in sent if line.startswith("play")]
    assert piece(page, "b4(V)") == "P"
    page.click('[data-cell="b4(V)"]')
    page.click('[data-cell="b5(V)"]')
    wait_until(page, "#promotion[open]")
    page.click('#promotion [data-promotion="U"]')
    # The choice is played once the dialog has closed: wait for the unicorn the engine's board
    # shows, not only for the exchanges under way (there may be none yet when the click returns).
    wait_until(page, '[data-cell="b5(V)"][data-piece="U"]')
    settle(page)
    assert [line for line in sent if line.startswith("play")] == ["play Pb4(V)-b5(V)=U"]
    board = PROMOTION_BOARD.replace("[####k,#P###", "[#U##k,#####") + " b"
    assert engine_board(server_url) == board
    assert piece(page, "b5(V)") == "U"
    assert page.inner_text("#moves") == "1. b5(V)=U"
    assert moves_long(page) == ["Pb4(V)-b5(V)=U"]


def test_make_gui_takes_a_port() -> None:
    """`make gui PORT=N` passes the port on (a dry run: nothing is started)."""
    result = subprocess.run(
        ["make", "-n", "gui", "PORT=4321"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert "-m gui.server --port 4321" in result.stdout


def test_server_sends_each_response_in_one_write(server_url: str) -> None:
    """Headers and body leave together: the first read on a kept-alive connection holds the
    whole response. (Two writes stall ~40 ms on Nagle's algorithm and a delayed ACK, and the
    first read then ends after the headers.)"""
    port = int(server_url.rstrip("/").rsplit(":", 1)[1])
    body = json.dumps({"line": "protocol_version"}).encode()
    request = (
        b"POST /engine HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        + f"Content-Length: {len(body)}\r\n\r\n".encode()
        + body
    )
    with socket.create_connection(("127.0.0.1", port), timeout=20) as conn:
        for _ in range(5):  # the same kept-alive connection, as the page uses it
            conn.sendall(request)
            first = conn.recv(65536)
            head, _, rest = first.partition(b"\r\n\r\n")
            length = re.search(rb"Content-Length: (\d+)", head)
            assert length is not None, first
            assert len(rest) == int(length.group(1)), first
            assert json.loads(rest)["text"] == "2"


# ---------------------------------------------------------------- screenshots for the README


def screenshot_folder(tmp_path: Path) -> Path:
    """Where the screenshots go: docs/ when asked to refresh them, else a temporary folder, so
    that a test run leaves the tracked files alone."""
    return DOCS if os.environ.get(REFRESH_SCREENSHOTS) == "1" else tmp_path


def test_screenshots(shared_tab: Page, server_url: str, tmp_path: Path) -> None:
    """Save a game against the computer at 1400 px, the mate in 2 of rules.md solved on a
    390 px phone, and a board of eight at 1400 px scrolled to its bottom (the panel stays in
    view)."""
    folder = screenshot_folder(tmp_path)
    with loaded(shared_tab, server_url, 1400, 900) as tab:
        tab.select_option("#size", "4")
        tab.select_option("#level", "level depth 2")
        tab.click("#new-game")
        tab.select_option("#opponent", "black")
        settle(tab)
        for _ in range(2):  # the user plays the hint, the computer answers
            tab.click("#hint")
            settle(tab)
            origin, target = (
                tab.get_attribute(f'[data-hint="{end}"]', "data-cell") for end in ("from", "to")
            )
            play(tab, str(origin), str(target))
        assert tab.locator("#moves .ply").count() == 4
        assert tab.locator("[data-last-move]").count() == 2
        assert tab.get_attribute("#thinking", "data-state") == "done"
        path = folder / "gui.png"
        tab.screenshot(path=str(path))
        assert path.stat().st_size > 10_000
    with loaded(shared_tab, server_url, 390, 844) as tab:
        tab.select_option("#examples", MATE_IN_2_EXAMPLE)
        tab.click("#solve")
        settle(tab)
        assert tab.locator("#keys button").count() == 2
        tab.click('#keys button[data-move="bb1(III)-a2(II)"]')
        settle(tab)
        tab.click('[data-cell="c2(I)"]')  # white's king: its escapes light up
        path = folder / "gui-390.png"
        tab.screenshot(path=str(path), full_page=True)
        assert path.stat().st_size > 10_000
    if THREE_MODULE.exists():
        screenshots_3d(shared_tab, server_url, folder)
    with loaded(shared_tab, server_url, 1400, 900) as tab:
        tab.select_option("#size", "8")
        for letter, cell in (("K", "d4(IV)"), ("q", "f6(VI)"), ("r", "d8(IV)"), ("k", "h8(VIII)")):
            tab.click(f'#palette [data-palette="{letter}"]')
            tab.click(f'[data-cell="{cell}"]')
        settle(tab)
        assert tab.inner_text("#verdict") == "check"
        tab.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
        tab.wait_for_function("window.scrollY > 0")
        path = folder / "gui-1400.png"
        tab.screenshot(path=str(path))
        assert path.stat().st_size > 10_000


def screenshots_3d(tab: Page, server_url: str, folder: Path) -> None:
    """The 3D view at 1400 px (a game against the computer, its last move and a piece's lines
    across the levels), on a 390 px phone (the board, the verdict and the moves on one screen),
    and Raumschach from White's view, Black's and above."""
    with loaded(tab, server_url, 1400, 900, view="both") as page:
        page.select_option("#size", "5")
        page.select_option("#level", "level nodes 1")
        page.click("#new-game")
        page.select_option("#opponent", "black")
        settle(page)
        play(page, "a2(I)", "b4(I)")
        wait_until(page, "[data-last-move]")
        page.evaluate("window.scrollTo(0, 0)")  # the click on the layers scrolled them in
        shown_3d(page)
        queen = page.evaluate("window.cubemate3d.pixelOf('c2(I)', 'figure')")
        page.mouse.move(queen["x"], queen["y"])  # its lines across the levels
        wait_until(page, ".cell.reach")
        shown_3d(page)
        path = folder / "gui-3d-1400.png"
        page.screenshot(path=str(path))
        assert path.stat().st_size > 10_000
    with loaded(tab, server_url, 390, 844, view="3d") as page:
        page.select_option("#size", "5")
        page.click("#new-game")
        settle(page)
        page.evaluate("window.scrollTo(0, 0)")
        shown_3d(page)
        for cell, kind in (("b1(I)", "figure"), ("c3(I)", "square")):  # Nc3(I), clicked in 3D
            point = page.evaluate(f"window.cubemate3d.pixelOf('{cell}', '{kind}')")
            page.mouse.click(point["x"], point["y"])
            wait_until(page, f'[data-cell="{cell}"].sel' if kind == "figure" else "#moves .ply")
        settle(page)
        shown_3d(page)
        path = folder / "gui-3d-390.png"
        page.screenshot(path=str(path))
        assert path.stat().st_size > 10_000
    # Raumschach in the 3D view alone, from White's view (the unicorn b1(II) selected, its
    # targets lit), Black's and above: the canvas only, to keep the pictures small.
    with loaded(tab, server_url, 900, 700, view="3d") as page:
        page.select_option("#variant", "raumschach")
        wait_until(page, 'body[data-variant="raumschach"]')
        settle(page)
        for preset in ("white", "black", "top"):
            page.click(f'#camera-presets [data-preset="{preset}"]')
            shown_3d(page)
            if preset == "white":
                unicorn = page.evaluate("window.cubemate3d.pixelOf('b1(II)', 'figure')")
                page.mouse.click(unicorn["x"], unicorn["y"])
                wait_until(page, '[data-cell="b1(II)"].sel')
                shown_3d(page)
            path = folder / f"gui-3d-raumschach-{preset}.png"
            page.locator("#scene-canvas").screenshot(path=str(path))
            assert path.stat().st_size > 10_000
            if preset == "white":
                page.keyboard.press("Escape")  # the unicorn put down
                wait_until(page, '[data-cell="b1(II)"]:not(.sel)')
            page.mouse.move(0, 0)
