"""`python -m batch --variant raumschach` (issue 48, item 5): positions read by the variant's
rules, every engine process told it before its first position, once, and again after a death."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from batch.jobs import Job
from batch.work import EngineSpec, examine

REPO = Path(__file__).resolve().parent.parent
TIMEOUT = 60
#: Raumschach's start, and the mate by promotion of docs/rules.md's Raumschach.
START = (
    "[rnknr,ppppp,#####,#####,#####],[ubqub,ppppp,#####,#####,#####],"
    "[#####,#####,#####,#####,#####],[#####,#####,#####,PPPPP,BUQBU],"
    "[#####,#####,#####,PPPPP,RNKNR]"
)
PROMOTION_MATE = (
    "[kr###,P####,#####,#####,#####],[#R###,#####,#####,#####,#####],"
    "[#####,#####,#####,#####,#####],[#####,#####,#K###,#####,#####],"
    "[#####,#####,#####,#####,#####]"
)
#: A bishop in the middle, kings out of its reach: a board of both variants, its B another
#: piece in each (the 8 triagonals of the cube, Raumschach's 12 flat diagonals).
BISHOP = (
    "[#####,####k,#####,#####,#####],[#####,#####,#####,#####,#####],"
    "[#####,#####,##B##,#####,#####],[#####,#####,#####,#####,#####],"
    "[K####,#####,#####,#####,#####]"
)


def batch(*words: str, stdin: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "batch", *words, "--jobs", "1", "--log-dir", str(tmp_path)],
        input=stdin, capture_output=True, text=True, cwd=REPO, timeout=TIMEOUT, check=False,
    )  # fmt: skip


def answers(stdout: str) -> list[dict[str, str]]:
    return [json.loads(line)["answers"] for line in stdout.splitlines()]


def test_positions_are_read_as_raumschach(tmp_path: Path) -> None:
    """The start's 61 moves, the mate by promotion, and the bishop's moves of Raumschach;
    without --variant the same bishop is the cube's, and the pawns are refused."""
    lines = f"{START} w\n{PROMOTION_MATE} w\n{BISHOP} w\n"
    asks = ("--ask", "perft 1", "--ask", "mate_in 1")
    result = batch("--variant", "raumschach", *asks, stdin=lines, tmp_path=tmp_path)
    assert (result.returncode, result.stderr) == (0, "")
    # The bishop on c3(III): 24 cells on the 12 flat diagonals, and the king's 7 from a1(I).
    assert answers(result.stdout) == [
        {"perft 1": "61", "mate_in 1": ""},
        {"perft 1": "43", "mate_in 1": "Pa4(V)xb5(V)=Q"},
        {"perft 1": "31", "mate_in 1": ""},
    ]
    cube = batch(*asks, stdin=lines, tmp_path=tmp_path)
    assert cube.returncode == 0
    found = [json.loads(line) for line in cube.stdout.splitlines()]
    assert [sorted(line["errors"]) for line in found[:2]] == [["set_board"], ["set_board"]]
    assert "a pawn is no piece of cube" in found[0]["errors"]["set_board"]
    # The cube's bishop reaches 15 cells on the 8 triagonals (a1(I) is its king's).
    assert found[2]["answers"] == {"perft 1": "22", "mate_in 1": ""}


@pytest.mark.parametrize(
    ("words", "message"),
    [
        (["--variant", "chess"], "batch: --variant chess: the engine refuses it: unknown "
         "variant 'chess' (known: cube, raumschach)\n"),
        (["--variant", "raumschach", "--generate", "crowded", "--count", "2"],
         "batch: --generate draws positions of the cube's rules, not of --variant raumschach\n"),
    ],
    ids=["unknown", "generate"],
)  # fmt: skip
def test_a_variant_the_batch_cannot_use_is_refused(
    tmp_path: Path, words: list[str], message: str
) -> None:
    result = batch(*words, stdin=f"{START} w\n", tmp_path=tmp_path)
    assert (result.returncode, result.stderr, result.stdout) == (2, message, "")


