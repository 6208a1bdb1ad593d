"""Temporary log folders that never outlive their engine, however it ends.

An engine that a client starts for throw-away work logs into a fresh temporary folder. The
client removes it when it closes the engine, but a client killed with SIGKILL cleans up
nothing. So each folder has a watcher, a tiny `sh` that reads a pipe whose only writer is
the engine (which inherits the pipe's write end and never uses it): when the engine ends,
however it ends, the pipe reaches its end of file and the watcher removes the folder. A
client killed with SIGKILL closes the engine's input, the engine ends, and its folder goes.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
import threading

PREFIX = "cubemate-engine-logs-"
#: Wait for the end of the pipe, then remove the folder ($1).
WATCH = 'cat >/dev/null; rm -rf -- "$1"'


class TemporaryLogs:
    """A fresh log folder, and a watcher that removes it when its engine ends."""

    def __init__(self) -> None:
        """Make the folder and start its watcher; `hold` goes to the engine."""
        self.folder = tempfile.mkdtemp(prefix=PREFIX)
        watch, self.hold = os.pipe()
        #: Whether `hold` is still this process's to close. A descriptor is closed once only:
        #: its number is free again at once, and a second close would close whatever another
        #: thread opened under that number meanwhile (a batch once lost its input file so).
        self._holding = True
        self._lock = threading.Lock()
        try:
            # A session of its own, out of reach of Ctrl-C at the client's terminal.
            self.watcher = subprocess.Popen(
                ["/bin/sh", "-c", WATCH, "sh", self.folder],
                stdin=watch,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
        except OSError:
            self.engine_started()
            self.remove()
            raise
        finally:
            os.close(watch)

    def engine_started(self) -> None:
        """Close this process's write end, once: from now on only the engine holds one."""
        with self._lock:
            if not self._holding:
                return
            self._holding = False
            with contextlib.suppress(OSError):
                os.close(self.hold)

    def remove(self) -> None:
        """Remove the folder now; the watcher, if still waiting, is not needed any more."""
        shutil.rmtree(self.folder, ignore_errors=True)
        watcher = getattr(self, "watcher", None)
        if watcher is not None:
            self.engine_started()  # an engine that never started leaves it waiting
            if watcher.poll() is None:
                watcher.kill()
            watcher.wait()
