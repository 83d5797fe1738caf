"""Connections to the database file, short-lived and retried while it is busy.

DuckDB admits one writing process per file and a reader blocks a writer: a writer waits as long as it takes
(saying every `WAIT_REPORT_EVERY` s who holds the file) and marks that it waits, so new readers stand back; a
reader gives up after `READER_TIMEOUT` s. Each connection's block cache is bounded.
"""

from __future__ import annotations

import os
import random
import re
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import duckdb

from engine.store.files import (
    DatabaseError,
    cannot_write,
    check_path,
    damaged,
    may_be_mid_write,
    unusable,
    write_refused,
)

_LOCK_HOLDER = re.compile(r"lock is held in (.*?) \(PID (\d+)\)")
WAIT_REPORT_EVERY = 10.0  # seconds between "still waiting" lines of a writer
# Longest sleep between two tries. A reader (a page) tries often, a writer backs off further: when the file
# comes free the page usually gets it first and is done at once; the writer has no one waiting on it.
READER_POLL, WRITER_POLL = 0.02, 0.25
READER_TIMEOUT = 30.0  # seconds a reader (a page, a scorer) waits for a busy file before it gives up


# DuckDB's refusal when this very process has the file open in the other mode (a group commit flushing in its
# thread while the run or the dashboard reads, or the reverse): the same wait as for another process's lock
_HELD_HERE = "different configuration than existing connections"


# A writer that finds the file busy marks it (`<db>.writer-waiting`, touched at every try) and a new reader stands
# back while the mark is fresh, for at most WRITER_FIRST s: readers share the file, so a stream of short readers
# (a dashboard loading page after page) could otherwise keep it held for as long as they go on, the writer waiting.
WRITER_FIRST = 0.5
# DuckDB keeps the blocks it read cached up to 80% of the machine's memory by default: a reader (a dashboard
# page, a scorer) that scans the turns of a large database would hold them all. A reader's cache is bounded;
# its larger operators spill to disk instead (bench/dashboard.py: the dashboard's RSS on 200k matches).
READER_MEMORY = "256MB"
# A dashboard process holds a good deal of Python before it reads (pandas, Streamlit, plotly, the pages' caches:
# bench/dashboard.py prints it), and a read takes its limit and a third more: a process that serves pages is started
# with READER_MEMORY_ENV set (`engine serve` sets it), and its readers are bounded tighter, so that it stays within
# the dashboard's memory budget at a million matches (READER_MEMORY there would not). Every read a page makes
# spills within it, a date range's too (read in parts: engine/score/agent_figures.py `Summed`); a batch reader (the
# run command's refresh of the kept tables, 50,000 matches at a time) keeps READER_MEMORY.
PAGES_READER_MEMORY = "128MB"
READER_MEMORY_ENV = "ARENA_READER_MEMORY"  # one value for the whole process: DuckDB refuses a second connection to a
# file open with another configuration (readers with two would wait on each other)
# The writer's too: at each commit DuckDB checkpoints the row groups it appended to, and with its default cache a
# long run's writer grows with the turn log (bench/engine.py prints a long run's peak RSS).
WRITER_MEMORY = "128MB"
MARK_FRESH = 1.0  # a waiting writer touches its mark at least every WRITER_POLL * 1.5 s; an older one is gone
UNREADABLE_TRIES = 5  # a file that reads short this many times in a row (a second apart) is truly damaged


# While this process serves pages, a file it read stays open, idle, for KEEP_OPEN s after its last read (an anchor).
# DuckDB then opens a connection to the file from the database already in memory, with the blocks it read cached;
# opening the file again costs a good part of a suite's headline. An anchor holds writers off like any reader. It is
# let go as soon as a writer of the arena marks that it waits (within ANCHOR_CHECK s), before this process writes, and
# when the file is replaced. A writer that does not mark (another tool) waits KEEP_OPEN s at most.
KEEP_OPEN = 3.0
ANCHOR_CHECK = 0.05


# DuckDB locks the file with POSIX record locks, which belong to the process and go with ANY descriptor of the file
# the process closes: reading the file's header (`check_path`) while a connection of this process has it open drops
# that connection's lock, and another process can then write under its reads (seen with a file kept open: its
# reads stayed stale for good). So the header is read only while no connection of this process has the file open,
# and none opens meanwhile: `_OPEN_HERE` holds them (by id, with their file), under `_OPEN_HERE_LOCK`; `stop_reads`
# interrupts them.
_OPEN_HERE: dict[int, tuple[Path, duckdb.DuckDBPyConnection]] = {}
_OPEN_HERE_LOCK = threading.Lock()


