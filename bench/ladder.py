"""The strength ladder and the evaluation experiments of issue 22, replayed with the arena.

    python -m bench.ladder [--sizes 4 5] [--part ladder|tuning|compiled|pending|raumschach]
                           [--only TEXT] [--table] [--docs]
    make ladder ARGS="..."

Every match is one `python -m arena` run whose files stay in docs/ladder/: `NAME.txt` (the
records), `NAME.json` (the summary) and `NAME.log` (the command, the arena's table, and the
load average before and after each session, since the levels that think for a time are only
as strong as the CPU they get). A match whose records are there is resumed (`--resume`), and
one already finished is not run again, so an interrupted run carries on where it stopped and
`--table` only reads. At the end the tables are printed, and with `--docs` written into
the README and docs/arena.md (each between its `<!-- ladder:NAME -->` markers). Levels on a
clock play one game at a time; the others two. The part `raumschach` is the lowest rungs of a
ladder of Raumschach (`--variant raumschach`, 5³), the issue 48's; on 5³ the part `tuning`
also plays Raumschach's experiments, from its book.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import chain, pairwise
from pathlib import Path

from arena.records import white_points
from arena.report import headline
from arena.stats import Estimate, Sprt
from arena.tally import Tally
from client.cores import usable_cores
from kernel.records.record import RecordError, parse_records

ROOT = Path(__file__).resolve().parent.parent
FOLDER = ROOT / "docs" / "ladder"
ENGINE = "python main.py"
#: Plies of random moves before each pair, so that games differ (both colours play each one).
RANDOM_PLIES = 4
#: Balanced openings by size (`python -m bench.openings`), where random plies too often hang a
#: queen: such a pair is won by the colour, not the player.
BOOKS = {5: "bench/books/5x5x5.txt"}
#: Raumschach's (`python -m bench.openings --variant raumschach`).
RAUMSCHACH_BOOK = "bench/books/raumschach.txt"
#: The SPRT of a rung: is the upper level 30 Elo stronger (H1) or no stronger (H0)?
RUNG_SPRT = Sprt(0, 30, 0.05, 0.05)
#: The SPRT of a change of the evaluation: does it gain 40 Elo, or nothing?
TUNING_SPRT = Sprt(0, 40, 0.05, 0.05)
#: Seconds a timed move may run past its clock before it is lost (the arena's default 0.25).
TIME_MARGIN = 0.5
#: Nodes a move in the evaluation experiments, by size: fast, load-proof and the same for both
#: sides (4³ at 2,000 was the Python player's; 5³ at 20,000 is the compiled one's, a move in
#: about 15 ms).
TUNING_NODES = {4: 2000, 5: 20000}


@dataclass(frozen=True, slots=True)
class Level:
    """A player of the ladder: the arena's PLAYER argument and its limit per move."""

    name: str
    slug: str
    player: str
    limit: str = ""
    value: str = ""

    @property
    def timed(self) -> bool:
        """Whether the level thinks for a time, and so depends on the machine's load."""
        return self.limit == "move-time"

    def options(self, seat: int) -> list[str]:
        """The arena's options that set this level for player `seat` (1 or 2)."""
        return [f"--{self.limit}{seat}", self.value] if self.limit else []


def engine(name: str, slug: str, limit: str, value: str, config: str = "") -> Level:
    """The engine at a limit, with a config of its own when `config` names one."""
    player = f"{ENGINE} --config {config}" if config else ENGINE
    return Level(name, slug, player, limit, value)


RANDOM = Level("random", "random", "random")
GREEDY = Level("greedy", "greedy", "greedy")
NODES_1 = engine("level nodes 1", "nodes1", "nodes", "1")
DEPTH = {
    depth: engine(f"level depth {depth}", f"depth{depth}", "depth", str(depth))
    for depth in (1, 2, 3)
}
TIME = {
    seconds: engine(f"{seconds} s a move", f"time{seconds}", "move-time", seconds)
    for seconds in ("0.1", "0.3", "1", "3")
}

