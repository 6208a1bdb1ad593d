"""The checks before a match: each engine starts, speaks the protocol and knows what the
match needs; a player that sets up the start with `new_game` and can say its position agrees
with the referee's; every position of an openings file is one the referee can play from.

Every question is bounded by `--timeout` (the first one too), and every process started here
is ended here, however the check ends (a refusal, Ctrl-C, SIGTERM).
"""

from __future__ import annotations

import contextlib
import shlex
from collections.abc import Callable, Iterator

from arena.judge import disagreement
from arena.match import MatchSettings
from arena.openings import FileOpenings, OpeningError, check_openings
from arena.referee import DEFAULT_VARIANT, Position, Referee, RefereeError
from arena.speaker import Launch, ProcessSpeaker, SpeakerDied


class PreflightError(Exception):
    """An engine or an opening the match cannot use; the message names it."""


@contextlib.contextmanager
def started(
    launch: Launch, who: str, timeout: float | None, warn: Callable[[str], None]
) -> Iterator[ProcessSpeaker]:
    """Start a process for a check, closed afterwards; refuse one that does not start; warn
    of lines it wrote before its first answer."""
    try:
        speaker = ProcessSpeaker(launch, timeout)
    except SpeakerDied as death:
        message = f"{who} does not start or does not speak the protocol: {death.detail}"
        raise PreflightError(message) from None
    try:
        count, lines = speaker.banner
        if count:
            shown = " | ".join(lines) + (" | ..." if count > len(lines) else "")
            warn(f"{who} wrote {count} line(s) before its first answer, skipped: {shown}")
        yield speaker
    except SpeakerDied as death:
        raise PreflightError(f"{who} failed while checked: {death.detail}") from None
    finally:
        speaker.close()


def preflight(settings: MatchSettings, warn: Callable[[str], None]) -> None:
    """Start the referee and each engine player once: each must speak the protocol and know
    the commands the match needs; every position of an openings file must be usable."""
    setup = settings.setup
    who = f"the referee ({shlex.join(setup.referee)})"
    file_openings = isinstance(settings.opening, FileOpenings)
    start: Position | None = None
    with started(setup.referee_launch(), who, setup.timeout, warn) as speaker:
        referee = Referee(speaker, setup.timeout, setup.variant)
        try:
            absent = referee.missing_commands()
            if not absent and isinstance(settings.opening, FileOpenings):
                check_openings(settings.opening, referee, settings.size)
            elif not absent:
                referee.new_game(settings.size)
                start = referee.position()
        except (RefereeError, OpeningError) as error:
            raise PreflightError(str(error)) from None
        if absent:
            raise PreflightError(f"{who} does not know {', '.join(absent)}")
    for index, spec in enumerate(settings.players, start=1):
        if spec.builtin is not None:
            continue
        who = f"player {index} ({spec.label})"
        with started(setup.player_launch(spec), who, setup.timeout, warn) as speaker:
            absent = spec.missing(speaker.knows, file_openings or setup.set_board)
            if absent:
                raise PreflightError(f"{who} does not know {', '.join(absent)}")
            check_variant(speaker, setup.variant, who)
            if (
                start is not None
                and not (file_openings or setup.uses_set_board(spec))
                and speaker.knows("new_game")
                and speaker.knows("get_board")
            ):
                check_start(speaker, referee.start_line(settings.size), start, who)


def check_variant(speaker: ProcessSpeaker, variant: str, who: str) -> None:
    """Refuse a player that cannot be told the match's variant (nothing is asked of a cube
    match's players: an engine that knows no `variant` plays the cube)."""
    if variant == DEFAULT_VARIANT:
        return
    if not speaker.knows("variant"):
        raise PreflightError(
            f"{who} does not know the command variant, so it cannot be told to play {variant} "
            f"(--variant {variant})"
        )
    reply = speaker.ask(f"variant {variant}")
    if not reply.ok:
        raise PreflightError(
            f"{who} refuses to play {variant}: 'variant {variant}' answered {reply.text[:200]!r}"
        )


def check_start(speaker: ProcessSpeaker, start_line: str, start: Position, who: str) -> None:
    """Refuse a player whose `new_game` (of the match's variant) is not the referee's start
    position."""
    for line in (start_line, "get_board"):
        reply = speaker.ask(line)
        if not reply.ok:
            raise PreflightError(f"{who} refused {line!r}: {reply.text[:200]}")
    why = disagreement(reply.text, start)
    if why is not None:
        size = start.size
        raise PreflightError(
            f"{who} does not start a {size}x{size}x{size} game where the referee does: {why}"
        )
