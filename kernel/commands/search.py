"""Commands that search: perft, mate_in, mate_search, solution, selfmate and helpmate, each
within its budget of positions (docs/protocol.md, "What bounds a search").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from kernel.commands.arguments import move_list, parse_int
from kernel.commands.session import Session
from kernel.interrupt import SearchStopped
from kernel.mates.search import (
    MAX_MATE_MOVES,
    MAX_PERFT_DEPTH,
    Budget,
    SearchLimitReached,
    perft,
)
from kernel.protocol import CommandError, shorten
from kernel.text.notation import get_move_name

Result = TypeVar("Result")

if TYPE_CHECKING:
    from kernel.mates.proofnumber import ProofNumberSearch
    from kernel.mates.selfmate import SelfmateSearch

#: The stipulations `solution` writes a tree for: the direct mate, and the selfmate.
SOLUTION_STIPULATIONS = ("mate", "selfmate")


def cmd_helpmate(kernel: Session, args: list[str]) -> str:
    """List every solution of the helpmate in N.

    Arguments: N >= 1, the moves of each side: the side to move begins, and the other side
    mates it with its N-th move, 2N plies in all.
    Fails: as mate_in; more solutions than search.max_solutions ("more than L solutions").
    Returns: the number of solutions, then one per line, its 2N moves space-separated, the
    lines sorted: `2` then `ka1(I)-b1(I) Rc3(I)-c1(I)` ...; `0` alone when there is none.
    """
    budget = search_budget(kernel, args[0], "N", least=1, most=MAX_MATE_MOVES)
    from kernel.mates.helpmate import HelpmateSearch, TooManySolutions  # imported when first used

    search = HelpmateSearch(budget, kernel.config.max_solutions, compiled=kernel.config.compiled)
    position = kernel.position
    try:
        lines = within_budget(lambda: search.solutions(position, budget.depth))
    except TooManySolutions as error:
        raise CommandError(str(error)) from None
    written = sorted(" ".join(get_move_name(position, move) for move in line) for line in lines)
    return "\n".join([str(len(written)), *written])


def cmd_mate_in(kernel: Session, args: list[str]) -> str:
    """List the moves that mate in N.

    Arguments: N >= 1, the most moves of the side to move (the attacker) to mate in.
    Fails: N is not a whole number from 1 to 100; no white king; the side not to move is in
    check; the search would visit more than search.max_nodes positions.
    Returns: every key (mates in N or fewer), sorted, space-separated; empty when none.
    """
    search = proof_search(kernel, args[0], "N")
    keys = within_budget(lambda: search.keys(kernel.position, search.budget.depth))
    return move_list(kernel.position, keys)


def cmd_mate_search(kernel: Session, args: list[str]) -> str:
    """Find the shortest forced mate, up to MAX moves.

    Arguments: optionally MAX >= 1, the longest mate to look for (search.max_mate_moves when
    left out).
    Fails: MAX is not a whole number from 1 to 100; no white king; the side not to move is in
    check; there is no mate within MAX moves ("no mate within MAX moves"); the search would
    visit more than search.max_nodes positions. Where an endgame table covers the position
    (--tablebases), its answer, at any length.
    Returns: the length of the shortest mate, then every key of that length, sorted:
    `3 Qa1(I)-b2(II) Rc1(I)-c3(I)`.
    """
    search = proof_search(kernel, args[0] if args else str(kernel.config.max_mate_moves), "MAX")
    most = search.budget.depth
    from kernel.commands.tablebase import table_mate  # where tables cover it, at any length

    answer = table_mate(kernel)
    if answer is not None:
        length, keys = answer
        if not keys:
            raise CommandError(f"no mate within {most} move{'s' if most > 1 else ''}")
        return f"{length} {move_list(kernel.position, keys)}"
    keys, length = within_budget(lambda: search.shortest_mate(kernel.position, most))
    if not keys:
        raise CommandError(f"no mate within {most} move{'s' if most > 1 else ''}")
    return f"{length} {move_list(kernel.position, keys)}"


def cmd_perft(kernel: Session, args: list[str]) -> str:
    """Count the leaves of the legal move tree D plies deep.

    Arguments: D >= 0.
    Fails: D is not a whole number from 0 on; no white king; the side not to move is in check;
    the count would visit more than search.max_nodes positions.
    Returns: the count, a whole number.
    """
    budget = search_budget(kernel, args[0], "D", least=0, most=MAX_PERFT_DEPTH)
    return str(within_budget(lambda: perft(kernel.position, budget.depth, budget)))


def cmd_selfmate(kernel: Session, args: list[str]) -> str:
    """List the moves that force a selfmate in N.

    Arguments: N >= 1, the most moves of the side to move, which forces the other side to
    checkmate it.
    Fails: as mate_in.
    Returns: every key (selfmates in N or fewer), sorted, space-separated; empty when none.
    """
    search = selfmate_search(kernel, args[0])
    keys = within_budget(lambda: search.keys(kernel.position, search.budget.depth))
    return move_list(kernel.position, keys)


def cmd_solution(kernel: Session, args: list[str]) -> str:
    """Show how each key mates (or selfmates) in N, for people.

    Arguments: N >= 1, as for mate_in; optionally the stipulation, mate (the default) or
    selfmate.
    Fails: as mate_in; a stipulation other than mate or selfmate.
    Returns: each key of mate_in N (or selfmate N), sorted, and under it, indented, each
    answer of the other side with the next move of the side to move, down to the mate,
    which is marked `#`; one move per line; empty when no key.
    """
    stipulation = args[1] if len(args) > 1 else "mate"
    if stipulation not in SOLUTION_STIPULATIONS:
        hint = " (helpmate lists its solutions itself)" if stipulation == "helpmate" else ""
        raise CommandError(f"unknown stipulation {shorten(stipulation)}: mate or selfmate{hint}")
    if stipulation == "selfmate":
        selfmates = selfmate_search(kernel, args[0])
        from kernel.mates.selfmate_solution import write_selfmate_solution  # imported when used

        depth = selfmates.budget.depth
        return "\n".join(
            within_budget(lambda: write_selfmate_solution(selfmates, kernel.position, depth))
        )
    search = proof_search(kernel, args[0], "N")
    from kernel.mates.solution import write_solution  # imported when first used, to start faster

    lines = within_budget(lambda: write_solution(search, kernel.position, search.budget.depth))
    return "\n".join(lines)


def search_budget(kernel: Session, text: str, what: str, least: int, most: int) -> Budget:
    """Read a search's depth, check the position is a game position, and make its budget."""
    too_large = f"{what} is too large (at most {most}: deeper searches could never finish)"
    depth = parse_int(text, what, too_large)
    if depth < least:
        raise CommandError(f"{what} must be {least} or more, got {depth}")
    if depth > most:
        raise CommandError(too_large)
    kernel.game_analysis()
    return kernel.budget(depth)


def proof_search(kernel: Session, text: str, what: str) -> ProofNumberSearch:
    """Read the mate length of mate_in, mate_search or solution, check the position, and
    make the search."""
    budget = search_budget(kernel, text, what, least=1, most=MAX_MATE_MOVES)
    from kernel.mates.proofnumber import (
        ProofNumberSearch,  # imported when first used, to start faster
    )

    return ProofNumberSearch(budget, compiled=kernel.config.compiled)


def selfmate_search(kernel: Session, text: str) -> SelfmateSearch:
    """Read the length of selfmate or `solution N selfmate`, check the position, and make
    the search."""
    budget = search_budget(kernel, text, "N", least=1, most=MAX_MATE_MOVES)
    from kernel.mates.selfmate import SelfmateSearch  # imported when first used, to start faster

    return SelfmateSearch(budget)


def within_budget(search: Callable[[], Result]) -> Result:
    """Run a search; past search.max_nodes, or stopped by a signal, refuse the command with
    the count reached."""
    try:
        return search()
    except (SearchLimitReached, SearchStopped) as error:
        raise CommandError(str(error)) from None
