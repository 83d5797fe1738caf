"""The results database (DuckDB): schema, the match writer, and read helpers shared by the pages.

DuckDB admits one writing process per file and a reader blocks a writer, so every connection
here is short-lived and retried while the file is locked. Finished matches are written a batch per
transaction from Arrow tables: a match is in the database whole or not at all.
"""

from __future__ import annotations

import json
import os
import random
import re
import time
from collections import Counter
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.compute as pc

ROOT = Path(__file__).resolve().parent.parent

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs(
  run_id VARCHAR, name VARCHAR, spec JSON, source VARCHAR, status VARCHAR,
  created_at TIMESTAMP, finished_at TIMESTAMP, n_matches INTEGER, n_done INTEGER);
CREATE TABLE IF NOT EXISTS matches(
  match_id VARCHAR, run_id VARCHAR, game VARCHAR, preset VARCHAR, params JSON, seed BIGINT,
  repeat INTEGER, status VARCHAR, error VARCHAR, started_at TIMESTAMP, finished_at TIMESTAMP,
  outcome JSON, worker VARCHAR);
CREATE TABLE IF NOT EXISTS seats(
  match_id VARCHAR, seat INTEGER, player VARCHAR, agent VARCHAR, role VARCHAR,
  prompt_version VARCHAR, strategy VARCHAR, temperature DOUBLE, score DOUBLE, won BOOLEAN,
  rank INTEGER, label VARCHAR);
CREATE TABLE IF NOT EXISTS turns(
  match_id VARCHAR, turn INTEGER, round INTEGER, phase VARCHAR, seat INTEGER, prompt JSON,
  response VARCHAR, action JSON, legal BOOLEAN, fallback BOOLEAN, retries INTEGER, error VARCHAR,
  state JSON, reward DOUBLE, tokens_in INTEGER, tokens_out INTEGER, cost_usd DOUBLE,
  latency_ms DOUBLE, cached BOOLEAN);