#: The levels, weakest first, in the order the matches found them (docs/arena.md): a tenth
#: of a second a move searches deeper than depth 1, and on 4³ depth 2 lost to 0.3 s a move.
LADDERS: dict[int, tuple[Level, ...]] = {
    # On 4³, 3 s a move is no stronger than 1 s from random openings (H0): of its 40 pairs,
    # 24 were won by the same colour twice and 12 drawn twice; 4 went with the levels, 2 each way.
    4: (RANDOM, GREEDY, DEPTH[1], TIME["0.1"], DEPTH[2], TIME["0.3"], TIME["1"], TIME["3"]),
    # On 5³ the rungs above depth 2 are the compiled player's (a game of 1 s a move takes
    # minutes; 1 s over 0.3 s was played over two sessions, as a pending rung, until its SPRT
    # decided), and 3 s over 1 s reached its 100 games undecided: +42 (−2 … +87), LOS 96.9 %.
    # Depth 3 on both sizes waits for a longer run.
    5: (RANDOM, GREEDY, DEPTH[1], TIME["0.1"], DEPTH[2], TIME["0.3"], TIME["1"], TIME["3"]),
}
#: Raumschach's ladder (issue 48), on its 5³ board from random openings: the 5³ ladder's
#: rungs, in the order the matches found them (0.1 s a move searches deeper than depth 2
#: there, and won every game against it). 0.3 s over 0.1 s and 1 s over 0.3 s were played as
#: pending rungs, over two sessions each, until their SPRT decided; 3 s is to come.
RAUMSCHACH = "raumschach"
RAUMSCHACH_LADDER: tuple[Level, ...] = (
    RANDOM,
    GREEDY,
    DEPTH[1],
    DEPTH[2],
    TIME["0.1"],
    TIME["0.3"],
    TIME["1"],
)
#: Raumschach's rungs begun and not yet decided, played with the part `pending` (on 5³) until
#: their SPRT decides, then moved into RAUMSCHACH_LADDER. None now.
RAUMSCHACH_PENDING: tuple[tuple[Level, Level], ...] = ()
#: Raumschach's matches beyond its rungs, played in the 5³ ladder's order first: 0.1 s a move
#: over depth 1, and depth 2 over 0.1 s a move, which the match refused.
RAUMSCHACH_ORDERING: tuple[tuple[Level, Level], ...] = (
    (TIME["0.1"], DEPTH[1]),
    (DEPTH[2], TIME["0.1"]),
)
#: Rungs begun and not yet decided, by size, played with the part `pending` until their SPRT
#: decides (or its games are played), then moved into LADDERS. None now: the 3 s rungs, played
#: so over three sessions, are in the ladder.
PENDING: dict[int, tuple[tuple[Level, Level], ...]] = {}
#: Matches beyond the rungs. Level nodes 1 (the GUI's weakest) against greedy and depth 1:
#: it plays as greedy does, so it is no rung of its own. And on 4³ the first ladder had
#: depth 2 above 0.3 s a move; these two matches found it the other way round.
ORDERING: dict[int, tuple[tuple[Level, Level], ...]] = {
    4: (
        (NODES_1, GREEDY),
        (DEPTH[1], NODES_1),
        (TIME["0.3"], TIME["0.1"]),
        (DEPTH[2], TIME["0.3"]),
    ),
    5: ((NODES_1, GREEDY), (DEPTH[1], NODES_1)),
}
#: The compiled player against the same search in Python (levels/python.toml), at the same
#: time a move (issue 36): does it gain 300 Elo (H1), or no more than 150 (H0)?
PYTHON_TIME = engine(
    "0.3 s a move, Python", "python-time0.3", "move-time", "0.3", "levels/python.toml"
)
COMPILED_SPRT = Sprt(150, 300, 0.05, 0.05)

#: The issue's goals: the engine at 0.1 s a move against the two baselines.
GOALS = ((TIME["0.1"], GREEDY, 200), (TIME["0.1"], RANDOM, 100))


@dataclass(frozen=True, slots=True)
class Match:
    """One arena match: two levels on a size, `least` games played whatever they say, then
    games until the SPRT decides (if there is one) or `most` are played."""

    size: int
    first: Level
    second: Level
    most: int
    least: int = 0
    sprt: Sprt | None = None
    #: A book of openings (bench/books/), one a pair in order; none: RANDOM_PLIES random plies.
    book: str = ""
    #: The rules played (the arena's --variant); a match of another than the cube's is named
    #: by it instead of its size.
    variant: str = "cube"

    @property
    def name(self) -> str:
        board = str(self.size) if self.variant == "cube" else self.variant
        name = f"{board}-{self.first.slug}-vs-{self.second.slug}"
        return f"{name}-book" if self.book else name

    @property
    def timed(self) -> bool:
        return self.first.timed or self.second.timed

    def command(self, folder: Path, concurrency: int, games: int, sprt: bool) -> list[str]:
        """The arena's command line for up to `games` games, `concurrency` at once, resuming
        the records if any.

        The `Match` header of the records leaves out the game count and the SPRT, so the
        first `least` games played without a test are resumed with it.
        """
        records = folder / f"{self.name}.txt"
        line = [sys.executable, "-m", "arena", self.first.player, self.second.player]
        line += self.first.options(1) + self.second.options(2)
        line += ["--size", str(self.size), "--games", str(games)]
        line += ["--variant", self.variant] if self.variant != "cube" else []
        line += ["--openings", self.book] if self.book else ["--random-plies", str(RANDOM_PLIES)]
        line += ["--progress", "off"]
        line += ["--concurrency", str(concurrency)]
        if self.timed:
            # A move of a period thinks until its budget is spent; on this shared machine a
            # process may wait that long again for a CPU, which is no fault of the engine.
            line += ["--time-margin", str(TIME_MARGIN)]
        line += ["--records", str(records), "--json", str(folder / f"{self.name}.json")]
        if sprt and self.sprt is not None:
            test = self.sprt
            line += ["--sprt", *(f"{value:g}" for value in (test.elo0, test.elo1))]
            line += [f"{test.alpha:g}", f"{test.beta:g}"]
        if records.exists():
            line.append("--resume")
        return line


