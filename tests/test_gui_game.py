"""Play against the computer in a real headless Chromium, through the real server and engine.

The module starts its own ``python -m gui.server`` (the engine with the GUI's config, its logs in
a temporary folder) and its own browser, so that it can run beside tests/test_gui.py; its tests
share one tab, each loading the page afresh in it. The tests wait for page states, never for
fixed times: the page counts its engine jobs in ``body[data-pending]`` and says in
``body[data-computer]`` whether the computer is asked for a move. Where a race must be provoked,
requests are held back with a route, or the level line is rewritten into a search without
limits, which only a stop can end. No test here is about the edit pause, so the page runs with
``?pause=0``: an edit (only test_a_search_stopped_by_an_edit_leaves_the_edited_board makes one)
is sent at once instead of after 300 ms, which changes nothing it checks (tests/test_gui.py says
why, and tests the pause itself).
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import (
    APIResponse,
    Browser,
    Page,
    Request,
    Response,
    Route,
)

from client.engine import Engine
from gui.records import record_moves
from tests.conftest import claim_one_worker, read_json_log

# Skips this module as it skips itself when /usr/bin/chromium is missing.
from tests.test_gui import (
    SETTLE_MS,
    Holder,
    launched_browser,
    listen,
    loaded,
    moves_long,
    needs_three,
    opened_tab,
    post_line,
    shown_3d,
    start_server,
    stop_server,
    wait_until,
)

# A browser and a server of its own: this module may run on another worker than test_gui's.
pytestmark = pytest.mark.xdist_group("browser-game")

#: rules.md, "Both sides": black to move mates in 2.
MATE_IN_2 = "[###,#k#,#b#],[##b,###,###],[r##,##K,###] b"
#: A board with the user (white) to move.
WHITE_TO_MOVE = "[k##,###,###],[###,###,###],[###,###,R#K]"
#: A search only a stop ends (search.max_nodes aside): what a rewritten level line asks for.
ENDLESS = "level depth 0 nodes 0 time 0"
#: The level the tests rewrite into ENDLESS.
LONGEST = "level time 1"
#: More plies than the weakest level's game lasts (a bound, so that a bug fails, not hangs).
MAX_PLIES = 120


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """Start the GUI server with a real engine; yield its URL and the engine's log folder."""
    logs = tmp_path_factory.mktemp("game-engine-logs")
    process, url = start_server(logs)
    try:
        yield url, logs
    finally:
        code, errors = stop_server(process)
    assert code == 0, errors


@pytest.fixture(scope="module")
def browser(request: pytest.FixtureRequest) -> Iterator[Browser]:
    """Launch the system Chromium headless, once for the module (and its xdist group)."""
    claim_one_worker(request)
    with launched_browser() as chromium:
        yield chromium


@pytest.fixture(scope="module")
def shared_tab(browser: Browser) -> Iterator[Page]:
    """The tab the module's tests share, each loading the GUI afresh in it."""
    with opened_tab(browser) as opened:
        yield opened


@pytest.fixture()
def page(shared_tab: Page, server: tuple[str, Path]) -> Iterator[Page]:
    """Load the GUI afresh at 1280 × 800, sending every edit at once."""
    with loaded(shared_tab, server[0]) as fresh:
        yield fresh


@pytest.fixture()
def reference(tmp_path: Path) -> Iterator[Engine]:
    """An engine of its own, beside the GUI's, to check the page's answers against."""
    with Engine(None, log_dir=tmp_path / "reference-logs", timeout=60) as engine:
        yield engine


def settle(page: Page) -> None:
    """Wait until the page has no engine job left and the computer is not asked for a move."""
    wait_until(page, 'body[data-pending="0"][data-computer="idle"]')


def engine_text(url: str, line: str) -> str:
    """Ask the GUI's engine a line that changes nothing; return its text."""
    status, answer = post_line(url, line)
    assert status == 200 and answer["ok"], answer
    text: str = answer["text"]
    return text


