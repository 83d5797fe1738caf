"""A launched run is its own process (`python -m engine run`) in its own session: the page starts it, watches
it, cancels and resumes it; the Streamlit server never plays a match nor writes the database. A launch
leaves a folder beside the database, `<db>.launches/<run_id>/`, holding the spec (no keys: they stay in the
environment the child inherits), the child's pid, its log and its turn-level progress (`live`).

No process is left behind: a finished child is reaped on the next look, a cancelled one that does not
stop within its grace period is killed with its whole process group, and when the server exits it stops
the runs it started (they resume from the page or the CLI)."""

from __future__ import annotations

import atexit
import hashlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import yaml

from engine import store
from engine.play import run_lock
from engine.play.spec import parse_spec
from engine.score.kept_tables import kept_per_state
from engine.secrets import redact
from engine.serve.launch import study
from engine.serve.launch.live import read_progress
from engine.store.summaries import run_totals_sql

CANCEL_GRACE = 15.0  # seconds a cancelled run gets to record its finished matches before it is killed
_children: dict[int, subprocess.Popen] = {}  # started by this process; polled so none stays a zombie


def launches_dir(db: str | Path) -> Path:
    db = Path(db).resolve()
    return db.with_name(db.name + ".launches")


def _folder(db: str | Path, run_id: str) -> Path:
    """The run's folder of launches: its id, or for an id with other characters (a name with a space)
    a safe spelling of it plus a hash that keeps two such ids apart."""
    if not run_id or "\0" in run_id:
        raise ValueError(f"not a run id: {run_id!r}")
    if re.fullmatch(r"[A-Za-z0-9_.-]+", run_id) and run_id not in (".", ".."):
        return launches_dir(db) / run_id
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", run_id)[:80].strip(".")
    return launches_dir(db) / f"{safe}-{hashlib.sha1(run_id.encode()).hexdigest()[:8]}"


def progress_file(db: str | Path, run_id: str) -> Path:
    return _folder(db, run_id) / "progress.json"


def study_file(db: str | Path, run_id: str) -> Path:
    return _folder(db, run_id) / "study.json"


def study_settings(db: str | Path, run_id: str) -> study.StudySettings | None:
    """The adaptive study a run was launched as, or None: launched to play its grid once, or not from here."""
    return study.load(study_file(db, run_id))


def start_run(raw: dict[str, Any], db: str | Path, concurrency: int | None = None,
              adaptive: study.StudySettings | None = None) -> str:
    """Start `python -m engine run` on the spec, in its own process and session; returns the run id. With
    `adaptive`, the spec plays as an adaptive study (`--until-separated` and its budget), kept so Resume plays it
    so again. Starting a run that is already playing (launched from here, or from a terminal) is refused; starting a
    finished or stopped one resumes it."""
    spec = parse_spec(raw)
    if is_alive(db, spec.run_id):
        raise RuntimeError(f"run {spec.run_id} is already playing")
    if (player := run_lock.holder(db, spec.run_id)) is not None:
        raise RuntimeError(run_lock.already_playing(spec.run_id, player))
    folder = _folder(db, spec.run_id)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "spec.yaml").write_text(yaml.safe_dump(raw, sort_keys=False), encoding="utf-8")
    progress_file(db, spec.run_id).unlink(missing_ok=True)
    command = [sys.executable, "-m", "engine", "run", str(folder / "spec.yaml"), "--db", str(Path(db).resolve()),
               "--quiet", "--progress-file", str(progress_file(db, spec.run_id))]
    if concurrency:
        command += ["--concurrency", str(concurrency)]
    if adaptive is not None:
        command += adaptive.flags()
        study.save(study_file(db, spec.run_id), adaptive)
    else:
        study_file(db, spec.run_id).unlink(missing_ok=True)
    with open(folder / "log.txt", "ab") as log:
        child = subprocess.Popen(command, cwd=store.ROOT, stdout=log, stderr=subprocess.STDOUT,
                                 stdin=subprocess.DEVNULL, start_new_session=True)
    if not _children:
        atexit.register(stop_children)
    _children[child.pid] = child
    (folder / "pid").write_text(str(child.pid), encoding="utf-8")
    return spec.run_id


