"""Readers against writers on one database: three `python -m engine run` processes write (bots, so
the database is the only thing they wait for) while this process opens the file read-only again and
again, as a page's request does, and loads the Overview page headless.

Prints the p50/p99/max of a fresh read-only open (with one small query), the slowest page load, and
the longest wait of any writer for the file (each run prints its own). Targets: p99 <= 1 s, page
<= 2 s, and every match of the three runs written.

    .venv/bin/python bench/contention.py [--matches 300] [--db /tmp/contention.duckdb]
"""

from __future__ import annotations

import argparse
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


def spec(i: int, matches: int) -> dict:
    return {"name": f"contention {i}", "seed": 1000 * i, "repeats": matches, "concurrency": 4, "games": [
        {"game": "guessing_game", "params": {"players": 5, "rounds": 5}, "lineups": [{"all": "bot:random"}]}]}


def open_once(db: Path) -> float:
    start = time.perf_counter()
    with store.connect(db, read_only=True) as con:
        con.execute("SELECT count(*) FROM matches").fetchone()
    return time.perf_counter() - start


def page_once(db: Path) -> float:
    from streamlit.testing.v1 import AppTest

    os.environ["ARENA_DB"] = str(db)
    start = time.perf_counter()
    at = AppTest.from_file(str(ROOT / "pages" / "overview.py"), default_timeout=120).run()
    elapsed = time.perf_counter() - start
    if at.exception:
        raise RuntimeError(at.exception[0].value)
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--matches", type=int, default=300, help="matches per run")
    parser.add_argument("--db", default=None)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="contention-"))
    db = Path(args.db) if args.db else work / "contention.duckdb"
    db.unlink(missing_ok=True)
    store.init_db(db)
    page_once(db)  # warm the imports: what is measured is the database, not the first import of pandas
    writers = []
    for i in range(3):
        path = work / f"run{i}.yaml"
        path.write_text(yaml.safe_dump(spec(i, args.matches)))
        writers.append(subprocess.Popen([sys.executable, "-m", "engine", "run", str(path), "--db", str(db), "--quiet"],
                                        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                        env=os.environ | {"ARENA_CACHE": "off"}))
    opens, pages = [], []
    while any(w.poll() is None for w in writers):
        opens.append(open_once(db))
        if len(opens) % 20 == 0:
            pages.append(page_once(db))
        time.sleep(0.02)
    outputs = [w.communicate()[0] for w in writers]
    waits = [float(m) for out in outputs for m in re.findall(r"longest wait for the database: ([\d.]+) s", out)]
    done = store.rows(db, "SELECT count(*) FROM matches WHERE status = 'ok'")[0][0]
    q = statistics.quantiles(opens, n=100) if len(opens) >= 2 else opens * 99
    print(f"3 writers x {args.matches} matches: {done} of {3 * args.matches} written; exit codes "
          f"{[w.returncode for w in writers]}")
    print(f"fresh read-only open + query during the writes: n={len(opens)} p50={statistics.median(opens):.3f} s "
          f"p99={q[98]:.3f} s max={max(opens):.3f} s (target p99 <= 1 s)")
    print(f"overview page load during the writes: n={len(pages)} max={max(pages, default=float('nan')):.2f} s "
          f"median={statistics.median(pages) if pages else float('nan'):.2f} s (target <= 2 s)")
    print(f"writers' longest wait for the file: {max(waits, default=float('nan')):.2f} s (each: {waits})")
    for out in outputs:
        for line in out.splitlines():
            if line.startswith("waiting"):
                print("  writer said:", line)
                break


if __name__ == "__main__":
    main()
