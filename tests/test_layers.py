"""The layers point one way. Read from the source (every import statement, at module level or inside a
function): no module of the engine imports, through any chain, one that imports it back; the store sits beneath
the rest but the papers' tables; games do not import agents, metrics do not import the dashboard's queries, the
selection sits beneath queries, scorers and suites, and no module of the engine library imports Streamlit or the
pages (the `serve` command, which starts the Streamlit server, is the one place that may). And what a game
declares for the players (its bots, overlays and probes) is found whichever module is imported first."""

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


def test_the_rules_are_read_from_every_module():
    assert len(modules(ENGINE)) > 60
    assert ("engine.suites.get_suite", "_cmd_scores") in imports(ENGINE / "__main__.py")


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
    """An executor imports the match loop (`engine.playing`), never the runner that chooses it; the papers' tables
    (`engine.published`) are filled by the store and read back by the queries, not read through the store."""
    found = [" -> ".join(circle) for circle in circles(import_graph(ENGINE))]
    assert found == [], "import circles:\n" + "\n".join(found)


def test_the_store_and_the_papers_tables_sit_beneath_every_other_module_of_the_engine():
    """The store's modules import nothing of the engine but one another, definitions that import nothing of it
    (what a valid answer is), the papers' tables it fills every database with, and the reading of the players'
    belief answers whose Reasoning items its seat summary sums (`engine.belief_reasoning`: it imports the games'
    reading of a belief text and nothing of the store, the agents or the metrics); the papers' tables read no
    database (`engine.queries.published_rows` reads them back) and import only formulas that import nothing of
    the engine themselves (MAgIC's radar area, shared with its scorer)."""
    graph = import_graph(ENGINE)
    store = {module for module in graph if module == "engine.store" or module.startswith("engine.store.")}
    assert len(store) > 1
    assert {module: sorted(graph[module]) for module in graph["engine.published"]} == dict.fromkeys(
        graph["engine.published"], []), "the papers' tables import a module that imports more of the engine"
    leaves = {module for module in graph if not graph[module]}  # definitions that import nothing of the engine
    beneath = {"engine.published", "engine.belief_reasoning"}
    assert {module: sorted(graph[module] - store - beneath - leaves) for module in store} == dict.fromkeys(store, [])
    below_beliefs = reachable(graph, "engine.belief_reasoning")
    assert not below_beliefs & (store | {"engine.agents", "engine.metrics"}) and all(
        module.startswith("engine.games") or module in leaves for module in below_beliefs), sorted(below_beliefs)


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


def test_games_do_not_import_agents():
    assert offenders(ENGINE / "games", ("engine.agents",)) == []


def test_metrics_do_not_import_the_dashboards_queries_or_pages():
    assert offenders(ENGINE / "metrics", ("engine.queries", "pages", "streamlit")) == []


@pytest.mark.parametrize("module", ["selection.py", "suites"])
def test_the_selection_and_the_suite_declarations_sit_beneath_queries_and_scorers(module):
    path = ENGINE / module
    below = ("engine.queries", "engine.metrics", "engine.agents", "engine.runner", "pages", "streamlit")
    found = offenders(path, below) if path.is_dir() else [
        name for name, _ in imports(path) if any(name.startswith(f) for f in below)]
    assert found == []


def test_no_engine_module_imports_streamlit_or_the_pages_but_the_serve_command():
    found = [(path.relative_to(ROOT).as_posix(), name, function) for path in modules(ENGINE)
             for name, function in imports(path) if name.split(".")[0] in ("streamlit", "pages")]
    assert found and {(path, function) for path, _, function in found} == {("engine/serving.py", "serve")}


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
