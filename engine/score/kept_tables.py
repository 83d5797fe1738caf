"""Results kept beside the database, in `<database>.tables/`: the one caching layer outside the database (the
other is its summaries, engine/store/summaries.py). Tables that depend on the whole history (a TrueSkill replay, a
Bradley-Terry bootstrap, a board built on them, a median) are kept per database state: `kept(db, key, compute)`
returns the table computed at the database's present state, by this process or another one (the run command
computes the default views after a run: engine/present/default_views.py), so a page never computes again what
nothing changed, and a new process's first view reads a file instead of the log. The TrueSkill replays of the
unfiltered selections are kept there too, across states (engine/score/saved_replays.py: `carried_path`).

A state is the code's version (`code_version`: a changed scorer computes its tables again), the database's creation
time and its write stamp (`store.generation`, raised at every write), known only
while the summaries are in step with the log (rows inserted around the writer bump no generation: then every call
computes). Each table is a file of its own, named by its state and its key: a view computed writes its own table
only, and a view read parses its own (one file of every table took 20 ms to write and 10 to parse again after
each new view, bench/dashboard.py). A write to the database makes every table stale at once, and the next table
kept removes those of earlier states (never a later one's: a table computed before a write may be saved after
it), so the folder never grows past the views asked since the last write. Floats are written as Python writes them
(`repr`), so a kept table is the computed one to the last bit. A table that cannot be saved (a read-only folder) is
held in this process for its state, so a read-only database computes each view once per process."""

from __future__ import annotations

import functools
import hashlib
import inspect
import json
import os
import threading
from collections.abc import Callable
from pathlib import Path

import pandas as pd

from engine import store
from engine.store import summaries
from engine.store.code_version import code_version

# the files read of one state, by version (mtime, size); None: a table that could not be saved, held here instead
_PARSED: dict[Path, tuple[tuple[int, int] | None, pd.DataFrame]] = {}
_PARSED_LOCK = threading.Lock()  # the pages' threads share it


def kept_tables_folder(db: str | Path) -> Path:
    return Path(f"{db}.tables")


def state(db: str | Path) -> list | None:
    """The database's state as [code version, created, generation], or None when its summaries are out of step with
    the log (a state that no generation tells apart): a table computed by other code is computed again."""
    if not Path(db).exists():
        return None
    # one read, so no write comes between its parts, and no connection shared (Launch shares none)
    in_step, created, generation = store.rows(db, f"SELECT {summaries.IN_STEP_SQL}, "
                                                  "(SELECT min(upgraded_at)::VARCHAR FROM schema_version), "
                                                  "(SELECT max(generation) FROM generation)",
                                              [summaries.summaries_code()])[0]
    return [code_version(), created, int(generation)] if in_step else None


def kept(db: str | Path, key: str, compute: Callable[[], pd.DataFrame]) -> pd.DataFrame:
    """The table `compute()` gives at the database's present state, computed once per state (and key). The state
    is read before computing: a write meanwhile files the table under the state it started from, which no later
    reader asks for."""
    now = state(db)
    if now is None:
        return compute()
    path = _table_path(db, now, key)
    table = _load(path, now, key)
    if table is None:
        table = compute()
        _save(path, now, key, table)
    return table


def kept_per_state(scorer: Callable[..., pd.DataFrame]) -> Callable[..., pd.DataFrame]:
    """`scorer(db, ...)` kept per database state (`kept`), keyed on its module, name and arguments however they
    are passed (defaults filled in)."""
    signature = inspect.signature(scorer)

    @functools.wraps(scorer)
    def table(db: str | Path, *args: object, **kwargs: object) -> pd.DataFrame:
        bound = signature.bind(db, *args, **kwargs)
        bound.apply_defaults()
        arguments = {name: value for name, value in bound.arguments.items() if name != "db"}
        return kept(db, f"{scorer.__module__}.{scorer.__qualname__} {arguments!r}",
                    lambda: scorer(db, *args, **kwargs))

    return table


def forget(db: str | Path) -> None:
    """Drop every table kept for `db`, held in this process too: the next view of each is computed again."""
    folder = kept_tables_folder(db)
    for path in _files(folder):
        _removed(path)
    with _PARSED_LOCK:
        for path in [path for path in _PARSED if path.parent == folder]:
            del _PARSED[path]


CARRIED = "carried-"  # the name's start of a file kept across states


def carried_path(db: str | Path, name: str) -> Path:
    """The file of results kept across the database's states (`name`.json: the TrueSkill replays, brought up to date
    as matches are added), which a table kept at a new state does not remove."""
    return kept_tables_folder(db) / f"{CARRIED}{name}.json"


