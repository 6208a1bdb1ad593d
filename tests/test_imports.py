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
    # A program that computes with the engine's code but is no engine (python -m tune).
    "tune": {"kernel"},
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


#: kernel/'s floors from the bottom up (docs/design.md draws them): each subpackage or
#: top-level module imports only those below it, so the folders read as the engine's layers.
KERNEL_FLOORS = [
    # services that stand on nothing of the engine
    "kernel.protocol",
    "kernel.interrupt",
    "kernel.clock",
    "kernel.version",
    "kernel.dependencies",
    "kernel.logfile",
    "kernel.logger",
    # the board and the rules
    "kernel.cube",
    # moves and positions as people write them
    "kernel.text",
    # whether the compiled core was built, and the rules as it takes them
    "kernel.compiled",
    # the mate searches
    "kernel.mates",
    # the endgame tables as the engine reads them
    "kernel.tables",
    # the player
    "kernel.play",
    # engine_config.toml
    "kernel.config",
    # game records and their files
    "kernel.records",
    # the session and the commands' handlers
    "kernel.commands",
    # the command table
    "kernel.kernel",
]


def kernel_unit(module: str) -> str:
    """The floor a kernel module belongs to: its subpackage, or itself if it stands in kernel/."""
    return ".".join(module.split(".")[:2])


def test_kernel_keeps_few_modules_at_its_top() -> None:
    """At most 12 modules stand directly in kernel/; the rest live in subpackages whose
    docstrings say their job."""
    kernel = REPO / "kernel"
    top = [path.name for path in kernel.glob("*.py") if path.name != "__init__.py"]
    assert len(top) <= 12, top
    for package in kernel.glob("*/__init__.py"):
        docstring = ast.get_docstring(ast.parse(package.read_text(encoding="utf-8")))
        assert docstring, f"{package} says nothing of its job"


def test_kernel_floors_import_only_downward() -> None:
    """Each of kernel/'s floors imports only the floors below it, and every module has a floor."""
    position = {unit: floor for floor, unit in enumerate(KERNEL_FLOORS)}
    modules = [module for module in graph() if module.startswith("kernel.")]
    assert sorted({kernel_unit(module) for module in modules} - set(position)) == []
    upward = [
        f"{module} imports {target}"
        for module in modules
        for target in graph()[module]
        if target.startswith("kernel.")
        and kernel_unit(target) != kernel_unit(module)
        and position[kernel_unit(target)] > position[kernel_unit(module)]
    ]
    assert upward == []
