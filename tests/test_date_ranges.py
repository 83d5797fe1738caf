"""A date range sums the summaries kept by day (`agent_summary_by_day`, `metric_summary_by_day`,
`pairwise_summary_by_day`) over its days; an agent filter, which the stored rows cannot answer (they sum over every
agent of a match), sums the rows of its matches computed from the log by the writer's own SQL a part at a time
(engine/score/agent_figures.py `Summed`). A range picks the same days from the rows by day as from the log;
no per-agent log read runs; and an agent filter read in parts holds what one part needs, where the log read of the
same matches ran out of a small reader's memory."""

from __future__ import annotations

from dataclasses import replace
from datetime import date

import duckdb
import pytest

from bench.dashboard import fill
from engine import store
from engine.papers import headline
from engine.score import agent_figures, ratings
from engine.store import connections, summaries
from engine.store.selection import Selection
from tests.summary_rows import same_rows, summary_rows

WHOLE_RUN = "run-3"  # its every match moved into the range below
RANGE = Selection(date_from=date(2025, 1, 3), date_to=date(2025, 1, 8))
SELECTIONS = {
    "a date range": RANGE,
    "a date range of one game": replace(RANGE, games=("tictactoe",)),
    "a date range of the run it holds whole": replace(RANGE, run_ids=(WHOLE_RUN,)),
    "a date range without fallback moves": replace(RANGE, without_fallbacks=True),
    "from a day on": Selection(date_from=date(2025, 1, 2)),
    "up to a day": Selection(date_to=date(2025, 1, 20)),
    "a date range no match is in": Selection(date_from=date(2030, 1, 1)),
}


@pytest.fixture(scope="module")
def bench_db(tmp_path_factory):
    """The bench's rows (bench/dashboard.py): 10,000 matches over 30 days, ten runs each playing every day, one
    of them then moved into six days."""
    db = tmp_path_factory.mktemp("ranges") / "bench.duckdb"
    fill(db, 10_000, 20)
    with store.connect(db) as con:
        con.execute("BEGIN")
        con.execute("UPDATE matches SET finished_at = TIMESTAMP '2025-01-05' + INTERVAL (hash(match_id) % 72) HOUR "
                    "WHERE run_id = ?", [WHOLE_RUN])
        summaries.rebuild(con)  # as `engine rescore` would after a change made around the writer
        con.execute("COMMIT")
    assert store.summaries_in_step(db)
    return db


def from_the_log(monkeypatch, call):
    """`call()` with the summaries out of the way: the rows of the selected matches computed from the log."""
    with monkeypatch.context() as patched:
        patched.setattr(store, "summaries_in_step", lambda db: False)
        return call()


def test_a_date_range_sums_the_summaries_kept_by_day_and_computes_no_row_from_the_log(bench_db, monkeypatch):
    """Before, the rows of a range's matches in runs it did not hold whole were computed from the log (0.2-0.4 s at
    50,000 matches); the summaries kept by day answer any range of days."""
    def no_log_rows(*args, **kwargs):
        raise AssertionError("computed summary rows from the log")

    monkeypatch.setattr(store, "temp_table", no_log_rows)
    for name, selection in SELECTIONS.items():
        assert agent_figures.summed(bench_db, selection).stored, name
        headline.agent_figures(bench_db, selection, by_game=True)
        headline.scores(bench_db, selection, "gamabench_score")
        if not selection.without_fallbacks:
            ratings.rated_pairs(bench_db, replace(selection, contested=True))


@pytest.mark.parametrize("table", list(summaries.BY_DAY))
def test_a_summary_kept_by_day_summed_over_its_days_is_the_summary(bench_db, table):
    keys = summaries.SUMMARIES[table]
    sums = ", ".join(f"sum({c})::{kind} AS {c}" for c, kind in store.TABLES[table] if c not in keys)
    by_day = store.query(bench_db, f"SELECT {', '.join(keys)}, {sums} FROM {summaries.BY_DAY[table]} GROUP BY ALL")
    days = store.rows(bench_db, f"SELECT count(DISTINCT day) FROM {summaries.BY_DAY[table]}")[0][0]
    assert days > 10 and len(by_day) > 100  # the bench plays its runs over 30 days
    stored = summary_rows(bench_db, table)
    same_rows(by_day[stored.columns].sort_values(list(keys), ignore_index=True, na_position="first"), stored)


def test_an_agent_filter_read_in_parts_fits_a_small_readers_memory(bench_db, monkeypatch):
    """An agent filter's rows are computed from the log (the stored rows sum over every agent of a match). Before,
    its log read of 10,000 matches needed more than 48 MB of a one-thread reader (windows and distinct counts over
    every seat and turn do not spill); in parts of 1,000 matches it needs 36. One thread, because each thread's
    buffers add to the peak: with two, a loaded machine's scheduling moved a bound the parts fit when quiet."""
    agent = headline.agent_figures(bench_db)["agent"].iloc[0]
    connect = duckdb.connect
    monkeypatch.setattr(duckdb, "connect", lambda *args, config, **kwargs: connect(
        *args, config={**config, "threads": 1}, **kwargs))
    monkeypatch.setattr(connections, "READER_MEMORY", "44MB")
    monkeypatch.setattr(agent_figures, "LOGGED_PART", 1_000)
    theirs = Selection(agents=(agent,))
    assert len(headline.agent_figures(bench_db, theirs)) > 1
    assert ratings.rated_pairs(bench_db, replace(theirs, contested=True)) is not None


def test_a_range_to_the_last_day_there_is_or_given_as_datetimes_reads_the_same_days_on_both_paths(bench_db,
                                                                                                   monkeypatch):
    """An attacker's report: a range ending on 9999-12-31 (a link can carry it) raised OverflowError on the log's
    path (its next day does not exist); a `datetime` bound (a subclass of `date`) cut the log's day at its hour while
    the summaries by day took the whole day."""
    from datetime import datetime

    selections = [Selection(date_from=date(2025, 1, 3), date_to=date.max),
                  Selection(date_from=datetime(2025, 1, 3, 12), date_to=datetime(2025, 1, 8, 1))]
    assert selections[1] == RANGE
    for selection in selections:
        summed = headline.agent_figures(bench_db, selection)
        logged = from_the_log(monkeypatch, lambda s=selection: headline.agent_figures(bench_db, s))
        assert summed["matches"].sum() > 0
        same_rows(summed.sort_values("agent", ignore_index=True), logged.sort_values("agent", ignore_index=True))
