"""A dependency missing from the Python that runs an entry point: one line naming it and the
fix, exit 2, not a traceback (issue 49, item 11); through the real processes.

A module is made missing as Python itself treats one: `sys.modules[name] = None` makes both
its import and `importlib.util.find_spec` fail as for a module that is not installed.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, TIMEOUT

#: Runs a script as `python SCRIPT ARGS...` would, with some modules missing.
HIDING = (
    "import runpy, sys\n"
    "for name in sys.argv[1].split(','): sys.modules[name] = None\n"
    "sys.argv = sys.argv[2:]\n"
    "runpy.run_{how}(sys.argv[0] if '{how}' == 'path' else '{module}', run_name='__main__')\n"
)


def run_without(missing: str, *argv: str, module: str = "") -> subprocess.CompletedProcess[str]:
    """Run main.py (or `python -m MODULE`) with the modules `missing` (comma-separated) gone."""
    how = "module" if module else "path"
    code = HIDING.format(how=how, module=module)
    return subprocess.run(
        [sys.executable, "-c", code, missing, *(argv or [str(REPO / "main.py")])],
        input="name\n",
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=TIMEOUT,
        check=False,
    )


def assert_one_line(result: subprocess.CompletedProcess[str], program: str, name: str) -> None:
    assert (result.returncode, result.stdout) == (2, ""), result
    assert result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith(f"{program}: missing dependency '{name}' "), result.stderr
    assert "make run" in result.stderr and ".venv/bin/python" in result.stderr


@pytest.mark.parametrize("name", ["orjson", "structlog"])
def test_the_engine_names_a_missing_dependency(name: str, tmp_path: Path) -> None:
    """orjson is imported at start, structlog only when the logs open: both are caught."""
    result = run_without(name, str(REPO / "main.py"), "--log-dir", str(tmp_path))
    assert_one_line(result, "cubemate", name)
    assert not list(tmp_path.iterdir())  # refused before any log was opened


def test_bench_names_a_missing_dependency() -> None:
    assert_one_line(run_without("structlog", "bench", module="bench"), "bench", "structlog")


def test_a_missing_module_of_the_project_is_still_a_fault() -> None:
    """Only the dependencies are turned into one line: a module of the project's own that
    cannot be imported is a fault in the tree, and shows as one."""
    result = run_without("kernel.protocol")
    assert result.returncode == 1 and "Traceback" in result.stderr, result
    assert "ModuleNotFoundError: import of kernel.protocol" in result.stderr


@pytest.mark.skipif(
    subprocess.run(
        ["/usr/bin/python3", "-c", "import sys, tomllib; import orjson"],
        capture_output=True,
        check=False,
    ).returncode
    != 1,
    reason="needs a system /usr/bin/python3 of 3.11 or newer without orjson",
)
def test_a_bare_system_python_gets_one_line() -> None:
    """As a newcomer would: `python3 main.py` outside the set-up."""
    result = subprocess.run(
        ["/usr/bin/python3", "main.py"],
        input="name\n",
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=TIMEOUT,
        check=False,
    )
    assert_one_line(result, "cubemate", "orjson")
