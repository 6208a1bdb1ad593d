"""Perft counts of our own for 3D chess: several positions, n = 2..5, both sides, depths 1-4;
and the start positions of `new_game`, n = 3..6, depths 1-4.

Chess engines keep tables like this one to check their move generators (perft: rules.md, "Both
sides"). Every count of PERFT_TABLE was computed by the brute force of tests/reference.py
(`python -m tests.perft_table` recomputes and prints the table); tests/test_reference.py
recomputes the cheap entries with the reference on every run, and tests/test_both_sides.py holds
the engine's `perft` to every entry. A board ending in ` b` has black to move, as `get_board`
writes it.

The start positions (START_PERFT) grow too fast for the brute force at depth 4 beyond n = 4:
each entry says how deep the reference confirmed it, and the deeper counts are the kernel's
alone. tests/test_start.py checks the quick ones on every run, and all of them with
CUBEMATE_SWEEP above 1 (`make sweep`).
"""

from __future__ import annotations

from typing import NamedTuple


class PerftEntry(NamedTuple):
    """One position of the table: a name, the board as get_board writes it, perft 1..4."""

    name: str
    board: str
    counts: tuple[int, int, int, int]


PERFT_TABLE: tuple[PerftEntry, ...] = (
    PerftEntry(
        "case 2, white in check",
        "[b#b,###,###],[###,###,RNR],[#q#,###,#K#]",
        (1, 4, 90, 478),
    ),
    PerftEntry(
        "case 8, king takes queen",
        "[#q,##],[##,K#]",
        (1, 0, 0, 0),
    ),
    PerftEntry(
        "rules mate in 1 example",
        "[rb#,###,nNK],[###,##b,#b#],[###,##k,###] b",
        (19, 121, 1946, 12432),
    ),
    PerftEntry(
        "rules mate in 2 example",
        "[###,#k#,#b#],[##b,###,###],[r##,##K,###] b",
        (19, 63, 1001, 3763),
    ),
    PerftEntry(
        "n2 white rooks",
        "[rr,#R],[bQ,K#]",
        (9, 34, 234, 874),
    ),
    PerftEntry(
        "n2 black rooks",
        "[rr,#R],[bQ,K#] b",
        (4, 25, 107, 532),
    ),
    PerftEntry(
        "n2 white queen",
        "[##,b#],[bQ,#K]",
        (11, 18, 163, 232),
    ),
    PerftEntry(
        "n2 black bishop",
        "[##,b#],[bQ,#K] b",
        (2, 16, 26, 205),
    ),
    PerftEntry(
        "n3 rook knight",
        "[r##,###,###],[N##,###,###],[K##,###,###]",
        (6, 30, 490, 2772),
    ),
    PerftEntry(
        "n3 queen bishop",
        "[#q#,###,#k#],[###,#B#,###],[###,###,#K#]",
        (5, 83, 668, 12649),
    ),
    PerftEntry(
        "n3 black kings bishop",
        "[###,###,###],[###,###,k#K],[###,#B#,###] b",
        (5, 46, 241, 2208),
    ),
    PerftEntry(
        "n3 black corner",
        "[k##,###,###],[###,#B#,###],[#K#,###,###] b",
        (3, 41, 267, 2690),
    ),
    PerftEntry(
        "n4 two bishops",
        "[####,#k##,####,####],[#b#b,####,####,####],[####,##K#,####,####],[####,####,####,####]",
        (18, 382, 4387, 89543),
    ),
    PerftEntry(
        "n4 bishop knight",
        "[####,####,####,K###],[####,####,####,####],[####,##b#,##k#,####],[####,####,####,#n##]",
        (4, 145, 1172, 36656),
    ),
    PerftEntry(
        "n4 black knight",
        "[####,####,####,####],[####,###N,####,####],[####,####,####,####],[###k,####,##K#,####] b",
        (3, 65, 475, 10043),
    ),
    PerftEntry(
        "n4 black bishop",
        "[####,####,####,####],[####,####,####,####],[####,####,####,####],[k###,####,##b#,#K##] b",
        (12, 98, 1245, 13559),
    ),
    PerftEntry(
        "n5 bishops knight",
        "[####K,#####,#####,#####,#####],[#####,#####,#####,#####,#####],[###b#,####n,#####,#####,#####],"
        "[#####,#####,#####,#b###,#####],[#####,#####,#####,#####,#####]",
        (4, 116, 899, 23758),
    ),
    PerftEntry(
        "n5 knight kings",
        "[#####,#####,#####,#####,#####],[#####,#####,#####,#####,#####],[#####,#####,#####,#####,#kn##],"
        "[#####,#####,#####,#####,#####],[#####,#####,#####,###K#,#####]",
        (11, 337, 4216, 123826),
    ),
    PerftEntry(
        "n5 black queens",
        "[Q####,#####,#####,#####,#####],[#q###,#####,#####,#####,#####],[####N,###K#,#####,#####,#####],"
        "[#####,#####,#####,#####,#####],[####k,#####,#####,#####,#####] b",
        (4, 98, 2502, 82709),
    ),
    PerftEntry(
        "n5 black knight",
        "[#####,#####,#####,#####,#####],[#####,#####,#####,#####,###Q#],[###K#,#####,#####,#####,#####],"
        "[#####,#####,#####,#####,#n###],[#####,#####,#####,#####,k####] b",
        (6, 288, 5964, 288531),
    ),
)