def rung(size: int, upper: Level, lower: Level, variant: str = "cube") -> Match:
    """A level against the one below it: fewer games where a game takes long."""
    slow = upper.timed or lower.timed or DEPTH[3] in (upper, lower)
    return Match(size, upper, lower, most=100 if slow else 400, least=40 if slow else 100,
                 sprt=RUNG_SPRT, variant=variant)  # fmt: skip


def ladder_matches(size: int) -> Iterator[Match]:
    """Each level of the size's ladder against the one below it, then the goals."""
    levels = LADDERS[size]
    for lower, upper in pairwise(levels):
        yield rung(size, upper, lower)
    for upper, lower in ORDERING.get(size, ()):
        yield rung(size, upper, lower)
    for first, second, games in GOALS:
        yield Match(size, first, second, most=games)


#: The evaluation experiments: a variant's config (levels/) against the defaults.
VARIANTS = ("knight-0.8", "exposure-0", "exposure-24", "placement-16")
#: More experiments on 5³ only, for the endings the compiled player draws by the fifty-move
#: rule with a winning army against a bare king (docs/arena.md).
VARIANTS_5 = ("cornering-30", "king-reach-12", "drawish-8", "queenless-8")
#: Raumschach's experiments (issue 48), played from its book (RAUMSCHACH_BOOK) at the 5³
#: node count: the configs the defaults were tried against (the pawns' terms left out, then
#: the passed-pawn term alone), and those tried against the defaults: twice the pawns' bonus
#: a step, the pieces' values (the unicorn valued as a knight, the bishop as the unicorn, the
#: pawn at 1.5), then the passed-pawn term at three times and half its default; then the
#: cube's own terms (below), and last the weights Texel's method fitted to the records
#: (python -m tune, levels/texel-raumschach.toml).
RAUMSCHACH_WITHOUT = ("pawns-0", "passed-0")
#: The cube's own terms, tuned on 5³ and 4³ only, screened on Raumschach (issue 64): the
#: king's open neighbours at twice their cost and at none, a cell of placement at half and
#: at twice its worth, no contempt (a bare king's reach at twice is played last, below); the
#: knight at 0.8 of its derived value and the rook at 1.3 (the two about equal); half the
#: pawns' advance bonus, the unicorn at 0.7 and the queen at 0.8; then placement at a quarter
#: and at none (after placement 8's adoption, against it).
RAUMSCHACH_CUBE_TERMS = (
    "exposure-24",
    "placement-32",
    "placement-8",
    "exposure-0",
    "contempt-0",
    "knight-0.8",
    "rook-1.3",
    "pawns-10",
    "unicorn-0.7",
    "queen-0.8",
    "placement-4",
    "placement-0",
)
#: Those played again deeper: a passed pawn's worth lies moves ahead, further than 20,000
#: positions see (200,000 are about a tenth of a second of the compiled search).
RAUMSCHACH_DEEP_WITHOUT = (("passed-0", 200_000),)
RAUMSCHACH_VARIANTS = (
    "pawns-40",
    "unicorn-2",
    "bishop-0.5",
    "pawn-1.5",
    "passed-600",
    "passed-100",
    *RAUMSCHACH_CUBE_TERMS,
    "texel-raumschach",
    # Last: at +24 after 291 games its SPRT was far from deciding, and a bare king's reach
    # matters in few of Raumschach's games.
    "king-reach-12",
)
#: Games at most in each: a game at 20,000 positions a move takes about a second, and a term
#: worth 10 or 20 Elo needs more than 400 for the SPRT to decide.
RAUMSCHACH_TUNING_GAMES = 1200
#: The configs that became the defaults (their files now say what engine_config.toml says;
#: the records keep the match against the old default): the variants whose SPRT accepted H1,
#: and Raumschach's without the passed-pawn term, which its SPRTs found no better than none.
ADOPTED = ("placement-16", "queenless-8", "passed-0", "placement-8")


#: The sizes the experiments are played on: where a game at their node count takes seconds.
TUNING_SIZES = tuple(TUNING_NODES)
#: Variants played again deeper, by size: the trades a variant is about lie beyond what 20,000
#: nodes see on 5³ (200,000 are about a tenth of a second of the compiled search).
DEEP_VARIANTS: dict[int, tuple[tuple[str, int], ...]] = {5: (("queenless-8", 200_000),)}


def tuning_matches(size: int) -> Iterator[Match]:
    """Each variant against the default evaluation, both at a fixed node count."""
    if size not in TUNING_SIZES:
        return
    nodes = str(TUNING_NODES[size])
    base = engine("default", f"default-nodes{nodes}", "nodes", nodes)
    for variant in VARIANTS + (VARIANTS_5 if size == 5 else ()):
        config = f"levels/{variant}.toml"
        level = engine(variant, f"{variant}-nodes{nodes}", "nodes", nodes, config)
        yield Match(size, level, base, most=400, sprt=TUNING_SPRT)
    for variant, deep in DEEP_VARIANTS.get(size, ()):
        base = engine("default", f"default-nodes{deep}", "nodes", str(deep))
        config = f"levels/{variant}.toml"
        name = f"{variant}, {deep:,} nodes"
        level = engine(name, f"{variant}-nodes{deep}", "nodes", str(deep), config)
        yield Match(size, level, base, most=400, sprt=TUNING_SPRT)
    if size == 5:
        yield from raumschach_tuning_matches(nodes)


