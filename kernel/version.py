"""The engine's version, for `version` and for the records savegame writes."""

from __future__ import annotations

from pathlib import Path


def package_version() -> str:
    """Read the version from the installed package, or from pyproject.toml beside it."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("cubemate")
    except PackageNotFoundError:
        import tomllib

        pyproject = Path(__file__).resolve().parent.parent / "pyproject.toml"
        with pyproject.open("rb") as file:
            return str(tomllib.load(file)["project"]["version"])
