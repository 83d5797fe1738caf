"""The group commit's shorter GIL switch interval (engine/play/group_commit.py `SWITCH_INTERVAL_S`), measured A/B on a
realistic run: `python -m engine run` of bot matches into a fresh database, with the change and without it
(Python's default interval kept), in turn, pair by pair. Prints each pair's wall time and CPU, and the median
ratio with / without. The change stays only while it saves at least 10% (docs/RUNNING.md has the figure).

    .venv/bin/python bench/switch_interval.py [--matches 3000] [--pairs 3]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
WITHOUT = "import sys; from engine import group_commit; group_commit.SWITCH_INTERVAL_S = sys.getswitchinterval(); "
WITH = ""


def run(tmp: Path, spec: Path, change: str, tag: str) -> tuple[float, float]:
    """Wall and CPU seconds of one `engine run` of the spec into a new database."""
    code = change + f"from engine.cli.main import main; sys.exit(main(['run', '{spec}', '--quiet', '--db', " \
                    f"'{tmp / tag}.duckdb']))"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import sys; " + code], cwd=ROOT, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=3000)
    parser.add_argument("--pairs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        spec = tmp / "bots.yaml"
        spec.write_text(yaml.safe_dump({"name": "switch", "repeats": args.matches, "concurrency": 64, "games": [
            {"game": "tictactoe", "lineups": [{"all": "bot:random"}]}]}))
        walls, cpus = [], []
        for pair in range(args.pairs):
            with_wall, with_cpu = run(tmp, spec, WITH, f"with{pair}")
            without_wall, without_cpu = run(tmp, spec, WITHOUT, f"without{pair}")
            walls.append(with_wall / without_wall)
            cpus.append(with_cpu / without_cpu)
            print(f"pair {pair + 1}: wall {with_wall:.1f} / {without_wall:.1f} s, CPU {with_cpu:.1f} / "
                  f"{without_cpu:.1f} s")
    print(f"with / without, median of {args.pairs} pairs: wall {statistics.median(walls):.2f}, "
          f"CPU {statistics.median(cpus):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
