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
import socket
import sys
import time
from collections import Counter
from collections.abc import Collection, Iterator
from contextlib import ExitStack, contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.compute as pc

from engine import published

ROOT = Path(__file__).resolve().parent.parent

# The tables, written once: the DDL and the Arrow schemas the writer appends with both come from here.
TABLES: dict[str, tuple[tuple[str, str], ...]] = {
    "runs": (
        ("run_id", "VARCHAR"), ("name", "VARCHAR"), ("spec", "JSON"), ("source", "VARCHAR"), ("status", "VARCHAR"),
        ("created_at", "TIMESTAMP"), ("finished_at", "TIMESTAMP"), ("n_matches", "INTEGER"), ("n_done", "INTEGER"),
        ("pid", "INTEGER"), ("host", "VARCHAR"), ("heartbeat_at", "TIMESTAMP")),
    "matches": (
        ("match_id", "VARCHAR"), ("run_id", "VARCHAR"), ("game", "VARCHAR"), ("preset", "VARCHAR"),
        ("params", "JSON"), ("seed", "BIGINT"), ("repeat", "INTEGER"), ("status", "VARCHAR"), ("error", "VARCHAR"),
        ("started_at", "TIMESTAMP"), ("finished_at", "TIMESTAMP"), ("outcome", "JSON"), ("worker", "VARCHAR")),
    "seats": (
        ("match_id", "VARCHAR"), ("seat", "INTEGER"), ("player", "VARCHAR"), ("agent", "VARCHAR"), ("role", "VARCHAR"),
        ("prompt_version", "VARCHAR"), ("strategy", "VARCHAR"), ("temperature", "DOUBLE"), ("score", "DOUBLE"),
        ("won", "BOOLEAN"), ("rank", "INTEGER"), ("label", "VARCHAR"), ("max_tokens", "INTEGER")),
    "turns": (
        ("match_id", "VARCHAR"), ("turn", "INTEGER"), ("round", "INTEGER"), ("phase", "VARCHAR"), ("seat", "INTEGER"),
        ("prompt", "JSON"), ("response", "VARCHAR"), ("action", "JSON"), ("legal", "BOOLEAN"), ("fallback", "BOOLEAN"),
        ("retries", "INTEGER"), ("error", "VARCHAR"), ("state", "JSON"), ("reward", "DOUBLE"), ("tokens_in", "INTEGER"),
        ("tokens_out", "INTEGER"), ("cost_usd", "DOUBLE"), ("latency_ms", "DOUBLE"), ("cached", "BOOLEAN"),
        ("call_errors", "INTEGER")),
    "metrics": (("match_id", "VARCHAR"), ("seat", "INTEGER"), ("name", "VARCHAR"), ("value", "DOUBLE")),
    # the papers' own tables, reference rows marked by their source (engine/published.py fills it)
    "published": (("suite", "VARCHAR"), ("source", "VARCHAR"), ("model", "VARCHAR"), ("strategy", "VARCHAR"),
                  ("name", "VARCHAR"), ("value", "DOUBLE")),
}
# Version 1 had no version table; 2 added runs.pid/host/heartbeat_at and turns.call_errors; 3 added
# matches.worker (who played the match: `<host>:<pid>`, or `ray:<node>:<pid>`); 4 the published table; 5
# seats.max_tokens (a model's answer length cap: it changes its answers, so it names the agent where it varies).
# An upgrade adds what an older database lacks (tables, columns), in place; a newer database is left alone.
# To add a column: append it to its table above and bump SCHEMA_VERSION; init_db adds it to older files.
SCHEMA_VERSION = 5
_ARROW_TYPES = {"VARCHAR": pa.string(), "JSON": pa.string(), "BIGINT": pa.int64(), "INTEGER": pa.int32(),
                "DOUBLE": pa.float64(), "BOOLEAN": pa.bool_(), "TIMESTAMP": pa.timestamp("us")}


def arrow_schema(table: str) -> pa.Schema:
    """Explicit Arrow types for appending to `table`, so an all-NULL column still has its type."""
    return pa.schema([(name, _ARROW_TYPES[sql]) for name, sql in TABLES[table]])