def _connect(db: Path, read_only: bool) -> duckdb.DuckDBPyConnection:
    """One try of DuckDB's open, held in `_OPEN_HERE`; `_close` lets it go."""
    with _OPEN_HERE_LOCK:
        con = duckdb.connect(str(db), read_only=read_only,
                             config={"memory_limit": reader_memory() if read_only else WRITER_MEMORY})
        _OPEN_HERE[id(con)] = (db.resolve(), con)
    return con


def _close(db: Path, con: duckdb.DuckDBPyConnection) -> None:
    with _OPEN_HERE_LOCK:
        con.close()
        _OPEN_HERE.pop(id(con), None)


def stop_reads(wait: float = 2.0) -> bool:
    """Interrupt every query this process's connections still run, again until they are closed, for at most `wait`
    s; whether none is left. For the dashboard's exit: a page's thread (Streamlit's are daemons) still inside DuckDB
    when the interpreter ends aborts the process ("terminate called ... FATAL: exception not rethrown")."""
    deadline = time.monotonic() + wait
    while True:
        with _OPEN_HERE_LOCK:
            live = [con for _, con in _OPEN_HERE.values()]
        if not live or time.monotonic() > deadline:
            return not live
        for con in live:
            try:
                con.interrupt()
            except duckdb.Error:  # closed since: its read is over
                pass
        time.sleep(0.02)


def _checked(db: Path, read_only: bool) -> None:
    """`check_path`, its header read only while this process has the file open nowhere."""
    with _OPEN_HERE_LOCK:
        check_path(db, read_only, header=not any(path == db.resolve() for path, _ in _OPEN_HERE.values()))


@dataclass
class _Anchor:
    con: duckdb.DuckDBPyConnection
    file: tuple[int, int]  # the file's device and inode: a file put in its place is another database
    last_read: float


_ANCHORS: dict[Path, _Anchor] = {}
_ANCHORS_LOCK = threading.Lock()
_KEEPING = threading.Event()  # set within `keeping_open`


def reader_memory() -> str:
    """The memory limit of this process's readers: READER_MEMORY unless the process was started to serve pages
    (READER_MEMORY_ENV)."""
    return os.environ.get(READER_MEMORY_ENV) or READER_MEMORY


@contextmanager
def serving_pages() -> Iterator[None]:
    """While this process serves the dashboard's pages (`engine serve`, the bench's dashboard), the files it reads
    stay open between reads (KEEP_OPEN)."""
    with keeping_open():
        yield


@contextmanager
def keeping_open() -> Iterator[None]:
    """Within the block, the files this process reads stay open between reads (KEEP_OPEN): for a series of reads
    each on its own connection, as pages make, and the views the run command keeps after a run (an open and a close
    are slow on a large file, and a run's views make dozens of them). Nested blocks are one."""
    if _KEEPING.is_set():
        yield
        return
    _KEEPING.set()
    try:
        yield
    finally:
        _KEEPING.clear()
        for db in list(_ANCHORS):
            _let_go(db)


def _file_of(db: Path) -> tuple[int, int] | None:
    try:
        found = db.stat()
    except OSError:
        return None
    return found.st_dev, found.st_ino


def _let_go(db: Path) -> None:
    """Close `db`'s anchor, if it has one (the connections of reads still going keep the file until they end)."""
    with _ANCHORS_LOCK:
        anchor = _ANCHORS.pop(db.resolve(), None)
        if anchor is not None:
            _close(db, anchor.con)


def _keep_open(db: Path) -> None:
    """After a read of `db` within `keeping_open`: its anchor's clock starts again, or `db` gets one (opened
    while the read's connection is, so from the database in memory)."""
    if not _KEEPING.is_set():
        return
    db = db.resolve()
    with _ANCHORS_LOCK:
        anchor = _ANCHORS.get(db)
        if anchor is not None:
            anchor.last_read = time.monotonic()
            return
        file = _file_of(db)
        if file is None:
            return
        try:
            con = _connect(db, read_only=True)
        except duckdb.Error:
            return  # a reader without an anchor only opens slower
        starts_watch = not _ANCHORS
        _ANCHORS[db] = _Anchor(con, file, time.monotonic())
    if starts_watch:
        threading.Thread(target=_watch_anchors, name="anchors", daemon=True).start()