def test_a_fresh_process_is_told_the_variant_again(tmp_path: Path) -> None:
    """Told once a process: a killed engine's replacement is told before its position."""
    spec = EngineSpec(log_dir=str(tmp_path), timeout=TIMEOUT, variant="raumschach")
    engine = spec.engine()
    try:
        job = Job(1, START, "w")
        first = examine(engine, job, ["perft 1"], variant=spec.variant)
        pid = engine.pid
        assert first.answers == {"perft 1": "61"}
        engine.kill()
        again = examine(engine, job, ["perft 1", "variant"], variant=spec.variant)
        assert engine.pid != pid
        assert again.answers == {"perft 1": "61", "variant": "raumschach"}
        assert again.errors == {}
    finally:
        engine.close()


def test_records_say_their_variant_and_resume_keeps_to_it(tmp_path: Path) -> None:
    """A record of a run with --variant names it; --resume continues only a file made with
    the same --variant (or, without one, a file made without), and refuses the other before
    touching it."""
    output = tmp_path / "out.jsonl"
    first = batch("--variant", "raumschach", "--ask", "perft 1", "-o", str(output),
                  stdin=f"{START} w\n", tmp_path=tmp_path)  # fmt: skip
    assert (first.returncode, first.stderr) == (0, "")
    record = json.loads(output.read_text())
    assert list(record)[:4] == ["id", "board", "side", "variant"]
    assert record["variant"] == "raumschach"
    written = output.read_bytes()
    lines = f"{START} w\n{PROMOTION_MATE} w\n"
    refused = batch("--resume", "--ask", "perft 1", "-o", str(output), stdin=lines,
                    tmp_path=tmp_path)  # fmt: skip
    assert refused.returncode == 2
    assert refused.stderr == (
        f"batch: --resume: {output} was made with --variant raumschach (line 1), not without one\n"
    )
    assert output.read_bytes() == written
    resumed = batch("--resume", "--variant", "raumschach", "--ask", "perft 1", "-o",
                    str(output), stdin=lines, tmp_path=tmp_path)  # fmt: skip
    assert (resumed.returncode, resumed.stderr) == (0, "")
    assert [json.loads(line)["answers"] for line in output.read_text().splitlines()] == [
        {"perft 1": "61"},
        {"perft 1": "43"},
    ]
    # A file of the cube's (no --variant, no field) is not continued as Raumschach's.
    cube = tmp_path / "cube.jsonl"
    made = batch("--ask", "perft 1", "-o", str(cube), stdin=f"{BISHOP} w\n", tmp_path=tmp_path)
    assert made.returncode == 0 and "variant" not in json.loads(cube.read_text())
    other = batch("--resume", "--variant", "raumschach", "--ask", "perft 1", "-o", str(cube),
                  stdin=f"{BISHOP} w\n", tmp_path=tmp_path)  # fmt: skip
    assert (other.returncode, other.stderr) == (
        2,
        f"batch: --resume: {cube} was made with no --variant (line 1), not --variant raumschach\n",
    )


def test_resume_reads_the_variant_name_in_any_case(tmp_path: Path) -> None:
    """`--variant RAUMSCHACH --resume` continues a file made with `--variant raumschach`
    (issue 63, item 7): variant names are case-blind, as the engine's `variant` reads them."""
    output = tmp_path / "out.jsonl"
    first = batch("--variant", "raumschach", "--ask", "perft 1", "-o", str(output),
                  stdin=f"{START} w\n", tmp_path=tmp_path)  # fmt: skip
    assert (first.returncode, first.stderr) == (0, "")
    resumed = batch("--resume", "--variant", "RAUMSCHACH", "--ask", "perft 1", "-o",
                    str(output), stdin=f"{START} w\n{PROMOTION_MATE} w\n",
                    tmp_path=tmp_path)  # fmt: skip
    assert (resumed.returncode, resumed.stderr) == (0, "")
    assert [json.loads(line)["answers"] for line in output.read_text().splitlines()] == [
        {"perft 1": "61"},
        {"perft 1": "43"},
    ]
