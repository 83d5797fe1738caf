"""How long does TrueSkill take to replay every match from scratch? Fills a database as bench/dashboard.py does
(every game, 8 models, 4 seats), then replays every game's matches, and each game's, as the run command's refresh
does (engine/present/default_views.py),
with no saved replay, `--repeats` times. Run it in two checkouts for an A/B figure.

    .venv/bin/python bench/replay.py [--matches 50000] [--repeats 3] [--db PATH]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.dashboard import fill, filled  # noqa: E402
from engine.score import saved_replays, trueskill_replay  # noqa: E402


def replay_from_scratch(db: Path) -> float:
    """Seconds to replay every game's matches and each game's, as a new process with no saved replay."""
    trueskill_replay._REPLAYED.clear()
    saved_replays.saved_replays_path(db).unlink(missing_ok=True)
    start = time.perf_counter()
    trueskill_replay.refresh_saved(db)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--matches", type=int, default=50_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--db", type=Path, default=None)
    args = parser.parse_args()
    db = args.db or Path(tempfile.mkdtemp()) / "replay.duckdb"
    if not filled(db, args.matches, 1):
        fill(db, args.matches, 1)
    times = [replay_from_scratch(db) for _ in range(args.repeats)]
    print(f"{args.matches:,} matches, every game and each game replayed from scratch: "
          + ", ".join(f"{t:.1f}" for t in times) + f" s (best {min(times):.1f} s)")


if __name__ == "__main__":
    main()