def cells(move: str) -> tuple[str, str]:
    """The two cells of a move name: `Ra3(I)-a3(II)` is a3(I) and a3(II)."""
    origin, target = move[1:].replace("x", "-").split("-")
    return origin, target


def click_move(page: Page, move: str) -> None:
    """Play ``move`` by two clicks, its piece and then its target, and wait for the engine
    (and the computer's answer, if it is its turn then)."""
    origin, target = cells(move)
    page.click(f'[data-cell="{origin}"]')
    page.click(f'[data-cell="{target}"]')
    settle(page)


def ends(move: str) -> dict[str, str]:
    """A move's two cells as ``marked`` reports them."""
    origin, target = cells(move)
    return {"from": origin, "to": target}


def marked(page: Page, attribute: str) -> dict[str, str]:
    """The cells that carry ``attribute``, by its value (`from`, `to`)."""
    found = page.locator(f"[{attribute}]")
    return {
        found.nth(i).get_attribute(attribute) or "": found.nth(i).get_attribute("data-cell") or ""
        for i in range(found.count())
    }


def moves_shown(page: Page) -> list[str]:
    """The move list on the page."""
    return page.locator("#moves .ply").all_inner_texts()


def start_game(page: Page, size: int, level: str, computer: str) -> None:
    """Choose the size and level, start a new game and let the computer play ``computer``."""
    page.select_option("#size", str(size))
    page.select_option("#level", level)
    page.click("#new-game")
    settle(page)
    page.select_option("#opponent", computer)
    settle(page)


def requests_to(page: Page, path: str) -> list[Request]:
    """Start recording the page's requests to ``path``; return the (growing) list."""
    sent: list[Request] = []
    listen(
        page,
        "request",
        lambda request: sent.append(request) if request.url.endswith(path) else None,
    )
    return sent


def answers_from(page: Page, path: str) -> list[Response]:
    """Start recording the server's answers to ``path``; return the (growing) list."""
    got: list[Response] = []
    listen(
        page,
        "response",
        lambda response: got.append(response) if response.url.endswith(path) else None,
    )
    return got


def endless_level(page: Page) -> None:
    """Rewrite the longest level into a search without limits, which only a stop can end."""

    def rewrite(route: Route) -> None:
        body = route.request.post_data or ""
        if LONGEST in body:
            route.continue_(post_data=body.replace(LONGEST, ENDLESS))
        else:
            route.continue_()

    page.route("**/engine", rewrite)


def wait_for_search(page: Page) -> None:
    """Wait until the thinking panel shows a finished depth of a search still running."""
    wait_until(page, '#thinking[data-state="thinking"][data-depth]')


