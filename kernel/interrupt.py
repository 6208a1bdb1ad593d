"""Signals that stop a search, and signals that end the engine.

SIGUSR1 (and Ctrl-C at a terminal while a command runs) stops a search without ending the
engine. Its handler raises nothing: an exception thrown at whatever bytecode the signal lands
on could leave the kernel half way through changing its position. It only sets a flag, which
the search looks at each time it counts positions (search.Budget.spend) and answers by raising
SearchStopped there, where nothing is half done; the command is then refused and changes
nothing. A long read (`loadgame` of a large record) looks at it as well, now and then, and
raises ReadStopped. A stop asked for while no command runs is forgotten, so it never stops
the next one.

SIGTERM, SIGHUP and SIGINT (on a pipe, or at a terminal prompt) end the engine. While no
command runs, the handler raises EndingSignal, a BaseException, so that no `except Exception`
takes it for a bug, and main logs the exit. While a command runs, an exception at an arbitrary
bytecode could land half way through a move being played or taken back, and the cleanup on
the way out would then meet a position that is neither: so the handler only notes the ending
and stops the search, exactly as SIGUSR1 does; the command unwinds at its next count of
positions, and main, seeing the ending, raises EndingSignal instead of answering. Only the
first ending signal counts; any that comes while the engine is ending is ignored, so the exit
runs to its end.
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Callable, Iterator
from types import FrameType, TracebackType
from typing import Any

#: What signal.signal takes and gives back.
Handler = Callable[[int, FrameType | None], Any] | int | signal.Handlers | None


class SearchStopped(Exception):
    """A search was asked to stop; `nodes` says how many positions it had visited."""

    def __init__(self, nodes: int) -> None:
        super().__init__(f"search stopped after {nodes} positions")
        self.nodes = nodes


class ReadStopped(Exception):
    """A long read (a record file, the moves of a game) was asked to stop, as a search is;
    the message says where it was."""


def stop_read_if_asked(where: str) -> None:
    """Raise ReadStopped if the running command was asked to stop: a read that can take
    seconds calls this now and then, as a search counts its positions."""
    if COMMAND.stop_requested:
        raise ReadStopped(f"stopped {where}")


class EndingSignal(BaseException):
    """A signal that ends the engine arrived; `name` is its name, as `SIGTERM`."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


class Command:
    """What the handlers and the search share: whether a command runs, whether it was asked
    to stop, and whether the engine is ending. Entered while a command runs."""

    __slots__ = ("ending", "pending_end", "running", "stop_requested")

    def __init__(self) -> None:
        self.running = False
        self.stop_requested = False
        self.ending = False
        #: The name of an ending signal that came while a command ran: main ends the engine
        #: once the command has unwound, instead of answering.
        self.pending_end: str | None = None

    def end_if_asked(self) -> None:
        """Raise the EndingSignal that came while the last command ran, if one did."""
        if self.pending_end is not None:
            name, self.pending_end = self.pending_end, None
            raise EndingSignal(name)

    def __enter__(self) -> None:
        self.stop_requested = False
        self.running = True

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.running = False
        self.stop_requested = False


#: The one state of the process, as its signal handlers are the process's.
COMMAND = Command()


def request_stop() -> None:
    """Ask the running command to stop its search; nothing when no command runs."""
    if COMMAND.running:
        COMMAND.stop_requested = True


def on_stop(signum: int, frame: FrameType | None) -> None:
    """SIGUSR1: stop the running search."""
    request_stop()


def on_ending(signum: int, frame: FrameType | None) -> None:
    """End the engine, unless it is ending already: at once when idle, else once the running
    command has unwound (its search is stopped now)."""
    if COMMAND.ending:
        return
    COMMAND.ending = True
    name = signal.Signals(signum).name
    if COMMAND.running:
        COMMAND.pending_end = name
        COMMAND.stop_requested = True
        return
    raise EndingSignal(name)


def on_terminal_interrupt(signum: int, frame: FrameType | None) -> None:
    """Ctrl-C at a terminal: stop the running command's search, as Python's REPL stops the
    code it runs; at the prompt, or when the command goes on after a stop was asked, end."""
    if COMMAND.running and not COMMAND.stop_requested:
        COMMAND.stop_requested = True
    elif not COMMAND.ending:
        # At the prompt; or a second Ctrl-C, the first having stopped the search already and
        # the command going on without looking: the person wants out now.
        COMMAND.ending = True
        raise EndingSignal(signal.Signals(signum).name)


#: Signals that stay ignored when the engine starts with them ignored: nohup's SIGHUP, the
#: SIGINT of a background job. SIGTERM is not among them: it always ends the engine.
KEEP_IGNORED = (signal.SIGHUP, signal.SIGINT)


@contextlib.contextmanager
def handlers(at_terminal: bool) -> Iterator[None]:
    """Install the engine's signal handlers while inside, and put the previous ones back."""
    wanted = {
        signal.SIGTERM: on_ending,
        signal.SIGHUP: on_ending,
        signal.SIGINT: on_terminal_interrupt if at_terminal else on_ending,
        signal.SIGUSR1: on_stop,
    }
    COMMAND.ending = False
    COMMAND.pending_end = None
    previous: dict[signal.Signals, Handler] = {}
    try:
        for signum, handler in wanted.items():
            if signum in KEEP_IGNORED and signal.getsignal(signum) is signal.SIG_IGN:
                continue
            previous[signum] = signal.signal(signum, handler)
        yield
    finally:
        for signum, original in previous.items():
            signal.signal(signum, original)
        # The ending is this engine's: whatever runs next in the process (a test that ran
        # main in-process, then asks the handlers itself) starts from a process not ending.
        COMMAND.ending = False
        COMMAND.pending_end = None