def _watch_anchors() -> None:
    """Let each anchor go once idle for KEEP_OPEN s or once a writer waits for its file; ends with the last one."""
    while True:
        time.sleep(ANCHOR_CHECK)
        with _ANCHORS_LOCK:
            if not _ANCHORS:
                return
            idle = [db for db, a in _ANCHORS.items() if time.monotonic() - a.last_read > KEEP_OPEN]
        for db in idle + [db for db in list(_ANCHORS) if _writer_waiting(db)]:
            _let_go(db)


def _anchor_still_good(db: Path) -> None:
    """Before a connection opens `db`: an anchor on a file since deleted or replaced would open the old one."""
    anchor = _ANCHORS.get(db.resolve())
    if anchor is not None and anchor.file != _file_of(db):
        _let_go(db)


def _waiting_mark(db: Path) -> Path:
    return db.with_name(db.name + ".writer-waiting")


def writer_waiting(db: str | Path) -> bool:
    """Whether a writer waits for `db` now: a long read (an export's) gives way between its reads."""
    return _writer_waiting(Path(db))


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


@contextmanager
def connect(db: str | Path, read_only: bool = False,
            timeout: float | None = READER_TIMEOUT) -> Iterator[duckdb.DuckDBPyConnection]:
    """A short-lived connection, retried with jittered backoff while another process holds the file; every
    `WAIT_REPORT_EVERY` s of waiting it says on stderr who holds it.

    A writer (`read_only=False`) waits as long as it takes (`timeout=None`): a finished match must not be
    lost to a reader that holds the file. A reader gives up after `timeout` s (None: it waits as long, as a
    run's first look does). A file DuckDB cannot open raises DatabaseError (one line), a write the operating system
    refuses (a full disk) CannotWrite (one line)."""
    db = Path(db)
    _checked(db, read_only)
    if not read_only:
        timeout = None
        _let_go(db)  # this process's own anchor would hold its writer off
    else:
        _anchor_still_good(db)
    start = time.monotonic()
    while read_only and _writer_waiting(db) and time.monotonic() - start < WRITER_FIRST:
        _let_go(db)
        time.sleep(READER_POLL)
    try:
        con = _open(db, read_only, timeout, start)
    finally:
        if not read_only:
            _waiting_mark(db).unlink(missing_ok=True)
    _note_wait(read_only, time.monotonic() - start)
    try:
        yield con
        if read_only:
            _keep_open(db)
    except duckdb.Error as exc:
        if damaged(exc):  # the header and catalog read, a table's blocks not: cut short or overwritten
            raise unusable(db, exc) from None
        if reason := write_refused(exc):  # a full disk: DuckDB rolled the transaction back, its file stays as it was
            raise cannot_write(db, reason) from None
        raise
    finally:
        _close(db, con)


def _open(db: Path, read_only: bool, timeout: float | None, start: float) -> duckdb.DuckDBPyConnection:
    """`connect`'s tries, until DuckDB opens the file; a waiting writer marks it at every try."""
    next_report = start + WAIT_REPORT_EVERY
    delay = 0.01
    unreadable_tries = 0
    while True:
        try:
            return _connect(db, read_only)
        except (duckdb.IOException, duckdb.ConnectionException) as exc:
            if not _is_lock_error(exc):
                if may_be_mid_write(db, exc) and unreadable_tries < UNREADABLE_TRIES:
                    unreadable_tries += 1  # another process may be checkpointing it: look again before judging
                    time.sleep(0.2)
                    continue
                raise unusable(db, exc) from None
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
            raise unusable(db, exc) from None


def _mark_waiting(db: Path) -> None:
    try:
        _waiting_mark(db).touch()
    except OSError:
        pass  # a folder this process cannot write in: the writer only loses its turn ahead of new readers


LONGEST_WAIT = {"read": 0.0, "write": 0.0}  # seconds this process waited for the file, for the run's summary


def _note_wait(read_only: bool, waited: float) -> None:
    kind = "read" if read_only else "write"
    LONGEST_WAIT[kind] = max(LONGEST_WAIT[kind], waited)
