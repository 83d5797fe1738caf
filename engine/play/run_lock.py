"""One process plays a run at a time.

Two processes playing the same run at once (two terminals, or Launch and a terminal) would each play and
write every match. The process that plays a run holds an exclusive `flock` on two lock files of the run, from before
it touches the run's row until the run has ended; a second one is refused in one line naming the holder, which
the files record (pid, host, command). One is beside the database, `<db>.runs/<hash of the run id>.lock`; the
other is named after the database file's identity (its device and inode), not its path,
`<temporary folder>/arena-runs/<device>-<inode>/<hash of the run id>.lock`: two hard links to one database
are one database (a new database is made first, its tables only, so that it has an identity).
The kernel releases the lock when its process ends however it ends (kill -9, out of memory, a crash),
so a dead player never blocks the resume, as a PID file left behind would.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import socket
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from engine import store
from engine.store import DatabaseError
from engine.store.files import cannot_write, write_refused

LOCKS = Path(tempfile.gettempdir()) / "arena-runs"  # a folder per database file, named after its device and inode

# A look from the Launch page takes the lock for an instant: a player that starts in that instant tries again
# for this long before it believes another player has the run.
TAKE_FOR = 0.5
HOLDER_WRITTEN_WITHIN = 1.0  # seconds a new holder takes at most to write its name into the file


class RunAlreadyPlaying(Exception):
    """Another live process plays this run. The message is one line naming it."""


def lock_paths(db: str | Path, run_id: str) -> tuple[Path, Path]:
    """The run's two lock files, for the database file `db` (which exists): beside the path (every process naming
    the file by it finds this one, whatever its temporary folder), and named after the file's identity in the
    temporary folder (every path to the file finds this one: a hard link in another folder too)."""
    db = Path(db).resolve()
    name = f"{hashlib.sha1(run_id.encode()).hexdigest()[:16]}.lock"
    file = db.stat()
    return db.with_name(db.name + ".runs") / name, LOCKS / f"{file.st_dev}-{file.st_ino}" / name


@contextmanager
def playing(db: str | Path, run_id: str) -> Iterator[None]:
    """Hold the run's locks for the block; RunAlreadyPlaying if another process holds one."""
    if not Path(db).exists():  # made first, so that it has an identity
        store.init_db(db)
    held = []
    try:
        for path in lock_paths(db, run_id):
            held.append(fd := _open(path))
            deadline = time.monotonic() + TAKE_FOR
            while not _take(fd):
                if time.monotonic() >= deadline:
                    raise RunAlreadyPlaying(already_playing(run_id, _holder(path)))
                time.sleep(0.05)
            _name_holder(fd, path)
        yield
    finally:
        for fd in held:
            os.close(fd)  # releases the lock


def holder(db: str | Path, run_id: str) -> str | None:
    """Who plays the run now ('PID 123 on host (command)'), or None when nobody does."""
    if not Path(db).exists():
        return None
    for path in lock_paths(db, run_id):
        if not path.exists():
            continue
        fd = _open(path)
        try:
            if not _take(fd):
                return _holder(path)
        finally:
            os.close(fd)
    return None


def already_playing(run_id: str, who: str) -> str:
    return (f"run {run_id} is already being played by {who}: wait for it to end, or stop it (Ctrl-C in its "
            f"terminal, Cancel on the Launch page), then the same command resumes it")


def _open(path: Path) -> int:
    try:
        if not LOCKS.is_dir():
            LOCKS.mkdir(exist_ok=True)
            LOCKS.chmod(0o1777)  # as the temporary folder itself: every user's runs lock in it
        path.parent.mkdir(parents=True, exist_ok=True)
        return os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise DatabaseError(f"cannot make the run's lock {path} ({exc.strerror}): pass --db (or set ARENA_DB) to a "
                            f"path in a writable folder") from None


def _name_holder(fd: int, path: Path) -> None:
    """Write this process into the lock file it holds, for a second player's refusal to name it."""
    try:
        os.ftruncate(fd, 0)
        os.write(fd, json.dumps({"pid": os.getpid(), "host": socket.gethostname(),
                                 "command": " ".join(sys.argv)[:120]}).encode())
    except OSError as exc:  # a full disk: the run could not write its matches either
        raise cannot_write(path, write_refused(exc) or exc.strerror) from None


def _take(fd: int) -> bool:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _holder(path: Path) -> str:
    """The holder the lock file names (it writes its name just after taking the lock: wait for it a moment)."""
    deadline = time.monotonic() + HOLDER_WRITTEN_WITHIN
    while True:
        try:
            named = json.loads(path.read_text(encoding="utf-8"))
            return f"PID {named['pid']} on {named['host']} ({named['command']})"
        except (OSError, ValueError, KeyError, TypeError):
            if time.monotonic() >= deadline:
                return "another process"
            time.sleep(0.05)
