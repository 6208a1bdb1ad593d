"""`pip install .` gives a `cubemate` command that runs from any folder, with its default
configuration and a log folder of its own, its bytecode and its mate search compiled, and no
Dask unless asked."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO, TIMEOUT

#: What the package is built from: the files pyproject.toml names, and no source tree around.
SOURCES = (
    "pyproject.toml",
    "README.md",
    "main.py",
    "kernel",
    "client",
    "batch",
    "arena",
    "gui",
    "regress",
    "tablebase",
)

#: The packages installed at the top of site-packages (docs/design.md says why these names).
INSTALLED_ROOMS = ("kernel", "client", "batch", "arena", "gui", "regress", "tablebase")


def test_installed_cubemate_runs_from_anywhere(tmp_path: Path) -> None:
    """Install into a folder of its own (no build isolation, no dependencies: those of this
    environment serve), then run `cubemate` from another folder."""
    source = tmp_path / "source"
    for name in SOURCES:
        origin = REPO / name
        if origin.is_dir():
            # Without the mate search this tree has built in place: the install must build it.
            # three.js's npm folder is no part of the package (make gui installs it).
            ignore = shutil.ignore_patterns("__pycache__", "*.so", "node_modules")
            shutil.copytree(origin, source / name, ignore=ignore)
        else:
            source.mkdir(exist_ok=True)
            shutil.copy(origin, source / name)
    site = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-build-isolation",
         "--no-deps", "--no-index", "--target", str(site), str(source)],
        check=True, capture_output=True, timeout=10 * TIMEOUT,
    )  # fmt: skip
    # The names it puts at the top of site-packages: these, and no more without docs/design.md
    # saying so ("Installed: why the rooms keep their own names").
    top = {path.name for path in site.iterdir() if not path.name.endswith(".dist-info")}
    assert top == {"bin", "main.py", "__pycache__", *INSTALLED_ROOMS}, top
    # The page's parts, which gui/server.py serves from the package.
    for part in ("index.html", "style.css", "app/main.js", "engine_config.toml"):
        assert (site / "gui" / part).is_file(), part
    # Compiled at install time, whatever PYTHONDONTWRITEBYTECODE says.
    assert list((site / "kernel" / "__pycache__").glob("kernel.*.pyc"))
    assert not (site / "engine_config.toml").exists()

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    state = tmp_path / "state"
    env = dict(os.environ, PYTHONPATH=str(site), XDG_STATE_HOME=str(state))
    done = subprocess.run(
        [str(site / "bin" / "cubemate")],
        input=b"protocol_version\nname\nquit\n",
        capture_output=True, cwd=elsewhere, env=env, timeout=TIMEOUT, check=False,
    )  # fmt: skip
    assert (done.returncode, done.stdout, done.stderr) == (0, b"= 2\n\n= cubemate\n\n= \n\n", b"")
    # The mate search was compiled by the install, and the installed engine runs it.
    assert list((site / "kernel").glob("_core.*.so"))
    where = (
        "import kernel.mates.proofnumber as p; print(p.COMPILED, p.MateCore.__module__, p.__file__)"
    )
    found = subprocess.run(
        [sys.executable, "-c", where], capture_output=True, text=True, cwd=elsewhere, env=env,
        timeout=TIMEOUT, check=True,
    )  # fmt: skip
    assert found.stdout == f"True kernel._core {site / 'kernel' / 'mates' / 'proofnumber.py'}\n"
    assert list(elsewhere.iterdir()) == []
    start = json.loads((state / "cubemate" / "logs" / "cubemate.jsonl").read_text().split("\n")[0])
    assert (start["event"], start["config"]) == ("start", "<built-in defaults>")
    assert start["log_dir"] == str(state / "cubemate" / "logs")

    (metadata,) = site.glob("cubemate-*.dist-info/METADATA")
    requires = [line for line in metadata.read_text().splitlines() if "distributed" in line]
    assert requires and all('extra == "dask"' in line for line in requires), requires