def pump_until(page: Page, done: Callable[[], bool]) -> None:
    """Let Playwright deliver its events (route handlers run then) until ``done()``."""
    for _ in range(SETTLE_MS // 20):
        if done():
            return
        page.wait_for_timeout(20)
    raise AssertionError("the page never got there")


def engine_commands(logs: Path) -> list[str]:
    """The command lines the GUI's engine has answered so far, from its JSON log."""
    return [event["line"] for event in read_json_log(logs) if event["event"] == "input"]


def commands_since(logs: Path, mark: int) -> list[str]:
    """The commands after the first ``mark`` ones, without the page's reading commands."""
    reading = {
        "status",
        "checkers",
        "legal_moves",
        "explain",
        "result",
        "tb_probe",
        "printgame",
        "get_board",
    }
    return [line for line in engine_commands(logs)[mark:] if line.split()[0] not in reading]


# ---------------------------------------------------------------- a whole game


def test_a_game_at_the_weakest_level_played_to_the_end(
    page: Page, server: tuple[str, Path], reference: Engine
) -> None:
    """White by clicks (the reference engine chooses: a mate in 2 when there is one, else its
    move at depth 1) against the computer at level 1, until the game ends; the computer's every
    move is marked, and once the result shows it is asked for no move."""
    url, _ = server
    genmoves = requests_to(page, "/genmove")
    start_game(page, 4, "level nodes 1", "black")
    reference.ask("new_game 4")
    reference.ask("level depth 1")
    played: list[str] = []
    while page.inner_text("#result") == "":
        assert len(played) < MAX_PLIES, played
        keys = reference.ask("mate_in 2").text.split()
        mine = keys[0] if keys else reference.ask("reg_genmove").text
        click_move(page, mine)
        played.append(mine)
        assert reference.ask(f"play {mine}").ok
        if reference.ask("result").text != "*":
            break
        answer = moves_long(page)[-1]  # the computer's, played by itself
        played.append(answer)
        assert moves_long(page) == played
        assert reference.ask(f"play {answer}").ok
        assert marked(page, "data-last-move") == ends(answer)
        assert page.input_value("#notation") == engine_text(url, "get_board")
    settle(page)
    outcome = reference.ask("result").text
    assert outcome != "*"
    assert page.inner_text("#result") == outcome
    assert engine_text(url, "result") == outcome
    assert moves_long(page) == played
    # One genmove per black move, none after the end.
    assert len(genmoves) == len(played) // 2


@needs_three
def test_a_game_played_in_3d_to_the_end(
    page: Page, server: tuple[str, Path], reference: Engine
) -> None:
    """The same game in the 3D view alone: each of white's moves two clicks on the canvas,
    where the view's hook says its cells lie (the first move of the reference's choices whose
    piece is the nearest under the pointer and whose target the pointer then picks), against
    the computer at level 1, until the result shows in the page and in the engine."""
    url, _ = server
    page.check('#view input[value="3d"]')
    start_game(page, 4, "level nodes 1", "black")
    reference.ask("new_game 4")
    reference.ask("level depth 1")
    played: list[str] = []
    while page.inner_text("#result") == "":
        assert len(played) < MAX_PLIES, played
        shown_3d(page)
        keys = reference.ask("mate_in 2").text.split()
        preferred = keys[:1] or [reference.ask("reg_genmove").text]
        choices = preferred + reference.ask("legal_moves").text.split()
        mine = next(move for move in choices if clicked_in_3d(page, move))
        settle(page)
        played.append(mine)
        assert reference.ask(f"play {mine}").ok
        if reference.ask("result").text != "*":
            break
        answer = moves_long(page)[-1]
        played.append(answer)
        assert reference.ask(f"play {answer}").ok
        assert page.input_value("#notation") == engine_text(url, "get_board")
    settle(page)
    outcome = reference.ask("result").text
    assert outcome != "*"
    assert page.inner_text("#result") == outcome
    assert engine_text(url, "result") == outcome
    assert moves_long(page) == played


def clicked_in_3d(page: Page, move: str) -> bool:
    """Play ``move`` by two clicks on the 3D canvas if the view picks its two cells there;
    return False, having clicked nothing (or unselected the piece), where it does not."""
    origin, target = cells(move)
    hook = "window.cubemate3d"
    point = page.evaluate(f"{hook}.pixelOf('{origin}')")
    if page.evaluate(f"{hook}.cellAt({point['x']}, {point['y']})") != origin:
        return False
    page.mouse.click(point["x"], point["y"])
    shown_3d(page)
    there = page.evaluate(f"{hook}.pixelOf('{target}')")
    if page.evaluate(f"{hook}.cellAt({there['x']}, {there['y']})") != target:
        page.keyboard.press("Escape")  # the piece stays where it is, unselected
        return False
    page.mouse.click(there["x"], there["y"])
    return True


def test_the_computer_mates_in_two(page: Page, server: tuple[str, Path], reference: Engine) -> None:
    """From a loaded position the computer (black, level 6) plays a mating key, says it mates
    in 2, answers white's only reply with the mate, and the result names it."""
    url, _ = server
    genmoves = requests_to(page, "/genmove")
    page.fill("#notation", MATE_IN_2)
    page.click("#load")
    settle(page)
    page.select_option("#level", "level time 1")
    page.select_option("#opponent", "black")
    settle(page)
    reference.ask(f"set_board {MATE_IN_2}")
    keys = reference.ask("mate_in 2").text.split()
    key = moves_long(page)[-1]
    assert key in keys
    assert page.get_attribute("#thinking", "data-score") == "mate 2"
    assert "mate in 2" in page.inner_text("#thinking")
    assert page.inner_text("#result") == ""
    reference.ask(f"play {key}")
    (reply,) = reference.ask("legal_moves").text.split()  # white has one move
    click_move(page, reply)
    mate = moves_long(page)[-1]
    assert moves_long(page) == [key, reply, mate]
    assert moves_shown(page)[-1].endswith("#")  # short, the mate marked
    assert page.inner_text("#result") == "0-1 (checkmate)"
    assert page.get_attribute("#thinking", "data-score") == "mate 1"
    assert marked(page, "data-last-move") == ends(mate)
    assert page.inner_text("#verdict") == "checkmate"
    assert engine_text(url, "result") == "0-1 (checkmate)"
    assert len(genmoves) == 2


#: Raumschach, black to move: the pawn c1(II) steps down to c1(I), its last cell, and mates
#: as a queen or a rook (the rooks hold the white king's other cells once it has moved).
PROMOTION_MATE = (
    "[####k,#####,#####,#####,#####],[#####,#####,#####,#####,#####],"
    "[#####,#####,#####,#####,#####],[#####,#####,#####,r####,r#p##],"
    "[#####,#####,#####,r####,####K] b"
)


def test_the_computer_promotes_in_raumschach(page: Page, server: tuple[str, Path]) -> None:
    """In a Raumschach game the computer's promotion reaches the page with the piece it chose:
    listed with its =X, marked as its last move, the new piece on the board, the mate named."""
    url, _ = server
    page.select_option("#variant", "raumschach")
    wait_until(page, 'body[data-variant="raumschach"]')
    settle(page)
    page.fill("#notation", PROMOTION_MATE)
    page.click("#load")
    settle(page)
    page.select_option("#level", "level depth 1")
    page.select_option("#opponent", "black")
    settle(page)
    (move,) = moves_long(page)
    assert move in ("pc1(II)-c1(I)=q", "pc1(II)-c1(I)=r"), move
    assert moves_shown(page) == [f"c1(I)={move[-1].upper()}#"]
    assert marked(page, "data-last-move") == {"from": "c1(II)", "to": "c1(I)"}
    assert page.get_attribute('[data-cell="c1(I)"]', "data-piece") == move[-1]
    assert page.inner_text("#result") == "0-1 (checkmate)"
    assert engine_text(url, "result") == "0-1 (checkmate)"
    assert engine_text(url, "variant") == "raumschach"


# ---------------------------------------------------------------- hint and take-back


def test_hint_marks_the_engines_move(page: Page, reference: Engine) -> None:
    """The hint is the move the engine plays at the level chosen, marked on its two cells;
    playing it clears the marks."""
    start_game(page, 3, "level depth 1", "black")
    reference.ask("new_game 3")
    reference.ask("level depth 1")
    expected = reference.ask("reg_genmove").text
    page.click("#hint")
    settle(page)
    assert marked(page, "data-hint") == ends(expected)
    assert page.inner_text("#message") == f"hint: {expected}"
    click_move(page, expected)
    assert marked(page, "data-hint") == {}
    assert moves_long(page)[0] == expected
    assert len(moves_shown(page)) == 2  # and the computer answered


def test_take_back_two_plies(page: Page, server: tuple[str, Path]) -> None:
    """Undo against the computer takes back the user's move and its answer together; the
    computer does not move again, since it is the user's turn."""
    url, logs = server
    start_game(page, 3, "level depth 1", "black")
    start = page.input_value("#notation")
    click_move(page, "Ra3(I)-a3(II)")
    assert len(moves_shown(page)) == 2
    mark = len(engine_commands(logs))
    page.click("#undo")
    settle(page)
    assert moves_shown(page) == []
    assert page.input_value("#notation") == start
    assert engine_text(url, "get_board") == start
    assert "1." not in engine_text(url, "printgame")  # no move left in the record
    assert page.inner_text("#turn") == "White to move"
    assert commands_since(logs, mark) == ["undo", "undo"]  # and no genmove after
    assert marked(page, "data-last-move") == {}


def test_take_back_while_the_computer_thinks(page: Page, server: tuple[str, Path]) -> None:
    """Undo while the computer searches stops the search (which only a stop can end here), and
    takes back the user's move; the move the search had played is taken back first."""
    url, logs = server
    endless_level(page)
    start_game(page, 3, LONGEST, "black")
    start = page.input_value("#notation")
    mark = len(engine_commands(logs))
    page.click('[data-cell="a3(I)"]')
    page.click('[data-cell="a3(II)"]')
    wait_for_search(page)
    page.click("#undo")
    settle(page)
    assert moves_shown(page) == []
    assert page.input_value("#notation") == start
    assert engine_text(url, "get_board") == start
    assert "1." not in engine_text(url, "printgame")
    assert commands_since(logs, mark) == [
        "play Ra3(I)-a3(II)",
        "level depth 0 nodes 0 time 1",
        ENDLESS,
        "genmove black",
        "undo",  # the server takes back the move the stopped search played
        "undo",  # the user's move
    ]
    assert page.get_attribute("#thinking", "data-state") == "stopped"


# ---------------------------------------------------------------- nothing stale is applied


def test_a_search_stopped_by_an_edit_leaves_the_edited_board(
    page: Page, server: tuple[str, Path]
) -> None:
    """Switching to Edit and changing the board while the computer searches stops the search;
    its move is never shown, and the engine holds the edited board."""
    url, _ = server
    endless_level(page)
    start_game(page, 3, LONGEST, "black")
    page.click('[data-cell="a3(I)"]')
    page.click('[data-cell="a3(II)"]')
    wait_for_search(page)
    page.check('#mode input[value="edit"]')
    page.click('#palette [data-palette="Q"]')
    page.click('[data-cell="b2(II)"]')
    settle(page)
    mine = "[#k#,b#b,rnr],[R##,#Q#,###],[#NR,B#B,#K#] b"
    assert page.input_value("#notation") == mine
    assert engine_text(url, "get_board") == mine
    assert moves_shown(page) == []
    assert marked(page, "data-last-move") == {}


def test_a_move_asked_for_an_old_game_is_never_searched(
    page: Page, server: tuple[str, Path]
) -> None:
    """A request for the computer's move that reaches the server after the user loaded another
    board (white to move) is refused unsearched; the page keeps the user's board."""
    url, logs = server
    start_game(page, 3, "level depth 1", "black")
    holder = Holder(page, "/genmove")
    answers = answers_from(page, "/genmove")
    with page.expect_request("**/genmove"):
        page.click('[data-cell="a3(I)"]')
        page.click('[data-cell="a3(II)"]')
    mark = len(engine_commands(logs))
    page.fill("#notation", WHITE_TO_MOVE)
    with page.expect_response("**/stop"):
        page.click("#load")
    holder.release()
    settle(page)
    assert [response.status for response in answers] == [409]
    assert json.loads(answers[0].text())["cancelled"] is False
    assert "genmove black" not in engine_commands(logs)[mark:]
    assert page.input_value("#notation") == WHITE_TO_MOVE
    assert engine_text(url, "get_board") == WHITE_TO_MOVE


def test_a_move_played_just_before_a_take_back_is_taken_back_too(
    page: Page, server: tuple[str, Path]
) -> None:
    """The computer's move that the server has played, but whose answer the page has not read
    yet when the user takes back, is taken back by the stop before the user's move is: the
    engine ends at the start, as the page does."""
    url, logs = server
    start_game(page, 3, "level depth 1", "black")
    start = page.input_value("#notation")
    held: list[tuple[Route, APIResponse]] = []

    def hold(route: Route) -> None:
        held.append((route, route.fetch()))  # the server has played its move by now

    page.route("**/genmove", hold)
    page.click('[data-cell="a3(I)"]')
    page.click('[data-cell="a3(II)"]')
    pump_until(page, lambda: bool(held))
    mark = len(engine_commands(logs))
    page.click("#undo")
    for route, response in held:
        route.fulfill(response=response)
    settle(page)
    assert commands_since(logs, mark) == ["undo", "undo"]  # the computer's move, the user's
    assert page.input_value("#notation") == start
    assert engine_text(url, "get_board") == start
    assert moves_shown(page) == []


# ---------------------------------------------------------------- the record


def test_record_downloaded_and_read_back(
    page: Page, server: tuple[str, Path], tmp_path: Path
) -> None:
    """The record link downloads printgame's record, whose moves the list showed; opened again,
    it replays move by move to the same position (a move clicked on the board, long, counts as
    the record's, short); a broken copy is refused naming its line, and changes nothing."""
    url, _ = server
    start_game(page, 3, "level depth 1", "black")
    click_move(page, "Ra3(I)-a3(II)")
    click_move(page, engine_text(url, "legal_moves").split()[0])
    played = moves_shown(page)
    played_long = moves_long(page)
    assert len(played) == 4
    final = page.input_value("#notation")
    with page.expect_download() as download:
        page.click("#record")
    path = tmp_path / "game.txt"
    download.value.save_as(path)
    text = path.read_text(encoding="utf-8")
    assert text == engine_text(url, "printgame").removeprefix("\n") + "\n"
    assert text.splitlines()[:3] == [
        "Size: 3",
        "Start: [#k#,b#b,rnr],[###,###,###],[RNR,B#B,#K#] w",
        "Result: *",
    ]
    # The record's moves, short as printgame writes them, and as the move list showed them.
    recorded = list(record_moves(text))
    assert recorded == played

    page.select_option("#opponent", "none")
    page.click("#new-game")
    settle(page)
    page.set_input_files("#record-file", str(path))
    settle(page)
    assert page.get_attribute("#replay", "data-ply") == "0"
    assert page.inner_text("#replay-where") == "game.txt: move 0 of 4"
    click_move(page, played_long[0])
    assert page.get_attribute("#replay", "data-ply") == "1"
    for ply in range(2, 5):
        page.click("#replay-next")
        settle(page)
        assert moves_shown(page) == recorded[:ply]
    assert moves_long(page) == played_long
    assert page.input_value("#notation") == final
    assert engine_text(url, "get_board") == final
    assert page.is_disabled("#replay-next")
    page.click("#replay-start")
    settle(page)
    assert moves_shown(page) == []
    page.click("#replay-end")
    settle(page)
    assert moves_shown(page) == recorded

    broken = tmp_path / "broken.txt"
    lines = text.splitlines()
    lines[-1] = lines[-1].replace(recorded[2], "Kb1(I)-b3(I)")
    broken.write_text("\n".join(lines) + "\n", encoding="utf-8")
    page.set_input_files("#record-file", str(broken))
    settle(page)
    message = page.inner_text("#message")
    assert message.startswith("? 'broken.txt' game 1, ply 3 (line 6): illegal move"), message
    assert page.input_value("#notation") == final
    assert engine_text(url, "get_board") == final
    assert moves_shown(page) == recorded


def test_requests_for_the_computer_are_checked(server: tuple[str, Path]) -> None:
    """The new endpoints refuse a body that is not theirs, naming the problem."""
    url, _ = server

    def post(path: str, body: bytes) -> tuple[int, dict[str, Any]]:
        request = urllib.request.Request(
            url + path, data=body, headers={"Content-Type": "application/json"}, method="POST"
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read())

    cases: list[tuple[str, bytes, str]] = [
        ("genmove", b'{"game": 1}', 'the key "color" is missing'),
        ("genmove", b'{"game": "1", "color": "b"}', '"game" is a string, not a number'),
        ("genmove", b'{"game": -1, "color": "b"}', '"game" must be a whole number'),
        ("genmove", b'{"game": 1, "color": "red"}', '"color" is "red", not one of'),
        ("stop", b'{"game": 1.5}', '"game" must be a whole number'),
        ("record", b'{"text": "x"}', 'the key "name" is missing'),
    ]
    for path, body, message in cases:
        status, answer = post(path, body)
        assert status == 400, (path, body, answer)
        assert answer["error"].startswith(message), answer
