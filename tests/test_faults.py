"""Faults of the machine, not of the input: a full disk, a read-only folder, a schema version that is no number, an
export killed mid-build, two hard links to one database. Every command says each in one line with its documented
exit code (`EXIT_CODES`), and the database is left as it was.

A full disk is a small tmpfs filled up when this process may mount one (root), else a file size limit
(RLIMIT_FSIZE) on the command's process; a read-only folder is a read-only bind mount (root: permissions do not
stop root), else a folder without write permission."""

from __future__ import annotations

import asyncio
import os
import resource
import shutil
import signal
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import duckdb
import pytest
from streamlit.testing.v1 import AppTest

from engine import store
from engine.cli.main import EXIT_BAD_INPUT, EXIT_CANNOT_WRITE, EXIT_CODES
from engine.play import run_lock
from engine.play.runner import run_spec
from engine.play.spec import parse_spec
from engine.present.export import export_site

pytestmark = pytest.mark.slow

RECORDS = Path(__file__).parent.parent / "engine" / "papers" / "gamabench" / "raw_results"
ROOT = os.geteuid() == 0
SPEC = {"name": "faults", "seed": 1, "repeats": 6, "games": [
    {"game": "tictactoe", "lineups": [["bot:random", "bot:equilibrium"]]}]}


def _played(db: Path, name: str = "faults") -> None:
    asyncio.run(run_spec(parse_spec(SPEC | {"name": name}), db, progress=False))


def _rows(db: Path) -> tuple:
    """The results the database holds, read as a command reads it (its WAL replayed). A write before the refused
    one stays (under a file size limit, a new run's row fits where its first matches do not)."""
    return tuple(store.rows(db, f"SELECT count(*) FROM {table}")[0][0] for table in ("matches", "turns", "metrics"))


def _command(argv: list[str], limit: int | None = None) -> subprocess.CompletedProcess:
    """`python -m engine ARGV` in its own process; `limit`: the largest file it may write (RLIMIT_FSIZE, a write past
    it refused as a full disk refuses it)."""
    def limited() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # the write fails (EFBIG) instead of the process dying
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return subprocess.run([sys.executable, "-m", "engine", *argv], capture_output=True, text=True, timeout=300,
                          cwd=store.ROOT, preexec_fn=limited if limit is not None else None)


def _one_line(done: subprocess.CompletedProcess, code: int, says: str) -> None:
    err = done.stderr.strip()
    assert done.returncode == code, (done.returncode, err[-3000:])
    assert "Traceback" not in err and err.count("\n") == 0 and err.startswith("error: ") and says in err, err


@contextmanager
def _mounted(*mount: str, target: Path):
    subprocess.run(["mount", *mount, str(target)], check=True, capture_output=True)
    try:
        yield
    finally:
        subprocess.run(["umount", "-l", str(target)], check=True, capture_output=True)


def _databases(disk: Path) -> None:
    """`r.duckdb` holding a run, and `old.duckdb` holding one under the schema version before this one (the next
    command or page that opens it upgrades it, writing)."""
    _played(disk / "r.duckdb")
    _played(disk / "old.duckdb")
    with store.connect(disk / "old.duckdb") as con:
        con.execute("UPDATE schema_version SET version = ?", [store.SCHEMA_VERSION - 1])


@contextmanager
def _file_size_limit(limit: int | None):
    """This process's writes past `limit` bytes of a file refused (EFBIG), for the block (None: no limit)."""
    if limit is None:
        yield
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    was = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, was)


@pytest.fixture
def full_disk(tmp_path):
    """(a folder, the file size limit a command runs under): its databases (`_databases`); then no byte more fits."""
    disk = tmp_path / "disk"
    disk.mkdir()
    if not ROOT:
        _databases(disk)
        yield disk, 4096
        return
    with _mounted("-t", "tmpfs", "-o", "size=16m", "tmpfs", target=disk):
        _databases(disk)
        with (disk / "filler").open("wb") as filler:
            try:
                while True:
                    filler.write(b"\0" * 65536)
                    filler.flush()
            except OSError:
                pass
        yield disk, None


