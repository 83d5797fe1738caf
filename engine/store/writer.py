"""The writer: runs created, resumed and finished, and finished matches written a batch per transaction from
Arrow tables, so a match is in the database whole or not at all, and at most once."""

from __future__ import annotations

import json
import os
import re
import socket
from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.compute as pc

from engine.agents.agent_names import SEAT_COLUMNS, match_protocol, seat_names
from engine.secrets import redact_together
from engine.store import connections, summaries
from engine.store.schema import MATCH_SCHEMA, METRIC_SCHEMA, SEAT_SCHEMA, TURN_SCHEMA, now, to_json


def upsert_run(db: str | Path, run_id: str, name: str, spec: dict, source: str, n_matches: int) -> None:
    """Create the run, or mark an existing one as running again (a resume)."""
    with connections.connect(db) as con:
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
        summaries.bump(con)
        con.execute("COMMIT")


def finish_run(db: str | Path, run_id: str, status: str) -> None:
    with connections.connect(db) as con:
        con.execute("BEGIN")
        con.execute("UPDATE runs SET status = ?, finished_at = ? WHERE run_id = ?", [status, now(), run_id])
        summaries.bump(con)
        con.execute("COMMIT")


def match_statuses(db: str | Path, run_id: str) -> dict[str, str]:
    """Every match of the run already in the database, and its status: `ok` ones are done, the others
    (errors) are played again and replace their earlier attempt."""
    with connections.connect(db) as con:
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

    def __post_init__(self) -> None:
        """Every text of the match, read together, redacted (engine.secrets): whoever made the record (a run, an
        import, a rescore), no key reaches the database, a page, an export or the run's output. A match of bots
        alone holds no provider's text."""
        if self.seats and all(str(seat.get("agent", "")).startswith("bot:") for seat in self.seats):
            return
        where = [(row, name) for row in (self.match, *self.seats, *self.turns, *self.metrics)
                 for name, value in row.items() if isinstance(value, str)]
        for (row, name), text in zip(where, redact_together([row[name] for row, name in where]), strict=True):
            row[name] = text


_TABLES = {"matches": MATCH_SCHEMA, "seats": SEAT_SCHEMA, "turns": TURN_SCHEMA, "metrics": METRIC_SCHEMA}
_SUMMARIZED = ("matches", "seats", "turns", "metrics")  # what the summaries are computed from
_ATTEMPTED = ("matches", "seats", "turns")  # what the summaries of every attempt (`summaries.add_attempts`) are


def match_tables(records: list[MatchRecord]) -> dict[str, pa.Table]:
    """The rows of `records` as `write_tables` takes them: an Arrow table per table of the log. Built where the
    records are made (an import's readers build theirs side by side), they cross between processes as buffers."""
    rows = {
        "matches": [r.match for r in records], "seats": [s for r in records for s in r.seats],
        "turns": [t for r in records for t in r.turns], "metrics": [m for r in records for m in r.metrics],
    }
    return {name: _table(table_rows, _TABLES[name]) for name, table_rows in rows.items()}


def write_matches(db: str | Path, records: list[MatchRecord], replace: Collection[str] = ()) -> int:
    """`write_tables` of the records' rows."""
    return write_tables(db, match_tables(records), replace) if records else 0