CREATE TABLE IF NOT EXISTS metrics(match_id VARCHAR, seat INTEGER, name VARCHAR, value DOUBLE);
"""

# Arrow schemas of the appended tables: explicit, so an all-NULL column still has its type.
MATCH_SCHEMA = pa.schema([
    ("match_id", pa.string()), ("run_id", pa.string()), ("game", pa.string()), ("preset", pa.string()),
    ("params", pa.string()), ("seed", pa.int64()), ("repeat", pa.int32()), ("status", pa.string()),
    ("error", pa.string()), ("started_at", pa.timestamp("us")), ("finished_at", pa.timestamp("us")),
    ("outcome", pa.string()), ("worker", pa.string()),
])
SEAT_SCHEMA = pa.schema([
    ("match_id", pa.string()), ("seat", pa.int32()), ("player", pa.string()), ("agent", pa.string()),
    ("role", pa.string()), ("prompt_version", pa.string()), ("strategy", pa.string()),
    ("temperature", pa.float64()), ("score", pa.float64()), ("won", pa.bool_()), ("rank", pa.int32()),
    ("label", pa.string()),
])
TURN_SCHEMA = pa.schema([
    ("match_id", pa.string()), ("turn", pa.int32()), ("round", pa.int32()), ("phase", pa.string()),
    ("seat", pa.int32()), ("prompt", pa.string()), ("response", pa.string()), ("action", pa.string()),
    ("legal", pa.bool_()), ("fallback", pa.bool_()), ("retries", pa.int32()), ("error", pa.string()),
    ("state", pa.string()), ("reward", pa.float64()), ("tokens_in", pa.int32()), ("tokens_out", pa.int32()),
    ("cost_usd", pa.float64()), ("latency_ms", pa.float64()), ("cached", pa.bool_()),
])
METRIC_SCHEMA = pa.schema([
    ("match_id", pa.string()), ("seat", pa.int32()), ("name", pa.string()), ("value", pa.float64()),
])


def default_db() -> Path:
    return Path(os.environ.get("ARENA_DB") or ROOT / "results.duckdb")


def now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


def to_json(value: Any) -> str | None:
    return None if value is None else json.dumps(value, default=str, ensure_ascii=False)


def _is_lock_error(exc: Exception) -> bool:
    text = str(exc).lower()
    return "lock" in text or "being used by another process" in text or "conflicting" in text


@contextmanager
def connect(db: str | Path, read_only: bool = False, timeout: float = 60.0) -> Iterator[duckdb.DuckDBPyConnection]:
    """A short-lived connection, retried with jittered backoff while another process holds the file."""
    deadline = time.monotonic() + timeout
    delay = 0.02
    while True:
        try:
            con = duckdb.connect(str(db), read_only=read_only)
            break
        except (duckdb.IOException, duckdb.ConnectionException) as exc:
            if not _is_lock_error(exc) or time.monotonic() > deadline:
                raise
            time.sleep(delay * random.uniform(0.5, 1.5))
            delay = min(delay * 2, 1.0)
    try:
        yield con
    finally:
        con.close()


def init_db(db: str | Path) -> None:
    Path(db).parent.mkdir(parents=True, exist_ok=True)
    with connect(db) as con:
        con.execute(SCHEMA)
        # who played each match; a database made before the column existed gets it (NULL for its old matches)
        con.execute("ALTER TABLE matches ADD COLUMN IF NOT EXISTS worker VARCHAR")


# ---------------------------------------------------------------- writing
def upsert_run(db: str | Path, run_id: str, name: str, spec: dict, source: str, n_matches: int) -> None:
    """Create the run, or mark an existing one as running again (a resume)."""
    with connect(db) as con:
        con.execute("BEGIN")
        exists = con.execute("SELECT 1 FROM runs WHERE run_id = ?", [run_id]).fetchone()
        if exists:
            con.execute("UPDATE runs SET status = 'running', finished_at = NULL, n_matches = ? WHERE run_id = ?",
                        [n_matches, run_id])
        else:
            con.execute("INSERT INTO runs VALUES (?, ?, ?, ?, 'running', ?, NULL, ?, 0)",
                        [run_id, name, to_json(spec), source, now(), n_matches])
        con.execute("COMMIT")


def finish_run(db: str | Path, run_id: str, status: str) -> None:
    with connect(db) as con:
        con.execute("UPDATE runs SET status = ?, finished_at = ? WHERE run_id = ?", [status, now(), run_id])


def match_statuses(db: str | Path, run_id: str) -> dict[str, str]:
    """Every match of the run already in the database, and its status: `ok` ones are done, the others
    (errors) are played again and replace their earlier attempt."""
    with connect(db) as con:
        rows = con.execute("SELECT match_id, status FROM matches WHERE run_id = ?", [run_id]).fetchall()
    return dict(rows)


def finished_match_ids(db: str | Path, run_id: str) -> set[str]:
    return {match_id for match_id, status in match_statuses(db, run_id).items() if status == "ok"}


_SURROGATE = re.compile("[\ud800-\udfff]")


def storable(value: Any) -> Any:
    """Text the database accepts: a lone surrogate (a JSON "\\ud800" from a provider decodes to one)
    becomes U+FFFD and a NUL byte a visible "\\x00", instead of failing the match's write."""
    if not isinstance(value, str) or value.isascii() and "\x00" not in value:
        return value
    return _SURROGATE.sub("\ufffd", value).replace("\x00", "\\x00")


def _table(rows: list[dict], schema: pa.Schema) -> pa.Table:
    """Rows as an Arrow table, made `storable`: only a batch holding a lone surrogate (which Arrow cannot
    encode) pays for cleaning value by value; NUL bytes are replaced a whole column at a time."""
    try:
        table = pa.Table.from_pylist(rows, schema=schema)
    except UnicodeEncodeError:
        return pa.Table.from_pylist([{k: storable(v) for k, v in row.items()} for row in rows], schema=schema)
    strings = [i for i, f in enumerate(schema) if pa.types.is_string(f.type)]
    for i in strings:
        column = table.column(i)
        if pc.any(pc.match_substring(column, "\x00")).as_py():
            table = table.set_column(i, schema.field(i), pc.replace_substring(column, "\x00", "\\x00"))
    return table


@dataclass
class MatchRecord:
    """One finished match: its rows for every table, as `write_matches` takes them."""

    match: dict[str, Any]
    seats: list[dict[str, Any]]
    turns: list[dict[str, Any]] = field(default_factory=list)
    metrics: list[dict[str, Any]] = field(default_factory=list)


