"""Is a study's static site a sensible size? Plays N matches of bots through the real runner (a mix of the papers'
games, each at its default parameters, the same lineups repeated), exports them with `python -m engine export`'s
function, and prints the site's size, the transcripts' size per match, the time it took, and a verdict against
the budget: the transcripts of 1,000 matches under 50 MB.

    .venv/bin/python bench/export.py [--matches 1000] [--keep DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from engine.play.runner import run_spec  # noqa: E402
from engine.play.spec import parse_spec  # noqa: E402
from engine.present.export import export_site  # noqa: E402

BUDGET_MB_PER_1000 = 50.0
GAMES = [  # the papers' games at their defaults (Undercover under Who-is-Spy's rules), one lineup of bots each
    {"game": "guessing_game", "lineups": [{"all": "bot:random"}]},
    {"game": "tictactoe", "lineups": [["bot:random", "bot:equilibrium"]]},
    {"game": "connect_four", "lineups": [["bot:random", "bot:minimax"]]},
    {"game": "texas_holdem", "lineups": [["bot:hand_strength", "bot:random"]]},
    {"game": "prisoners_dilemma", "lineups": [["bot:equilibrium", "bot:tit_for_tat", "bot:random"]]},
    {"game": "chameleon", "lineups": [{"challenger": "bot:random", "others": "bot:letters"}]},
    {"game": "undercover", "preset": "wis", "params": {"role_seat": 0}, "lineups": [
        ["bot:injector", "bot:obedient", "bot:letters", "bot:obedient", "bot:letters", "bot:obedient"]]},
    {"game": "bargain", "lineups": [["bot:fair", "bot:greedy"]]},
]


def spec(matches: int) -> dict:
    """`matches` matches, shared about evenly by the games (a challenger lineup plays several matches a repeat);
    TicTacToe, one match a repeat, takes what the shares leave over."""
    from engine.games import get_game

    games = []
    for entry in GAMES:
        game = get_game(entry["game"])
        seats = game.n_seats(game.resolve_params({})) if "challenger" in entry["lineups"][0] else 1
        games.append(entry | {"repeats": max(1, round(matches / len(GAMES) / seats))})
    study = {"name": "export-bench", "seed": 7, "concurrency": 8, "games": games}
    games[1]["repeats"] += matches - len(parse_spec(study).matches)
    return study


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--matches", type=int, default=1000)
    parser.add_argument("--keep", type=Path, help="export the site here and keep it (default: a temporary folder)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        db = Path(scratch) / "bench.duckdb"
        start = time.perf_counter()
        summary = asyncio.run(run_spec(parse_spec(spec(args.matches)), db, progress=False))
        played = time.perf_counter() - start
        print(f"played {summary.played:,} matches ({summary.turns:,} turns) in {played:.0f} s")
        start = time.perf_counter()
        exported = export_site(db, args.keep or Path(scratch) / "site")
        took = time.perf_counter() - start
        print(f"{exported} in {took:.0f} s ({took / max(exported.matches, 1) * 1000:.0f} ms a match)")
        per_1000 = exported.transcripts / max(exported.matches, 1) * 1000 / 1e6
        verdict = "OK" if per_1000 < BUDGET_MB_PER_1000 else "OVER BUDGET"
        print(f"verdict: {verdict}: the transcripts of 1,000 such matches take {per_1000:.1f} MB "
              f"(budget {BUDGET_MB_PER_1000:.0f} MB)")


if __name__ == "__main__":
    main()
