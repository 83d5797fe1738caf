"""The read helpers the scorers and pages share: a read-only query as a DataFrame, as tuples or streamed, over
a connection of its own or the one a `reading` block shares. An absent database reads as empty."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from concurrent import futures
from contextlib import ExitStack, contextmanager
from contextvars import ContextVar
from pathlib import Path

import duckdb

from engine.store import connections, summaries, upgrades

_READING: ContextVar[dict[str, duckdb.DuckDBPyConnection] | None] = ContextVar("reading", default=None)


@contextmanager
def reading(db: str | Path, check: bool = False) -> Iterator[None]:
    """Share one read-only connection among the `query`, `rows`, `stream` and `count_matches` calls made inside
    the block (in this thread or task): opening a large database costs more than most of a page's queries,
    and while runs write, each open waits for a gap between their flushes.
    Keep the block short, since a reader holds off the writer for as long as it stays open.
    With `check`, the connection first does `check_db`'s work (an older schema is upgraded, then reopened)."""
    key = str(Path(db).resolve())
    open_now = _READING.get() or {}
    if key in open_now or not Path(db).exists():
        yield
        return
    with ExitStack() as opened:
        con = opened.enter_context(connections.connect(db, read_only=True))
        if check and upgrades.needs_upgrade(Path(db), con):
            opened.close()  # the upgrade writes: this process must not hold the file meanwhile
            upgrades.init_db(db)
            con = opened.enter_context(connections.connect(db, read_only=True))
        token = _READING.set({**open_now, key: con})
        try:
            yield
        finally:
            _READING.reset(token)
            _IN_STEP.pop(id(con), None)
            _TEMPORARY.discard(id(con))


@contextmanager
def _reader(db: str | Path, timeout: float | None = connections.READER_TIMEOUT) -> Iterator[duckdb.DuckDBPyConnection]:
    shared = (_READING.get() or {}).get(str(Path(db).resolve()))
    if shared is not None:
        yield shared
        return
    with connections.connect(db, read_only=True, timeout=timeout) as con:
        yield con


def temp_table(db: str | Path, name: str,
               selects: Iterator[Callable[[duckdb.DuckDBPyConnection], tuple[str, list]]]) -> None:
    """Inside a `reading` block: the temporary table `name` (on its shared connection, so the queries after it in
    the block read it): the first query's rows, then each next one's appended by column name; each runs alone, so a
    large read split into parts holds the memory of one part. Each query is asked of a function of the connection,
    which may first make what it reads there (a part's matches, rows worked out in Python). A table of that name
    already made in the block is kept."""
    shared = (_READING.get() or {}).get(str(Path(db).resolve()))
    if shared is None:
        raise RuntimeError(f"temp_table({name!r}) outside a reading block: the table would close with its connection")
    if shared.execute("SELECT 1 FROM duckdb_tables() WHERE temporary AND table_name = ?", [name]).fetchall():
        return
    _TEMPORARY.add(id(shared))
    for number, select in enumerate(selects):
        sql, params = select(shared)
        verb = f"CREATE TEMP TABLE {name} AS" if number == 0 else f"INSERT INTO {name} BY NAME"
        shared.execute(f"{verb} SELECT * FROM ({sql})", params)


# the shared connections of `reading` blocks that hold a temporary table: `queries_at_once` reads on them alone
_TEMPORARY: set[int] = set()


def query(db: str | Path, sql: str, params: list | None = None):
    """Run a read-only query and return a DataFrame; an absent database reads as empty."""
    import pandas as pd

    if not Path(db).exists():
        return pd.DataFrame()
    with _reader(db) as con:
        return _frame(con, sql, params)


def queries_at_once(db: str | Path, reads: list[tuple[str, list]]) -> list:
    """`query` of each (sql, params) read, run at once, each on a cursor of the one connection (the `reading`
    block's or one of its own): DuckDB runs a query without Python's lock, so on 2 cores the small reads of one page
    call overlap (a week's Bradley-Terry pairs and its agents' matches, for one). A cursor is a connection of
    its own and does not see its connection's temporary tables: on a connection holding one, they run in turn."""
    import pandas as pd

    if not Path(db).exists() or not reads:
        return [pd.DataFrame() for _ in reads]
    with _reader(db) as con:
        if id(con) in _TEMPORARY:
            return [_frame(con, sql, params) for sql, params in reads]
        cursors = [con.cursor() for _ in reads[1:]]
        others = [_pool().submit(_frame, cursor, sql, params) for cursor, (sql, params) in zip(cursors, reads[1:],
                                                                                               strict=True)]
        failed = False
        try:
            first = _frame(con, *reads[0])
        except BaseException:  # a failed read or Ctrl-C: the others are stopped, not waited for to the end
            failed = True
            raise
        finally:  # a cursor still running cannot close (DuckDB: "connection is busy"), and would hide the error
            while futures.wait(others, timeout=0.05 if failed else None).not_done:
                for cursor in cursors:  # again until they stop: a read may not have begun at the first interrupt
                    cursor.interrupt()
            for cursor in cursors:
                cursor.close()
        return [first, *(other.result() for other in others)]