def raumschach_tuning_matches(nodes: str) -> Iterator[Match]:
    """Raumschach's experiments on 5³ from its book: the defaults against each config of
    RAUMSCHACH_WITHOUT (and of RAUMSCHACH_DEEP_WITHOUT, deeper), then each of
    RAUMSCHACH_VARIANTS against the defaults."""
    experiments = [(True, variant, nodes) for variant in RAUMSCHACH_WITHOUT]
    experiments += [(True, variant, str(deep)) for variant, deep in RAUMSCHACH_DEEP_WITHOUT]
    experiments += [(False, variant, nodes) for variant in RAUMSCHACH_VARIANTS]
    for without, variant, count in experiments:
        deeper = "" if count == nodes else f", {int(count):,} nodes"
        base = engine(f"the defaults{deeper}", f"default-nodes{count}", "nodes", count)
        config = f"levels/{variant}.toml"
        level = engine(f"`{config}`{deeper}", f"{variant}-nodes{count}", "nodes", count, config)
        first, second = (base, level) if without else (level, base)
        yield Match(5, first, second, most=RAUMSCHACH_TUNING_GAMES, sprt=TUNING_SPRT,
                    book=RAUMSCHACH_BOOK, variant=RAUMSCHACH)  # fmt: skip


def compiled_matches(size: int) -> Iterator[Match]:
    """The compiled player against the Python one, both at 0.3 s a move, on 5³: from random
    openings, and from the balanced book (100 games played whatever the SPRT says, for an
    estimate, then on until it decides)."""
    if size == 5:
        yield Match(size, TIME["0.3"], PYTHON_TIME, most=100, least=10, sprt=COMPILED_SPRT)
        yield Match(size, TIME["0.3"], PYTHON_TIME, most=200, least=100, sprt=COMPILED_SPRT,
                    book=BOOKS[5])  # fmt: skip


#: The search's prunings (issue 64), each a config of levels/ against the defaults (the same
#: engine in full width), both at a time a move, so that the depth a pruning buys counts (a
#: count of positions a move hides it), on Raumschach from its book: does it gain 30 Elo, or
#: nothing? Null move and late-move reductions together first, then each alone, the table
#: kept between moves, and the three prunings together at the longer time (futility passed on
#: top of the other two at 0.1 s; counter-moves and the history malus are tried on top of the
#: three: SEARCH_STACKED). An evaluation term that passed its screen at a count of positions
#: a move is played here too, at both times (placement at 8 on Raumschach).
SEARCH_SPRT = Sprt(0, 30, 0.05, 0.05)
SEARCH_EXPERIMENTS: tuple[tuple[str, str], ...] = (
    ("pruned", "0.1"),
    ("pruned", "0.3"),
    ("null-move", "0.1"),
    ("lmr", "0.1"),
    ("keep-table", "0.1"),
    ("pruned-futility", "0.3"),
    ("placement-8", "0.1"),
    ("placement-8", "0.3"),
)
#: A pruning on top of null move and reductions (which passed at 0.1 s), against them alone:
#: (the config played, the config it is played against, the time a move).
SEARCH_STACKED: tuple[tuple[str, str, str], ...] = (
    ("pruned-futility", "pruned", "0.1"),
    ("pruned-futility-counter", "pruned-futility", "0.1"),
    ("pruned-futility-malus", "pruned-futility", "0.1"),
)
#: The same on the cube's 5³, from its book: no regression (20 Elo weaker, H0, against 10
#: stronger, H1), as the quiescence's change was measured.
SEARCH_CUBE_SPRT = Sprt(-20, 10, 0.05, 0.05)
SEARCH_CUBE_EXPERIMENTS: tuple[tuple[str, str], ...] = (
    ("pruned", "0.1"),
    ("pruned-futility", "0.1"),
)
#: Games at most in each (a game at 0.1 s a move takes about 15 s, one at a time); 600 left
#: the prunings at 0.1 s undecided (LLR 2.26), and 640 decided them.
SEARCH_GAMES = 1500
#: Matches played with an earlier version of a config's code or of the defaults, whose
#: records stay in docs/ladder/ under a name of their own, shown in the table and never
#: resumed: (the config played, the slug its records are named by, the time a move, what was
#: different, the config it was played against: "" for the defaults). The first null move and
#: reductions (from depth 3, at 0abef41), stopped after 49 games for a version that prunes
#: from depth 2; and the matches undecided when Raumschach's placement became 8, played
#: against (and on top of) its placement at 16.
SEARCH_EARLIER: tuple[tuple[str, str, str, str, str], ...] = (
    ("pruned", "pruned-depth3", "0.1", "from depth 3, 0abef41", ""),
    ("pruned", "pruned-placement16", "0.3", "Raumschach's placement 16", ""),
    ("keep-table", "keep-table-placement16", "0.1", "Raumschach's placement 16", ""),
    ("pruned-futility", "pruned-futility-placement16", "0.3", "Raumschach's placement 16", ""),
    (
        "pruned-futility-counter",
        "pruned-futility-counter-placement16",
        "0.1",
        "Raumschach's placement 16",
        "pruned-futility",
    ),
)


