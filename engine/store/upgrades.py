"""A database made by an older version of the arena, brought up to this one in place: the tables and columns it
lacks are added, the rows those columns would misread are filled, and the papers' tables are written. A database
made by a newer version, or by something else, is refused in one line."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import duckdb

from engine.store import connections, summaries, summary_registry
from engine.store.files import DatabaseError, check_path, check_whole
from engine.store.schema import SCHEMA_VERSION, TABLES, create_table_sql, now, schema_version


def _played_under_the_first_rules(con: duckdb.DuckDBPyConnection) -> None:
    """Matches stored before matches.rules_version were played under each game's first rules (version 1)."""
    con.execute("UPDATE matches SET rules_version = 1 WHERE rules_version IS NULL")


def _battle_royale_rounds(con: duckdb.DuckDBPyConnection) -> None:
    """Battle Royale's `max_turns` (the shots after which the survivors share the win) was renamed `rounds`, its
    meaning kept: a stored match names it as the game reads it now, so it replays, rescores and is labelled."""
    con.execute("""UPDATE matches SET params = json_merge_patch(params,
                       json_object('rounds', params->'max_turns', 'max_turns', NULL))
                   WHERE game = 'battle_royale' AND json_exists(params, '$.max_turns')""")


# the papers' summaries version 16 held in its schema, before the papers registered them
_V16_PAPER_SUMMARIES = ("seat_summary", "gamabench_summary", "step_summary")


def _papers_summaries_kept(con: duckdb.DuckDBPyConnection) -> None:
    """The papers' summaries the database held in the schema of version 16 are recorded as kept: their rows stay,
    and a process that has not registered them may not write here (engine/store/summary_registry.py)."""
    con.execute("INSERT INTO kept_summaries SELECT table_name FROM information_schema.tables "
                "WHERE table_name IN (SELECT unnest(?)) AND table_name NOT IN (SELECT name FROM kept_summaries)",
                [list(_V16_PAPER_SUMMARIES)])


def _played_as_written(con: duckdb.DuckDBPyConnection) -> None:
    """Matches stored before matches.mirror were played with the seats as their lineup lists them, none paired."""
    con.execute("UPDATE matches SET mirror = false WHERE mirror IS NULL")


# What an upgrade does beyond adding the missing tables and columns, with the schema version that brought each
# step: a database older than that version goes through it, in order, inside the upgrade's transaction. The summaries
# need no step: they are keyed on the code that computes them, and rebuilt after the steps when other code computed
# them (`summaries.rebuild_for_this_code`).
FILLS: tuple[tuple[int, Callable[[duckdb.DuckDBPyConnection], None]], ...] = (
    (6, _played_under_the_first_rules),
    (6, _battle_royale_rounds),
    (17, _papers_summaries_kept),
    (18, _played_as_written),
)


def _check_version(db: Path, version: object) -> None:
    if version is None:
        raise DatabaseError(f"{db} is a DuckDB database of something else (no arena tables): pass --db (or set "
                            f"ARENA_DB) to another path")
    if type(version) is not int or version < 0:  # its table edited outside the arena: no version to compare
        raise DatabaseError(f"{db} holds {str(version)[:40]!r} as its schema version, not a version number: it was "
                            f"changed outside the arena; restore it from a copy, or pass --db to another path")
    if version > SCHEMA_VERSION:
        raise DatabaseError(f"{db} was made by a newer version of the arena (schema {version}, this code knows "
                            f"{SCHEMA_VERSION}): update the code (git pull), or pass --db to another path")


def _check_tables(db: Path, con: duckdb.DuckDBPyConnection) -> None:
    """A database of this version holds every table: one that lacks some was changed outside the arena (a
    command would stop on it with DuckDB's own error)."""
    have = {r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
    if missing := [table for table in TABLES if table not in have]:
        raise DatabaseError(f"{db} lacks the table(s) {', '.join(missing)} of its schema (version {SCHEMA_VERSION}): "
                            f"it was changed outside the arena; restore it from a copy, or pass --db to another path")


def init_db(db: str | Path) -> None:
    """Create the tables, or bring a database made by an older version up to this one, in place."""
    db = Path(db)
    try:
        db.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DatabaseError(f"cannot create the folder of {db} ({exc.strerror}): pass --db (or set ARENA_DB) "
                            f"to a path in a writable folder") from None
    with connections.connect(db) as con:
        check_whole(db, con)
        version = schema_version(con)
        _check_version(db, version)
        if version == SCHEMA_VERSION:
            _check_tables(db, con)
            if summaries.computed_by_other_code(con):
                con.execute("BEGIN")
                summaries.rebuild_for_this_code(con)
                con.execute("COMMIT")
            return
        con.execute("BEGIN")
        for table in TABLES:
            con.execute(create_table_sql(table))
            have = {r[0] for r in con.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_name = ?", [table]).fetchall()}
            for name, sql in TABLES[table]:
                if name not in have:
                    con.execute(f"ALTER TABLE {table} ADD COLUMN {name} {sql}")
        for brought_by, fill in FILLS:
            if 0 < version < brought_by:  # a new database (0) has no old rows
                fill(con)
        for fill_reference_rows in summary_registry.reference_rows():
            fill_reference_rows(con)
        summaries.ensure_state(con)
        if version == 0:  # a new database keeps every summary registered in this process from the start
            summaries.keep_registered(con)
        summaries.rebuild_for_this_code(con)
        con.execute("CREATE TABLE IF NOT EXISTS schema_version(version INTEGER, upgraded_at TIMESTAMP)")
        con.execute("INSERT INTO schema_version VALUES (?, ?)", [SCHEMA_VERSION, now()])
        con.execute("COMMIT")


def needs_upgrade(db: Path, con: duckdb.DuckDBPyConnection) -> bool:
    """Whether `db` (open as `con`) holds an older arena schema to upgrade, or summaries other code computed in a
    file this process may write (a read-only one is read from the log); DatabaseError if it is no arena database, a
    newer one or a file cut short."""
    check_whole(db, con)
    version = schema_version(con)
    _check_version(db, version)
    if version == SCHEMA_VERSION:
        _check_tables(db, con)
        return summaries.computed_by_other_code(con) and _writable(db)
    return 0 < version < SCHEMA_VERSION


def _writable(db: Path) -> bool:
    try:
        check_path(db, read_only=False, header=False)
    except DatabaseError:
        return False
    return True


def check_db(db: str | Path, timeout: float | None = connections.READER_TIMEOUT) -> None:
    """Raise DatabaseError (one line) if `db` exists but the arena cannot read it; an older schema is
    upgraded in place (the dashboard calls this before drawing a page). An absent file is fine: empty.
    A busy file is waited for up to `timeout` s (None: as long as it takes)."""
    db = Path(db)
    if not db.exists():
        return
    with connections.connect(db, read_only=True, timeout=timeout) as con:
        older = needs_upgrade(db, con)
    if older:
        init_db(db)
