"""The dashboard's memory at a million matches (issue 28): a read of many rows comes through Arrow, with the frame
`store.query` gives and no Python string per cell on the way; a page's reads hold DuckDB to the page's share of the
600 MB budget, the run command's refresh of the kept tables to its larger one."""

from __future__ import annotations

import tracemalloc

import pandas as pd

from engine import default_views, store
from engine.launch import processes
from engine.metrics import ratings
from tests.page_run import run_page

# every kind of column a page's large read returns, NULLs included: text, integers (masked where NULL, as `query`
# gives them), doubles, booleans
MANY_ROWS = """
    SELECT 'match-' || i AS match_id, repeat('x', i % 50) || i AS params, i AS seed,
           CASE WHEN i % 3 = 0 THEN NULL ELSE i END::INTEGER AS max_tokens, i / 7 AS score,
           CASE WHEN i % 5 = 0 THEN NULL ELSE i / 3 END AS seat_score, i % 2 = 0 AS won,
           CASE WHEN i % 4 = 0 THEN NULL ELSE i % 3 = 0 END AS legal,
           CASE WHEN i % 6 = 0 THEN NULL ELSE 'v' || (i % 5) END AS prompt_version,
           (i % 200)::UTINYINT AS small, CASE WHEN i % 2 = 0 THEN NULL ELSE i END::USMALLINT AS unsigned
    FROM range(?) t(i)"""


def python_peak(read) -> int:
    """The peak of the Python heap (bytes) while `read()` runs."""
    tracemalloc.start()
    try:
        read()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_many_rows_come_through_arrow_as_query_gives_them_without_a_python_string_per_cell(db_path):
    store.init_db(db_path)
    rows = 30_000
    many = store.query_many_rows(db_path, MANY_ROWS, [rows])
    pd.testing.assert_frame_equal(many, store.query(db_path, MANY_ROWS, [rows]), check_exact=True)
    assert str(many["max_tokens"].dtype) == "Int32" and str(many["legal"].dtype) == "boolean"
    store.query(db_path, "SELECT 1")  # DuckDB's first-query set-up is no cell's
    # `query` makes a Python string of every text cell on the way (3 columns x 30,000 rows: 9 MB at their peak)
    through_python = python_peak(lambda: store.query(db_path, MANY_ROWS, [rows]))
    assert through_python > rows * 3 * 40
    assert python_peak(lambda: store.query_many_rows(db_path, MANY_ROWS, [rows])) * 10 < through_python
    assert store.query_many_rows(db_path.with_name("absent.duckdb"), "SELECT 1").empty


def memory_limit(db) -> str:
    return store.rows(db, "SELECT current_setting('memory_limit')")[0][0]


def test_a_page_reads_within_its_share_and_the_run_commands_refresh_within_its_own(db_path, monkeypatch):
    store.init_db(db_path)
    assert memory_limit(db_path) == "122.0 MiB"  # store.READER_MEMORY, 128 MB, as DuckDB prints it
    with store.reading(db_path):  # a page's block (app.py)
        assert memory_limit(db_path) == "122.0 MiB"
    seen = []
    monkeypatch.setattr(ratings, "refresh_saved", lambda db: seen.append(memory_limit(db)))
    default_views.refresh(db_path)
    assert seen == ["244.1 MiB"]  # store.BATCH_READER_MEMORY, 256 MB


def test_the_launch_pages_runs_panel_sums_the_runs_turns_within_the_larger_share(db_path, monkeypatch):
    """Its hash of the runs' match ids spilled at a page's 128 MB (2-10 s against 1-4 s at a million matches) for a
    peak no lower."""
    store.init_db(db_path)
    seen, query = [], store.query
    monkeypatch.setattr(store, "query", lambda db, *args: seen.append(memory_limit(db)) or query(db, *args))
    page = run_page("launch", db_path, monkeypatch)
    assert not page.exception and "244.1 MiB" in seen
    seen.clear()
    processes._STORED.clear()
    assert processes.progress(db_path).empty and seen == ["244.1 MiB"]