def search_level(config: str, slug: str, seconds: str) -> Level:
    """A config of levels/ at a time a move, named for the search's table."""
    name = f"`levels/{config}.toml`, {seconds} s"
    return engine(name, f"{slug}-time{seconds}", "move-time", seconds, f"levels/{config}.toml")


def search_matches(size: int) -> Iterator[Match]:
    """Each pruning's config against the defaults at a time a move, on Raumschach, then one
    on top of another against that one, then on the cube's 5³ (played on 5³ only)."""
    if size != 5:
        return
    for config, seconds in SEARCH_EXPERIMENTS:
        base = engine(f"the defaults, {seconds} s", f"default-time{seconds}", "move-time", seconds)
        level = search_level(config, config, seconds)
        yield Match(size, level, base, most=SEARCH_GAMES, sprt=SEARCH_SPRT,
                    book=RAUMSCHACH_BOOK, variant=RAUMSCHACH)  # fmt: skip
    for config, below, seconds in SEARCH_STACKED:
        level = search_level(config, config, seconds)
        yield Match(size, level, search_level(below, below, seconds), most=SEARCH_GAMES,
                    sprt=SEARCH_SPRT, book=RAUMSCHACH_BOOK, variant=RAUMSCHACH)  # fmt: skip
    for config, seconds in SEARCH_CUBE_EXPERIMENTS:
        base = engine(f"the defaults, {seconds} s", f"default-time{seconds}", "move-time", seconds)
        level = search_level(config, config, seconds)
        yield Match(size, level, base, most=SEARCH_GAMES, sprt=SEARCH_CUBE_SPRT, book=BOOKS[5])


def earlier_search_matches() -> Iterator[Match]:
    """The matches of SEARCH_EARLIER, for their table rows."""
    for config, slug, seconds, different, against in SEARCH_EARLIER:
        if against:
            base = search_level(against, against, seconds)
        else:
            base = engine(f"the defaults, {seconds} s", f"default-time{seconds}", "move-time",
                          seconds)  # fmt: skip
        level = search_level(config, slug, seconds)
        level = Level(f"{level.name} ({different})", level.slug, level.player,
                      level.limit, level.value)  # fmt: skip
        yield Match(5, level, base, most=SEARCH_GAMES, sprt=SEARCH_SPRT,
                    book=RAUMSCHACH_BOOK, variant=RAUMSCHACH)  # fmt: skip


def raumschach_matches(size: int) -> Iterator[Match]:
    """Raumschach's rungs (played on 5³ only), each level against the one below it."""
    if size == 5:
        for lower, upper in pairwise(RAUMSCHACH_LADDER):
            yield rung(size, upper, lower, RAUMSCHACH)
        for upper, lower in RAUMSCHACH_ORDERING:
            yield rung(size, upper, lower, RAUMSCHACH)


def pending_matches(size: int) -> Iterator[Match]:
    """The rungs begun and not yet decided (PENDING, and Raumschach's on 5³): resumed until
    their SPRT decides."""
    for upper, lower in PENDING.get(size, ()):
        yield rung(size, upper, lower)
    if size == 5:
        for upper, lower in RAUMSCHACH_PENDING:
            yield rung(size, upper, lower, RAUMSCHACH)


#: The parts of the measurement, each a function of the size giving its matches.
PARTS = {
    "ladder": ladder_matches,
    "tuning": tuning_matches,
    "compiled": compiled_matches,
    "pending": pending_matches,
    RAUMSCHACH: raumschach_matches,
    "search": search_matches,
}


def every_match(sizes: Sequence[int], parts: Sequence[str]) -> Iterator[Match]:
    for part in parts:
        for size in sizes:
            yield from PARTS[part](size)


# -- reading a match's records


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a match's records say, from player 1's side."""

    tally: Tally
    estimate: Estimate | None
    decision: str | None


#: Each records file's tally, by its path, with the (size, mtime) it was read at: the tables
#: and the checks ask a match's outcome several times, and parsing a file's every move took
#: most of test_ladder's time (issue 60). A file that changes is read again.
_TALLIES: dict[Path, tuple[tuple[int, int], Tally]] = {}


def records_tally(path: Path) -> Tally | None:
    """Count a records file's finished games (None when there is no file)."""
    try:
        status = path.stat()
    except FileNotFoundError:
        return None
    stamp = (status.st_size, status.st_mtime_ns)
    kept = _TALLIES.get(path)
    if kept is not None and kept[0] == stamp:
        return kept[1]
    try:
        records = parse_records(path.read_text(encoding="utf-8"))
    except RecordError as error:
        raise RecordError(f"{path} is not a records file: {error}") from None
    tally = Tally()
    for record in records:
        points = white_points(record.result)
        if points is not None:
            tally.add(int(record.headers["Round"]), points, record.result)
    _TALLIES[path] = (stamp, tally)
    return tally