def write_tables(db: str | Path, arrow: dict[str, pa.Table], replace: Collection[str] = ()) -> int:
    """Write a batch of finished matches (`match_tables`) in one transaction, all of them or none; returns how many
    went in.

    A match already in the database is written again only when its stored attempt failed (an error played
    again) or it is named in `replace` (a re-import): its earlier rows are deleted first. A match stored `ok`
    is never written a second time, so no match (and no `n_done`) is counted twice, whoever sends it again.
    The look-up reads only the batch's runs (DuckDB skips the others' row groups), and a match never
    attempted is only appended: a write costs about the same in a database of a million matches as in an
    empty one."""
    matches = arrow["matches"].select(["match_id", "run_id", "status"]).to_pylist()
    if not matches:
        return 0
    arrow = arrow | {"seats": _named(arrow["seats"], arrow["matches"])}
    batch = arrow["matches"].select(["match_id", "run_id"])
    with connections.connect(db) as con:
        con.execute("BEGIN")
        try:
            summaries.keep_registered(con)  # the papers' summaries, built before the batch is added to them
            con.register("batch_ids", batch)
            stored = dict(con.execute(
                "SELECT match_id, status FROM matches WHERE run_id IN (SELECT run_id FROM batch_ids) "
                "AND match_id IN (SELECT match_id FROM batch_ids)").fetchall())
            con.unregister("batch_ids")
            to_write = [m for m in matches if stored.get(m["match_id"]) != "ok" or m["match_id"] in replace]
            ids_to_write = {m["match_id"] for m in to_write}
            if len(to_write) < len(matches):  # matches already stored `ok` (another writer's): left out of every table
                arrow = {name: table.filter(pc.is_in(table["match_id"], pa.array(sorted(ids_to_write), pa.string())))
                         for name, table in arrow.items()}
            stale = sorted(ids_to_write & set(stored))
            done: Counter[str] = Counter()
            for m in to_write:
                done[m["run_id"]] += (m["status"] == "ok") - (stored.get(m["match_id"]) == "ok")
            if stale:
                con.register("stale_ids", pa.table({"match_id": stale}))
                counted = [m for m in to_write if stored.get(m["match_id"]) == "ok"]  # a re-import
                if counted:
                    _uncount(con, counted)
                for name in _ATTEMPTED:
                    con.execute(f"CREATE OR REPLACE TEMP VIEW stale_{name} AS SELECT * FROM {name} WHERE match_id IN "
                                "(SELECT match_id FROM stale_ids)")
                summaries.add_attempts(con, "stale_matches", "stale_seats", "stale_turns", sign=-1)  # ok or errored
                for name in _ATTEMPTED:
                    con.execute(f"DROP VIEW stale_{name}")
                for name in _TABLES:
                    con.execute(f"DELETE FROM {name} WHERE match_id IN (SELECT match_id FROM stale_ids)")
                con.unregister("stale_ids")
            for name, table in arrow.items():
                con.register(f"new_{name}", table)
                if table.num_rows:
                    con.execute(f"INSERT INTO {name} BY NAME SELECT * FROM new_{name}")
            summaries.add_matches(con, "new_matches", "new_seats", "new_turns", "new_metrics")
            summaries.add_attempts(con, "new_matches", "new_seats", "new_turns")
            for name in arrow:
                con.unregister(f"new_{name}")
            for run_id in {m["run_id"] for m in matches}:  # every run of the batch beats its heart
                con.execute("UPDATE runs SET n_done = n_done + ?, heartbeat_at = ? WHERE run_id = ?",
                            [done[run_id], now(), run_id])
            con.execute("COMMIT")
        except Exception:
            con.execute("ROLLBACK")
            raise
    return len(to_write)


def _named(seats: pa.Table, matches: pa.Table) -> pa.Table:
    """The seats with their agents' names (`seats.agent_name`): each a pure function of its seat and its match's
    protocol (engine/agents/agent_names.py), fixed as the match is written, so no later write renames it."""
    protocol = {row["match_id"]: match_protocol(row["game"], json.loads(row["params"] or "{}"))
                for row in matches.select(["match_id", "game", "params"]).to_pylist()}
    column = seats.schema.get_field_index("agent_name")
    protocols = [protocol[match_id] for match_id in seats.column("match_id").to_pylist()]
    names = pa.array(seat_names(seats.select(list(SEAT_COLUMNS)).to_pylist(), protocols), pa.string())
    return seats.set_column(column, seats.schema.field(column), names)


def _uncount(con: duckdb.DuckDBPyConnection, matches: list[dict[str, Any]]) -> None:
    """Take the stored `ok` attempts of `matches` (a re-import replaces them) out of the summaries, before their
    rows are deleted; an errored attempt was never in them. The runs narrow the look-up as in `write_matches`."""
    con.register("counted_ids", pa.table({"match_id": [m["match_id"] for m in matches],
                                          "run_id": [m["run_id"] for m in matches]}))
    for name in _SUMMARIZED:
        con.execute(f"CREATE OR REPLACE TEMP VIEW stale_{name} AS SELECT * FROM {name} WHERE match_id IN "
                    "(SELECT match_id FROM counted_ids)" + (" AND run_id IN (SELECT run_id FROM counted_ids)"
                                                            if name == "matches" else ""))
    summaries.add_matches(con, "stale_matches", "stale_seats", "stale_turns", "stale_metrics", sign=-1)
    for name in _SUMMARIZED:
        con.execute(f"DROP VIEW stale_{name}")
    con.unregister("counted_ids")


def write_match(db: str | Path, match: dict, seats: list[dict], turns: list[dict], metrics: list[dict]) -> None:
    """Replace any earlier attempt of this match with this one, in one transaction."""
    write_matches(db, [MatchRecord(match, seats, turns, metrics)], replace={match["match_id"]})


def rebuild_summaries(db: str | Path) -> None:
    """The summaries computed again from the whole log, in one transaction (`engine rescore`, a bulk load)."""
    with connections.connect(db) as con:
        con.execute("BEGIN")
        try:
            summaries.rebuild(con)
            con.execute("COMMIT")
        except Exception:
            con.execute("ROLLBACK")
            raise
