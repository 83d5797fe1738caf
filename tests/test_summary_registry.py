"""engine/store/summary_registry.py: the store keeps the papers' summaries without knowing any paper. A paper
registers its summary on import; a database records the summaries it keeps; a process that has not registered one
of them may not write there; one registered after the database was made is built from its log at the next write."""

from __future__ import annotations

import asyncio
import subprocess
import sys

import pytest

from engine import store
from engine.papers.gamabench import scores as gamabench
from engine.papers.summaries import PAPER_SUMMARIES
from engine.play.playing import play_match
from engine.store import summary_registry
from engine.store.files import DatabaseError
from tests.summary_rows import same_rows, summary_rows
from tests.test_summaries import spec


def write_record(db, plan) -> None:
    """One match of `plan` played by its bots and written as a run writes it."""
    store.init_db(db)
    store.write_matches(db, [asyncio.run(play_match(plan))])


def test_the_store_imports_no_paper():
    """Importing the store (and its writer) loads no paper's summary and no reading of MAgIC's belief answers."""
    code = ("import sys, engine.store, engine.store.writer, engine.store.summaries; "
            "print(sorted(m for m in sys.modules if m in ('engine.papers.seat_summary', "
            "'engine.papers.gamabench.summary', 'engine.papers.magic.belief_reasoning', 'engine.papers.summaries')))")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "[]\n"


def test_a_database_keeping_a_summary_refuses_a_process_that_has_not_registered_it(tmp_path, monkeypatch):
    db = tmp_path / "kept.duckdb"
    store.init_db(db)
    kept = {name for (name,) in store.rows(db, "SELECT name FROM kept_summaries")}
    assert kept == {summary.table for summary in PAPER_SUMMARIES}
    monkeypatch.setattr(summary_registry, "_REGISTERED", {})  # a process that imported no paper
    with pytest.raises(DatabaseError, match="has not registered"):
        write_record(db, spec("refused", 3, repeats=1).matches[0])
    assert store.count_matches(db) == 0  # the batch's transaction rolled back


def test_a_summary_registered_after_the_database_was_made_is_built_from_its_log(tmp_path, monkeypatch):
    """A database made and written by a process without the papers: at the next write of a process with them,
    their summaries are built from the log first, then the batch is added: the rows a rebuild gives."""
    db = tmp_path / "later.duckdb"
    with monkeypatch.context() as patched:
        patched.setattr(summary_registry, "_REGISTERED", {})
        plans = spec("later", 4, repeats=1).matches
        guessing = next(plan for plan in plans if plan.game == "guessing_game")
        write_record(db, guessing)
        assert store.rows(db, "SELECT count(*) FROM kept_summaries") == [(0,)]
        assert store.summaries_in_step(db)
    assert not gamabench.leaderboard(db).empty  # registered here, not kept there: its rows computed from the log
    write_record(db, plans[0])
    assert store.rows(db, "SELECT count(*) FROM kept_summaries") == [(len(PAPER_SUMMARIES),)]
    written = {summary.table: summary_rows(db, summary.table) for summary in PAPER_SUMMARIES}
    assert len(written["seat_summary"]) > 0
    store.rebuild_summaries(db)
    for table, rows in written.items():
        same_rows(rows, summary_rows(db, table))
