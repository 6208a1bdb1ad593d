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

PREFIX = "cubemate-engine-logs-"
#: Wait for the end of the pipe, then remove the folder ($1).
WATCH = 'cat >/dev/null; rm -rf -- "$1"'


class TemporaryLogs:
    """A fresh log folder, and a watcher that removes it when its engine ends."""

    def __init__(self) -> None:
        """Make the folder and start its watcher; `hold` goes to the engine."""
        self.folder = tempfile.mkdtemp(prefix=PREFIX)
        watch, self.hold = os.pipe()
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
            os.close(self.hold)
            self.remove()
            raise
        finally:
            os.close(watch)

    def engine_started(self) -> None:
        """Close this process's write end: from now on only the engine holds one."""
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
