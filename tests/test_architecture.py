"""The house rules of the layout, checked on the source with ``ast``.

- Dependencies point one way: books, integrity -> notifications -> entities -> kgsite;
  ``kgsite`` imports no app.
- No cycle between modules (a module never imports one that imports it back, directly
  or through others).
- No ``.objects`` write to Entity or Alias outside ``entities/``: the entity graph owns
  its lifecycle (audit rows, hooks).
- No import of the project's own modules inside a function (``ready()`` excepted: the
  app registry is only complete there); a library may be imported inside a function
  only with a ``# deferred: <reason>`` comment (a heavy model library, a cycle inside
  a third-party package).
- Task references given to the queue as dotted paths resolve to callables.
- No module over ``MAX_MODULE_LINES`` lines outside migrations: a long module is split
  along its seams into a package that re-exports the same names.
"""

from __future__ import annotations

import ast
import importlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
APPS = ["kgsite", "entities", "notifications", "books", "integrity"]
MAX_MODULE_LINES = 600
# An app may import the apps listed before it, and itself.
LAYER = {app: index for index, app in enumerate(APPS)}
LAYER["books"] = LAYER["integrity"] = len(APPS)  # the top: neither imports the other
WRITE_METHODS = {
    "create",
    "bulk_create",
    "update",
    "bulk_update",
    "delete",
    "get_or_create",
    "update_or_create",
}


@dataclass(frozen=True)
class Import:
    module: str  # the importing module, dotted
    target: str  # the imported module, dotted (best effort for "from x import y")
    line: int
    in_function: str | None  # the enclosing function's name, if any
    type_checking: bool
    comment: str


def _modules() -> Iterator[tuple[str, Path]]:
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            rel = path.relative_to(ROOT).with_suffix("")
            parts = list(rel.parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            yield ".".join(parts), path


MODULES = dict(_modules())


def _resolve(module: str, path: Path, node: ast.ImportFrom) -> list[str]:
    if node.level:
        package = module.split(".")
        if path.name != "__init__.py":
            package = package[:-1]
        base = package[: len(package) - (node.level - 1)]
        prefix = ".".join(base + ([node.module] if node.module else []))
    else:
        prefix = node.module or ""
    targets = []
    for alias in node.names:
        candidate = f"{prefix}.{alias.name}"
        targets.append(candidate if candidate in MODULES else prefix)
    return targets


def _imports(module: str, path: Path) -> list[Import]:
    source = path.read_text()
    lines = source.splitlines()
    tree = ast.parse(source)
    found: list[Import] = []

    def visit(node: ast.AST, function: str | None, type_checking: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                visit(child, child.name, type_checking)
            elif isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                visit(child, function, True)
            elif isinstance(child, ast.Import | ast.ImportFrom):
                if isinstance(child, ast.Import):
                    targets = [alias.name for alias in child.names]
                else:
                    targets = _resolve(module, path, child)
                comment = lines[child.lineno - 1].partition("#")[2].strip()
                above = lines[child.lineno - 2].strip() if child.lineno > 1 else ""
                if not comment and above.startswith("#"):
                    comment = above.lstrip("#").strip()
                for target in targets:
                    found.append(
                        Import(module, target, child.lineno, function, type_checking, comment)
                    )
            else:
                visit(child, function, type_checking)

    visit(tree, None, False)
    return found


IMPORTS = [imp for module, path in MODULES.items() for imp in _imports(module, path)]


def _app(dotted: str) -> str | None:
    head = dotted.split(".")[0]
    return head if head in LAYER else None


def test_apps_import_only_downwards():
    wrong = [
        f"{i.module}:{i.line} imports {i.target}"
        for i in IMPORTS
        if not i.type_checking
        and _app(i.target)
        and _app(i.target) != _app(i.module)
        and LAYER[_app(i.target)] >= LAYER[_app(i.module)]
    ]
    assert wrong == [], "imports against the one-way order:\n" + "\n".join(wrong)


def test_no_import_cycle_between_modules():
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for i in IMPORTS:
        if i.type_checking or i.target not in MODULES or i.target == i.module:
            continue
        if i.in_function == "ready":
            continue  # runs once the registry is complete, after every module loaded
        # Importing a package's submodule runs the package's __init__ first.
        graph[i.module].add(i.target)
    cycles = []
    state: dict[str, int] = {}
    stack: list[str] = []

    def walk(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycles.append(" -> ".join(stack[stack.index(nxt) :] + [nxt]))
            elif nxt not in state:
                walk(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            walk(node)
    assert cycles == [], "import cycles:\n" + "\n".join(cycles)


def test_imports_inside_functions_are_deferred_libraries_with_a_reason():
    wrong = []
    for i in IMPORTS:
        if i.in_function is None or i.type_checking or i.in_function == "ready":
            continue
        if _app(i.target) or not i.comment.startswith("deferred:"):
            wrong.append(f"{i.module}:{i.line} imports {i.target} inside {i.in_function}()")
    assert wrong == [], "imports inside functions:\n" + "\n".join(wrong)


class _Writes(ast.NodeVisitor):
    """``Entity.objects.<write>(...)`` or ``Alias.objects.<...>.<write>(...)``."""

    def __init__(self) -> None:
        self.found: list[int] = []

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in WRITE_METHODS:
            chain = ast.unparse(func.value)
            if chain.startswith(("Entity.objects", "Alias.objects")):
                self.found.append(node.lineno)
        self.generic_visit(node)


def test_only_the_entity_graph_writes_entities_and_aliases():
    wrong = []
    for module, path in MODULES.items():
        if module.split(".")[0] == "entities":
            continue
        visitor = _Writes()
        visitor.visit(ast.parse(path.read_text()))
        wrong += [f"{module}:{line}" for line in visitor.found]
    assert wrong == [], "Entity/Alias written outside entities/:\n" + "\n".join(wrong)


def _task_paths() -> list[str]:
    paths = []
    for path in MODULES.values():
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id.endswith("_TASK")
                and isinstance(node.value, ast.Constant)
                and isinstance(node.value.value, str)
            ):
                paths.append(node.value.value)
    return paths


@pytest.mark.parametrize("dotted", _task_paths())
def test_task_paths_name_callables(dotted):
    module, _, name = dotted.rpartition(".")
    assert callable(getattr(importlib.import_module(module), name))


def test_no_module_is_longer_than_a_reader_can_hold():
    paths = [p for d in [*APPS, "benchmarks", "tests"] for p in (ROOT / d).rglob("*.py")]
    long = {
        str(path.relative_to(ROOT)): lines
        for path in paths
        if "migrations" not in path.parts
        and (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert long == {}, f"split these along their seams (at most {MAX_MODULE_LINES} lines)"


def test_the_checker_sees_what_it_checks():
    """The rules above read real imports: the known ones are found."""
    pairs = {(i.module, i.target) for i in IMPORTS}
    assert ("books.services.writing", "entities.services") in pairs
    assert ("entities.search.kinds", "kgsite.vectors.service") in pairs
    assert ("kgsite.vectors.service", "kgsite.vectors.index") in pairs
    assert _task_paths(), "no task path constant found"