class StartPerft(NamedTuple):
    """The start position of one size, as get_board writes it after `new_game N`, perft 1..4."""

    size: int
    board: str
    counts: tuple[int, int, int, int]
    #: The deepest count the brute force of tests/reference.py recomputed; deeper ones are the
    #: kernel's alone (perft 3 of n = 6 took the reference 45 s, depth 4 over an hour).
    reference_depth: int


START_PERFT: tuple[StartPerft, ...] = (
    StartPerft(3, "[#k#,b#b,rnr],[###,###,###],[RNR,B#B,#K#]", (14, 166, 2107, 27869), 4),
    StartPerft(
        4,
        "[nrrk,bnbq,####,####],[####,####,####,####],[####,####,####,####],[####,####,QBNB,KRRN]",
        (45, 1725, 71976, 3028845),
        4,
    ),
    StartPerft(
        5,
        "[rnknr,nbqbn,#####,#####,#####],[#####,#####,#####,#####,#####],"
        "[#####,#####,#####,#####,#####],[#####,#####,#####,#####,#####],"
        "[#####,#####,#####,NBQBN,RNKNR]",
        (78, 5828, 467007, 36938805),
        3,
    ),
    StartPerft(
        6,
        "[rnknbr,nbqbnb,######,######,######,######],[######,######,######,######,######,######],"
        "[######,######,######,######,######,######],[######,######,######,######,######,######],"
        "[######,######,######,######,######,######],[######,######,######,######,BNBQBN,RBNKNR]",
        (101, 9912, 1040558, 108697656),
        3,
    ),
)


def main() -> None:
    """Recompute every entry with the reference and print the ones that differ (none); the
    start positions up to the depth the reference confirmed (some six minutes more)."""
    from tests.reference import parse_game, perft  # here: only this check needs the brute force

    for entry in PERFT_TABLE:
        pos = parse_game(entry.board)
        counts = tuple(perft(pos, depth) for depth in range(1, 5))
        verdict = "ok" if counts == entry.counts else f"DIFFERS: {counts}"
        print(f"{entry.name}: {entry.counts} {verdict}", flush=True)
    for start in START_PERFT:
        pos = parse_game(start.board)
        confirmed = start.counts[: start.reference_depth]
        counts = tuple(perft(pos, depth) for depth in range(1, start.reference_depth + 1))
        verdict = "ok" if counts == confirmed else f"DIFFERS: {counts}"
        print(f"start position n = {start.size}: {confirmed} {verdict}", flush=True)


if __name__ == "__main__":
    main()