def create_table_sql(table: str) -> str:
    return f"CREATE TABLE IF NOT EXISTS {table}({', '.join(f'{n} {t}' for n, t in TABLES[table])})"


MATCH_SCHEMA = arrow_schema("matches")
SEAT_SCHEMA = arrow_schema("seats")
TURN_SCHEMA = arrow_schema("turns")
METRIC_SCHEMA = arrow_schema("metrics")


class DatabaseError(Exception):
    """A database file the arena cannot use. The message is one line: what is wrong and what to do."""


def default_db() -> Path:
    return Path(os.environ.get("ARENA_DB") or ROOT / "results.duckdb")


def now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


def to_json(value: Any) -> str | None:
    return None if value is None else json.dumps(value, default=str, ensure_ascii=False)


_LOCK_HOLDER = re.compile(r"lock is held in (.*?) \(PID (\d+)\)")
WAIT_REPORT_EVERY = 10.0  # seconds between "still waiting" lines of a writer
# Longest sleep between two tries. A reader (a page) tries often, a writer backs off further: when the file
# comes free the page usually gets it first and is done in milliseconds; the writer has no one waiting on it.
READER_POLL, WRITER_POLL = 0.02, 0.25
READER_TIMEOUT = 30.0  # seconds a reader (a page, a scorer) waits for a busy file before it gives up


# DuckDB's refusal when this very process has the file open in the other mode (a group commit flushing in its
# thread while the run or the dashboard reads, or the reverse): the same wait as for another process's lock
_HELD_HERE = "different configuration than existing connections"


# A writer that finds the file busy marks it (`<db>.writer-waiting`, touched at every try) and a new reader stands
# back while the mark is fresh, for at most WRITER_FIRST s: readers share the file, so a stream of short readers
# (a dashboard loading page after page) could otherwise keep it held for as long as they go on (a writer waited 13 s).
WRITER_FIRST = 0.5
# DuckDB keeps the blocks it read cached up to 80% of the machine's memory by default: a reader (a dashboard
# page, a scorer) that scans the turns of a large database would hold them all. A reader's cache is bounded;
# its larger operators spill to disk instead (bench/dashboard.py: the dashboard's RSS on 200k matches).
READER_MEMORY = "256MB"
# The writer's too: at each commit DuckDB checkpoints the row groups it appended to, and with its default cache a
# run's writer peaked at 500 MB on a turn log of 400k rows (bench/engine.py prints a long run's peak RSS).
WRITER_MEMORY = "128MB"
MARK_FRESH = 1.0  # a waiting writer touches its mark at least every WRITER_POLL * 1.5 s; an older one is gone


def _waiting_mark(db: Path) -> Path:
    return db.with_name(db.name + ".writer-waiting")


def _writer_waiting(db: Path) -> bool:
    try:
        return time.time() - _waiting_mark(db).stat().st_mtime < MARK_FRESH
    except OSError:
        return False


def _is_lock_error(exc: Exception) -> bool:
    text = str(exc).lower()
    return ("lock" in text or "being used by another process" in text or "conflicting" in text
            or _HELD_HERE in text)


def lock_holder(exc: Exception) -> str:
    """Who holds the file, from DuckDB's lock error: 'PID 123 (python -m engine run ...)'."""
    if _HELD_HERE in str(exc):
        return f"PID {os.getpid()} (this process, another of its connections)"
    m = _LOCK_HOLDER.search(str(exc))
    if not m:
        return "another process"
    try:
        raw = Path(f"/proc/{m.group(2)}/cmdline").read_bytes().decode(errors="replace")
        command = " ".join(raw.replace("\0", " ").split())
    except OSError:
        command = m.group(1)
    return f"PID {m.group(2)} ({command[:120]})"


def _damaged(exc: Exception) -> bool:
    text = str(exc)
    return any(sign in text for sign in ("not a valid DuckDB database", "Could not read", "Corrupt", "checksum"))


def _not_readable(db: Path) -> DatabaseError:
    return DatabaseError(f"{db} is not a readable DuckDB database (corrupt, truncated or another kind of file): "
                         f"move it aside, or pass --db (or set ARENA_DB) to another path")


HEADER_BYTES = 3 * 4096  # DuckDB's file headers, before its first block


