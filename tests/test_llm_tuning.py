"""No production path imports engine.testing (the stub provider), and no private function of litellm is replaced."""

from __future__ import annotations

import ast
from pathlib import Path

from engine.agents.llm import load_litellm

ROOT = Path(__file__).resolve().parent.parent


def test_no_production_module_imports_the_test_stub():
    """engine.testing (the stub provider) is for tests and benchmarks: no module of the engine, the pages or the app
    imports it, at module level or inside a function."""
    found = []
    for path in [*sorted((ROOT / "engine").rglob("*.py")), *sorted((ROOT / "pages").rglob("*.py")), ROOT / "app.py"]:
        if path == ROOT / "engine" / "testing.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [f"{node.module}.{a.name}" for a in node.names] if isinstance(node, ast.ImportFrom) else []
            found += [f"{path.relative_to(ROOT)}: {name}" for name in names if name.startswith("engine.testing")]
    assert not found


def test_litellm_is_loaded_as_it_comes():
    """Its private functions stay litellm's own: a change to them must save 10% on a realistic run to stay
    (docs/RUNNING.md)."""
    litellm = load_litellm()
    assert litellm.response_cost_calculator.__module__ == "litellm.cost_calculator"
    assert litellm.utils._client_async_logging_helper.__code__.co_filename.endswith("litellm/utils.py")
