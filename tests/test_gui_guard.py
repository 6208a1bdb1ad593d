"""The computer's moves through the GUI server process: versions, stops, thinking, records.

The server runs with a real engine under the GUI's own config (its thinking on stderr), its logs
in a temporary folder; the engine's JSON log shows which lines reached it. A search that only a
stop can end (`level depth 0 nodes 0 time 0`) makes every stop deterministic: the test waits
until the thinking feed shows the search running, never for a time. No browser is needed.
"""

from __future__ import annotations

import json
import re
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gui.records import quoted_file, record_moves, rename_record
from gui.thinking import Depth, ThinkingFeed, parse_thinking
from tests.conftest import REPO, TIMEOUT, read_json_log
from tests.test_gui_server import Server, running_server

GUI_CONFIG = REPO / "gui" / "engine_config.toml"
ENDLESS = "level depth 0 nodes 0 time 0"
START_3 = "[#k#,b#b,rnr],[###,###,###],[RNR,B#B,#K#]"
RECORD = """Size: 3
Start: [#k#,b#b,rnr],[###,###,###],[RNR,B#B,#K#] w
Result: *
White: someone
1. Ra3(I)-a3(II) ra1(III)-a1(II)
2. Nb3(I)-c1(I)
"""


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, Path]]:
    """A server whose engine runs with the GUI's config; yields it and the engine's logs."""
    logs = tmp_path_factory.mktemp("guard-engine-logs")
    with running_server(logs, engine_options=("--config", str(GUI_CONFIG))) as running:
        yield running, logs


