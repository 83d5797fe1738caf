"""Derived data is keyed on the code that computes it (engine/store/code_version.py): after a change to a scorer, the
next
view of an existing database shows the new figures, with no version constant to remember (issue 42). The summaries
in the database are keyed on the source of the modules computing them, the tables kept beside it on the engine's."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from engine import store
from engine.play.runner import run_spec
from engine.play.spec import parse_spec
from engine.store import summaries
from engine.store.code_version import ENGINE, code_version, imported_files

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


def copied_tree(tmp_path: Path) -> Path:
    tree = tmp_path / "tree"
    shutil.copytree(ROOT / "engine", tree / "engine", ignore=shutil.ignore_patterns("__pycache__"))
    (tree / "kept.yaml").write_text(SPEC)
    return tree


def edited(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert text.count(old) == 1, f"{old!r} not once in {path}"
    path.write_text(text.replace(old, new))


def play(db: Path, seed: int) -> None:
    spec = parse_spec({**yaml.safe_load(SPEC), "seed": seed})
    assert asyncio.run(run_spec(spec, db, progress=False)).errors == 0


def headline(tree: Path, db: Path) -> dict[str, dict]:
    rows = json.loads(engine(tree, "headline", "--suite", "llmarena", "--db", str(db), "--format", "json"))
    return {row["agent"]: row for row in rows}


@pytest.mark.slow  # three processes of the engine
def test_a_changed_scorer_shows_on_the_next_view_of_an_existing_database(tmp_path):
    tree = copied_tree(tmp_path)
    db = tmp_path / "results.duckdb"
    engine(tree, "run", "kept.yaml", "--db", str(db), "--quiet")  # its refresh keeps the headline's tables
    before = json.loads(engine(tree, "headline", "--suite", "llmarena", "--db", str(db), "--format", "json"))
    assert {row["provisional"] for row in before} == {False}  # 12 matches each: at least MIN_MATCHES (10)
    assert any(Path(f"{db}.tables").iterdir())  # the tables were kept
    edited(tree / "engine" / "papers" / "headline.py", "MIN_MATCHES = 10\n", "MIN_MATCHES = 50\n")
    after = json.loads(engine(tree, "headline", "--suite", "llmarena", "--db", str(db), "--format", "json"))
    assert {row["provisional"] for row in after} == {True}  # the changed rule, not the table kept before


def test_a_changed_definition_in_the_summaries_shows_on_the_next_view_writable_or_read_only(tmp_path):
    """The summaries in the database were computed by the original code; a copy of the tree where a valid answer
    is defined otherwise (a decision on every third turn only) shows its own valid rates: rebuilt where it may
    write the file, read from the log where the file is read-only. The original code, opened again, shows its own
    figures again."""
    db = tmp_path / "results.duckdb"
    tree = copied_tree(tmp_path)
    engine(ROOT, "run", str(tree / "kept.yaml"), "--db", str(db), "--quiet")
    original = headline(ROOT, db)
    assert {row["valid_rate (%)"] for row in original.values()} == {100.0}  # bots answer validly
    edited(tree / "engine" / "store" / "valid_answers.py", "(coalesce({alias}.retries, 0) = 0 AND",
           "({alias}.turn % 3 = 0 AND coalesce({alias}.retries, 0) = 0 AND")
    read_only = tmp_path / "read-only.duckdb"
    shutil.copyfile(db, read_only)
    read_only.chmod(0o444)

    rebuilt = headline(tree, db)
    assert all(row["valid_rate (%)"] < 100.0 for row in rebuilt.values())
    with store.connect(db, read_only=True) as con:
        [(stamp,)] = con.execute("SELECT summaries_code FROM generation").fetchall()
    assert stamp != summaries.summaries_code()  # the copy's code computed them
    from_the_log = headline(tree, read_only)
    assert {a: row["valid_rate (%)"] for a, row in from_the_log.items()} == \
        {a: row["valid_rate (%)"] for a, row in rebuilt.items()}
    assert headline(ROOT, db) == original


def test_summaries_of_other_code_are_read_from_the_log_then_rebuilt_by_the_next_view(tmp_path, monkeypatch):
    db = tmp_path / "results.duckdb"
    play(db, 1)
    assert store.summaries_in_step(db)
    monkeypatch.setattr(summaries, "summaries_code", lambda: "changed scorer")
    assert not store.summaries_in_step(db)  # computed by other code: the log answers
    store.check_db(db)  # the next command or page view
    assert store.summaries_in_step(db)
    with store.connect(db, read_only=True) as con:
        assert con.execute("SELECT summaries_code FROM generation").fetchall() == [("changed scorer",)]


def test_a_writer_running_other_code_leaves_the_summaries_out_of_step(tmp_path, monkeypatch):
    """A run started before a `git pull` adds rows its own code computed to summaries the new code rebuilt: they
    are then of no one code, read from the log until rebuilt."""
    db = tmp_path / "results.duckdb"
    play(db, 1)
    with store.connect(db) as con:  # a dashboard running newer code rebuilt them meanwhile
        con.execute("UPDATE generation SET summaries_code = 'newer code'")
    with monkeypatch.context() as patched:
        patched.setattr(store, "init_db", lambda db: None)  # the run started before that rebuild
        play(db, 2)
    monkeypatch.setattr(summaries, "summaries_code", lambda: "newer code")
    assert not store.summaries_in_step(db)


def test_the_summaries_code_is_that_of_the_modules_computing_them():
    files = {path.relative_to(ENGINE).as_posix() for path in imported_files((ENGINE / "store" / "summaries.py",))}
    assert {"store/summaries.py", "store/summary_agents.py", "store/valid_answers.py", "agents/agent_names.py"} <= files
    assert "papers/headline.py" not in files and "score/ratings.py" not in files  # a change there rebuilds nothing
    assert "papers/gamabench/summary.py" not in files  # a paper's summary registers: the store imports none
    papers = sorted({ENGINE / "papers" / "gamabench" / "summary.py", ENGINE / "papers" / "seat_summary.py"})
    assert summaries.summaries_code() == code_version(ENGINE / "store" / "summaries.py", *papers) != code_version()
