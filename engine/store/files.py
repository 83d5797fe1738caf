"""Which database file, and whether it is one the arena can use: the errors a path earns before DuckDB opens it
(a directory, a FIFO, another program's file, a read-only file or folder) and after (cut short, damaged), each
said in one line with what to do."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import duckdb

ROOT = Path(__file__).resolve().parents[2]


class DatabaseError(Exception):
    """A database file the arena cannot use. The message is one line: what is wrong and what to do."""


class CannotWrite(DatabaseError):
    """A write the operating system refused (a full disk, a read-only file system): what was being
    written had not gone in, and the database is as it was before that write. The message is one line."""


# The operating system's refusals of a write, by errno and as DuckDB's messages quote them (its own errors carry
# no errno): a full disk (or quota), a file size limit, a read-only file system. (A permission denied may be a
# read's: the folders and files a command writes are checked before it starts, `check_path`.)
WRITE_REFUSED = {errno.ENOSPC: "No space left on device", errno.EDQUOT: "Disk quota exceeded",
                 errno.EFBIG: "File too large", errno.EROFS: "Read-only file system"}
NO_ROOM = {WRITE_REFUSED[errno.ENOSPC], WRITE_REFUSED[errno.EDQUOT], WRITE_REFUSED[errno.EFBIG]}


def write_refused(exc: BaseException | None) -> str | None:
    """The operating system's reason a write failed, from `exc` or the errors it was raised while handling (DuckDB's
    refused rollback of a commit the full disk failed hides that commit's error), or None when it is another error."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, OSError) and exc.errno in WRITE_REFUSED:
            return WRITE_REFUSED[exc.errno]
        if reason := next((r for r in WRITE_REFUSED.values() if r in str(exc)), None):
            return reason
        exc = exc.__cause__ or exc.__context__
    return None


def cannot_write(what: str | Path, reason: str) -> CannotWrite:
    """The one line for a write the operating system refused."""
    fix = "make room on its disk" if reason in NO_ROOM else "mount its file system writable"
    return CannotWrite(f"cannot write {what} ({reason}): {fix}, then try again; what was being "
                       f"written did not go in, and the database is as it was before it")


def default_db() -> Path:
    return Path(os.environ.get("ARENA_DB") or ROOT / "results.duckdb")


DUCKDB_MAGIC = b"DUCK"  # bytes 8 to 11 of every DuckDB file
SQLITE_MAGIC = b"SQLite format 3\0"
HEADER_BYTES = 3 * 4096  # DuckDB's file headers, before its first block


def not_readable(db: Path) -> DatabaseError:
    return DatabaseError(f"{db} is not a readable DuckDB database (corrupt, truncated or another kind of file): "
                         f"move it aside, or pass --db (or set ARENA_DB) to another path")


def damaged(exc: Exception) -> bool:
    """Whether DuckDB's error says the file's contents are broken (not that it is busy or absent)."""
    text = str(exc)
    return any(sign in text for sign in ("not a valid DuckDB database", "Could not read", "Corrupt", "checksum"))


def may_be_mid_write(db: Path, exc: Exception) -> bool:
    """A short read of a non-empty file can be another process growing it, not damage."""
    return "Could not read enough bytes" in str(exc) and db.is_file() and db.stat().st_size > 0


def unusable(db: Path, exc: Exception) -> DatabaseError:
    """DuckDB's reason why it cannot open `db`, as one line saying what to do."""
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    if db.is_dir():
        return DatabaseError(f"{db} is a directory, not a database file: pass --db (or set ARENA_DB) to a file path")
    if damaged(exc):
        return not_readable(db)
    if (reason := write_refused(exc)) in NO_ROOM:
        return cannot_write(db, reason)
    if "No such file or directory" in text or "Permission denied" in text or "Read-only file system" in text:
        return DatabaseError(f"cannot open {db} ({text.removeprefix('IO Error: ')}): pass --db (or set ARENA_DB) to "
                             f"a path in a writable folder")
    return DatabaseError(f"cannot open {db}: {text}")


def check_whole(db: Path, con: duckdb.DuckDBPyConnection) -> None:
    """A file cut short (a copy or a download that stopped) still opens: DuckDB reads a block only when a query
    reaches it, so a command could write to it or answer from what is left. Its header counts the blocks in use,
    each a block of the file (the total counts free ones too, which may lie past its end)."""
    used, block_size = con.execute("SELECT used_blocks, block_size FROM pragma_database_size()").fetchone()
    if db.stat().st_size < HEADER_BYTES + used * block_size:
        raise not_readable(db)


def check_path(db: Path, read_only: bool, header: bool = True) -> None:
    """Refuse at once what DuckDB would hang on or misread: a FIFO or a device (opening one blocks until another
    process opens its other end), another program's file (a SQLite file makes DuckDB fetch an extension over the
    network), and for a writer a read-only file or folder (DuckDB's `.wal` beside the file cannot be made).
    Without `header` the file is not opened (its first bytes unread): the caller's process has it open already,
    and closing a descriptor of the file would drop that connection's lock (`connections.connect`)."""
    if db.is_dir():
        raise DatabaseError(f"{db} is a directory, not a database file: pass --db (or set ARENA_DB) to a file path")
    if db.exists() and not db.is_file():
        raise DatabaseError(f"{db} is not a regular file (a FIFO, a socket or a device): pass --db (or set ARENA_DB) "
                            f"to a database file")
    if header and db.is_file() and db.stat().st_size >= len(SQLITE_MAGIC):
        with db.open("rb") as f:
            head = f.read(len(SQLITE_MAGIC))
        if head == SQLITE_MAGIC:
            raise DatabaseError(f"{db} is a SQLite database, not a DuckDB one: pass --db (or set ARENA_DB) to "
                                f"another path")
        if head[8:12] != DUCKDB_MAGIC:
            raise not_readable(db)
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
    check_path(Path(db), read_only=True)
