"""The repository explains itself: no tracked file points to material a clone does not have (the reference
notes beside the original checkout, or papers cited by their place in a folder of seeds instead of their
title; docs/PAPERS.md names the papers); every link of the README and docs/ reaches a file; every test
docs/PROMISES.md names as holding one of the README's promises exists; and the README's two commands (and the
fast one) run what it says."""

from __future__ import annotations

import ast
import re
import subprocess
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

OUTSIDE = re.compile(r"\.\./shared|seeds?[ _/]00\d|\b(?:SPEC|DESIGN)\.md", re.IGNORECASE)
TEST_NAME = re.compile(r"`(tests/[\w/]+\.py)::(\w+)`")
MARKERS = ("slow", "browser", "model", "ray")


def tracked_files() -> list[Path]:
    out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    return [ROOT / name for name in out.decode().split("\0") if name]


def pointers_outside(text: str) -> list[str]:
    return [match.group(0) for match in OUTSIDE.finditer(text)]


def test_the_pattern_finds_each_kind_of_pointer_outside():
    assert pointers_outside("see ../shared/SPEC.md") == ["../shared", "SPEC.md"]
    assert pointers_outside("(MAgIC, seed 000 §3.1)") == ["seed 000"]
    assert pointers_outside("rules in DESIGN.md and Seed 003") == ["DESIGN.md", "Seed 003"]
    assert pointers_outside("docs/GAMES.md; a match seed 42; seed 0 of repeat 1; the MAgIC paper §3.1") == []


def test_no_tracked_file_points_outside_the_repository():
    files = tracked_files()
    assert len(files) > 300 and ROOT / "README.md" in files
    found = []
    for path in files:
        if not path.is_file() or path == Path(__file__).resolve():  # this file's examples above are not pointers
            continue
        text = path.read_bytes().decode("utf-8", errors="ignore")
        found += [f"{path.relative_to(ROOT)}: {hit}" for hit in pointers_outside(text)]
    assert found == []


def test_every_link_of_the_readme_and_docs_reaches_a_file_of_the_repository():
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    links = [(page, target) for page in pages
             for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", page.read_text(encoding="utf-8"))]
    assert len(links) > 10
    broken = [f"{page.relative_to(ROOT)} -> {target}" for page, target in links
              if "://" in target or not (page.parent / target).exists()]
    assert broken == []


def promised_tests() -> list[tuple[str, str]]:
    return TEST_NAME.findall((ROOT / "docs" / "PROMISES.md").read_text(encoding="utf-8"))


def defined_tests(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.name for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test_")}


def test_the_promise_list_is_read_as_test_names():
    assert TEST_NAME.findall("- a promise: `tests/test_x.py::test_y` and `tests/test_z.py::test_w`") == [
        ("tests/test_x.py", "test_y"), ("tests/test_z.py", "test_w")]


def test_every_test_named_in_promises_exists():
    named = promised_tests()
    assert len(named) >= 30
    missing = [f"{file}::{name}" for file, name in named
               if not (ROOT / file).is_file() or name not in defined_tests(ROOT / file)]
    assert missing == []


def make_target(name: str) -> list[str]:
    """The recipe lines of a Makefile target, its variables expanded."""
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    variables = dict(re.findall(r"^(\w+)\s*[:?]?=\s*(.*)$", text, re.MULTILINE))
    recipe = re.search(rf"^{name}:.*\n((?:\t.*\n)+)", text, re.MULTILINE).group(1)
    lines = [line.strip() for line in recipe.splitlines()]
    for _ in range(3):
        lines = [re.sub(r"\$\((\w+)\)", lambda m: variables.get(m.group(1), m.group(0)), line) for line in lines]
    return lines


def test_make_run_plays_the_first_run_into_an_empty_database_then_serves():
    assert make_target("run") == [".venv/bin/python -m engine run runs/quick.yaml --db results.duckdb --if-empty",
                                  ".venv/bin/python -m engine serve --db results.duckdb --port 8501"]


def test_make_test_lints_then_runs_every_test_and_ci_runs_it():
    assert make_target("test") == [".venv/bin/python -m ruff check .",
                                   ".venv/bin/python -m pytest -q -n 2 --dist loadfile"]  # a test file per worker
    assert "make test" in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()


def test_make_test_fast_leaves_out_exactly_the_four_registered_markers():
    lint, tests = make_target("test-fast")
    assert lint == ".venv/bin/python -m ruff check ."
    expression = re.fullmatch(r'\.venv/bin/python -m pytest -q -n 2 --dist loadfile -m "(.*)"', tests).group(1)
    assert expression == " and ".join(f"not {mark}" for mark in MARKERS)
    options = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]["ini_options"]
    assert "--strict-markers" in options["addopts"]  # a misspelt marker is an error, not a test left in
    assert [line.split(":")[0] for line in options["markers"]] == list(MARKERS)


def test_a_test_reading_the_first_run_database_is_marked_model_and_slow():
    from tests.conftest import FIRST_RUN_MARKS, pytest_collection_modifyitems

    class Item:
        def __init__(self, fixtures):
            self.fixturenames, self.marks = fixtures, []

        def add_marker(self, mark):
            self.marks.append(mark)

    reads, other = Item(["tmp_path", "first_run_db"]), Item(["tmp_path", "db_path"])
    pytest_collection_modifyitems([reads, other])
    assert reads.marks == list(FIRST_RUN_MARKS) == ["model", "slow"] and other.marks == []