def outcome(match: Match, folder: Path) -> Outcome | None:
    """Count the match's records (None when it has none)."""
    tally = records_tally(folder / f"{match.name}.txt")
    if tally is None:
        return None
    decision = None
    if match.sprt is not None:
        decision = match.sprt.decision(match.sprt.llr(tally.pairs.counts))
    return Outcome(tally, headline(tally), decision)


def played(match: Match, folder: Path) -> Outcome | None:
    """What the match's records say; None when they hold no game."""
    found = outcome(match, folder)
    return found if found is not None and found.tally.games.games else None


def phases(match: Match, folder: Path) -> Iterator[tuple[int, bool]]:
    """The arena runs a match still needs: (games, with the SPRT), the first `least` games
    played whatever they say."""
    found = played(match, folder)
    games = 0 if found is None else found.tally.games.games
    if games < match.least:
        yield match.least, False
    if found is None or games < match.least or (games < match.most and found.decision is None):
        yield match.most, True


def load_average() -> str:
    """The machine's load average over 1, 5 and 15 minutes."""
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def play(match: Match, folder: Path, concurrency: int) -> int:
    """Run (or resume) one match; append each run's command, table and load to its log."""
    log = folder / f"{match.name}.log"
    for games, sprt in list(phases(match, folder)):
        command = match.command(folder, concurrency, games, sprt)
        # The command as a person would type it in the repository's folder.
        shown = ["python", *(word.removeprefix(f"{ROOT}/") for word in command[1:])]
        with log.open("a", encoding="utf-8") as out:
            out.write(f"$ {shlex.join(shown)}\n")
            out.write(f"{time.strftime('%Y-%m-%d %H:%M')}, load average {load_average()}\n")
            out.flush()
            code = subprocess.run(command, cwd=ROOT, stdout=out, stderr=out, check=False).returncode
            out.write(f"load average {load_average()} after; exit code {code}\n\n")
        if code:
            return code
    return 0


# -- the tables


def signed(value: float) -> str:
    """`+52`, `-7`, and `+0` for anything that rounds to zero (never `-0`)."""
    text = f"{value:+.0f}"
    return "+0" if text == "-0" else text


def interval(estimate: Estimate) -> str:
    return f"{signed(estimate.low)} … {signed(estimate.high)}"


def counts(result: Outcome) -> str:
    games = result.tally.games
    return f"{games.games} (+{games.wins} ={games.draws} -{games.losses})"


def loads(match: Match, folder: Path) -> str:
    """The 1-minute load averages the match's log noted, lowest and highest: `3.2–6.1`."""
    log = folder / f"{match.name}.log"
    if not log.exists():
        return ""
    seen = [float(line.split("load average ")[1].split()[0])
            for line in log.read_text(encoding="utf-8").splitlines()
            if "load average " in line]  # fmt: skip
    return f"{min(seen):.1f}–{max(seen):.1f}" if seen else ""


@dataclass(frozen=True, slots=True)
class Rung:
    """A level of the ladder: its match against the level below, and its Elo above the
    bottom (the sum of the rungs up to it) with the ± of that sum."""

    match: Match
    result: Outcome
    estimate: Estimate
    above: float
    spread: float


def rungs(size: int, folder: Path, variant: str = "cube") -> list[Rung]:
    """The size's rungs (or the variant's) from the bottom, up to the first without records.

    The sum's ± adds the rungs' half-intervals in quadrature (the matches are independent).
    """
    found: list[Rung] = []
    above = variance = 0.0
    levels = LADDERS[size] if variant == "cube" else RAUMSCHACH_LADDER
    for lower, upper in pairwise(levels):
        match = rung(size, upper, lower, variant)
        result = played(match, folder)
        if result is None or result.estimate is None:
            break
        above += result.estimate.elo
        variance += result.estimate.error**2
        found.append(Rung(match, result, result.estimate, above, variance**0.5))
    return found


def ladder_table(size: int, folder: Path, variant: str = "cube") -> str:
    """The size's ladder (or the variant's) as docs/arena.md shows it: each rung's figures
    and load."""
    bottom = (LADDERS[size] if variant == "cube" else RAUMSCHACH_LADDER)[0].name
    board = f"{size}³" if variant == "cube" else variant.capitalize()
    lines = [
        f"| {board} | Elo above {bottom} | Elo over the level below (95 %) | LOS | games (W/D/L)"
        " | SPRT | load |",
        "|---|---|---|---|---|---|---|",
        f"| {bottom} | 0 | | | | | |",
    ]
    for step in rungs(size, folder, variant):
        lines.append(
            f"| {step.match.first.name} | {signed(step.above)} ± {step.spread:.0f} "
            f"| {signed(step.estimate.elo)} ({interval(step.estimate)}) "
            f"| {100 * step.estimate.los:.1f} % | {counts(step.result)} "
            f"| {step.result.decision or 'none'} | {loads(step.match, folder)} |"
        )
    return "\n".join(lines) + "\n"


