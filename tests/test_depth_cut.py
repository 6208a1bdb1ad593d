"""A fixed depth cut short says so (issue 49, item 8), through the real process.

`level depth N` searches N plies in full unless a limit stops it first: search.max_nodes, the
level's node count, a running clock or a request to stop. Then the thinking shows one line
`depth N cut: ...`, the JSON `search` event carries `depth_asked` and `cut_by`, and the GUI's
thinking feed hands the cut to the page. A depth searched in full says nothing of the kind.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from gui.thinking import ThinkingFeed
from tests.conftest import MAIN, REPO, TIMEOUT, read_json_log

#: Small enough that depth 6 on the 4-cube's start cannot finish (it needs far more).
MAX_NODES = 20_000


def run(tmp_path: Path, lines: list[str], max_nodes: int = MAX_NODES) -> tuple[str, str]:
    """Run the engine with thinking on and this node cap; return stdout and stderr."""
    config = tmp_path / "cut.toml"
    config.write_text(f'[search]\nmax_nodes = {max_nodes}\n[play]\nthinking = "always"\n')
    result = subprocess.run(
        [sys.executable, str(MAIN), "--config", str(config), "--log-dir", str(tmp_path)],
        input="".join(line + "\n" for line in lines),
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=TIMEOUT,
        check=True,
    )
    return result.stdout, result.stderr


def searches(tmp_path: Path) -> list[dict[str, Any]]:
    return [event for event in read_json_log(tmp_path) if event["event"] == "search"]


def test_a_depth_cut_by_max_nodes_says_so(tmp_path: Path) -> None:
    out, err = run(tmp_path, ["new_game 4", "level depth 6", "reg_genmove"])
    assert out.count("\n= ") == 2 and out.endswith("\n\n"), out  # the move is still played
    cut = [line for line in err.splitlines() if " cut: " in line]
    assert len(cut) == 1, err
    assert cut[0].startswith(f"depth 6 cut: search.max_nodes ({MAX_NODES} positions) reached")
    (event,) = searches(tmp_path)
    assert event["depth_asked"] == 6 and event["cut_by"] == "search.max_nodes", event
    assert event["depth"] < 6 and event["nodes"] > MAX_NODES, event
    finished = [line for line in err.splitlines() if line.startswith("depth ") and "score" in line]
    assert f"depth {event['depth']} finished" in cut[0]
    assert finished[-1].startswith(f"depth {event['depth']} score"), err


def test_the_level_node_count_is_named_when_it_cuts(tmp_path: Path) -> None:
    run(tmp_path, ["new_game 4", "level depth 6 nodes 3000", "reg_genmove"])
    (event,) = searches(tmp_path)
    assert (event["depth_asked"], event["cut_by"]) == (6, "level nodes"), event


def test_a_depth_searched_in_full_says_nothing_of_a_cut(tmp_path: Path) -> None:
    """The same search with room to finish, and a level of time alone (no depth promised)."""
    _, err = run(tmp_path, ["new_game 4", "level depth 2", "reg_genmove"])
    _, err_time = run(tmp_path, ["new_game 4", "level time 0.05", "reg_genmove"])
    assert " cut: " not in err + err_time
    for event in searches(tmp_path):
        assert "depth_asked" not in event and "cut_by" not in event, event
    assert searches(tmp_path)[0]["depth"] == 2


def test_the_gui_feed_hands_the_engine_cut_to_the_page(tmp_path: Path) -> None:
    """The engine's own stderr, fed line by line as the GUI's client does."""
    _, err = run(tmp_path, ["new_game 4", "level depth 6", "reg_genmove"])
    feed = ThinkingFeed()
    search = feed.begin("reg_genmove")
    taken = [feed.take(line) for line in err.splitlines()]
    feed.end(search)
    assert all(taken), err
    snapshot = feed.snapshot()
    assert snapshot["cut"]["depth"] == 6, snapshot
    assert snapshot["cut"]["why"].startswith("search.max_nodes"), snapshot
    assert snapshot["depths"], snapshot
    feed.begin("genmove")  # a new search forgets the last one's cut
    assert feed.snapshot()["cut"] is None