def _frame(con: duckdb.DuckDBPyConnection, sql: str, params: list | None) -> object:
    return con.execute(sql, params or []).df()


@functools.cache
def _pool() -> futures.ThreadPoolExecutor:
    """The threads `queries_at_once` runs its other reads on, made at its first call."""
    return futures.ThreadPoolExecutor(max_workers=4, thread_name_prefix="reads")


def query_many_rows(db: str | Path, sql: str, params: list | None = None):
    """`query` for a result of many rows (a model's 333,000 scores at a million matches), fetched through Arrow: its
    text reaches pandas' string columns without a Python string per cell on the way, which `query` makes, so such a read
    takes less memory and less time. Only for columns of text, integers, doubles and
    booleans: Arrow gives a DATE as datetime.date, a DECIMAL or HUGEINT as Decimal, where `query` gives numbers."""
    import pandas as pd

    if not Path(db).exists():
        return pd.DataFrame()
    with _reader(db) as con:
        table = con.sql(sql, params=params or []).to_arrow_table()
    frame = table.to_pandas()
    masked = _masked_dtypes()
    for name, column in zip(table.column_names, table.columns, strict=True):
        if column.null_count and column.type in masked:  # as `query` gives them: Int32 and boolean, not floats
            frame[name] = column.to_pandas(types_mapper=masked.get)
    return frame


def _masked_dtypes() -> dict:
    """Arrow's integer and boolean types -> the pandas dtypes that hold them with NULLs (`query`'s)."""
    import pandas as pd
    import pyarrow as pa

    return {pa.bool_(): pd.BooleanDtype(), **{getattr(pa, f"{kind}{bits}")(): pd.api.types.pandas_dtype(
        f"{'UInt' if kind == 'uint' else 'Int'}{bits}") for kind in ("int", "uint") for bits in (8, 16, 32, 64)}}


def rows(db: str | Path, sql: str, params: list | None = None) -> list[tuple]:
    """Run a read-only query and return its rows as tuples (for loops that would pay for a DataFrame)."""
    if not Path(db).exists():
        return []
    with _reader(db) as con:
        return con.execute(sql, params or []).fetchall()


def stream(db: str | Path, sql: str, params: list | None = None, size: int = 2048) -> Iterator[tuple]:
    """Run a read-only query and yield its rows, fetched `size` at a time: for a scorer that folds the rows
    as they come instead of holding them all (consume it whole inside the block that reads)."""
    if not Path(db).exists():
        return
    with _reader(db) as con:
        result = con.execute(sql, params or [])
        while batch := result.fetchmany(size):
            yield from batch


def count_matches(db: str | Path, timeout: float | None = connections.READER_TIMEOUT) -> int:
    if not Path(db).exists():
        return 0
    with _reader(db, timeout) as con:
        tables = {r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
        return con.execute("SELECT count(*) FROM matches").fetchone()[0] if "matches" in tables else 0


def generation(db: str | Path) -> int:
    """The database's write stamp (`summaries.generation`, raised by a random step at every write): what a cache
    of its figures keys on (0: no file)."""
    if not Path(db).exists():
        return 0
    with _reader(db) as con:
        return summaries.generation(con)


# per shared connection of a `reading` block, whether the summaries were in step: no writer can change it while the
# block reads (a reader holds the writer off), and a headline asks several times
_IN_STEP: dict[int, bool] = {}


def summaries_in_step(db: str | Path) -> bool:
    """Whether the summaries count every `ok` match stored, so a sum of them is the log's figure."""
    if not Path(db).exists():
        return False
    with _reader(db) as con:
        shared = con is (_READING.get() or {}).get(str(Path(db).resolve()))
        if not shared:
            return summaries.in_step(con)
        if id(con) not in _IN_STEP:
            _IN_STEP[id(con)] = summaries.in_step(con)
        return _IN_STEP[id(con)]

