"""Slow, obviously-correct brute force for the selfmate and the helpmate (docs/protocol.md).

Written from the rules alone on tests/reference.py's moves, independently of the kernel, in
its style: plain recursions over copies of the position, nothing pruned or ordered, only
`any`/`all` stopping at the first answer that settles them, and answers remembered by
position (transpositions bring positions round again).

- Selfmate in N, the side to move (S) forcing the other (O) to mate it: a move of S works
  with n moves when after it O has a legal move (a key that mates or stalemates O fails) and
  every move of O either checkmates S, or (n >= 2) leaves S a move that works with n - 1.
- Helpmate in N: every line of 2N legal moves, S first, after which S is checkmated. A
  position in the middle of a line where the side to move has no move (mate or stalemate)
  ends it without a solution, as it has no move to go on with.
"""

from __future__ import annotations

import functools

from tests.reference import (
    Cell,
    Position,
    Side,
    apply_move,
    is_checkmate,
    is_legal,
    move_name,
    pseudo_moves,
    require_game,
    side_in_check,
    successors,
)


def legal_after(pos: Position) -> list[Position]:
    """List the positions after each legal move of the side to move."""
    return [apply_move(pos, a, b) for a, b in pseudo_moves(pos) if is_legal(pos, a, b)]


def selfmate_after(after: Position, n: int) -> bool:
    """Tell whether the move of S that led to `after` (O to move) forces a selfmate in n."""
    return _selfmate_after(after.n, frozenset(after.pieces.items()), after.side, n)


@functools.lru_cache(maxsize=1 << 16)
def _selfmate_after(size: int, pieces: frozenset[tuple[Cell, str]], side: Side, n: int) -> bool:
    """Answer selfmate_after for a position given as its parts (hashable, so remembered)."""
    after = Position(size, dict(pieces), side)
    answers = legal_after(after)
    if not answers:
        return False  # S mated or stalemated O
    return all(
        is_checkmate(answered)
        or (
            n >= 2
            and any(
                is_legal(answered, a, b) and selfmate_after(apply_move(answered, a, b), n - 1)
                for a, b in pseudo_moves(answered)
            )
        )
        for answered in answers
    )


def selfmate(pos: Position, n: int) -> list[str]:
    """List every move of the side to move that forces a selfmate in n or fewer, sorted."""
    if n < 1:
        raise ValueError(f"selfmate in N needs N ≥ 1, got {n}")
    require_game(pos)
    return [name for name, after in successors(pos) if selfmate_after(after, n)]


def helpmate(pos: Position, n: int) -> list[str]:
    """List every solution of the helpmate in n: its 2n moves space-separated, sorted."""
    if n < 1:
        raise ValueError(f"helpmate in N needs N ≥ 1, got {n}")
    require_game(pos)
    lines = _lines(pos.n, frozenset(pos.pieces.items()), pos.side, 2 * n)
    return sorted(" ".join(line) for line in lines)


@functools.lru_cache(maxsize=1 << 16)
def _lines(
    size: int, pieces: frozenset[tuple[Cell, str]], side: Side, plies: int
) -> tuple[tuple[str, ...], ...]:
    """Every line of `plies` moves from the position after which the side then to move is
    checkmated (the side that moved first, as plies is even at the root)."""
    pos = Position(size, dict(pieces), side)
    if plies == 0:
        return ((),) if is_checkmate(pos) else ()
    found: list[tuple[str, ...]] = []
    for a, b in pseudo_moves(pos):
        after = apply_move(pos, a, b)
        if side_in_check(after, side):
            continue  # not legal: it leaves the mover's king in check
        rest = _lines(size, frozenset(after.pieces.items()), after.side, plies - 1)
        name = move_name(pos, a, b)
        found.extend((name, *line) for line in rest)
    return tuple(found)


# ---------------------------------------------------------------- the selfmate's tree


def check_selfmate_solution(pos: Position, n: int, text: str, keys: list[str]) -> list[str]:
    """List what is wrong with a `solution n selfmate` text, move by move; empty when sound.

    The keys must be `keys` (the brute force's); under each key every legal answer of the
    other side must be listed once, either marked ` #` and checkmating the side that keyed,
    or followed by a legal move of that side, under which the same holds with one move fewer;
    no line may run past n moves of the side to move.
    """
    problems: list[str] = []
    rows = text.split("\n") if text else []
    listed = [row for row in rows if not row.startswith(" ")]
    if listed != keys:
        problems.append(f"keys {listed} differ from the brute force's {keys}")
    moves = dict(successors(pos))
    index = 0
    while index < len(rows):
        key = rows[index]
        index += 1
        if key not in moves:
            problems.append(f"line {index}: {key!r} is not a legal key")
            continue
        index = _check_answers(moves[key], n, rows, index, 1, key, problems)
    return problems


def _check_answers(
    after: Position, n: int, rows: list[str], index: int, level: int, path: str, problems: list[str]
) -> int:
    """Check the answers listed under a move of the side to move (`after`: the other side to
    move, n of its moves allowed); return the index of the first row past them."""
    indent = "  " * level
    answers = dict(successors(after))
    seen: list[str] = []
    while index < len(rows) and rows[index].startswith(indent) and rows[index][len(indent)] != " ":
        words = rows[index][len(indent) :].split(" ")
        index += 1
        if len(words) != 2 or words[0] not in answers:
            problems.append(f"line {index}: {rows[index - 1]!r} after {path}")
            continue
        answer, follow = words
        seen.append(answer)
        answered = answers[answer]
        if follow == "#":
            if not is_checkmate(answered):
                problems.append(f"line {index}: {path} {answer} claims mate and is none")
            continue
        nexts = dict(successors(answered))
        if follow not in nexts or n < 2:
            problems.append(f"line {index}: {follow} cannot follow {path} {answer}")
            continue
        index = _check_answers(
            nexts[follow], n - 1, rows, index, level + 1, f"{path} {answer} {follow}", problems
        )
    if sorted(seen) != sorted(answers) or not answers:
        problems.append(f"after {path}: answers listed {sorted(seen)}, legal {sorted(answers)}")
    return index
