"""Commands that ask about the position: checkers, checkmate, explain, legal_moves, status
(docs/protocol.md, "Asking about the position").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kernel.commands.arguments import (
    move_list,
)
from kernel.commands.session import Session
from kernel.text.notation import (
    piece_label,
)

if TYPE_CHECKING:
    pass


def cmd_checkers(kernel: Session, args: list[str]) -> str:
    """List the pieces giving check to the side to move.

    Arguments: none.
    Fails: there is no white king.
    Returns: each checker as letter and cell, sorted, space-separated; empty when none.
    """
    analysis = kernel.analysis()
    return " ".join(sorted(piece_label(kernel.position, point) for point in analysis.checkers))


def cmd_checkmate(kernel: Session, args: list[str]) -> str:
    """Tell whether the side to move is checkmated.

    Arguments: none.
    Fails: there is no white king.
    Returns: true or false; stalemate is false.
    """
    return "true" if kernel.analysis().is_checkmate() else "false"


def cmd_explain(kernel: Session, args: list[str]) -> str:
    """Explain the answer to checkmate, one finding per line.

    Arguments: none.
    Fails: there is no white king.
    Returns: several lines for people.
    """
    from kernel.text.explain import explain  # imported when first used, to start faster

    return explain(kernel.analysis())


def cmd_legal_moves(kernel: Session, args: list[str]) -> str:
    """List every legal move of the side to move.

    Arguments: none.
    Fails: there is no white king.
    Returns: moves as Kc1(I)-c2(II) or, capturing, Nb2(II)xa1(III) (black's in lower case),
    sorted, space-separated; short (Kc2(II), Nxa1(III)) when protocol.notation is "short".
    """
    if kernel.config.notation == "short":
        from kernel.text.short_notation import short_name

        position, analysis = kernel.position, kernel.analysis()
        return " ".join(sorted(short_name(position, analysis, m) for m in analysis.legal_moves()))
    return move_list(kernel.position, kernel.analysis().legal_moves())


def cmd_status(kernel: Session, args: list[str]) -> str:
    """Name the state of the side to move.

    Arguments: none.
    Fails: there is no white king.
    Returns: checkmate, stalemate, check or normal.
    """
    return kernel.analysis().status()