@pytest.fixture
def read_only_folder(tmp_path):
    """A folder holding a database with a run (and the ratings saved beside it), that no process may write in."""
    folder, view = tmp_path / "folder", tmp_path / "view"
    folder.mkdir()
    _played(folder / "r.duckdb")
    if not ROOT:
        folder.chmod(0o555)
        yield folder
        folder.chmod(0o755)
        return
    view.mkdir()
    with _mounted("--bind", "-o", "ro", str(folder), target=view):
        subprocess.run(["mount", "-o", "remount,ro,bind", str(view)], check=True, capture_output=True)
        yield view


def test_exit_codes_name_a_refused_write():
    assert EXIT_CANNOT_WRITE not in (0, 1, EXIT_BAD_INPUT) and "full disk" in EXIT_CODES[EXIT_CANNOT_WRITE]


@pytest.mark.parametrize("command", ["run", "rescore", "import", "export", "scores"])
def test_a_full_disk_is_one_line_with_its_exit_code_and_the_database_stays(full_disk, tmp_path, command):
    """An attack found `run` exiting 1 with tracebacks (DuckDB's refused rollback over the real "No space left on
    device") and `export` onto a full disk with a traceback."""
    disk, limit = full_disk
    db = disk / "r.duckdb"
    before = _rows(db)
    spec = tmp_path / "more.yaml"
    spec.write_text(str(SPEC | {"name": "more"}).replace("'", '"'))  # JSON is YAML
    argv = {"run": ["run", str(spec), "--quiet"], "rescore": ["rescore"], "import": ["import", "gamabench",
                                                                                    str(RECORDS), "--quiet"],
            "export": ["export", str(disk / "site"), "--quiet"], "scores": ["scores", "--suite", "other"]}[command]
    done = _command([*argv, "--db", str(db)], limit)
    if command == "scores":  # it only reads
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    else:
        _one_line(done, EXIT_CANNOT_WRITE, "No space left on device" if limit is None else "File too large")
        assert "cannot write" in done.stderr and "make room on its disk" in done.stderr
    assert _rows(db) == before
    assert not (disk / "site").exists() and not list(disk.glob(".site.*"))  # no half site left behind either


def test_an_upgrade_on_a_full_disk_is_one_line_on_the_pages_and_from_the_commands(full_disk, monkeypatch):
    """The dashboard upgrades an older database before it draws a page: on a full disk it said "could not be drawn"
    with DuckDB's error, of a rollback refused."""
    disk, limit = full_disk
    db = disk / "old.duckdb"
    before = _rows(db)
    monkeypatch.setenv("ARENA_DB", str(db))
    with _file_size_limit(limit):
        at = AppTest.from_file("../app.py", default_timeout=60).run()
    assert not at.exception
    assert len(at.error) == 1 and at.error[0].value.startswith(f"cannot write {db} (")
    assert "make room on its disk" in at.error[0].value
    _one_line(_command(["scores", "--suite", "other", "--db", str(db)], limit), EXIT_CANNOT_WRITE,
              "make room on its disk")
    assert _rows(db) == before and store.rows(db, "SELECT max(version) FROM schema_version")[0][0] == \
        store.SCHEMA_VERSION - 1


@pytest.mark.parametrize("command, code", [("run", EXIT_BAD_INPUT), ("rescore", EXIT_BAD_INPUT),
                                           ("import", EXIT_BAD_INPUT), ("export", 0), ("scores", 0)])
def test_a_read_only_folder_is_one_line_before_any_work_and_reading_works(read_only_folder, tmp_path, command, code):
    """An attack found `rescore` and `export` with a traceback (removing the saved ratings, then the error handler of
    saving them raised itself)."""
    db = read_only_folder / "r.duckdb"
    before = _rows(db)
    spec = tmp_path / "more.yaml"
    spec.write_text(str(SPEC | {"name": "more"}).replace("'", '"'))
    argv = {"run": ["run", str(spec), "--quiet"], "rescore": ["rescore"],
            "import": ["import", "gamabench", str(RECORDS), "--quiet"],
            "export": ["export", str(tmp_path / "site"), "--quiet"], "scores": ["scores", "--suite", "other"]}[command]
    done = _command([*argv, "--db", str(db)])
    if code:
        _one_line(done, code, "cannot write in the folder of")
    else:
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert _rows(db) == before