def _check_whole(db: Path, con: duckdb.DuckDBPyConnection) -> None:
    """A file cut short (a copy or a download that stopped) still opens: DuckDB reads a block only when a query
    reaches it, so a command could write to it or answer from what is left. Its header counts the blocks in use,
    each a block of the file (the total counts free ones too, which may lie past its end)."""
    used, block_size = con.execute("SELECT used_blocks, block_size FROM pragma_database_size()").fetchone()
    if db.stat().st_size < HEADER_BYTES + used * block_size:
        raise _not_readable(db)


def _unusable(db: Path, exc: Exception) -> DatabaseError:
    """DuckDB's reason why it cannot open `db`, as one line saying what to do."""
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    if db.is_dir():
        return DatabaseError(f"{db} is a directory, not a database file: pass --db (or set ARENA_DB) to a file path")
    if _damaged(exc):
        return _not_readable(db)
    if "No such file or directory" in text or "Permission denied" in text or "Read-only file system" in text:
        return DatabaseError(f"cannot open {db} ({text.removeprefix('IO Error: ')}): pass --db (or set ARENA_DB) to "
                             f"a path in a writable folder")
    return DatabaseError(f"cannot open {db}: {text}")


UNREADABLE_TRIES = 5  # a file that reads short this many times in a row (a second apart) is truly damaged


def _may_be_mid_write(db: Path, exc: Exception) -> bool:
    """A short read of a non-empty file can be another process growing it, not damage."""
    return "Could not read enough bytes" in str(exc) and db.is_file() and db.stat().st_size > 0


DUCKDB_MAGIC = b"DUCK"  # bytes 8 to 11 of every DuckDB file
SQLITE_MAGIC = b"SQLite format 3\0"


def _check_file(db: Path, read_only: bool) -> None:
    """Refuse at once what DuckDB would hang on or misread: a FIFO or a device (opening one blocks until another
    process opens its other end), another program's file (a SQLite file makes DuckDB fetch an extension over the
    network), and for a writer a read-only file or folder (DuckDB's `.wal` beside the file cannot be made)."""
    if db.is_dir():
        raise DatabaseError(f"{db} is a directory, not a database file: pass --db (or set ARENA_DB) to a file path")
    if db.exists() and not db.is_file():
        raise DatabaseError(f"{db} is not a regular file (a FIFO, a socket or a device): pass --db (or set ARENA_DB) "
                            f"to a database file")
    if db.is_file() and db.stat().st_size >= len(SQLITE_MAGIC):
        with db.open("rb") as f:
            head = f.read(len(SQLITE_MAGIC))
        if head == SQLITE_MAGIC:
            raise DatabaseError(f"{db} is a SQLite database, not a DuckDB one: pass --db (or set ARENA_DB) to "
                                f"another path")
        if head[8:12] != DUCKDB_MAGIC:
            raise _not_readable(db)
    if read_only:
        return
    if db.exists() and not db.stat().st_mode & 0o222:
        raise DatabaseError(f"{db} is read-only: make it writable (chmod u+w {db}), or pass --db (or set ARENA_DB) "
                            f"to another path")
    folder = db.parent
    if folder.is_dir() and not (os.access(folder, os.W_OK | os.X_OK) and folder.stat().st_mode & 0o222):
        raise DatabaseError(f"cannot write in the folder of {db} (DuckDB keeps its {db.name}.wal there): make the "
                            f"folder writable, or pass --db (or set ARENA_DB) to a path in a writable folder")


def check_file(db: str | Path) -> None:
    """DatabaseError (one line) if `db` is a path the arena can never read (a directory, a FIFO, another program's
    file); the file is not opened, so a run holding it does not matter (what `serve` checks before it starts)."""
    _check_file(Path(db), read_only=True)