class Api:
    """The server's JSON endpoints, spoken to as the page does."""

    def __init__(self, port: int) -> None:
        self.url = f"http://127.0.0.1:{port}/"

    def post(self, path: str, payload: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """POST a JSON body; return the status and the JSON answer."""
        request = urllib.request.Request(
            self.url + path,
            data=json.dumps(payload).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
                status, body = response.status, response.read()
        except urllib.error.HTTPError as exc:
            status, body = exc.code, exc.read()
        answer: dict[str, Any] = json.loads(body)
        return status, answer

    def line(self, line: str) -> dict[str, Any]:
        """Relay one line that the engine must accept; return the answer."""
        status, answer = self.post("engine", {"line": line})
        assert status == 200 and answer["ok"], answer
        return answer

    def text(self, line: str) -> str:
        """Relay one line; return the engine's text."""
        text: str = self.line(line)["text"]
        return text

    def thinking(self) -> dict[str, Any]:
        """What the latest search has found so far."""
        with urllib.request.urlopen(self.url + "thinking", timeout=TIMEOUT) as response:
            answer: dict[str, Any] = json.loads(response.read())
        return answer

    def version(self) -> int:
        """The version of the engine's game."""
        version: int = self.thinking()["game"]
        return version


@pytest.fixture()
def api(served: tuple[Server, Path]) -> Api:
    return Api(served[0].port)


def inputs(logs: Path) -> list[str]:
    """Every line the engine has read, from its JSON log."""
    return [event["line"] for event in read_json_log(logs) if event["event"] == "input"]


def search_running(api: Api) -> bool:
    """Whether the latest search runs and has finished a depth."""
    snapshot = api.thinking()
    return bool(snapshot["running"] and snapshot["depths"])


def wait_for(condition: Any, what: str) -> None:
    """Ask ``condition()`` again and again until it holds (bounded, to fail instead of hang)."""
    event = threading.Event()
    for _ in range(int(TIMEOUT / 0.02)):
        if condition():
            return
        event.wait(0.02)
    raise AssertionError(f"never got {what}")


# --- through the server process -------------------------------------------------------------


def test_versions_count_what_changes_the_game(api: Api) -> None:
    """A line that changes the game bumps the version; reading lines and refusals do not."""
    version = api.line("new_game 3")["game"]
    assert api.line("status")["game"] == version
    assert api.line("level depth 1")["game"] == version
    _, refused = api.post("engine", {"line": "play Kb1(I)-b3(I)"})
    assert refused["ok"] is False and refused["game"] == version
    assert api.line("play Ra3(I)-a3(II)")["game"] == version + 1
    status, batch = api.post("engine", {"lines": ["undo", "get_board"]})
    assert status == 200 and batch["game"] == version + 2
    # The page asks tb_probe after every change: an answer (bare kings are a draw without
    # tables) must not void a move asked for meanwhile.
    bare_kings = api.line("set_board [###,###,###],[###,###,###],[###,##k,K##]")["game"]
    answer = api.line("tb_probe")
    assert (answer["text"], answer["game"]) == ("draw", bare_kings)


def test_genmove_plays_and_reports_its_thinking(api: Api) -> None:
    """The computer's move is played for its version, and its thinking is served: every depth
    with its score, positions and principal variation, the chosen move first."""
    api.line("new_game 3")
    version = api.line("level depth 3")["game"]
    status, answer = api.post("genmove", {"game": version, "color": "white"})
    assert status == 200 and answer["ok"], answer
    move = answer["text"]
    assert answer["game"] == version + 1
    assert api.text("printgame long").splitlines()[-1] == f"1. {move}"
    snapshot = api.thinking()
    assert (snapshot["command"], snapshot["running"]) == ("genmove", False)
    assert [depth["depth"] for depth in snapshot["depths"]] == [1, 2, 3]
    last = snapshot["depths"][-1]
    assert last["pv"][0] == move
    assert isinstance(last["score_cp"], int) and last["mate"] is None
    assert last["nodes"] > 0


def test_a_move_asked_for_an_old_version_is_never_searched(
    api: Api, served: tuple[Server, Path]
) -> None:
    """A version that is no longer the game's is refused (409) before any line is sent."""
    logs = served[1]
    old = api.line("new_game 3")["game"]
    api.line("play Ra3(I)-a3(II)")
    mark = len(inputs(logs))
    status, answer = api.post("genmove", {"game": old, "color": "black"})
    assert status == 409
    assert answer["cancelled"] is False
    assert answer["error"].startswith("the game changed since the move was asked for")
    assert inputs(logs)[mark:] == []


def test_a_stop_before_the_move_is_asked_voids_it(api: Api, served: tuple[Server, Path]) -> None:
    """A stop that overtakes the request it stops (they travel on two connections) leaves
    that request stale: it is refused unsearched."""
    logs = served[1]
    version = api.line("new_game 3")["game"]
    status, stopped = api.post("stop", {"game": version})
    assert (status, stopped["stopped"], stopped["taken_back"]) == (200, False, False)
    mark = len(inputs(logs))
    status, answer = api.post("genmove", {"game": version, "color": "white"})
    assert status == 409 and answer["cancelled"] is False
    assert inputs(logs)[mark:] == []


def test_a_stop_ends_the_search_and_takes_its_move_back(
    api: Api, served: tuple[Server, Path]
) -> None:
    """A search that only a stop can end is stopped; the move it then plays is taken back, so
    the game is as it was before the move was asked for."""
    logs = served[1]
    api.line("new_game 4")
    start = api.text("get_board")
    version = api.line(ENDLESS)["game"]
    answers: list[tuple[int, dict[str, Any]]] = []
    asking = threading.Thread(
        target=lambda: answers.append(api.post("genmove", {"game": version, "color": "w"}))
    )
    asking.start()
    try:
        wait_for(lambda: search_running(api), "a running search")
        mark = len(inputs(logs))
        status, stopped = api.post("stop", {"game": version})
    finally:
        asking.join(TIMEOUT)
    assert (status, stopped["stopped"]) == (200, True)
    ((status, answer),) = answers
    assert status == 409 and answer["cancelled"] is True, answer
    assert re.fullmatch(r"the search was stopped: the move it had played, \S+, was taken back",
                        answer["error"]), answer  # fmt: skip
    assert inputs(logs)[mark:] == ["undo"]
    assert api.text("get_board") == start
    assert not api.thinking()["running"]
    assert stopped["game"] == answer["game"] == api.version()


def test_a_finished_move_is_taken_back_for_its_own_version_only(api: Api) -> None:
    """A stop naming the version a finished genmove was asked for takes its move back, as long
    as nothing changed since; a stop naming another version takes nothing back."""
    api.line("new_game 3")
    version = api.line("level depth 1")["game"]
    status, _ = api.post("genmove", {"game": version, "color": "w"})
    assert status == 200
    played = api.text("get_board")
    status, stopped = api.post("stop", {"game": version - 1})
    assert (stopped["stopped"], stopped["taken_back"]) == (False, False)
    assert api.text("get_board") == played

    version = api.version()
    status, _ = api.post("genmove", {"game": version, "color": "b"})
    assert status == 200
    status, stopped = api.post("stop", {"game": version})
    assert (stopped["stopped"], stopped["taken_back"]) == (False, True)
    assert api.text("get_board") == played
    status, again = api.post("stop", {"game": version})
    assert again["taken_back"] is False
    assert api.text("get_board") == played


def test_records_are_read_under_the_users_name(api: Api, served: tuple[Server, Path]) -> None:
    """A posted record is read into the engine at its start, with its moves and headers; a
    broken one is refused naming the user's file and line, and changes nothing; the private
    file is gone either way."""
    logs = served[1]
    status, answer = api.post("record", {"text": RECORD, "name": "mine.txt"})
    assert status == 200 and answer["ok"], answer
    assert answer["moves"] == ["Ra3(II)", "Ra1(II)", "Nc1(I)"]  # short, as printgame writes
    assert "White: someone" in answer["record"].splitlines()
    assert api.text("get_board") == START_3
    assert "White: someone" in api.text("printgame")
    files = [line.split()[1] for line in inputs(logs) if line.startswith("loadgame ")]
    assert files and not any(Path(name).exists() for name in files)

    api.line("play Ra3(I)-a3(II)")
    before = (api.text("get_board"), api.text("printgame"))
    broken = RECORD.replace("Nb3(I)-c1(I)", "Nb3(I)-b2(I)")
    status, refused = api.post("record", {"text": broken, "name": "mine.txt"})
    assert status == 200 and refused["ok"] is False
    assert refused["text"].startswith("'mine.txt' game 1, ply 3 (line 6): illegal move: ")
    status, binary = api.post("record", {"text": "Size: 3\x00", "name": "odd name.bin"})
    assert binary["text"] == "'odd name.bin' is not a text file (a NUL byte at offset 7)"
    assert (api.text("get_board"), api.text("printgame")) == before


# --- in process ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "line,depth",
    [
        (
            "depth 4 score +0.37 nodes 97327 nps 39950 time 2.44 pv Qc2(I)-c2(II) qc4(V)-c4(IV)",
            Depth(4, 37, None, 97327, 39950, 2.44, ("Qc2(I)-c2(II)", "qc4(V)-c4(IV)")),
        ),
        (
            "depth 3 score mate -2 nodes 10 nps 5 time 0.00 pv ka1(I)-a2(I)",
            Depth(3, None, -2, 10, 5, 0.0, ("ka1(I)-a2(I)",)),
        ),
        (
            "depth 1 score -3.74 nodes 66 nps 8250 time 0.01 pv ",
            Depth(1, -374, None, 66, 8250, 0.01, ()),
        ),
    ],
)
def test_thinking_lines_are_read(line: str, depth: Depth) -> None:
    """A thinking line gives its depth, score (pawns or mate), positions and variation."""
    assert parse_thinking(line) == depth


def test_other_stderr_lines_are_no_thinking() -> None:
    """Warnings and half lines are not taken for thinking."""
    feed = ThinkingFeed()
    feed.begin("genmove")
    for line in ("warning: cannot write the log", "depth 4 score", "depth x score +1.00"):
        assert not feed.take(line)
    assert feed.snapshot()["depths"] == []


def test_a_new_search_starts_its_own_thinking() -> None:
    """The feed keeps the latest search's depths only, and knows when it ended."""
    feed = ThinkingFeed()
    first = feed.begin("genmove")
    assert feed.take("depth 1 score +0.10 nodes 5 nps 5 time 0.01 pv Ra1(I)-a2(I)")
    feed.end(first)
    assert feed.snapshot()["running"] is False
    second = feed.begin("reg_genmove")
    feed.end(first)  # a late end of the old search leaves the new one running
    snapshot = feed.snapshot()
    assert (snapshot["search"], snapshot["command"], snapshot["running"]) == (
        second,
        "reg_genmove",
        True,
    )
    assert snapshot["depths"] == []


def test_record_helpers() -> None:
    """Moves are read from printgame's lines; the engine's quoted file name is replaced."""
    record = (
        "Size: 3\nStart: x b\nResult: *\n1... ra1(III)-a1(II)\n2. Ra3(I)-a3(II) kb3(III)-b2(III)"
    )
    assert record_moves(record) == ("ra1(III)-a1(II)", "Ra3(I)-a3(II)", "kb3(III)-b2(III)")
    long = "/tmp/" + "x" * 80 + "/record.txt"
    assert quoted_file(long) == repr("..." + long[-57:])
    refusal = "line 1: the record has no Result header"
    renamed = rename_record(f"? {quoted_file(long)} {refusal}", long, "g.txt")
    assert renamed == f"? 'g.txt' {refusal}"