def readme_table(sizes: Sequence[int], folder: Path) -> str:
    """The ladders side by side, as the README shows them: Elo above the bottom, games."""
    head = "| level |" + "".join(f" {size}³: Elo above random | games |" for size in sizes)
    lines = [head, "|---|" + "---|---|" * len(sizes)]
    columns = [rungs(size, folder) for size in sizes]
    for index, level in enumerate(LADDERS[sizes[0]]):
        cells = []
        for found in columns:
            if index == 0:
                cells.append(" 0 | |")
            elif index <= len(found):
                step = found[index - 1]
                games = step.result.tally.games.games
                cells.append(f" {signed(step.above)} ± {step.spread:.0f} | {games} |")
            else:
                cells.append(" | |")
        lines.append(f"| {level.name} |" + "".join(cells))
    return "\n".join(lines) + "\n"


def goals_table(sizes: Sequence[int], folder: Path) -> str:
    """The issue's goals: the score of 0.1 s a move against each baseline, and its load."""
    lines = ["| match | size | score | games (W/D/L) | load |", "|---|---|---|---|---|"]
    for size in sizes:
        for first, second, games in GOALS:
            match = Match(size, first, second, most=games)
            result = played(match, folder)
            if result is not None:
                score = 100 * result.tally.games.score
                lines.append(
                    f"| {first.name} vs {second.name} | {size}³ | {score:.1f} % "
                    f"| {counts(result)} | {loads(match, folder)} |"
                )
    return "\n".join(lines) + "\n"


def estimated(matches: Iterator[Match], folder: Path) -> Iterator[tuple[Match, Outcome, Estimate]]:
    """The matches played far enough for an estimate, with their outcome and estimate."""
    for match in matches:
        result = played(match, folder)
        if result is not None and result.estimate is not None:
            yield match, result, result.estimate


def tuning_table(sizes: Sequence[int], folder: Path) -> str:
    """Each evaluation experiment: Elo, interval, games and the SPRT's decision."""
    lines = ["| variant | size | Elo (95 %) | games (W/D/L) | SPRT |", "|---|---|---|---|---|"]
    for size in sizes:
        cube = (match for match in tuning_matches(size) if match.variant == "cube")
        for match, result, estimate in estimated(cube, folder):
            lines.append(
                f"| {match.first.name} | {size}³ | {signed(estimate.elo)} "
                f"({interval(estimate)}) | {counts(result)} | {result.decision or 'none'} |"
            )
    return "\n".join(lines) + "\n"


def raumschach_tuning_table(folder: Path) -> str:
    """Raumschach's experiments: each config against the other, Elo, games, the SPRT's
    decision and the records."""
    lines = [
        "| config | against | Elo (95 %) | games (W/D/L) | SPRT | records |",
        "|---|---|---|---|---|---|",
    ]
    matches = raumschach_tuning_matches(str(TUNING_NODES[5]))
    for match, result, estimate in estimated(matches, folder):
        lines.append(
            f"| {match.first.name} | {match.second.name} | {signed(estimate.elo)} "
            f"({interval(estimate)}) | {counts(result)} | {result.decision or 'none'} "
            f"| `ladder/{match.name}` |"
        )
    return "\n".join(lines) + "\n"


