"""Drive the board editor in a real headless Chromium against the real engine.

The module starts ``python -m gui.server --port 0`` itself, with the engine's logs in a temporary
folder, and stops it at the end. It is skipped when ``/usr/bin/chromium`` is missing.
"""

from __future__ import annotations

import json
import queue
import re
import shlex
import signal
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
if not CHROMIUM.exists():
    pytest.skip(
        "GUI tests need Debian's chromium at /usr/bin/chromium (apt-get install chromium)",
        allow_module_level=True,
    )

from playwright.sync_api import Browser, Page, sync_playwright  # noqa: E402

from tests.cases import REFERENCE_CASES, ReferenceCase  # noqa: E402

REPO_ROOT = Path(__file__).resolve().parent.parent
SCREENSHOT = REPO_ROOT / "docs" / "gui.png"
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


@pytest.fixture(scope="module")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Start the GUI server on a free port with a real engine; yield its URL; stop it."""
    logs = tmp_path_factory.mktemp("engine-logs")
    engine = f"{shlex.quote(sys.executable)} main.py --log-dir {shlex.quote(str(logs))}"
    process = subprocess.Popen(
        [sys.executable, "-m", "gui.server", "--port", "0", "--engine", engine],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    stdout = process.stdout
    assert stdout is not None
    lines: queue.Queue[str] = queue.Queue()
    # Read in a thread so a server that never prints fails the test instead of hanging it.
    threading.Thread(target=lambda: lines.put(stdout.readline()), daemon=True).start()
    try:
        first = lines.get(timeout=20)
        match = re.search(r"http://127\.0\.0\.1:(\d+)/", first)
        assert match, f"server did not print its address: {first!r}"
        yield match.group(0)
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        stdout.close()
    # SIGTERM must end in a clean exit, which is where the server stops its engine.
    assert process.returncode == 0


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Launch the system Chromium headless, offline-minded."""
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=BROWSER_ARGS
        )
        yield chromium
        chromium.close()


@pytest.fixture()
def page(browser: Browser, server_url: str) -> Iterator[Page]:
    """Open the editor in a fresh page and fail the test on any script error."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    tab.goto(server_url)
    tab.wait_for_selector('[data-cell="a1(I)"]')
    yield tab
    context.close()
    assert errors == [], f"script errors on the page: {errors}"


def settle(page: Page) -> None:
    """Wait until every engine exchange the page started has been answered."""
    page.wait_for_selector('body[data-pending="0"]', timeout=15_000)


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


def post_line(url: str, line: str) -> tuple[int, dict[str, Any]]:
    """POST one protocol line to the server's relay and return the status and JSON answer."""
    request = urllib.request.Request(
        url + "engine",
        data=json.dumps({"line": line}).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=15) as response:
            status, body = response.status, response.read()
    except urllib.error.HTTPError as exc:
        status, body = exc.code, exc.read()
    answer: dict[str, Any] = json.loads(body)
    return status, answer


def engine_answer(line: str, logs: Path) -> str:
    """Ask the engine directly, as the terminal would, and return its raw response."""
    result = subprocess.run(
        [sys.executable, "main.py", "--log-dir", str(logs)],
        cwd=REPO_ROOT,
        input=line + "\n",
        capture_output=True,
        text=True,
        timeout=20,
        check=True,
    )
    return result.stdout


@pytest.mark.parametrize("case", REFERENCE_CASES, ids=[f"case{c.number}" for c in REFERENCE_CASES])
def test_reference_case_verdict(page: Page, case: ReferenceCase) -> None:
    """Load each reference case through the notation box and read the verdict."""
    number, size, board, _, verdict = case
    load(page, board)
    assert page.inner_text("#verdict") == verdict, f"case {number}"
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
    targets = page.locator(".cell.target")
    names = sorted(targets.nth(i).get_attribute("data-cell") or "" for i in range(targets.count()))
    assert names == ["b1(I)", "b1(II)", "b2(I)", "c1(II)", "c2(I)", "c2(II)"]

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
    targets = page.locator(".cell.target")
    names = sorted(targets.nth(i).get_attribute("data-cell") or "" for i in range(targets.count()))
    assert names == ["a1(I)", "b1(II)", "b1(III)", "b2(I)", "b3(I)"]
    assert "capture" in (page.get_attribute('[data-cell="a1(I)"]', "class") or "")
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


def test_screenshot_of_reference_case_1(page: Page) -> None:
    """Save the editor with reference case 1 loaded, for the README."""
    load(page, REFERENCE_CASES[0].board)
    assert page.inner_text("#verdict") == "checkmate"
    SCREENSHOT.parent.mkdir(exist_ok=True)
    page.screenshot(path=str(SCREENSHOT), full_page=True)
    assert SCREENSHOT.stat().st_size > 10_000
