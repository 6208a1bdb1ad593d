"""The packages the engine needs besides Python, and one line when one is missing.

Run by a Python that lacks them (a bare `python3 main.py` instead of the set-up's
`.venv/bin/python`), an entry point would end in a `No module named 'structlog'` traceback.
Instead it says which package is missing and how to get it, in one line, and exits 2. This
module imports nothing but the standard library, so that it works where they are missing.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterable
from typing import NoReturn

#: What pyproject.toml's `dependencies` install, by the name they are imported as.
REQUIRED = ("structlog", "orjson", "tqdm")
#: Those of the optional extras (`pip install '.[dask]'`, '.[bench]'), and the extra of each.
EXTRAS = {"distributed": "dask", "dask": "dask", "chess": "bench"}
#: What sets up an environment that has them.
FIX = "run `make run` or `make test` (they set up .venv), or use .venv/bin/python"


def missing_line(program: str, name: str) -> str:
    """The line that says `name` is missing and how to get it."""
    extra = EXTRAS.get(name)
    how = f"install the extra: pip install '.[{extra}]'" if extra else FIX
    return f"{program}: missing dependency '{name}' ({sys.executable} has no such module): {how}"


def refuse(program: str, name: str) -> NoReturn:
    """Say that `name` is missing, in one line on stderr, and exit 2."""
    if sys.stderr is not None:
        sys.stderr.write(missing_line(program, name) + "\n")
    raise SystemExit(2)


def refuse_missing(program: str, error: ModuleNotFoundError) -> NoReturn:
    """Turn a failed import of a dependency into one line and exit 2; any other failed import
    (one of the project's own modules) is a fault and goes on as the error it is."""
    name = (error.name or "").partition(".")[0]
    if name in REQUIRED or name in EXTRAS:
        refuse(program, name)
    raise error


def require(program: str, names: Iterable[str] = REQUIRED) -> None:
    """Exit 2 with one line if any of `names` cannot be imported (without importing them)."""
    for name in names:
        if importlib.util.find_spec(name) is None:
            refuse(program, name)
