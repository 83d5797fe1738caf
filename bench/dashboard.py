"""Is the dashboard fast at scale? Fills a database with 50,000 matches and 1,000,000 turns (DuckDB
`range()` inserts in a child process: seconds), then times every query each page runs, through the same
functions the pages call (engine/queries.py and LLMArena's SQL analyses), and the peak memory of this
process after them. Budget: every query's median of `--repeats` runs at most 300 ms; peak RSS under 600 MB.

The scorers that replay whole games (ratings, MAgIC's profile, WiS, LLMArena's table) are timed after that,
twice: the first call, then a second one on the same database (TrueSkill keeps its replay and only replays
matches that finished later). They are outside the query budget: the pages run them by themselves up to
sharing.SLOW_SCORER_LIMIT matches, above it on request, and then once per database version (sharing.cached).

    .venv/bin/python bench/dashboard.py [--matches 50000] [--turns-per-match 20] [--repeats 3] [--db PATH]
"""

from __future__ import annotations

import argparse
import multiprocessing
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import queries, store  # noqa: E402
from engine.metrics import llmarena, magic, ratings, wis  # noqa: E402
from engine.metrics import llmarena_analyses as arena  # noqa: E402
from engine.sharing import SLOW_SCORER_LIMIT  # noqa: E402

BUDGET_MS = 300.0
BUDGET_RSS_MB = 600.0
GAMES = [*queries.GAMABENCH_GAMES, "tictactoe", "connect_four", "texas_holdem", "hanabi", "undercover",
         "chameleon", "prisoners_dilemma", "cost_sharing"]
MODELS = 8
SEATS = 4


def fill(db: Path, n_matches: int, turns_per_match: int) -> None:
    """Synthetic but schema-true rows: every game, 8 models, conditions varied as the studies vary them."""
    store.init_db(db)
    games = "[" + ", ".join(f"'{g}'" for g in GAMES) + "]"
    gama = "[" + ", ".join(f"'{g}'" for g in queries.GAMABENCH_GAMES) + "]"
    with store.connect(db) as con:
        con.execute(f"""
            INSERT INTO runs SELECT 'run-' || r, 'bench ' || r, '{{}}', CASE WHEN r = 0 THEN 'import:gamabench'
                   ELSE 'engine' END, 'done', TIMESTAMP '2025-01-01' + INTERVAL (r) DAY, NULL, 0, 0 FROM range(10) t(r);
            INSERT INTO matches SELECT 'm' || lpad(i::VARCHAR, 7, '0'), 'run-' || (i % 10),
                   {games}[1 + i % {len(GAMES)}],
                   CASE WHEN i % 7 = 0 THEN 'no_hint' ELSE 'default' END,
                   CASE WHEN {games}[1 + i % {len(GAMES)}] = 'undercover' THEN '{{"rules": "wis"}}' ELSE '{{}}' END,
                   (i // {len(GAMES)}) % 50, (i // {len(GAMES) * 50}) % 5, 'ok', NULL,
                   TIMESTAMP '2025-01-01' + INTERVAL (i % 30) DAY, TIMESTAMP '2025-01-01' + INTERVAL (i % 30) DAY,
                   '{{"special_seat": 0, "words": ["w0", "w1", "w2", "w3"]}}'
            FROM range({n_matches}) t(i);
            INSERT INTO seats SELECT 'm' || lpad(i::VARCHAR, 7, '0'), s, 'p' || s,
                   'model-' || ((i // 3 + s * (i % 2)) % {MODELS}),
                   CASE WHEN s = 0 THEN 'spy' ELSE 'civilian' END, 'v' || (1 + (i // 5) % 5),
                   ['vanilla', 'cot', 'pgm'][1 + (i // 11) % 3], [0.0, 0.5, 1.0][1 + (i // 13) % 3],
                   (hash(i, s) % 1000) / 10.0, s = i % {SEATS}, 1 + (s + i) % {SEATS},
                   'model-' || ((i // 3 + s * (i % 2)) % {MODELS})
            FROM range({n_matches}) t(i), range({SEATS}) u(s);
            INSERT INTO turns SELECT 'm' || lpad(i::VARCHAR, 7, '0'), k, 1 + k // 5, 'act',
                   CASE WHEN k % 5 = 0 THEN NULL ELSE k % 5 - 1 END, '[]', 'answer', '{{"action": 1}}', TRUE,
                   k % 97 = 0, (k % 53 = 0)::INTEGER, NULL,
                   printf('{{"round": %d, "last": {{"round": %d, "mean": %.2f, "target": %.2f}}, '
                          '"last_move": {{"reward": %.2f}}}}', 1 + k // 5, 1 + k // 5, (hash(i, k) % 100)::DOUBLE,
                          (hash(i, k) % 100) * 2 / 3.0, ((hash(k, i) % 200)::INTEGER - 100) / 100.0),
                   NULL, 50, 8, 0.0001, 400.0, FALSE
            FROM range({n_matches}) t(i), range({turns_per_match}) u(k);
            INSERT INTO metrics SELECT 'm' || lpad(i::VARCHAR, 7, '0'), s, 'gamabench_score', (hash(i, s) % 1000) / 10.0
            FROM range({n_matches}) t(i), (SELECT unnest([NULL, 0, 1, 2, 3]) AS s)
            WHERE list_contains({gama}, {games}[1 + i % {len(GAMES)}]);
            INSERT INTO metrics SELECT 'm' || lpad(i::VARCHAR, 7, '0'), s, name, (hash(i, s, name) % 10)::DOUBLE
            FROM range({n_matches}) t(i), range({SEATS}) u(s),
                 (SELECT unnest(['win_prob:call', 'hanabi_play', 'credits', 'max_credits', 'votes_cast',
                                 'votes_correct', 'speeches', 'fouls']) AS name)
            WHERE {games}[1 + i % {len(GAMES)}] IN ('texas_holdem', 'hanabi', 'undercover', 'chameleon');
        """)


