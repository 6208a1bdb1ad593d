"""How many times larger the seeded sweeps of the tests run.

`make test` runs them at 1, sized to keep it short; `make sweep` (CUBEMATE_SWEEP=10) or
`CUBEMATE_SWEEP=K .venv/bin/pytest ...` multiplies the seeded counts by K and turns on the
checks too slow for every run (the deepest perft counts, the 4-cube's mates in 4).
"""

from __future__ import annotations

import os


def sweep_factor(text: str | None) -> int:
    """Read CUBEMATE_SWEEP: a whole number, 1 when unset, empty or below 1."""
    try:
        return max(1, int(text or "1"))
    except ValueError:
        raise SystemExit(f"CUBEMATE_SWEEP must be a whole number, not {text!r}") from None


SWEEP = sweep_factor(os.environ.get("CUBEMATE_SWEEP"))
