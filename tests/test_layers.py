"""Imports point one way: a module imports from its own layer or a lower one, never a
higher one, and no modules (nor sub-packages) import each other in a cycle.

Every import counts: at the top of a module, inside a function, or under
``if TYPE_CHECKING:``. A new module must be given a layer here.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

from tests.paths import ROOT

PACKAGE = ROOT / "scorer"

# The layer order, lowest first. "scorer.read.*" is the sub-package and every module in
# it; a name without ".*" is one module ("scorer" alone is the package's __init__).
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "base",
        (
            "scorer.arrays",
            "scorer.errors",
            "scorer.constraints",
            "scorer.options",
            "scorer.recipes",
            "scorer.version",
        ),
    ),
    ("read", ("scorer.read.*",)),
    ("align", ("scorer.align.*",)),
    ("check", ("scorer.check.*",)),
    ("measures", ("scorer.measures.*",)),
    ("policy", ("scorer.policy",)),
    ("result", ("scorer.per_user", "scorer.result")),
    ("pipeline", ("scorer.pipeline",)),
    ("api", ("scorer.api",)),
    ("stats", ("scorer.stats.*",)),
    ("partial", ("scorer.partial",)),
    ("package", ("scorer",)),
    ("adapters", ("scorer.adapters.*", "scorer.__main__", "scorer.spark", "scorer.dask")),
)


def module_files(package: Path = PACKAGE) -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its ``__init__.py``)."""
    found = {}
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def imported_modules(source: str, name: str, modules: Iterable[str]) -> set[tuple[str, int]]:
    """The package's modules that ``source`` (the module ``name``) imports, with line
    numbers: ``from package import module`` names the module, ``from module import
    name`` the module; imports inside functions and ``if TYPE_CHECKING:`` count.

    Examples
    --------
    >>> known = {"scorer", "scorer.a", "scorer.b", "scorer.sub", "scorer.sub.c"}
    >>> code = (
    ...     "import numpy\\n"
    ...     "from scorer.a import thing\\n"
    ...     "if TYPE_CHECKING:\\n"
    ...     "    import scorer.b\\n"
    ...     "def f():\\n"
    ...     "    from scorer.sub import c\\n"
    ...     "    from . import c\\n"
    ...     "    import scorer\\n"
    ... )
    >>> sorted(imported_modules(code, "scorer.sub.d", known))
    [('scorer', 8), ('scorer.a', 2), ('scorer.b', 4), ('scorer.sub.c', 6), ('scorer.sub.c', 7)]
    """
    known = set(modules)
    package = name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            targets = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                for alias in node.names
            ]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target:
                found.add((target, node.lineno))
    return found


def layer_of(module: str) -> int | None:
    """The position of the module's layer in :data:`LAYERS` (None if it has none)."""
    for position, (_, patterns) in enumerate(LAYERS):
        for pattern in patterns:
            if pattern.endswith(".*"):
                package = pattern[:-2]
                if module == package or module.startswith(package + "."):
                    return position
            elif module == pattern:
                return position
    return None


def import_graph() -> dict[str, set[tuple[str, int]]]:
    files = module_files()
    graph = {}
    for name, path in files.items():
        found = imported_modules(path.read_text(), name, files)
        graph[name] = {(target, line) for target, line in found if target != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one node (Tarjan's algorithm).

    Examples
    --------
    >>> cycles({"a": {"b"}, "b": {"a", "c"}, "c": set()})
    [['a', 'b']]
    >>> cycles({"a": {"b"}, "b": {"c"}, "c": set()})
    []
    """
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for successor in sorted(graph.get(node, ())):
            if successor not in index:
                visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in on_stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def unit_of(module: str) -> str:
    """A module's sub-package (``scorer.read``), or the module itself at the top level."""
    parts = module.split(".")
    if len(parts) >= 2 and (PACKAGE / parts[1]).is_dir():
        return ".".join(parts[:2])
    return module


def test_every_module_has_a_layer() -> None:
    missing = sorted(name for name in module_files() if layer_of(name) is None)
    assert missing == [], f"give these modules a layer in LAYERS: {missing}"


def test_no_module_imports_from_a_higher_layer() -> None:
    upward = []
    for name, targets in import_graph().items():
        source = layer_of(name)
        for target, line in sorted(targets):
            if source is not None and layer_of(target) is not None and layer_of(target) > source:
                upward.append(
                    f"{name}:{line} ({LAYERS[source][0]}) imports {target} "
                    f"({LAYERS[layer_of(target)][0]})"
                )
    assert upward == [], "imports from a higher layer:\n" + "\n".join(upward)


def test_no_import_cycle_between_modules() -> None:
    graph = {name: {target for target, _ in targets} for name, targets in import_graph().items()}
    found = cycles(graph)
    assert found == [], f"modules that import each other: {found}"


def test_no_import_cycle_between_sub_packages() -> None:
    graph: dict[str, set[str]] = {}
    for name, targets in import_graph().items():
        unit = unit_of(name)
        graph.setdefault(unit, set()).update(
            unit_of(target) for target, _ in targets if unit_of(target) != unit
        )
    found = cycles(graph)
    assert found == [], f"sub-packages that import each other: {found}"


def test_every_name_in_the_layers_is_a_module() -> None:
    names = module_files()
    stale = [
        pattern
        for _, patterns in LAYERS
        for pattern in patterns
        if pattern.removesuffix(".*") not in names
    ]
    assert stale == [], f"LAYERS names modules that do not exist: {stale}"


def test_no_test_module_imports_another() -> None:
    """Shared test code lives in the helper modules of ``tests/`` (docs/contributing.md,
    "Test helpers"), never in a test module that others import."""
    tests = Path(__file__).resolve().parent
    found = []
    for path in sorted(tests.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            if any(name.startswith("tests.test_") for name in names):
                found.append(f"{path.name}:{node.lineno}")
    assert found == [], f"test modules imported by other modules: {found}"