def test_leaderboards_draw_from_a_database_in_a_read_only_folder(read_only_folder, monkeypatch):
    """An attack found "Leaderboards could not be drawn (OSError ...)": saving the ratings beside the database failed,
    and so did removing the temporary file that was never written."""
    from tests.page_run import serve_like_the_dashboard

    serve_like_the_dashboard(monkeypatch)
    monkeypatch.setenv("ARENA_DB", str(read_only_folder / "r.duckdb"))
    at = AppTest.from_file("../app.py", default_timeout=120)
    at.switch_page("pages/leaderboard.py").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any("Win rate" in h.value or "Bradley" in h.value for h in [*at.markdown, *at.caption])


def _version_of_words(db: Path) -> None:
    """The schema_version table rewritten by hand: its version is text."""
    store.init_db(db)
    with duckdb.connect(str(db)) as con:
        con.execute("DROP TABLE schema_version")
        con.execute("CREATE TABLE schema_version(version VARCHAR, upgraded_at TIMESTAMP)")
        con.execute("INSERT INTO schema_version VALUES ('fifteen', now())")


@pytest.mark.parametrize("command", ["run", "scores", "rescore", "import", "export"])
def test_a_schema_version_that_is_no_number_is_one_line_exit_2(tmp_path, command):
    """An attack found a TypeError traceback from `run` and `scores`."""
    db = tmp_path / "r.duckdb"
    _version_of_words(db)
    before = db.read_bytes()
    spec = tmp_path / "more.yaml"
    spec.write_text(str(SPEC).replace("'", '"'))
    argv = {"run": ["run", str(spec), "--quiet"], "rescore": ["rescore"], "import": ["import", "gamabench",
                                                                                    str(RECORDS), "--quiet"],
            "export": ["export", str(tmp_path / "site"), "--quiet"], "scores": ["scores", "--suite", "other"]}[command]
    _one_line(_command([*argv, "--db", str(db)]), EXIT_BAD_INPUT, "'fifteen' as its schema version")
    assert db.read_bytes() == before


def test_the_dashboard_says_the_schema_version_is_no_number(tmp_path, monkeypatch):
    db = tmp_path / "r.duckdb"
    _version_of_words(db)
    monkeypatch.setenv("ARENA_DB", str(db))
    at = AppTest.from_file("../app.py", default_timeout=60).run()
    assert not at.exception
    assert len(at.error) == 1 and "'fifteen' as its schema version" in at.error[0].value


def test_a_killed_exports_build_folder_is_removed_by_the_next_export(tmp_path):
    db = tmp_path / "r.duckdb"
    _played(db)
    killed = tmp_path / ".site.k1ll3d_x"  # as mkdtemp names a build folder
    (killed / "matches").mkdir(parents=True)
    (killed / "matches" / "m.html").write_text("half a site")
    mine = tmp_path / ".site.notes"  # not a build folder's name: someone's own
    mine.mkdir()
    export_site(db, tmp_path / "site")
    assert not killed.exists() and mine.is_dir() and (tmp_path / "site" / "index.html").is_file()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == [".site.notes"]


def test_the_run_lock_holds_across_hard_links(tmp_path):
    """An attack played one run twice at once through two hard links to its database (the lock was beside each
    path)."""
    db = tmp_path / "a" / "r.duckdb"
    db.parent.mkdir()
    store.init_db(db)
    (tmp_path / "b").mkdir()
    other = tmp_path / "b" / "same.duckdb"
    os.link(db, other)
    run_id = parse_spec(SPEC).run_id
    with run_lock.playing(db, run_id):
        assert run_lock.holder(other, run_id) == f"PID {os.getpid()} on {os.uname().nodename} " \
                                                  f"({' '.join(sys.argv)[:120]})"
        with pytest.raises(run_lock.RunAlreadyPlaying, match="is already being played by PID"), \
                run_lock.playing(other, run_id):
            pass
    assert run_lock.holder(other, run_id) is None
    shutil.rmtree(run_lock.lock_paths(db, run_id)[1].parent)
