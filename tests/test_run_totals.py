"""Launch's runs panel (`processes.progress`) reads each run's errors, tokens and dollars from `run_totals`, which
the writer keeps in the matches' transaction over every attempt stored, errored ones included: a resumed run's
errored match replayed and a re-imported match are counted once, `engine rescore` and the upgrade to version 13
rebuild the same rows from the log, and rows inserted around the writer send the panel back to the log."""

from __future__ import annotations

import math
from datetime import datetime

import pandas as pd
import pytest

from engine import store
from engine.score import kept_tables
from engine.serve.launch import processes
from tests.summary_rows import (
    assert_rebuild_gives_the_writers_rows,
    assert_upgrade_builds_them,
    summary_rows,
)
from tests.written_matches import write_run

STORED = ["run_id", "n_done", "n_matches", "errors", "tokens", "usd"]


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """Two runs: one with calls without a price and three matches that failed and stay so, one priced throughout."""
    db = tmp_path_factory.mktemp("run_totals") / "results.duckdb"
    attempts = {"mixed": write_run(db, "mixed", 120, seed=1, errored_left=3),
                "priced": write_run(db, "priced", 50, seed=2, priced=True)}
    return db, attempts


def expected(attempts) -> dict:
    """A run's totals from the attempts stored, as the runs panel defines them: every seated turn of every match,
    errored or not."""
    calls = [t for record in attempts for t in record.turns if t["seat"] is not None]
    unpriced = sum(t["cost_usd"] is None and t["tokens_in"] > 0 for t in calls)
    return {"matches": len(attempts), "errors": sum(r.match["status"] == "error" for r in attempts),
            "tokens": sum((t["tokens_in"] or 0) + (t["tokens_out"] or 0) for t in calls),
            "usd": sum(t["cost_usd"] for t in calls if t["cost_usd"] is not None), "unpriced_calls": unpriced}


def fresh_progress(db) -> pd.DataFrame:
    """The runs panel's stored figures as a page opening now reads them (no figures kept from an earlier call)."""
    kept_tables.forget(db)
    return processes.progress(db)[STORED].sort_values("run_id", ignore_index=True)


def test_the_kept_totals_are_the_attempts_stored_each_match_once(written):
    db, attempts = written
    assert store.summaries_in_step(db)
    kept = summary_rows(db, "run_totals").set_index("run_id")
    for run_id, stored in attempts.items():
        want = expected(stored)
        assert kept.loc[run_id, "usd"] == pytest.approx(want.pop("usd"), rel=1e-12)
        assert {name: int(kept.loc[run_id, name]) for name in want} == want, run_id
    assert expected(attempts["mixed"])["errors"] == 3 and expected(attempts["mixed"])["unpriced_calls"] > 0
    shown = fresh_progress(db).set_index("run_id")
    assert shown.loc["mixed", "errors"] == 3 and math.isnan(shown.loc["mixed", "usd"])  # some call had no price
    assert shown.loc["priced", "usd"] == pytest.approx(expected(attempts["priced"])["usd"], rel=1e-12)
    assert shown.loc["priced", "tokens"] == expected(attempts["priced"])["tokens"]


def test_the_runs_panel_reads_the_kept_totals_and_the_log_gives_the_same(written, monkeypatch):
    db, _ = written
    with monkeypatch.context() as patched:
        patched.setattr(processes, "run_totals_sql", None)  # the log's definition: reading it would fail
        kept = fresh_progress(db)
    monkeypatch.setattr(store, "summaries_in_step", lambda db: False)
    logged = fresh_progress(db)
    pd.testing.assert_frame_equal(kept, logged, check_exact=False, rtol=1e-12)
    assert list(kept["tokens"]) == [expected(a)["tokens"] for _, a in sorted(written[1].items())]


def test_a_rebuild_from_the_log_gives_the_writers_totals_and_scores(written, tmp_path):
    db, _ = written
    assert_rebuild_gives_the_writers_rows(db, tmp_path, ("run_totals", "match_scores"))


def test_an_errored_match_inserted_around_the_writer_sends_the_panel_to_the_log(written, tmp_path):
    db = tmp_path / "around.duckdb"
    db.write_bytes(written[0].read_bytes())
    before = fresh_progress(db).set_index("run_id")
    with store.connect(db) as con:
        con.execute("INSERT INTO matches (match_id, run_id, game, status, finished_at) "
                    "VALUES ('outside', 'priced', 'tictactoe', 'error', ?)", [datetime(2025, 2, 1)])
        con.execute("INSERT INTO turns (match_id, turn, seat, tokens_in, tokens_out, cost_usd) "
                    "VALUES ('outside', 0, 0, 1000, 7, 0.5)")
    assert not store.summaries_in_step(db)
    after = fresh_progress(db).set_index("run_id")
    assert after.loc["priced", "errors"] == before.loc["priced", "errors"] + 1
    assert after.loc["priced", "tokens"] == before.loc["priced", "tokens"] + 1007
    assert after.loc["priced", "usd"] == pytest.approx(before.loc["priced", "usd"] + 0.5)
    store.rebuild_summaries(db)
    assert store.summaries_in_step(db)
    pd.testing.assert_frame_equal(fresh_progress(db).set_index("run_id"), after, check_exact=False, rtol=1e-12)


def test_a_version_12_database_gets_its_totals_and_scores_built_by_the_upgrade(written, tmp_path):
    db = assert_upgrade_builds_them(written[0], tmp_path, 12, ("DROP TABLE run_totals", "DROP TABLE match_scores"),
                                    ("run_totals", "match_scores"))
    assert store.rows(db, "SELECT count(*) FROM match_scores") == store.rows(
        db, "SELECT count(*) FROM (SELECT DISTINCT match_id, coalesce(label, agent), prompt_version, temperature, "
            "strategy, max_tokens FROM seats WHERE match_id IN (SELECT match_id FROM matches WHERE status = 'ok'))")
