"""A summary table's rows in a stable order, and the check every summary shares: the rows the writer kept while
matches were played are the rows a rebuild from the turn log gives (engine/store/summaries.py)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from engine import store
from engine.store import summaries


def summary_rows(db: str | Path, table: str = "agent_summary") -> pd.DataFrame:
    """Every row of summary `table`, sorted by its key, its columns in the schema's order (an upgraded database's
    added columns come last)."""
    rows = store.query(db, f"SELECT {', '.join(name for name, _ in summaries.columns_of(table))} FROM {table}")
    keys = summaries.MATCH_SCORE_KEYS if table == "match_scores" else summaries.keys_of(table)
    return rows.sort_values(list(keys), ignore_index=True, na_position="first")


def same_rows(left: pd.DataFrame, right: pd.DataFrame) -> None:
    """Equal rows, sums of floats equal to their last bits' rounding (DuckDB's parallel sums)."""
    pd.testing.assert_frame_equal(left, right, check_exact=False, rtol=1e-12)


def assert_rebuild_gives_the_writers_rows(db: Path, scratch: Path, tables: tuple[str, ...]) -> dict[str, pd.DataFrame]:
    """Rebuild a copy of `db`'s summaries from its log (in `scratch`) and check each of `tables` has the rows the
    writer kept in `db`; returns the writer's rows."""
    written = {table: summary_rows(db, table) for table in tables}
    copy = scratch / f"rebuilt-{db.name}"
    copy.write_bytes(db.read_bytes())
    store.rebuild_summaries(copy)
    assert store.summaries_in_step(copy)
    for table, rows in written.items():
        same_rows(rows, summary_rows(copy, table))
    return written


def assert_upgrade_builds_them(db: Path, scratch: Path, version: int, undo: tuple[str, ...],
                               tables: tuple[str, ...]) -> Path:
    """A copy of `db` (in `scratch`) set back to schema `version` by the statements `undo` (the summaries that
    version lacked dropped), then opened: the upgrade fills each of `tables` with the rows the writer kept in `db`.
    Returns the upgraded copy."""
    copy = scratch / f"v{version}.duckdb"
    copy.write_bytes(db.read_bytes())
    with store.connect(copy) as con:
        for statement in undo:
            con.execute(statement)
        if "generation" in {r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}:
            con.execute("ALTER TABLE generation DROP COLUMN summaries_code")  # older than version 17
        con.execute("DELETE FROM schema_version")
        con.execute("INSERT INTO schema_version VALUES (?, now())", [version])
    store.check_db(copy)
    assert store.summaries_in_step(copy)
    for table in tables:
        same_rows(summary_rows(copy, table), summary_rows(db, table))
    return copy
