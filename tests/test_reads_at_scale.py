"""The dashboard's memory at a million matches (issue 28): a read of many rows (Robustness' 333,000 scores of one
model) comes through Arrow, with the frame `store.query` gives and no Python string per cell on the way."""

from __future__ import annotations

import tracemalloc

import duckdb
import pandas as pd
import pytest

from engine import store
from engine.store import connections

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


def test_reads_at_once_give_what_each_gives_alone_and_see_the_blocks_temporary_tables(db_path):
    """`store.queries_at_once` runs a page call's independent reads together, each on a cursor: the frames are those
    `store.query` gives one by one, inside a `reading` block or not; on a connection holding a temporary table
    (which a cursor would not see) they run in turn on it; an absent database reads as empty frames."""
    store.init_db(db_path)
    reads = [(MANY_ROWS + " ORDER BY i", [2_000]), ("SELECT ? AS n, 'x' AS word", [7]),
             ("SELECT count(*) AS matches FROM matches", [])]
    alone = [store.query(db_path, sql, params) for sql, params in reads]
    for together in (store.queries_at_once(db_path, reads), _within_a_block(db_path, reads)):
        assert len(together) == len(alone)
        for got, expected in zip(together, alone, strict=True):
            pd.testing.assert_frame_equal(got, expected, check_exact=True)
    with store.reading(db_path):
        store.temp_table(db_path, "picked", iter([lambda con: ("SELECT 5 AS n", [])]))
        got = store.queries_at_once(db_path, [("SELECT n FROM picked", []), ("SELECT n + 1 AS n FROM picked", [])])
    assert [frame["n"].tolist() for frame in got] == [[5], [6]]
    assert [frame.empty for frame in store.queries_at_once(db_path.with_name("absent.duckdb"), reads)] == [True] * 3


def _within_a_block(db_path, reads) -> list[pd.DataFrame]:
    with store.reading(db_path):
        return store.queries_at_once(db_path, reads)


LONG_READ = "SELECT count(*) AS n FROM range(2000000000) a WHERE a.range % 7 = 3"  # seconds: still running when the
# other read fails at once


@pytest.mark.parametrize("failing", ["the first read", "another read"])
def test_a_failed_read_among_reads_at_once_raises_its_own_error_and_lets_the_file_go(db_path, failing):
    """A read that fails while another still runs: the caller gets that read's error (DuckDB's 'connection is busy'
    from closing a cursor still reading had hidden it), the other read is stopped, and nothing stays open: a
    writer gets the file at once."""
    store.init_db(db_path)
    bad = ("SELECT * FROM no_such_table", [])
    reads = [bad, (LONG_READ, [])] if failing == "the first read" else [(LONG_READ, []), bad]
    if failing == "another read":  # the long read is this thread's: it runs to its end, then the other's error
        reads[0] = ("SELECT 1 AS n", [])
    with pytest.raises(duckdb.CatalogException, match="no_such_table"):
        store.queries_at_once(db_path, reads)
    assert not [path for path, _ in connections._OPEN_HERE.values() if path == db_path.resolve()]
    with store.connect(db_path) as con:
        con.execute("INSERT INTO metrics VALUES ('m', 0, 'x', 1.0)")
    assert store.queries_at_once(db_path, []) == []