def page_queries(db: Path) -> dict[str, list[tuple[str, Callable[[], object]]]]:
    """The queries each page runs on its default view (and on one model / one game chosen)."""
    any_model, game_filter = "model-0", queries.Filters(games=("guessing_game",))
    scores = queries.robustness_scores(db, any_model)
    return {
        "leaderboard": [
            ("count_matches", lambda: store.count_matches(db)),
            ("filter_options", lambda: queries.filter_options(db)),
            ("win_rates overall", lambda: queries.win_rates(db, by_game=False)),
            ("win_rates by game", lambda: queries.win_rates(db)),
            ("win_rates one run", lambda: queries.win_rates(db, queries.Filters(run_ids=("run-1",)))),
            ("gamabench_scores", lambda: queries.gamabench_scores(db)),
        ],
        "games": [
            ("agents", lambda: queries.agents(db)),
            ("round_curves guessing_game", lambda: queries.round_curves(db, "guessing_game")),
            ("round_curves guessing_game, one model", lambda: queries.round_curves(db, "guessing_game",
                                                                                   agent=any_model)),
            ("win_rates one game", lambda: queries.win_rates(db, game_filter)),
            ("hint_ablation", lambda: arena.hint_ablation(db, ("tictactoe",))),
            ("connect_four_rewards", lambda: arena.connect_four_rewards(db)),
            ("poker_actions_by_win_prob", lambda: arena.poker_actions_by_win_prob(db)),
            ("poker_action_win_prob", lambda: arena.poker_action_win_prob(db)),
            ("hanabi_action_shares", lambda: arena.hanabi_action_shares(db)),
        ],
        "robustness": [
            ("robustness_scores", lambda: queries.robustness_scores(db, any_model)),
            ("robustness_tables (4 factors x 16 games)", lambda: queries.robustness_tables(scores)),
        ],
    }


def slow_scorers(db: Path) -> list[tuple[str, Callable[[], object]]]:
    """The pandas scorers the pages gate behind sharing.slow_scorer_wanted and cache per database version."""
    rated = [("ratings.trueskill_table", ratings.trueskill_table), ("ratings.bradley_terry_table",
                                                                      ratings.bradley_terry_table)]
    return [
        *[(name, lambda fn=fn: fn(db)) for name, fn in rated],
        *[(f"{name} (guessing_game)", lambda fn=fn: fn(db, "guessing_game")) for name, fn in rated],
        ("wis.leaderboard", lambda: wis.leaderboard(db)),
        ("wis.figures_by_role", lambda: wis.figures_by_role(db)),
        ("llmarena.leaderboard", lambda: llmarena.leaderboard(db)),
        ("magic.ability_profile", lambda: magic.ability_profile(db)),
    ]


