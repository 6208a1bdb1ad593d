"""Positions a second and depth reached at a time a move, per config, on Raumschach and 5³.

Through the engine process, as a match plays it: for each opening of the first K lines of
`bench/books/raumschach.txt` and `bench/books/5x5x5.txt`, each config given (`--config FILE`
for the engine; `default` is engine_config.toml) in turn, a fresh position (`variant`,
`set_board`), `level time S` and `reg_genmove`; the depth completed and the positions a second
come from the JSON log's `search` event. The configs take turns position by position, so that
the load of a shared machine falls on each alike. Printed: for each variant, time and config,
the median positions a second and the median, least and greatest depth.

`python -m bench.depth [CONFIG ...] [--positions K] [--times 0.3 1]` (the configs first:
`--times` takes every number after it)
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

from bench import player_process
from bench.peer import ROOT, Peer
from bench.report import table

#: The books and the variant each is played under.
BOOKS = (("Raumschach", "raumschach", "bench/books/raumschach.txt"),
         ("5³", "cube", "bench/books/5x5x5.txt"))  # fmt: skip


def openings(path: str, count: int) -> list[str]:
    """The first `count` positions of a book, as `set_board` takes them."""
    lines = (ROOT / path).read_text(encoding="utf-8").splitlines()
    found = [line.strip() for line in lines if line.strip() and not line.startswith("#")]
    return found[:count]


def options(config: str) -> list[str]:
    """The engine's arguments for a config ("default": none)."""
    return [] if config == "default" else ["--config", str(Path(config).resolve())]


def measure(
    configs: list[str], times: list[float], count: int
) -> dict[tuple[str, float, str], list[dict[str, float]]]:
    """Each (variant, seconds, config)'s search events, one a position."""
    found: dict[tuple[str, float, str], list[dict[str, float]]] = {}
    peers = {config: Peer("engine", options(config)) for config in configs}
    try:
        for label, variant, book in BOOKS:
            for seconds in times:
                for board in openings(book, count):
                    for config, peer in peers.items():
                        player_process.set_up(
                            peer,
                            [f"variant {variant}", f"set_board {board}", f"level time {seconds:g}"],
                        )
                        reply = peer.ask(b"reg_genmove\n", 1)[0]
                        if not reply.startswith(b"= "):
                            raise RuntimeError(f"{config}: reg_genmove answered {reply!r}")
                        search = player_process.last_search(peer)
                        found.setdefault((label, seconds, config), []).append(search)
                print(f"{label} at {seconds:g} s done", file=sys.stderr, flush=True)
    finally:
        for peer in peers.values():
            peer.close()
    return found


def rows(found: dict[tuple[str, float, str], list[dict[str, float]]]) -> list[list[str]]:
    """One row a (variant, seconds, config)."""
    result = []
    for (label, seconds, config), searches in found.items():
        depths = [int(search["depth"]) for search in searches]
        result.append(
            [
                label,
                f"{seconds:g} s",
                config,
                f"{statistics.median(search['nps'] for search in searches):,.0f}",
                f"{statistics.median(depths):g} ({min(depths)} … {max(depths)})",
                str(len(searches)),
            ]
        )
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.depth", description=__doc__)
    parser.add_argument("configs", nargs="*", default=["default"], help="config files")
    parser.add_argument("--positions", type=int, default=8, help="openings of each book")
    parser.add_argument("--times", type=float, nargs="+", default=[0.3, 1.0])
    args = parser.parse_args(argv)
    found = measure(args.configs, args.times, args.positions)
    header = ["variant", "time", "config", "positions/s (median)", "depth: median (range)", "n"]
    print(table(header, rows(found)))
    print(f"load average {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
