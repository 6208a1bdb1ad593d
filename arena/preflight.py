"""The checks before a match: each engine starts, speaks the protocol and knows what the
match needs; every position of an openings file is one the referee can play from."""

from __future__ import annotations

import contextlib
import shlex
from collections.abc import Iterator, Sequence
from pathlib import Path

from arena.match import MatchSettings
from arena.openings import FileOpenings, OpeningError, check_openings
from arena.referee import Referee, RefereeError
from arena.speaker import ProcessSpeaker, SpeakerDied


class PreflightError(Exception):
    """An engine or an opening the match cannot use; the message names it."""


@contextlib.contextmanager
def started(command: Sequence[str], who: str, log_dir: str | None) -> Iterator[ProcessSpeaker]:
    """Start a process for a check, closed afterwards; refuse one that does not start."""
    try:
        speaker = ProcessSpeaker(command, None if log_dir is None else Path(log_dir))
    except SpeakerDied as death:
        message = f"{who} does not start or does not speak the protocol: {death.detail}"
        raise PreflightError(message) from None
    try:
        yield speaker
    finally:
        speaker.close()


def missing(speaker: ProcessSpeaker, commands: Sequence[str], who: str) -> list[str]:
    """The commands an engine does not know."""
    absent = []
    for name in commands:
        try:
            reply = speaker.ask(f"known_command {name}", 60)
        except SpeakerDied as death:
            raise PreflightError(f"{who} failed when asked known_command: {death.detail}") from None
        if not reply.ok or reply.text.strip() != "true":
            absent.append(name)
    return absent


def preflight(settings: MatchSettings) -> None:
    """Start the referee and each engine player once: each must speak the protocol and know
    the commands the match needs; every position of an openings file must be usable."""
    setup = settings.setup
    who = f"the referee ({shlex.join(setup.referee)})"
    with started(setup.referee, who, setup.log_dir) as speaker:
        referee = Referee(speaker, setup.timeout)
        try:
            absent = referee.missing_commands()
            if not absent and isinstance(settings.opening, FileOpenings):
                check_openings(settings.opening, referee, settings.size)
            elif not absent:
                referee.new_game(settings.size)
        except (RefereeError, OpeningError) as error:
            raise PreflightError(str(error)) from None
        if absent:
            raise PreflightError(f"{who} does not know {', '.join(absent)}")
    for index, spec in enumerate(settings.players, start=1):
        if spec.builtin is not None:
            continue
        who = f"player {index} ({spec.text})"
        with started(spec.command, who, setup.log_dir) as speaker:
            absent = missing(speaker, spec.required_commands(), who)
        if absent:
            raise PreflightError(f"{who} does not know {', '.join(absent)}")