def _pid(db: str | Path, run_id: str) -> int | None:
    try:
        return int((_folder(db, run_id) / "pid").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def reap() -> None:
    """Collect the exit status of every finished child, so none lingers as a zombie."""
    for pid, child in list(_children.items()):
        if child.poll() is not None:
            del _children[pid]


def is_alive(db: str | Path, run_id: str) -> bool:
    """Whether this run's launched process still plays (a dead, reused or zombie pid is not)."""
    reap()
    pid = _pid(db, run_id)
    if pid is None:
        return False
    if pid in _children:
        return True
    return _runs_engine(pid, str(_folder(db, run_id) / "spec.yaml").encode())


def _runs_engine(pid: int, argument: bytes | None = None) -> bool:
    """Whether `pid` is a live (not zombie) `python -m engine` process, with `argument` on its command line."""
    try:
        status = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except (OSError, IndexError):
        return False
    return status != "Z" and b"engine" in cmdline and (argument is None or argument in cmdline)


def died(pid: Any, host: Any) -> bool:
    """Whether the process a run recorded as its own is gone (kill -9, a crash, a reboot). Only a process of
    this machine can be checked; a run playing elsewhere is taken at its word."""
    try:
        pid = int(pid)
    except (TypeError, ValueError):  # NULL: a run recorded before runs kept their pid
        return False
    return host == socket.gethostname() and not _runs_engine(pid)


def group_alive(pgid: int) -> bool:
    """Whether any process of the group (the run and whatever it started) is still there."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def stop_group(pgid: int, is_running, grace: float) -> None:
    """Interrupt the group (as Ctrl-C would: finished matches stay, the run ends `cancelled`), wait up to
    `grace` seconds for the run to finish, then kill whatever of the group is left."""
    try:
        os.killpg(pgid, signal.SIGINT)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + grace
    while is_running() and time.monotonic() < deadline:
        time.sleep(0.05)
    if group_alive(pgid):
        try:
            os.killpg(pgid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    reap()
    deadline = time.monotonic() + 5  # the killed are gone once their parents (or init) have collected them
    while group_alive(pgid) and time.monotonic() < deadline:
        time.sleep(0.05)


def cancel_run(db: str | Path, run_id: str, grace: float = CANCEL_GRACE) -> bool:
    """Stop the run's process and its group; False when it was not playing."""
    if not is_alive(db, run_id):
        return False
    stop_group(_pid(db, run_id), lambda: is_alive(db, run_id), grace)
    return True


def stop_children(grace: float = CANCEL_GRACE) -> None:
    """Stop every run this process started that still plays (registered at exit)."""
    for pid, child in list(_children.items()):
        if child.poll() is None:
            stop_group(pid, lambda c=child: c.poll() is None, grace)


def resume_run(db: str | Path, run_id: str, concurrency: int | None = None) -> str:
    """Play the unfinished matches of a run again from the spec the database kept; a study launched from here
    continues as the same study (its budget counts what it already spent)."""
    rows = store.query(db, "SELECT spec FROM runs WHERE run_id = ? AND source = 'engine'", [run_id])
    if rows.empty:
        raise ValueError(f"no engine run {run_id} in {db}")
    return start_run(json.loads(rows["spec"][0]), db, concurrency, study_settings(db, run_id))


def runs_named(db: str | Path, name: str) -> list[str]:
    """The run ids of the runs called `name`, newest first: those in the database's `runs` table (a short
    read-only look) and those launched from here that play but have not written their row yet. A run's id
    is its name plus a hash of its spec, so one changed field would otherwise make a second run of that name."""
    found = list(store.query(db, "SELECT run_id FROM runs WHERE name = ? ORDER BY created_at DESC", [name])
                 .get("run_id", []))
    folder = launches_dir(db)
    reap()
    for spec_file in sorted(folder.glob("*/spec.yaml")) if folder.is_dir() else []:
        try:
            pid = int((spec_file.parent / "pid").read_text(encoding="utf-8"))
            if pid not in _children and not _runs_engine(pid, str(spec_file).encode()):
                continue  # not playing: a run that ended has its row in the database
            raw = yaml.safe_load(spec_file.read_text(encoding="utf-8"))
            run_id = parse_spec(raw).run_id if isinstance(raw, dict) and raw.get("name") == name else None
        except (OSError, ValueError, yaml.YAMLError):
            continue
        if run_id is not None and run_id not in found:
            found.append(run_id)
    return found


def log_tail(db: str | Path, run_id: str, lines: int = 20) -> str:
    """The end of the run process's log, with anything secret-looking masked."""
    path = _folder(db, run_id) / "log.txt"
    if not path.exists():
        return ""
    return redact("\n".join(path.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:]))


RESUMABLE = ("cancelled", "error", "stopped", "interrupted")  # a run in one of these states may be played on
LIVE_COLUMNS = ("status", "turns", "llm_turns", "tokens_in", "tokens_out", "cost_usd", "unpriced_calls", "reasks",
                "fallbacks", "matches_started", "updated_at")


