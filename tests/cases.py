"""The ten reference cases of rules.md, written once for every test and benchmark."""

from __future__ import annotations

from typing import NamedTuple


class ReferenceCase(NamedTuple):
    """One public acceptance case: its number in rules.md, size, board and answers."""

    number: int
    size: int
    board: str
    mated: bool
    status: str


REFERENCE_CASES: tuple[ReferenceCase, ...] = (
    ReferenceCase(1, 3, "[###,n##,#rr],[#b#,###,###],[###,###,bRK]", True, "checkmate"),
    ReferenceCase(2, 3, "[b#b,###,###],[###,###,RNR],[#q#,###,#K#]", False, "check"),
    ReferenceCase(3, 3, "[#q#,#b#,###],[n##,###,###],[#k#,###,#KB]", False, "check"),
    ReferenceCase(
        4,
        4,
        "[####,####,r###,####],[####,#q##,####,####],[##r#,###b,####,BRnn],[####,####,#N##,#KQ#]",
        True,
        "checkmate",
    ),
    ReferenceCase(5, 3, "[###,##b,r#r],[###,###,###],[#k#,###,#K#]", False, "stalemate"),
    ReferenceCase(6, 3, "[##k,###,r#K],[###,n##,#N#],[###,###,#Q#]", True, "checkmate"),
    ReferenceCase(7, 3, "[###,###,##q],[###,###,###],[#k#,###,rNK]", True, "checkmate"),
    ReferenceCase(8, 2, "[#q,##],[##,K#]", False, "check"),
    ReferenceCase(9, 2, "[rq,##],[##,K#]", True, "checkmate"),
    ReferenceCase(10, 3, "[###,###,#q#],[###,###,###],[#k#,###,BKn]", False, "check"),
)