@contextmanager
def connect(db: str | Path, read_only: bool = False,
            timeout: float | None = READER_TIMEOUT) -> Iterator[duckdb.DuckDBPyConnection]:
    """A short-lived connection, retried with jittered backoff while another process holds the file; every
    `WAIT_REPORT_EVERY` s of waiting it says on stderr who holds it.

    A writer (`read_only=False`) waits as long as it takes (`timeout=None`): a finished match must not be
    lost to a reader that holds the file. A reader gives up after `timeout` s (None: it waits as long, as a
    run's first look does). A file DuckDB cannot open raises DatabaseError (one line)."""
    db = Path(db)
    _check_file(db, read_only)
    if not read_only:
        timeout = None
    start = time.monotonic()
    while read_only and _writer_waiting(db) and time.monotonic() - start < WRITER_FIRST:
        time.sleep(READER_POLL)
    try:
        con = _open(db, read_only, timeout, start)
    finally:
        if not read_only:
            _waiting_mark(db).unlink(missing_ok=True)
    _note_wait(read_only, time.monotonic() - start)
    try:
        yield con
    except duckdb.Error as exc:
        if _damaged(exc):  # the header and catalog read, a table's blocks not: cut short or overwritten
            raise _unusable(db, exc) from None
        raise
    finally:
        con.close()


def _open(db: Path, read_only: bool, timeout: float | None, start: float) -> duckdb.DuckDBPyConnection:
    """`connect`'s tries, until DuckDB opens the file; a waiting writer marks it at every try."""
    next_report = start + WAIT_REPORT_EVERY
    delay = 0.01
    unreadable_tries = 0
    while True:
        try:
            return duckdb.connect(str(db), read_only=read_only,
                                  config={"memory_limit": READER_MEMORY if read_only else WRITER_MEMORY})
        except (duckdb.IOException, duckdb.ConnectionException) as exc:
            if not _is_lock_error(exc):
                if _may_be_mid_write(db, exc) and unreadable_tries < UNREADABLE_TRIES:
                    unreadable_tries += 1  # another process may be checkpointing it: look again before judging
                    time.sleep(0.2)
                    continue
                raise _unusable(db, exc) from None
            waited = time.monotonic() - start
            if timeout is not None and waited > timeout:
                raise DatabaseError(f"{db} stayed busy for {waited:.0f} s (held by {lock_holder(exc)}): "
                                    f"try again when it is done") from None
            if time.monotonic() >= next_report:
                print(f"waiting {waited:.0f} s for {db}: held by {lock_holder(exc)}", file=sys.stderr, flush=True)
                next_report += WAIT_REPORT_EVERY
            if not read_only:
                _mark_waiting(db)
            time.sleep(delay * random.uniform(0.5, 1.5))
            delay = min(delay * 2, READER_POLL if read_only else WRITER_POLL)
        except duckdb.Error as exc:
            raise _unusable(db, exc) from None


def _mark_waiting(db: Path) -> None:
    try:
        _waiting_mark(db).touch()
    except OSError:
        pass  # a folder this process cannot write in: the writer only loses its turn ahead of new readers


LONGEST_WAIT = {"read": 0.0, "write": 0.0}  # seconds this process waited for the file, for the run's summary


def _note_wait(read_only: bool, waited: float) -> None:
    kind = "read" if read_only else "write"
    LONGEST_WAIT[kind] = max(LONGEST_WAIT[kind], waited)


