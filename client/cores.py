"""How many processes this machine lets a client run side by side."""

from __future__ import annotations

import os


def usable_cores() -> int:
    """The cores this process may run on: its CPU affinity, where the platform has one."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on every platform
        return os.cpu_count() or 1