def search_table(folder: Path) -> str:
    """The search's experiments: each pruning against the defaults at a time a move, Elo,
    games, the LLR and the SPRT's decision (none yet: still running, or stopped for time)."""
    lines = [
        "| config | against | rules | Elo (95 %) | games (W/D/L) | LLR | SPRT | load | records |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    matches = chain(earlier_search_matches(), search_matches(5))
    for match, result, estimate in estimated(matches, folder):
        assert match.sprt is not None
        llr = match.sprt.llr(result.tally.pairs.counts)
        rules = "Raumschach" if match.variant == RAUMSCHACH else "5³"
        lines.append(
            f"| {match.first.name} | {match.second.name} | {rules} | {signed(estimate.elo)} "
            f"({interval(estimate)}) | {counts(result)} | {llr:.2f} "
            f"| {result.decision or 'none'} | {loads(match, folder)} | `ladder/{match.name}` |"
        )
    return "\n".join(lines) + "\n"


def pending_table(sizes: Sequence[int], folder: Path) -> str:
    """The rungs begun and not yet decided (PENDING), as far as they were played."""
    lines = [
        "| rung | size | Elo (95 %) | LOS | games (W/D/L) | SPRT | load |",
        "|---|---|---|---|---|---|---|",
    ]
    for size in sizes:
        for match, result, estimate in estimated(pending_matches(size), folder):
            lines.append(
                f"| {match.first.name} vs {match.second.name} "
                f"| {size}³{'' if match.variant == 'cube' else ' ' + match.variant} "
                f"| {signed(estimate.elo)} ({interval(estimate)}) "
                f"| {100 * estimate.los:.1f} % | {counts(result)} "
                f"| {result.decision or 'none yet'} | {loads(match, folder)} |"
            )
    return "\n".join(lines) + "\n"


#: The pages whose tables `--docs` rewrites, each block between `<!-- ladder:NAME -->` and
#: `<!-- /ladder:NAME -->`.
PAGES = (ROOT / "README.md", ROOT / "docs" / "arena.md")


def doc_tables(folder: Path) -> dict[str, str]:
    """Every table the pages show, by its block's name."""
    sizes = sorted(LADDERS)
    tables = {f"ladder-{size}": ladder_table(size, folder) for size in sizes}
    tables[f"ladder-{RAUMSCHACH}"] = ladder_table(5, folder, RAUMSCHACH)
    tables["goals"] = goals_table(sizes, folder)
    tables["readme"] = readme_table(sizes, folder)
    tables["tuning"] = tuning_table(sizes, folder)
    tables[f"tuning-{RAUMSCHACH}"] = raumschach_tuning_table(folder)
    tables["pending"] = pending_table(sizes, folder)
    tables["search"] = search_table(folder)
    return tables


def rewrite_blocks(text: str, tables: dict[str, str]) -> str:
    """Put each table into its marked block of `text`; blocks of unknown names are refused."""
    pattern = re.compile(r"(<!-- ladder:([\w-]+) -->\n)(.*?)(<!-- /ladder:\2 -->)", re.DOTALL)

    def fill(match: re.Match[str]) -> str:
        name = match.group(2)
        if name not in tables:
            raise ValueError(f"no table called {name!r} (tables: {', '.join(sorted(tables))})")
        return f"{match.group(1)}{tables[name]}{match.group(4)}"

    return pattern.sub(fill, text)


def write_docs(folder: Path) -> None:
    """Rewrite the tables of the README and docs/arena.md from the records in `folder`."""
    tables = doc_tables(folder)
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        new = rewrite_blocks(text, tables)
        if new != text:
            page.write_text(new, encoding="utf-8")
            print(f"bench.ladder: {page.relative_to(ROOT)} rewritten", file=sys.stderr)


def run(arguments: argparse.Namespace) -> int:
    """Play what the arguments ask that is not yet played, then print the tables."""
    folder: Path = arguments.folder
    folder.mkdir(parents=True, exist_ok=True)
    if not arguments.table:
        parts = [arguments.part] if arguments.part else list(PARTS)
        for match in every_match(arguments.sizes, parts):
            if arguments.only in match.name and any(phases(match, folder)):
                print(f"bench.ladder: {match.name}", file=sys.stderr, flush=True)
                # A level that thinks for a time is only as strong as the CPU it gets: timed
                # games run one at a time unless asked (one a core, on an idle machine).
                at_once = arguments.timed_concurrency if match.timed else arguments.concurrency
                if play(match, folder, at_once):
                    print(
                        f"bench.ladder: {match.name} stopped early: its log says why "
                        f"({folder / match.name}.log)",
                        file=sys.stderr,
                    )
                    return 1
    sizes = arguments.sizes
    for size in sizes:
        print(ladder_table(size, folder))
    if 5 in sizes:
        print(ladder_table(5, folder, RAUMSCHACH))
    print(goals_table(sizes, folder))
    print(readme_table(sizes, folder))
    print(tuning_table(sizes, folder))
    if 5 in sizes:
        print(raumschach_tuning_table(folder))
        print(search_table(folder))
    print(pending_table(sizes, folder), end="")
    if arguments.docs:
        write_docs(folder)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Read the command line and run; a problem is one line on stderr and exit code 2."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.ladder", description=__doc__.split("\n", 1)[0]
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=sorted(LADDERS))
    parser.add_argument("--part", choices=sorted(PARTS), help="only the ladder, or the tuning")
    parser.add_argument("--only", default="", help="only the matches whose name holds TEXT")
    parser.add_argument("--table", action="store_true", help="play nothing, print the tables")
    parser.add_argument("--folder", type=Path, default=FOLDER, help="where the files go")
    parser.add_argument("--concurrency", type=int, default=2, help="games at once, untimed")
    parser.add_argument(
        "--timed-concurrency",
        type=int,
        default=1,
        help="games at once where a level thinks for a time (at most one a core)",
    )
    parser.add_argument(
        "--docs",
        action="store_true",
        help="then rewrite the tables of README.md and docs/arena.md: after playing every "
        "undecided match, or at once with --table",
    )
    arguments = parser.parse_args(argv)
    unknown = sorted(set(arguments.sizes) - set(LADDERS))
    if unknown:
        sizes = ", ".join(str(size) for size in sorted(LADDERS))
        parser.exit(2, f"bench.ladder: no ladder for size {unknown[0]} (sizes: {sizes})\n")
    for option in ("concurrency", "timed_concurrency"):
        if getattr(arguments, option) < 1:
            flag = option.replace("_", "-")
            parser.exit(2, f"bench.ladder: --{flag} must be 1 or more\n")
    cores = usable_cores()
    if arguments.timed_concurrency > cores:
        parser.exit(
            2,
            f"bench.ladder: --timed-concurrency {arguments.timed_concurrency} is more games than "
            f"the {cores} cores this process may use: a timed level would wait for a CPU\n",
        )
    try:
        return run(arguments)
    except (OSError, RecordError, ValueError) as error:
        parser.exit(2, f"bench.ladder: {error}\n")


if __name__ == "__main__":
    sys.exit(main())