def schema_version(con: duckdb.DuckDBPyConnection) -> int | None:
    """The database's schema version: 0 if it holds no arena table yet, None if it is not an arena database."""
    tables = {r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
    if "schema_version" in tables:
        return con.execute("SELECT max(version) FROM schema_version").fetchone()[0] or 0
    if {"runs", "matches"} <= tables:
        return 1
    return None if tables else 0


def _check_version(db: Path, version: int | None) -> None:
    if version is None:
        raise DatabaseError(f"{db} is a DuckDB database of something else (no arena tables): pass --db (or set "
                            f"ARENA_DB) to another path")
    if version > SCHEMA_VERSION:
        raise DatabaseError(f"{db} was made by a newer version of the arena (schema {version}, this code knows "
                            f"{SCHEMA_VERSION}): update the code (git pull), or pass --db to another path")


def init_db(db: str | Path) -> None:
    """Create the tables, or bring a database made by an older version up to this one, in place."""
    db = Path(db)
    try:
        db.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DatabaseError(f"cannot create the folder of {db} ({exc.strerror}): pass --db (or set ARENA_DB) "
                            f"to a path in a writable folder") from None
    with connect(db) as con:
        _check_whole(db, con)
        version = schema_version(con)
        _check_version(db, version)
        if version == SCHEMA_VERSION:
            return
        con.execute("BEGIN")
        for table in TABLES:
            con.execute(create_table_sql(table))
            have = {r[0] for r in con.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_name = ?", [table]).fetchall()}
            for name, sql in TABLES[table]:
                if name not in have:
                    con.execute(f"ALTER TABLE {table} ADD COLUMN {name} {sql}")
        published.fill(con)
        con.execute("CREATE TABLE IF NOT EXISTS schema_version(version INTEGER, upgraded_at TIMESTAMP)")
        con.execute("INSERT INTO schema_version VALUES (?, ?)", [SCHEMA_VERSION, now()])
        con.execute("COMMIT")


def check_db(db: str | Path, timeout: float | None = READER_TIMEOUT) -> None:
    """Raise DatabaseError (one line) if `db` exists but the arena cannot read it; an older schema is
    upgraded in place (the dashboard calls this before drawing a page). An absent file is fine: empty.
    A busy file is waited for up to `timeout` s (None: as long as it takes)."""
    db = Path(db)
    if not db.exists():
        return
    with connect(db, read_only=True, timeout=timeout) as con:
        older = _older(db, con)
    if older:
        init_db(db)


def _older(db: Path, con: duckdb.DuckDBPyConnection) -> bool:
    """Whether `db` (open as `con`) holds an older arena schema to upgrade; DatabaseError if it is no arena
    database or a newer one."""
    _check_whole(db, con)
    version = schema_version(con)
    _check_version(db, version)
    return 0 < version < SCHEMA_VERSION


# ---------------------------------------------------------------- writing
def upsert_run(db: str | Path, run_id: str, name: str, spec: dict, source: str, n_matches: int) -> None:
    """Create the run, or mark an existing one as running again (a resume)."""
    with connect(db) as con:
        con.execute("BEGIN")
        exists = con.execute("SELECT 1 FROM runs WHERE run_id = ?", [run_id]).fetchone()
        if exists:
            con.execute("UPDATE runs SET status = 'running', finished_at = NULL, n_matches = ?, pid = ?, host = ?, "
                        "heartbeat_at = ? WHERE run_id = ?",
                        [n_matches, os.getpid(), socket.gethostname(), now(), run_id])
        else:
            con.execute("INSERT INTO runs BY NAME SELECT ? AS run_id, ? AS name, ? AS spec, ? AS source, "
                        "'running' AS status, ? AS created_at, ? AS n_matches, 0 AS n_done, ? AS pid, ? AS host, "
                        "? AS heartbeat_at", [run_id, name, to_json(spec), source, now(), n_matches, os.getpid(),
                                              socket.gethostname(), now()])
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


def write_matches(db: str | Path, records: list[MatchRecord], replace: Collection[str] = ()) -> int:
    """Write a batch of finished matches in one transaction, all of them or none; returns how many went in.

    A match already in the database is written again only when its stored attempt failed (an error played
    again) or it is named in `replace` (a re-import): its earlier rows are deleted first. A match stored `ok`
    is never written a second time, so no match (and no `n_done`) is counted twice, whoever sends it again.
    The look-up reads only the batch's runs (DuckDB skips the others' row groups), and a match never
    attempted is only appended: a write costs about the same in a database of a million matches as in an
    empty one."""
    if not records:
        return 0
    tables = {
        "matches": [r.match for r in records], "seats": [s for r in records for s in r.seats],
        "turns": [t for r in records for t in r.turns], "metrics": [m for r in records for m in r.metrics],
    }
    arrow = {name: _table(rows, _TABLES[name]) for name, rows in tables.items()}
    batch = pa.table({"match_id": [r.match["match_id"] for r in records],
                      "run_id": [r.match["run_id"] for r in records]})
    with connect(db) as con:
        con.execute("BEGIN")
        try:
            con.register("batch_ids", batch)
            stored = dict(con.execute(
                "SELECT match_id, status FROM matches WHERE run_id IN (SELECT run_id FROM batch_ids) "
                "AND match_id IN (SELECT match_id FROM batch_ids)").fetchall())
            con.unregister("batch_ids")
            kept = [r for r in records if stored.get(r.match["match_id"]) != "ok" or r.match["match_id"] in replace]
            kept_ids = {r.match["match_id"] for r in kept}
            if len(kept) < len(records):  # matches already stored `ok` (another writer's): left out of every table
                arrow = {name: table.filter(pc.is_in(table["match_id"], pa.array(sorted(kept_ids), pa.string())))
                         for name, table in arrow.items()}
            stale = sorted(kept_ids & set(stored))
            done: Counter[str] = Counter()
            for r in kept:
                done[r.match["run_id"]] += (r.match["status"] == "ok") - (stored.get(r.match["match_id"]) == "ok")
            if stale:
                con.register("stale_ids", pa.table({"match_id": stale}))
                for name in _TABLES:
                    con.execute(f"DELETE FROM {name} WHERE match_id IN (SELECT match_id FROM stale_ids)")
                con.unregister("stale_ids")
            for name, table in arrow.items():
                if table.num_rows:
                    con.register(f"new_{name}", table)
                    con.execute(f"INSERT INTO {name} BY NAME SELECT * FROM new_{name}")
                    con.unregister(f"new_{name}")
            for run_id in {r.match["run_id"] for r in records}:  # every run of the batch beats its heart
                con.execute("UPDATE runs SET n_done = n_done + ?, heartbeat_at = ? WHERE run_id = ?",
                            [done[run_id], now(), run_id])
            con.execute("COMMIT")
        except Exception:
            con.execute("ROLLBACK")
            raise
    return len(kept)


def write_match(db: str | Path, match: dict, seats: list[dict], turns: list[dict], metrics: list[dict]) -> None:
    """Replace any earlier attempt of this match with this one, in one transaction."""
    write_matches(db, [MatchRecord(match, seats, turns, metrics)], replace={match["match_id"]})


# ---------------------------------------------------------------- reading
_READING: ContextVar[dict[str, duckdb.DuckDBPyConnection] | None] = ContextVar("reading", default=None)


@contextmanager
def reading(db: str | Path, check: bool = False) -> Iterator[None]:
    """Share one read-only connection among the `query`, `rows`, `stream` and `count_matches` calls made inside
    the block (in this thread or task): opening a large database costs 10-20 ms, more than most of a page's
    queries, and while runs write, each open waits for a gap between their flushes.
    Keep the block short, since a reader holds off the writer for as long as it stays open.
    With `check`, the connection first does `check_db`'s work (an older schema is upgraded, then reopened)."""
    key = str(Path(db).resolve())
    open_now = _READING.get() or {}
    if key in open_now or not Path(db).exists():
        yield
        return
    with ExitStack() as opened:
        con = opened.enter_context(connect(db, read_only=True))
        if check and _older(Path(db), con):
            opened.close()  # the upgrade writes: this process must not hold the file meanwhile
            init_db(db)
            con = opened.enter_context(connect(db, read_only=True))
        token = _READING.set({**open_now, key: con})
        try:
            yield
        finally:
            _READING.reset(token)


@contextmanager
def _reader(db: str | Path, timeout: float | None = READER_TIMEOUT) -> Iterator[duckdb.DuckDBPyConnection]:
    shared = (_READING.get() or {}).get(str(Path(db).resolve()))
    if shared is not None:
        yield shared
        return
    with connect(db, read_only=True, timeout=timeout) as con:
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


def stream(db: str | Path, sql: str, params: list | None = None, size: int = 2048) -> Iterator[tuple]:
    """Run a read-only query and yield its rows, fetched `size` at a time: for a scorer that folds the rows
    as they come instead of holding them all (consume it whole inside the block that reads)."""
    if not Path(db).exists():
        return
    with _reader(db) as con:
        result = con.execute(sql, params or [])
        while batch := result.fetchmany(size):
            yield from batch


def count_matches(db: str | Path, timeout: float | None = READER_TIMEOUT) -> int:
    if not Path(db).exists():
        return 0
    with _reader(db, timeout) as con:
        tables = {r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
        return con.execute("SELECT count(*) FROM matches").fetchone()[0] if "matches" in tables else 0
