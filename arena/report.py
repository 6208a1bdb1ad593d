"""What a match says: the live progress line, the final table, and the JSON summary.

The headline Elo, interval and LOS come from the pentanomial count of complete pairs, as
fastchess and fishtest report a paired match; from the W/D/L of single games while no pair
is complete. The table shows both.
"""

from __future__ import annotations

import math
import sys
from typing import Any

from arena.stats import Estimate, Sprt, pentanomial_estimate, trinomial_estimate
from arena.tally import Tally

PAIR_POINTS = ("0", "1/2", "1", "3/2", "2")


def headline(tally: Tally) -> Estimate | None:
    """The estimate a developer reads first: from pairs when any is complete."""
    if tally.pairs.pairs:
        return pentanomial_estimate(tally.pairs)
    return trinomial_estimate(tally.games)


def sprt_state(tally: Tally, sprt: Sprt) -> tuple[float, str | None]:
    """The LLR over the complete pairs, and the hypothesis it accepts (or None)."""
    llr = sprt.llr(tally.pairs.counts)
    return llr, sprt.decision(llr)


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def signed(value: float) -> str:
    """`+12.3`, `-4.0`, and `+0.0` for anything that rounds to zero (never `-0.0`)."""
    return f"{value:+.1f}" if round(value, 1) else "+0.0"


def elo_text(estimate: Estimate) -> str:
    """`+164.6 ± 71.3 (95 %: +96.5 ... +242.7)`."""
    interval = f"95 %: {signed(estimate.low)} ... {signed(estimate.high)}"
    return f"{signed(estimate.elo)} ± {estimate.error:.1f} ({interval})"


def progress_line(tally: Tally, games: int, sprt: Sprt | None) -> str:
    """One short line on how the match stands, for a terminal's stderr."""
    counts = tally.games
    parts = [f"games {counts.games}/{games}", f"+{counts.wins} ={counts.draws} -{counts.losses}"]
    estimate = headline(tally)
    if estimate is not None:
        parts.append(f"score {100 * counts.score:.1f} %")
        parts.append(f"elo {signed(estimate.elo)} ± {estimate.error:.1f}")
    if sprt is not None:
        llr, _ = sprt_state(tally, sprt)
        parts.append(f"llr {llr:.2f} ({sprt.lower:.2f}, {sprt.upper:.2f})")
    return "  ".join(parts)


def table(
    players: tuple[str, str], title: str, tally: Tally, games: int, sprt: Sprt | None, end: str
) -> str:
    """The final report, one `label  value` line each."""
    counts = tally.games
    rows = [
        ("match", f"{players[0]} vs {players[1]}, {title}"),
        (
            "games",
            f"{counts.games} of {games} ({plural(tally.pairs.pairs, 'complete pair')}), {end}",
        ),
        (
            "player 1",
            f"{players[0]}: {counts.wins} wins, {counts.draws} draws, {counts.losses} losses",
        ),
    ]
    games_estimate = trinomial_estimate(counts)
    pairs_estimate = pentanomial_estimate(tally.pairs)
    if counts.games:
        rows.append(("score", f"{100 * counts.score:.1f} %"))
    if pairs_estimate is not None:
        rows.append(("elo", f"{elo_text(pairs_estimate)}, from {pairs_estimate.samples} pairs"))
        rows.append(("los", f"{100 * pairs_estimate.los:.1f} %"))
    if games_estimate is not None:
        label = "elo (games)" if pairs_estimate is not None else "elo"
        rows.append((label, f"{elo_text(games_estimate)}, from {games_estimate.samples} games"))
        if pairs_estimate is None:
            rows.append(("los", f"{100 * games_estimate.los:.1f} %"))
    if tally.pairs.pairs:
        shares = ", ".join(
            f"{points}: {count}"
            for points, count in zip(PAIR_POINTS, tally.pairs.counts, strict=True)
        )
        rows.append(("pairs", f"{shares} (player 1's points a pair)"))
    if counts.games:
        white = tally.white
        colours = (
            f"white {white.wins} wins, {white.draws} draws, {white.losses} losses "
            f"({100 * white.score:.1f} %)"
        )
        if tally.pairs.pairs:
            colours += (
                f"; {tally.same_colour_pairs} of {plural(tally.pairs.pairs, 'pair')} won by "
                "one colour twice"
            )
        rows.append(("colours", colours))
    if sprt is not None:
        llr, decision = sprt_state(tally, sprt)
        verdict = f"{decision} accepted" if decision else "no decision yet"
        bounds = f"({sprt.lower:.2f}, {sprt.upper:.2f})"
        hypotheses = (
            f"elo0 {sprt.elo0:g}, elo1 {sprt.elo1:g}, alpha {sprt.alpha:g}, beta {sprt.beta:g}"
        )
        rows.append(("sprt", f"llr {llr:.2f} {bounds}, {hypotheses}: {verdict}"))
    if tally.endings:
        endings = ", ".join(f"{name} {count}" for name, count in tally.endings.most_common())
        rows.append(("endings", endings))
    width = max(len(label) for label, _ in rows)
    return "".join(f"{label.ljust(width)}  {value}\n" for label, value in rows)


def rounded(value: float, digits: int) -> float | None:
    """A number for JSON, which has no infinity or NaN."""
    # + 0.0 turns a negative zero into zero.
    return round(value, digits) + 0.0 if math.isfinite(value) else None


def summary(tally: Tally, sprt: Sprt | None) -> dict[str, Any]:
    """The JSON summary for programs, from player 1's side: exactly the issue's fields."""
    counts = tally.games
    estimate = headline(tally)
    data: dict[str, Any] = {
        "wins": counts.wins,
        "draws": counts.draws,
        "losses": counts.losses,
        "elo": None if estimate is None else rounded(estimate.elo, 2),
        "elo_error": None if estimate is None else rounded(estimate.error, 2),
        "los": None if estimate is None else rounded(estimate.los, 4),
    }
    if sprt is not None:
        llr, decision = sprt_state(tally, sprt)
        data["llr"] = rounded(llr, 4)
        data["sprt"] = decision
    return data


class Progress:
    """The live line on stderr, redrawn in place; nothing when it is off."""

    def __init__(self, shown: bool) -> None:
        self.shown = shown
        self.drawn = False

    def draw(self, line: str) -> None:
        if self.shown:
            sys.stderr.write(f"\r{line}\x1b[K")
            sys.stderr.flush()
            self.drawn = True

    def clear(self) -> None:
        if self.drawn:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()
            self.drawn = False

    def say(self, message: str) -> None:
        """A message on lines of its own, each named the arena's, the live line drawn again
        under it."""
        self.clear()
        for line in message.splitlines():
            print(f"arena: {line}", file=sys.stderr, flush=True)
