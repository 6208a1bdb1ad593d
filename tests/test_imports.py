"""The imports run one way: no module imports itself back through others, and each room of
the house imports only the rooms below it (the engine imports no client)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

from tests.conftest import REPO

#: The packages and top-level modules of the project, whatever is added later.
ROOMS = sorted({path.parent.name for path in REPO.glob("*/__init__.py")} | {"main"})
#: What each room may import besides itself: the engine stands alone, the clients stand on
#: client/ and never on the engine's insides.
BELOW = {
    "kernel": set(),
    "main": {"kernel"},
    "client": set(),
    "batch": {"client"},
    "regress": {"client"},
    "gui": {"client"},
}


def module_files() -> Iterator[tuple[str, Path]]:
    """Yield each module of the project with its file."""
    yield "main", REPO / "main.py"
    for room in ROOMS:
        if room == "main":
            continue
        for path in sorted((REPO / room).rglob("*.py")):
            parts = path.relative_to(REPO).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            yield name, path


def imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The project modules a module imports, anywhere in it (in functions and under
    TYPE_CHECKING too: a circle that is only put off is still a circle)."""
    found: set[str] = set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            # `from kernel.cube import board` imports the module kernel.cube.board.
            targets = [f"{base}.{alias.name}" for alias in node.names] + [base]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


@cache  # three tests read it; parsing every module takes a CPU-second here
def graph() -> dict[str, set[str]]:
    """Every project module and the project modules it imports."""
    files = dict(module_files())
    known = set(files)
    return {name: imports(name, path, known) for name, path in files.items()}


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(edges[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return groups


def test_the_walk_sees_the_imports() -> None:
    """The walker finds plain, from- and in-function imports (else the tests below are empty)."""
    edges = graph()
    assert "kernel.cube.board" in edges["kernel.cube.position"]
    assert "kernel.text.explain" in edges["kernel.commands.analysis"]  # imported inside a function
    assert "client.engine" in edges["batch.work"]
    assert {"kernel", "client", "batch", "arena", "gui", "regress", "main"} <= set(ROOMS)


def test_no_import_circles() -> None:
    """No module reaches itself through its imports, in the kernel or anywhere else."""
    assert circles(graph()) == []


def test_the_circle_finder_finds_a_circle() -> None:
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_each_room_imports_only_the_rooms_below_it() -> None:
    """The engine imports no client; clients import client/, not the engine's modules."""
    wrong = [
        f"{module} imports {target}"
        for module, targets in graph().items()
        for target in targets
        if (room := module.split(".")[0]) in BELOW
        and target.split(".")[0] not in BELOW[room] | {room}
    ]
    assert wrong == []