def write_whole(path: Path, text: str) -> bool:
    """Write `text` to `path` through a temporary file renamed over it, so a reader never sees half of it; False
    when the folder refuses (read-only, a file in its place)."""
    temporary = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        path.parent.mkdir(exist_ok=True)
        temporary.write_text(text)
        os.replace(temporary, path)
    except OSError:
        _removed(temporary)
        return False
    return True


def _table_path(db: str | Path, now: list, key: str) -> Path:
    """A table's file: its database's name (the code version and creation time, hashed), its generation, then its key's
    name (hashed: a key is a selection's repr, of any length)."""
    return kept_tables_folder(db) / f"{_digest(now[:-1])}-{now[-1]}-{_digest(key)}.json"


def _digest(value: object) -> str:
    return hashlib.sha1(json.dumps(value).encode()).hexdigest()[:16]


def _files(folder: Path) -> list[Path]:
    """The folder's files, temporary ones of a process killed mid-write too."""
    try:
        return [folder / name for name in os.listdir(folder)]
    except OSError:
        return []


def _load(path: Path, now: list, key: str) -> pd.DataFrame | None:
    """The table kept in `path` for state `now` and `key`, parsed once per version of the file in this process;
    None when absent, unreadable or another's (a hash's collision)."""
    parsed = _PARSED.get(path)
    try:
        stat = path.stat()
    except OSError:  # absent: held in this process if it could not be saved
        return parsed[1].copy() if parsed is not None and parsed[0] is None else None
    try:
        version = (stat.st_mtime_ns, stat.st_size)
        if parsed is None or parsed[0] != version:
            saved = json.loads(path.read_text())
            if saved.get("state") != now or saved.get("key") != key:
                return None
            parsed = (version, _decoded(saved["table"]))
            _hold(path, parsed)
        return parsed[1].copy()
    except (OSError, ValueError, AttributeError, KeyError, TypeError, RecursionError):
        return None  # absent or unreadable (a file nested past the parser's depth too): computed again


def _hold(path: Path, parsed: tuple[tuple[int, int] | None, pd.DataFrame]) -> None:
    """Keep a table of `path`'s state in this process; the tables of other states are stale: let go."""
    with _PARSED_LOCK:
        for other in [other for other in _PARSED if not _same_state(other, path)]:
            del _PARSED[other]
        _PARSED[path] = parsed


def _save(path: Path, now: list, key: str, table: pd.DataFrame) -> None:
    """Write `table` to its file (`write_whole`), and remove the tables of earlier states (`_older`). A folder that
    refuses (read-only, a file in its place) leaves the table held in this process only. A value JSON does not
    know (a timestamp) is written as its text, which its column's dtype reads back."""
    if not write_whole(path, json.dumps({"state": now, "key": key, "table": _encoded(table)}, default=str)):
        _hold(path, (None, table.copy()))
        return
    for other in _files(path.parent):
        if _older(other, path):
            _removed(other)
    _removed(path.parent.with_name(f"{path.parent.name}.json"))  # the one file of every table, before


def _older(other: Path, path: Path) -> bool:
    """Whether file `other` of the folder is of a state before `path`'s: another database, or an earlier generation
    of this one (a table computed before a write and saved after it must not remove the newer state's tables).
    A name of no state (not the folder's) counts as older."""
    if other.name.startswith(CARRIED) and not other.name.endswith(".tmp"):
        return False
    mine, theirs = path.name.split("-"), other.name.split("-")
    return len(theirs) < 3 or theirs[0] != mine[0] or not theirs[1].isdigit() or int(theirs[1]) < int(mine[1])


def _removed(path: Path) -> None:
    """Remove a file, and let go of what this process parsed of it; one that cannot be removed (a folder in its
    place, a read-only folder) stays."""
    with _PARSED_LOCK:
        _PARSED.pop(path, None)
    try:
        path.unlink(missing_ok=True)
    except OSError:
        pass


def _same_state(path: Path, other: Path) -> bool:
    return path.name.split("-")[:2] == other.name.split("-")[:2]


def _encoded(table: pd.DataFrame) -> dict:
    """A table as JSON can hold it: its columns, their dtypes and their values (missing ones as null)."""
    return {"columns": [str(c) for c in table.columns], "dtypes": [str(d) for d in table.dtypes],
            "values": {str(c): [None if _missing(v) else v for v in table[c].tolist()] for c in table.columns}}


def _missing(value: object) -> bool:
    return not isinstance(value, list | tuple) and bool(pd.isna(value))


def _decoded(data: dict) -> pd.DataFrame:
    if not data["columns"]:  # a table of nothing as pandas makes it (its columns a RangeIndex, not an empty Index)
        return pd.DataFrame()
    frame = pd.DataFrame(data["values"], columns=data["columns"])
    return frame.astype(dict(zip(data["columns"], data["dtypes"], strict=True)))