def progress(db: str | Path, newest: int = 20) -> Any:
    """One row per run (the `newest` ones, newest first): status (`stopped`: launched from here, its process
    gone; `interrupted`: the process it recorded died), matches done of all, errors, tokens and dollars of
    its finished matches (usd NaN when some call had no price), whether it plays or is finishing (its end stored,
    the ratings being brought up to date), `study` and `standing`: an adaptive study's settings and where it stands
    (None for a run launched to play its grid once), whether Resume may play it on (not a study started in a
    terminal: `study_elsewhere`), and `live_*`: the
    turn-level figures its process last wrote (NaN when it was not launched from here)."""
    table = _stored_figures(db, newest)
    if table.empty:
        return table
    alive = table["run_id"].map(lambda run_id: is_alive(db, run_id)).astype(bool)
    table["study"] = [study_settings(db, run_id) for run_id in table["run_id"]]
    table["standing"] = [None if settings is None else _standing(db, run_id, settings)
                         for run_id, settings in zip(table["run_id"], table["study"], strict=True)]
    # a study stores each batch's end and plays on while its standing says it is not done
    unfinished = (table["status"] == "running") | table["standing"].map(lambda s: s is not None and not s.done)
    # a run that has stored its end still brings the ratings up to date before its process exits: it is finishing,
    # not playing (nothing left to cancel)
    table["playing"] = alive & unfinished
    table["finishing"] = alive & ~unfinished
    launched = table["run_id"].map(lambda run_id: _pid(db, run_id) is not None)
    stopped = unfinished & table["status"].isin(["running", "ok"]) & launched & ~alive
    table.loc[stopped, "status"] = "stopped"
    gone = [status == "running" and died(pid, host) for status, pid, host in
            zip(table["status"], table["pid"], table["host"], strict=True)]
    table.loc[gone, "status"] = "interrupted"
    table = table.drop(columns=["pid", "host"])
    table["resumable"] = (table["source"] == "engine") & table["status"].isin(RESUMABLE) & ~table["playing"]
    table["study_elsewhere"] = [bool(resumable and settings is None and _study_elsewhere(db, run_id))
                                for run_id, resumable, settings in
                                zip(table["run_id"], table["resumable"], table["study"], strict=True)]
    table["resumable"] &= ~table["study_elsewhere"]
    live = [read_progress(progress_file(db, run_id)) or {} for run_id in table["run_id"]]
    for column in LIVE_COLUMNS:
        table[f"live_{column}"] = [figures.get(column) for figures in live]
    return table


_ELSEWHERE: dict[tuple[str, str], tuple[int, bool]] = {}  # (db, run id) -> (store.generation, _study_elsewhere)


def _study_elsewhere(db: str | Path, run_id: str) -> bool:
    """Whether a run not launched as a study from here played as one (`run --until-separated` in a terminal): it
    holds dealt matches its spec's grid does not plan. Its budget is not known here, so it resumes from its command.
    Read once per state of the database (a large spec takes a while to plan; the runs panel asks every 2 s)."""
    state = store.generation(db)
    known = _ELSEWHERE.get((str(db), run_id))
    if known is None or known[0] != state:
        dealt = {match_id for (match_id,) in store.rows(
            db, "SELECT match_id FROM matches WHERE run_id = ? AND deal IS NOT NULL", [run_id])}
        (raw,), = store.rows(db, "SELECT spec FROM runs WHERE run_id = ?", [run_id]) if dealt else [(None,)]
        try:
            found = bool(dealt) and bool(dealt - {plan.match_id for plan in parse_spec(json.loads(raw)).matches})
        except (TypeError, ValueError):
            found = False
        known = _ELSEWHERE[str(db), run_id] = (state, found)
    return known[1]


def _standing(db: str | Path, run_id: str, settings: study.StudySettings) -> study.Standing | None:
    """Where a study launched from here stands, from the spec in its launch folder; None when that is unreadable."""
    try:
        raw = yaml.safe_load((_folder(db, run_id) / "spec.yaml").read_text(encoding="utf-8"))
        return study.standing(db, run_id, raw, settings)
    except (OSError, ValueError, yaml.YAMLError):
        return None


@kept_per_state
def _stored_figures(db: str | Path, newest: int) -> Any:
    """`progress`' figures from the database, kept per state of it (engine/score/kept_tables.py: the runs panel
    asks again and again, and while nothing writes, nothing is read again). Each run's errors, tokens and dollars
    come from `run_totals`, kept by the writer, while the summaries are in step; else they are added up from the log
    by the same definition, which reads every turn's tokens and is slow on a large database."""
    # two short reads, no connection held between them: Launch stops runs and waits for them (its page shares no
    # connection), and the writer keeps run_totals in step in the transactions it commits
    totals = "run_totals" if store.summaries_in_step(db) else \
        f"({run_totals_sql('(SELECT * FROM matches WHERE run_id IN (SELECT run_id FROM r))', 'turns')})"
    return store.query(db, f"""
        WITH r AS (SELECT * FROM runs ORDER BY created_at DESC LIMIT ?)
        SELECT r.run_id, r.name, r.source, r.status, r.pid, r.host, r.n_done, r.n_matches,
               coalesce(k.errors, 0) AS errors, coalesce(k.tokens, 0) AS tokens,
               CASE WHEN k.unpriced_calls > 0 THEN NULL ELSE coalesce(k.usd, 0) END AS usd, r.created_at,
               r.finished_at
        FROM r LEFT JOIN {totals} k USING (run_id)
        ORDER BY r.created_at DESC""", [newest])
