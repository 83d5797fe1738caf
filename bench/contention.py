"""Readers against writers on one database: three `python -m engine run` processes write (bots, so
the database is the only thing they wait for) while this process opens the file read-only again and
again, as a page's request does, and a second process loads the dashboard's pages headless one after
another through app.py, as a user clicking through the served dashboard does (tests/page_run.py).

Prints, each beside its target: the p50/p99/max of a fresh read-only open (with one small query), the
p50/p99/max of a page load (and per page), the longest wait of any writer for the file (each run
prints its own), and whether every match of the three runs is stored exactly once with `n_done` agreeing.

    .venv/bin/python bench/contention.py [--matches 300] [--db /tmp/contention.duckdb]
"""

from __future__ import annotations

import argparse
import math
import multiprocessing as mp
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine import store  # noqa: E402
from engine.store import connections  # noqa: E402

PAGES = ("overview", "leaderboard", "games", "robustness", "abilities", "transcripts")
OPEN_P99_TARGET_S, PAGE_TARGET_S = 1.0, 2.0


def spec(i: int, matches: int) -> dict:
    return {"name": f"contention {i}", "seed": 1000 * i, "repeats": matches, "concurrency": 4, "games": [
        {"game": "guessing_game", "params": {"players": 5, "rounds": 5}, "lineups": [{"all": "bot:random"}]}]}


def percentile(values: list[float], p: float) -> float:
    """Nearest-rank percentile: always one of the values, so never above the max (statistics.quantiles'
    default 'exclusive' method extrapolates past the largest sample when there are fewer than 100)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def spread(values: list[float]) -> str:
    if not values:
        return "n=0"
    return (f"n={len(values)} p50={statistics.median(values):.3f} s p99={percentile(values, 99):.3f} s "
            f"max={max(values):.3f} s")


def open_once(db: Path) -> float:
    start = time.perf_counter()
    with store.connect(db, read_only=True) as con:
        con.execute("SELECT count(*) FROM matches").fetchone()
    return time.perf_counter() - start


def load_pages(db: str, ready, go, stop, out) -> None:
    """In its own process (a dashboard serving a user): load every page once to warm the imports (on a database
    of its own with a few matches of the same game: on an empty one a page stops before its scorers are imported),
    then load them in turn on `db` from `go` until `stop`, sending (page, seconds) for each load."""
    import asyncio
    import logging

    from streamlit.testing.v1 import AppTest

    from engine.play.runner import run_spec
    from engine.play.spec import parse_spec
    from tests.page_run import serve_like_the_dashboard

    # AppTest runs a page "bare", and Streamlit warns of it ("missing ScriptRunContext") several times per page;
    # it resets its loggers' levels whenever it reads its config, so that one logger is switched off instead
    logging.getLogger("streamlit.runtime.scriptrunner_utils.script_run_context").disabled = True
    warm = Path(db).with_name("warm-up.duckdb")
    asyncio.run(run_spec(parse_spec(spec(9, 12)), warm, progress=False))
    os.environ["ARENA_DB"] = str(warm)
    os.environ[connections.READER_MEMORY_ENV] = connections.PAGES_READER_MEMORY  # its readers as `engine serve`'s
    serve_like_the_dashboard()
    with store.serving_pages():  # the file kept open between reads
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()  # one session: a user's browser tab

        def load(page: str) -> float:
            start = time.perf_counter()
            at.switch_page(f"pages/{page}.py").run()
            elapsed = time.perf_counter() - start
            if at.exception:
                raise RuntimeError(f"{page}: {at.exception[0].value}")
            return elapsed

        for page in PAGES:
            load(page)
        os.environ["ARENA_DB"] = db  # each page reads it anew on every load
        ready.set()
        go.wait()
        i = 0
        while not stop.is_set():
            page = PAGES[i % len(PAGES)]
            out.put((page, load(page)))
            i += 1
        out.put(None)


def stored_exactly_once(db: Path, matches: int) -> str:
    """Every match of every run stored once, and each run's `n_done` and status agreeing with its rows."""
    per_run = store.rows(db, """
        SELECT r.name, r.status, r.n_done, count(m.match_id), count(DISTINCT m.match_id),
               count(m.match_id) FILTER (WHERE m.status = 'ok')
        FROM runs r LEFT JOIN matches m USING (run_id) GROUP BY ALL ORDER BY r.name""")
    faults = [f"{name}: status {status}, n_done {n_done}, {rows} rows, {ids} ids, {ok} ok"
              for name, status, n_done, rows, ids, ok in per_run
              if (status, n_done, rows, ids, ok) != ("ok", matches, matches, matches, matches)]
    return "yes" if len(per_run) == 3 and not faults else f"NO ({'; '.join(faults) or f'{len(per_run)} runs'})"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--matches", type=int, default=300, help="matches per run")
    parser.add_argument("--db", default=None)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="contention-"))
    db = Path(args.db) if args.db else work / "contention.duckdb"
    db.unlink(missing_ok=True)
    store.init_db(db)
    ctx = mp.get_context("spawn")
    ready, go, stop, out = ctx.Event(), ctx.Event(), ctx.Event(), ctx.Queue()
    pages = ctx.Process(target=load_pages, args=(str(db), ready, go, stop, out), daemon=True)
    pages.start()
    ready.wait(300)  # the page process has its imports warm: what is measured is the database
    writers = []
    for i in range(3):
        path = work / f"run{i}.yaml"
        path.write_text(yaml.safe_dump(spec(i, args.matches)))
        writers.append(subprocess.Popen([sys.executable, "-m", "engine", "run", str(path), "--db", str(db), "--quiet"],
                                        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                        env=os.environ | {"ARENA_CACHE": "off"}))
    go.set()
    opens = []
    while any(w.poll() is None for w in writers):
        opens.append(open_once(db))
        time.sleep(0.02)
    stop.set()
    loads: dict[str, list[float]] = {}
    while (item := out.get(timeout=300)) is not None:
        loads.setdefault(item[0], []).append(item[1])
    pages.join(60)
    outputs = [w.communicate()[0] for w in writers]
    waits = [float(m) for out in outputs for m in re.findall(r"longest wait for the database: ([\d.]+) s", out)]
    all_loads = [s for times in loads.values() for s in times]
    print(f"3 writers x {args.matches} matches, exit codes {[w.returncode for w in writers]}; every match stored "
          f"exactly once, n_done agreeing: {stored_exactly_once(db, args.matches)} (target yes)")
    print(f"fresh read-only open + query during the writes: {spread(opens)} (target p99 <= {OPEN_P99_TARGET_S} s)")
    print(f"page load during the writes, {len(loads)} pages: {spread(all_loads)} (target max <= {PAGE_TARGET_S} s)")
    for page, times in loads.items():
        print(f"  {page}: {spread(times)}")
    print(f"writers' longest wait for the file: {max(waits, default=float('nan')):.2f} s (each: {waits}; no target: "
          f"a writer waits as long as it takes)")
    for output in outputs:
        for line in output.splitlines():
            if line.startswith(("waiting", "run ", "error")):
                print("  writer said:", line)


if __name__ == "__main__":
    main()
