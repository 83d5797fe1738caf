"""The layers point one way. Read from the source (every import statement, at module level or inside a
function): each folder of engine/ is a layer (docs/ARCHITECTURE.md), and a module imports only its own layer and the
layers beneath it; no module imports, through any chain, one that imports it back; no module of the engine library
imports Streamlit or the pages (the `serve` command, which starts the Streamlit server, is the one place that may);
nothing refers to a module by a string. And what a game declares for the players (its bots, overlays and probes) is
found whichever module is imported first."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ENGINE = ROOT / "engine"


def imports(path: Path) -> list[tuple[str, str | None]]:
    """(imported module, enclosing function or None) for every import in the file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[tuple[str, str | None]] = []

    def visit(node: ast.AST, function: str | None) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import):
                found.extend((alias.name, function) for alias in child.names)
            elif isinstance(child, ast.ImportFrom):
                assert child.level == 0, f"{path}: relative import"
                found.extend((f"{child.module}.{alias.name}", function) for alias in child.names)
            visit(child, child.name if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef) else function)

    visit(tree, None)
    return found


def modules(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.py"))


def offenders(folder: Path, forbidden: tuple[str, ...]) -> list[str]:
    return [f"{path.relative_to(ROOT)} imports {name}" for path in modules(folder) for name, _ in imports(path)
            if any(name == f or name.startswith(f + ".") for f in forbidden)]


# engine/'s layers from the ground up: a module imports its own layer and those listed before it
LAYERS = (("engine.secrets", "engine.wording"), ("engine.games",), ("engine.agents",), ("engine.store",),
          ("engine.play",), ("engine.score",), ("engine.papers",), ("engine.present", "engine.study"),
          ("engine.serve",), ("engine.cli", "engine.__main__"))
APART = ("engine.testing",)  # the stub server of the tests and benchmarks: no module of the engine imports it


def test_the_rules_are_read_from_every_module():
    assert len(modules(ENGINE)) > 60
    assert ("engine.papers.registry.get_suite", "_cmd_scores") in imports(ENGINE / "cli" / "main.py")


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(folder: Path) -> dict[str, set[str]]:
    """Module -> the modules of `folder` it imports (`from engine.x import name` is an arrow to `engine.x`, or to
    `engine.x.name` when that is a module), lazy imports inside functions included."""
    own = {module_name(path): path for path in modules(folder)}

    def target(name: str) -> str | None:
        parts = name.split(".")
        return next((".".join(parts[:n]) for n in range(len(parts), 0, -1) if ".".join(parts[:n]) in own), None)

    return {module: {t for name, _ in imports(path) if (t := target(name)) not in (None, module)}
            for module, path in own.items()}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of more than one module, as one circle through it (a -> b -> ... -> a)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[set[str]] = []

    def visit(module: str) -> None:  # Tarjan's algorithm
        index[module] = low[module] = len(index)
        stack.append(module)
        for other in sorted(graph[module]):
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            group = {stack.pop()}
            while module not in group:
                group.add(stack.pop())
            groups.append(group)

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return [_circle_through(graph, group) for group in groups if len(group) > 1]


def _circle_through(graph: dict[str, set[str]], group: set[str]) -> list[str]:
    """A shortest path from the group's first module back to itself, inside the group."""
    start = min(group)
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        following = []
        for module in frontier:
            for other in sorted(graph[module] & group):
                if other == start:
                    return paths[module] + [start]
                if other not in paths:
                    paths[other] = paths[module] + [other]
                    following.append(other)
        frontier = following
    raise AssertionError(f"{group} is not a circle")


def test_no_module_of_the_engine_imports_itself_back_through_others():
    """An executor imports the match loop (`engine.play.playing`), never the runner that chooses it; the papers' tables
    (`engine.papers.published`) are filled by the store and read back by the queries, not read through the store."""
    found = [" -> ".join(circle) for circle in circles(import_graph(ENGINE))]
    assert found == [], "import circles:\n" + "\n".join(found)


def layer_of(module: str) -> int:
    for floor, names in enumerate(LAYERS):
        if any(module == name or module.startswith(name + ".") for name in names):
            return floor
    raise AssertionError(f"{module} is in no layer: add its folder to LAYERS (and docs/ARCHITECTURE.md)")


def test_every_module_imports_only_its_layer_and_those_beneath():
    graph = import_graph(ENGINE)
    placed = {module: layer_of(module) for module in graph if module != "engine" and module not in APART}
    upward = [f"{module} imports {other}" for module, floor in placed.items() for other in sorted(graph[module])
              if other in placed and placed[other] > floor]
    assert upward == [], "imports that run up a layer:\n" + "\n".join(upward)
    assert not any(APART[0] in graph[module] for module in graph)


def test_the_layer_rule_names_an_upward_import():
    assert layer_of("engine.store.writer") < layer_of("engine.papers.magic.suite") < layer_of("engine.cli.main")


def test_nothing_names_a_module_by_a_string():
    """A scorer or an importer is imported, never loaded from a dotted string. The games' package imports each of
    its own modules to register it, and litellm's tuning loads a module of litellm's."""
    found = [str(path.relative_to(ROOT)) for path in modules(ENGINE) if "import_module(" in path.read_text("utf-8")]
    assert found and set(found) <= {"engine/games/__init__.py", "engine/agents/litellm_tuning.py"}, found


def reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    """Every module `start` imports, through any chain."""
    seen: set[str] = set()
    todo = list(graph[start])
    while todo:
        module = todo.pop()
        if module not in seen:
            seen.add(module)
            todo += graph[module]
    return seen


def test_the_circle_finder_names_a_circle_whatever_its_length():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e", "d"}}
    assert circles(graph) == [["a", "b", "c", "a"]]
    assert circles({"x": {"y"}, "y": set()}) == []


def test_no_engine_module_imports_streamlit_or_the_pages_but_the_serve_command():
    found = [(path.relative_to(ROOT).as_posix(), name, function) for path in modules(ENGINE)
             for name, function in imports(path) if name.split(".")[0] in ("streamlit", "pages")]
    assert found and {(path, function) for path, _, function in found} == {("engine/serve/serving.py", "serve")}


@pytest.mark.parametrize("first, check", [
    ("engine.agents.bots", "from engine.agents.bots import find_policy; find_policy('connect_four', 'minimax')"),
    ("engine.agents.strategies", "from engine.agents.strategies import apply, check; check('attack')"),
    ("engine.agents.strategies", "from engine.agents.strategies import find_probe; "
                                 "assert find_probe('pgm', 'chameleon')[0].key == 'belief'"),
])
def test_what_a_game_declares_is_found_whatever_was_imported_first(first, check):
    """In a fresh interpreter that imported only the agents' module: no game module is loaded yet."""
    code = f"import {first}, sys; assert 'engine.games.social' not in sys.modules; {check}"
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, capture_output=True, text=True)
