"""The page's ES modules import one another in one direction only (issue 61): the model and
the helpers at the bottom, the engine's connection and the lines above them, the views (the
layers, the 3D view, the side panel) above those, and main.js on top wiring them together. The
test reads every `import` of gui/app/*.js, static and dynamic, and fails on an import of a
module of the same floor or one above, and on any circle."""

from __future__ import annotations

import re
from pathlib import Path

APP = Path(__file__).resolve().parent.parent / "gui" / "app"

#: The floors, bottom first: a module may import only modules of floors below its own.
FLOORS: list[set[str]] = [
    {"pieces", "dom"},
    {"model"},
    {"variants"},
    {"connection", "lines"},
    {"layers", "view3d", "panels"},
    {"main"},
]
IMPORT = re.compile(
    r"""(?:\bimport\b[^"';]*?\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)["']\./([\w-]+)\.js["']"""
)


def imports() -> dict[str, set[str]]:
    """Each module of gui/app and the page's modules it imports (three.js left out)."""
    return {
        path.stem: set(IMPORT.findall(path.read_text(encoding="utf-8")))
        for path in sorted(APP.glob("*.js"))
    }


def floor_of(name: str) -> int:
    """The floor a module stands on."""
    return next(k for k, floor in enumerate(FLOORS) if name in floor)


def test_every_module_has_a_floor() -> None:
    """A new module is given its floor here, so that its imports are checked too."""
    assert set(imports()) == set().union(*FLOORS)


def test_the_regex_reads_each_form_of_import() -> None:
    """Static imports of names, of a namespace, bare ones and dynamic ones are all read."""
    text = (
        'import { a } from "./x.js";\nimport * as y from "./y.js";\nimport "./z.js";\n'
        'const m = await import("./w.js");\nimport * as THREE from "three";'
    )
    assert sorted(IMPORT.findall(text)) == ["w", "x", "y", "z"]


def test_modules_import_only_downwards() -> None:
    """No module imports one of its own floor or above: so there is no circle either."""
    upward = [
        f"{name}.js imports {other}.js"
        for name, others in imports().items()
        for other in sorted(others)
        if floor_of(other) >= floor_of(name)
    ]
    assert upward == []


def test_there_is_no_circle() -> None:
    """Walk the imports depth first: a module met again on the path is a circle."""
    graph = imports()
    circles: list[list[str]] = []

    def walk(name: str, path: list[str]) -> None:
        for other in sorted(graph[name]):
            if other in path:
                circles.append([*path[path.index(other) :], other])
            else:
                walk(other, [*path, other])

    for start in graph:
        walk(start, [start])
    assert circles == []
