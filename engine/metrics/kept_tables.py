"""Tables that depend on the whole history (a TrueSkill replay, a Bradley-Terry bootstrap, a board built on them,
a median) kept per database state beside the database, in `<database>.tables.json`: `kept(db, key, compute)`
returns the table computed at the database's present state, by this process or another one (the run command
computes the default views after a run: engine/default_views.py), so a page never computes again what
nothing changed, and a new process's first view reads a file instead of the log.

A state is the database's creation time and its write stamp (`store.generation`, raised at every write), known only
while the summaries are in step with the log (rows inserted around the writer bump no generation: then every call
computes). The file holds the tables of one state: a write to the database makes them all stale at once, so it never
grows past the views asked since the last write. Floats are written as Python writes them (`repr`), so a kept table
is the computed one to the last bit."""

from __future__ import annotations

import functools
import inspect
import json
import os
import threading
from collections.abc import Callable
from pathlib import Path

import pandas as pd

from engine import store

FORMAT = 2  # tables kept by another layout of this file, or by an older formula, are computed again
_WRITING = threading.Lock()
_PARSED: dict = {}  # "last": the last file parsed, ((path, mtime, size), content)


def kept_tables_path(db: str | Path) -> Path:
    return Path(f"{db}.tables.json")


def state(db: str | Path) -> list | None:
    """The database's state as [created, generation], or None when its summaries are out of step with the log
    (a state that no generation tells apart)."""
    with store.reading(db):
        if not store.summaries_in_step(db):
            return None
        created, generation = store.rows(db, "SELECT (SELECT min(upgraded_at)::VARCHAR FROM schema_version), "
                                             "(SELECT max(generation) FROM generation)")[0]
    return [FORMAT, created, int(generation)]


def kept(db: str | Path, key: str, compute: Callable[[], pd.DataFrame]) -> pd.DataFrame:
    """The table `compute()` gives at the database's present state, computed once per state (and key). The state
    is read before computing: a write meanwhile files the table under the state it started from, which no later
    reader asks for."""
    now = state(db)
    if now is None:
        return compute()
    saved = _load(db)
    if saved.get("state") == now and key in saved["tables"]:
        return _decoded(saved["tables"][key])
    table = compute()
    _save(db, now, key, table)
    return table


def kept_per_state(scorer: Callable[..., pd.DataFrame]) -> Callable[..., pd.DataFrame]:
    """`scorer(db, ...)` kept per database state (`kept`), keyed on its name and arguments however they are
    passed (defaults filled in)."""
    signature = inspect.signature(scorer)

    @functools.wraps(scorer)
    def table(db: str | Path, *args: object, **kwargs: object) -> pd.DataFrame:
        bound = signature.bind(db, *args, **kwargs)
        bound.apply_defaults()
        arguments = {name: value for name, value in bound.arguments.items() if name != "db"}
        return kept(db, f"{scorer.__name__} {arguments!r}", lambda: scorer(db, *args, **kwargs))

    return table


def _load(db: str | Path) -> dict:
    """The file's content, parsed once per version of the file in this process (half a megabyte of JSON for the
    default views of 16 games: 10-60 ms a parse)."""
    path = kept_tables_path(db)
    try:
        stat = path.stat()
        version = (str(path.resolve()), stat.st_mtime_ns, stat.st_size)
        parsed_version, saved = _PARSED.get("last", (None, {}))
        if parsed_version != version:
            saved = json.loads(path.read_text())
            saved = saved if isinstance(saved.get("tables"), dict) else {}
            _PARSED["last"] = (version, saved)  # one assignment: a thread reads a version and its content together
        return saved
    except (OSError, ValueError, AttributeError):
        return {}  # absent or unreadable: computed again


def _save(db: str | Path, now: list, key: str, table: pd.DataFrame) -> None:
    """Add `table` to the file's tables of state `now` (dropping those of any other state); written to a temporary
    file and renamed, so a reader never sees half of it. A read-only directory only costs computing again."""
    path = kept_tables_path(db)
    with _WRITING:
        saved = _load(db)
        tables = {**saved["tables"], key: _encoded(table)} if saved.get("state") == now else {key: _encoded(table)}
        temporary = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}")
        try:
            temporary.write_text(json.dumps({"state": now, "tables": tables}))
            os.replace(temporary, path)
        except OSError:
            temporary.unlink(missing_ok=True)


def _encoded(table: pd.DataFrame) -> dict:
    """A table as JSON can hold it: its columns, their dtypes and their values (missing ones as null)."""
    return {"columns": [str(c) for c in table.columns], "dtypes": [str(d) for d in table.dtypes],
            "values": {str(c): [None if _missing(v) else v for v in table[c].tolist()] for c in table.columns}}


def _missing(value: object) -> bool:
    return not isinstance(value, list | tuple) and bool(pd.isna(value))


def _decoded(data: dict) -> pd.DataFrame:
    frame = pd.DataFrame(data["values"], columns=data["columns"])
    return frame.astype(dict(zip(data["columns"], data["dtypes"], strict=True)))
