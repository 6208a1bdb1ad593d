"""A stop asked for by a signal, which a client's loop reads between two steps of its work.

The batch runner and the arena stop cleanly on Ctrl-C, `kill` and a closed terminal: the
handler only sets a flag, and the loop stops where nothing is half done. Raising from the
handler instead lands anywhere, even between taking a lock and giving it back (the batch once
crashed so). The flag is a plain attribute, not a `threading.Event`, whose `set` takes a lock:
a second signal arriving inside the first handler's `set` would wait on that lock for ever.
"""

from __future__ import annotations

import contextlib
import signal
from types import FrameType

#: The signals that stop a client's work cleanly: Ctrl-C, `kill`, a closed terminal.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class StopFlag:
    """Whether a stop was asked for; `set` and `is_set` as on a threading.Event."""

    def __init__(self) -> None:
        self.asked = False

    def set(self) -> None:
        """Ask for the stop (safe in a signal handler: no lock)."""
        self.asked = True

    def is_set(self) -> bool:
        """Tell whether the stop was asked for."""
        return self.asked


def stop_on_signals(stack: contextlib.ExitStack) -> StopFlag:
    """Make STOP_SIGNALS set the returned flag until `stack` closes, then restore them."""
    flag = StopFlag()

    def ask(signum: int, frame: FrameType | None) -> None:
        flag.set()

    for signum in STOP_SIGNALS:
        stack.callback(signal.signal, signum, signal.signal(signum, ask))
    return flag