_TABLES = {"matches": MATCH_SCHEMA, "seats": SEAT_SCHEMA, "turns": TURN_SCHEMA, "metrics": METRIC_SCHEMA}


def write_matches(db: str | Path, records: list[MatchRecord], replace: Collection[str] = ()) -> None:
    """Append a batch of finished matches in one transaction: all of them or none.

    Only the matches named in `replace` (earlier attempts that are in the database: errors being played
    again, a re-import) are deleted first. A match never attempted is only appended, so a write costs
    the same in a database of a million matches as in an empty one."""
    if not records:
        return
    tables = {
        "matches": [r.match for r in records], "seats": [s for r in records for s in r.seats],
        "turns": [t for r in records for t in r.turns], "metrics": [m for r in records for m in r.metrics],
    }
    arrow = {name: _table(rows, _TABLES[name]) for name, rows in tables.items()}
    stale = sorted({r.match["match_id"] for r in records} & set(replace))
    done = Counter(r.match["run_id"] for r in records if r.match["status"] == "ok")
    with connect(db) as con:
        con.execute("BEGIN")
        try:
            if stale:
                con.register("stale_ids", pa.table({"match_id": stale}))
                done.subtract(dict(con.execute(
                    "SELECT run_id, count(*) FROM matches WHERE status = 'ok' AND match_id IN "
                    "(SELECT match_id FROM stale_ids) GROUP BY run_id").fetchall()))
                for name in _TABLES:
                    con.execute(f"DELETE FROM {name} WHERE match_id IN (SELECT match_id FROM stale_ids)")
                con.unregister("stale_ids")
            for name, table in arrow.items():
                if table.num_rows:
                    con.register(f"new_{name}", table)
                    con.execute(f"INSERT INTO {name} BY NAME SELECT * FROM new_{name}")
                    con.unregister(f"new_{name}")
            for run_id, n in done.items():
                if n:
                    con.execute("UPDATE runs SET n_done = n_done + ? WHERE run_id = ?", [n, run_id])
            con.execute("COMMIT")
        except Exception:
            con.execute("ROLLBACK")
            raise


def write_match(db: str | Path, match: dict, seats: list[dict], turns: list[dict], metrics: list[dict]) -> None:
    """Replace any earlier attempt of this match with this one, in one transaction."""
    write_matches(db, [MatchRecord(match, seats, turns, metrics)], replace={match["match_id"]})


# ---------------------------------------------------------------- reading
_READING: ContextVar[dict[str, duckdb.DuckDBPyConnection] | None] = ContextVar("reading", default=None)


@contextmanager
def reading(db: str | Path) -> Iterator[None]:
    """Share one read-only connection among the `query` and `rows` calls made inside the block (in this
    thread or task): opening a large database costs 10-20 ms, more than most of a page's queries.
    Keep the block short, since a reader holds off the writer for as long as it stays open."""
    key = str(Path(db).resolve())
    open_now = _READING.get() or {}
    if key in open_now or not Path(db).exists():
        yield
        return
    with connect(db, read_only=True) as con:
        token = _READING.set({**open_now, key: con})
        try:
            yield
        finally:
            _READING.reset(token)


@contextmanager
def _reader(db: str | Path) -> Iterator[duckdb.DuckDBPyConnection]:
    shared = (_READING.get() or {}).get(str(Path(db).resolve()))
    if shared is not None:
        yield shared
        return
    with connect(db, read_only=True) as con:
        yield con


def query(db: str | Path, sql: str, params: list | None = None):
    """Run a read-only query and return a DataFrame; an absent database reads as empty."""
    import pandas as pd

    if not Path(db).exists():
        return pd.DataFrame()
    with _reader(db) as con:
        return con.execute(sql, params or []).df()


def rows(db: str | Path, sql: str, params: list | None = None) -> list[tuple]:
    """Run a read-only query and return its rows as tuples (for loops that would pay for a DataFrame)."""
    if not Path(db).exists():
        return []
    with _reader(db) as con:
        return con.execute(sql, params or []).fetchall()


def count_matches(db: str | Path) -> int:
    if not Path(db).exists():
        return 0
    with connect(db, read_only=True) as con:
        tables = {r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
        return con.execute("SELECT count(*) FROM matches").fetchone()[0] if "matches" in tables else 0