def timed(fn: Callable[[], object], repeats: int) -> list[float]:
    """Milliseconds of `repeats` calls; a call 10x over budget is not repeated (its figure is clear already)."""
    out: list[float] = []
    while len(out) < repeats and not (out and out[0] > 10 * BUDGET_MS):
        start = time.perf_counter()
        fn()
        out.append((time.perf_counter() - start) * 1000)
    return out


def run_timed(name: str, fn: Callable[[], object], repeats: int) -> float | None:
    """Median milliseconds of `fn`, printed; None when it fails on the synthetic rows."""
    try:
        times = timed(fn, repeats)
    except Exception as exc:  # a scorer may want rows the synthetic data lacks: say so, go on
        print(f"  {name:45s} failed on the synthetic rows: {type(exc).__name__}: {exc}")
        return None
    median = statistics.median(times)
    flag = "ok" if median <= BUDGET_MS else "OVER"
    print(f"  {name:45s} median {median:7.1f} ms  max {max(times):7.1f} ms  "
          f"{median / BUDGET_MS:5.2f} of budget  {flag}")
    return median


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=50_000)
    parser.add_argument("--turns-per-match", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--db", type=Path, default=None, help="keep the database here (default: a temporary one)")
    parser.add_argument("--no-scorers", action="store_true", help="skip timing the gated pandas scorers")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = args.db or Path(tmp) / "bench.duckdb"
        if db.exists():
            db.unlink()
        start = time.perf_counter()
        # filling is the runner's job, not the dashboard's: a child process, so it does not count in our RSS
        child = multiprocessing.get_context("spawn").Process(target=fill, args=(db, args.matches, args.turns_per_match))
        child.start()
        child.join()
        if child.exitcode:
            print(f"filling the database failed (exit code {child.exitcode})")
            return 2
        fill_s = time.perf_counter() - start
        counts = store.query(db, "SELECT (SELECT count(*) FROM matches) m, (SELECT count(*) FROM turns) t, "
                                 "(SELECT count(*) FROM seats) s, (SELECT count(*) FROM metrics) x").iloc[0]
        print(f"filled {counts.m:,} matches, {counts.t:,} turns, {counts.s:,} seats, {counts.x:,} metrics in "
              f"{fill_s:.1f} s ({counts.t / fill_s:,.0f} turns/s); file {db.stat().st_size / 2**20:.0f} MB")
        medians: dict[str, float] = {}
        failed = []
        for page, calls in page_queries(db).items():
            print(f"\npage {page}")
            for name, fn in calls:
                median = run_timed(name, fn, args.repeats)
                if median is None:
                    failed.append(f"{page}: {name}")
                else:
                    medians[f"{page}: {name}"] = median
        slowest = max(medians, key=medians.get)
        over = [name for name, ms in medians.items() if ms > BUDGET_MS]
        rss_mb = peak_rss_mb()
        print(f"\nmax over {len(medians)} page queries: {medians[slowest]:.1f} ms ({slowest}); "
              f"over {BUDGET_MS:.0f} ms: {len(over)}" + (f" ({'; '.join(over)})" if over else "")
              + (f"; failed: {'; '.join(failed)}" if failed else ""))
        print(f"peak RSS after all page queries {rss_mb:.0f} MB = {rss_mb / BUDGET_RSS_MB:.2f} of the "
              f"{BUDGET_RSS_MB:.0f} MB budget")
        if not args.no_scorers:
            print(f"\ngated pandas scorers (outside the budget: automatic up to {SLOW_SCORER_LIMIT:,} matches of "
                  "their games, on request above, cached per database version)")
            for name, fn in slow_scorers(db):
                run_timed(f"{name}, first call", fn, 1)
                run_timed(f"{name}, again", fn, 1)
            print(f"peak RSS after the scorers too {peak_rss_mb():.0f} MB")
        return 1 if over or failed or rss_mb > BUDGET_RSS_MB else 0


if __name__ == "__main__":
    sys.exit(main())
