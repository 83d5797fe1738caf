"""The GAMA-Bench import's speed at the size of the authors' whole published folder (issue 28).

Their `raw_results/` holds 1,447 records: 13 models, each game's leaderboard runs `_v1_1`.._v1_5` and the
studies' files (`_v1`, `_t0`.._t5`, `_v2`.._v5`, `_cot1`.., `_role1`.., settings such as `_r0`, `_g0`,
`_savept1_0`). This script builds a folder of that size and layout from the records the repository ships
(engine/papers/gamabench/raw_results: GPT-3.5-0125's runs 1-5), copied under the other models' name prefixes and
the studies' suffixes, then times `python -m engine import gamabench` into a fresh database as a user runs it
(the wall time includes the interpreter's start-up and imports). Prints the records, the seconds, the rate
(records/s) and a verdict against the target: <= 20 s; also the CPU seconds of the import and its reader
processes, a figure a busy machine changes far less than the wall time (the reading runs one process per core).

    .venv/bin/python bench/import.py [--records 1447] [--keep DIR]
"""

from __future__ import annotations

import argparse
import itertools
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ROOT / "engine" / "papers" / "gamabench" / "raw_results"
MAX_SECONDS = 20.0
# the file-name prefixes of the authors' board.py (the paper's model has none) and GPT-4o's
MODELS = ("", "gpt-3.5-turbo-1106_", "gpt-3.5-turbo-0613_", "gpt-4-0125-preview_", "gemini-1.0-pro_",
          "gemini-1.5-pro_", "llama-3.1-8b_", "llama-3.1-70b_", "llama-3.1-405b_", "mixtral-8x7b_",
          "mixtral-8x22b_", "qwen2-72b_", "gpt-4o_")
# after the leaderboard runs, the studies' suffixes, in turn (the paper's model ran most of them)
STUDIES = ("", "_t0", "_t1", "_t2", "_t3", "_t4", "_t5", "_cot1", "_cot2", "_cot3", "_role1", "_role2", "_role3",
           "_r0", "_r1", "_r2", "_savept1_0", "_savept2_1", "_m1", "_s1")


def published_folder(out: Path, records: int) -> int:
    """`records` files in the published layout under `out`; returns how many were written."""
    shipped = sorted(SHIPPED.rglob("*_v1_[1-5].json"))
    names = [(f, f.relative_to(SHIPPED).parent, f.name.removesuffix(".json")) for f in shipped]
    runs = [(folder / f"{model}{stem}.json", f) for model in MODELS for f, folder, stem in names]
    studies = [(folder / f"{model}{stem.rsplit('_', 1)[0]}{suffix}.json", f)
               for suffix, model in itertools.product(STUDIES, MODELS) for f, folder, stem in names
               if stem.endswith("_1")]  # one copy per game and study
    plan = (runs + studies)[:records]
    for target, source in plan:
        (out / target).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, out / target)
    return len(plan)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=1447, help="records in the folder (the published 1,447)")
    parser.add_argument("--keep", help="build the folder and the database here and keep them (default: a temp dir)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(args.keep or tmp_name)
        folder, db = tmp / "raw_results", tmp / "import.duckdb"
        shutil.rmtree(folder, ignore_errors=True)
        db.unlink(missing_ok=True)
        written = published_folder(folder, args.records)
        start, cpu_before = time.perf_counter(), _children_cpu()
        done = subprocess.run([sys.executable, "-m", "engine", "import", "gamabench", str(folder), "--db", str(db)],
                              cwd=ROOT, capture_output=True, text=True)
        wall, cpu = time.perf_counter() - start, _children_cpu() - cpu_before
    if done.returncode:
        print(f"the import failed (exit {done.returncode}): {done.stderr.strip()}")
        return 1
    print(done.stdout.strip().splitlines()[0])
    print(f"GAMA-Bench import of {written:,} records (fresh database, incl. start-up): {wall:.1f} s, "
          f"{written / wall:,.0f} records/s; {cpu:.1f} CPU s over {os.cpu_count()} cores")
    verdict = "PASS" if wall <= MAX_SECONDS else "FAIL"
    print(f"verdict: {verdict}: {wall:.1f} s against a budget of {MAX_SECONDS:g} s for {written:,} records")
    return 0 if wall <= MAX_SECONDS else 1


if __name__ == "__main__":
    sys.exit(main())
