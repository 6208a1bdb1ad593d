"""The batch runner asks selfmates and helpmates (`--ask "selfmate 1"`) like any command,
and its `--keep` filter counts a helpmate's solutions, not its count line."""

from __future__ import annotations

import json

from batch.jobs import Outcome
from batch.keep import parse_filter
from tests.test_batch import batch

SELFMATE = "[###,q##,#B#],[##Q,###,#k#],[##K,###,#b#]"
ONE_HELPMATE = "[###,B##,###],[K#k,###,#N#],[###,###,##Q] b"
FIVE_HELPMATES = "[###,K#Q,###],[###,###,##k],[###,###,###] b"


def test_selfmates_and_helpmates_asked_and_kept() -> None:
    positions = "\n".join([SELFMATE, ONE_HELPMATE, FIVE_HELPMATES]) + "\n"
    code, out, err = batch(
        "--ask", "selfmate 1", "--keep", "helpmate 1 = one solution", "--jobs", "1",
        stdin=positions,
    )  # fmt: skip
    assert code == 0, err
    lines = [json.loads(line) for line in out.splitlines()]
    assert [line["id"] for line in lines] == [2]
    assert lines[0]["answers"] == {
        "selfmate 1": "",
        "helpmate 1": "1\nkc3(II)-c2(III) Qc1(I)-b2(II)",
    }
    code, out, err = batch("--ask", "selfmate 1", "--jobs", "1", stdin=SELFMATE + "\n")
    assert code == 0, err
    assert json.loads(out)["answers"] == {"selfmate 1": "Qc3(II)-b2(II)"}


def test_a_helpmates_count_and_items() -> None:
    def keeps(source: str, answer: str) -> bool:
        outcome = Outcome(1, "b", "w", {"helpmate 2": answer}, {})
        return parse_filter(source)(outcome)

    five = "5\n" + "\n".join(f"m{index} n{index}" for index in range(5))
    assert keeps("helpmate 2 = five solutions", five)
    assert keeps("helpmate 2 > 4", five) and not keeps("helpmate 2 > 5", five)
    assert keeps("helpmate 2 = no solution", "0") and keeps("helpmate 2 < 1", "0")
    assert not keeps("helpmate 2 >= one solution", "0")
