"""The summaries the papers keep, registered with the store: the store knows no paper, so a paper's summary (its
table, keys and the SQL of its rows) is declared where the paper's code is and registered on import. The writer
keeps every registered summary in step as it keeps its own; a database records the summaries it keeps
(`kept_summaries`), and a process that has not registered one of them may not write to it (its rows would go
stale). Registered but not kept yet: built from the log at the next write or rebuild. A paper's reference rows (its
published tables) register here too: the store writes them whenever it creates or upgrades a database."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import duckdb


@dataclass(frozen=True)
class KeptSummary:
    """A summary a paper keeps: `table` with its `columns` (name, SQL type), summed by `keys` (the other columns
    are sums; a row whose first sum is 0 is dropped). `rows_sql(matches, seats, turns, metrics)` is the SQL of its
    rows for the `ok` matches of the tables or views named: the one definition the writer, a rebuild and a read of
    the log share. `prepare(con, matches, seats, turns)`, if given, registers on `con` what that SQL reads besides
    the tables (MAgIC's Reasoning items, worked out in Python): such a summary is summed only where it is stored."""

    table: str
    columns: tuple[tuple[str, str], ...]
    keys: tuple[str, ...]
    rows_sql: Callable[[str, str, str, str], str]
    prepare: Callable[[duckdb.DuckDBPyConnection, str, str, str], None] | None = None


_REGISTERED: dict[str, KeptSummary] = {}


def register(summary: KeptSummary) -> KeptSummary:
    """Keep `summary` in every database this process writes."""
    _REGISTERED[summary.table] = summary
    return summary


def registered() -> dict[str, KeptSummary]:
    """The summaries registered in this process, by table."""
    return dict(_REGISTERED)


_REFERENCE_ROWS: list[Callable[[duckdb.DuckDBPyConnection], None]] = []


def register_reference_rows(fill: Callable[[duckdb.DuckDBPyConnection], None]) -> None:
    """`fill(con)` writes a paper's reference rows (replacing its own) when a database is created or upgraded."""
    if fill not in _REFERENCE_ROWS:
        _REFERENCE_ROWS.append(fill)


def reference_rows() -> tuple[Callable[[duckdb.DuckDBPyConnection], None], ...]:
    return tuple(_REFERENCE_ROWS)
