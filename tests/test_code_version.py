"""Derived tables are keyed on the code that computes them (engine/score/code_version.py): after a change to a scorer,
the
next view of an existing database shows the new figures, with no version constant to remember (issue 42)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SPEC = """name: kept
seed: 1
repeats: 6
games:
  - game: tictactoe
    lineups: [[bot:equilibrium, bot:random], [bot:random, bot:equilibrium]]
"""


def engine(tree: Path, *args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "engine", *args], cwd=tree, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.slow  # three processes of the engine
def test_a_changed_scorer_shows_on_the_next_view_of_an_existing_database(tmp_path):
    tree = tmp_path / "tree"
    shutil.copytree(ROOT / "engine", tree / "engine", ignore=shutil.ignore_patterns("__pycache__"))
    (tree / "kept.yaml").write_text(SPEC)
    db = tmp_path / "results.duckdb"
    engine(tree, "run", "kept.yaml", "--db", str(db), "--quiet")  # its refresh keeps the headline's tables
    before = json.loads(engine(tree, "headline", "--suite", "llmarena", "--db", str(db), "--format", "json"))
    assert {row["provisional"] for row in before} == {False}  # 12 matches each: at least MIN_MATCHES (10)
    assert any(Path(f"{db}.tables").iterdir())  # the tables were kept
    headline = tree / "engine" / "headline.py"
    headline.write_text(headline.read_text().replace("MIN_MATCHES = 10\n", "MIN_MATCHES = 50\n", 1))
    after = json.loads(engine(tree, "headline", "--suite", "llmarena", "--db", str(db), "--format", "json"))
    assert {row["provisional"] for row in after} == {True}  # the changed rule, not the table kept before
