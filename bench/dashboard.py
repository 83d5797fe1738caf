"""Is the dashboard fast at scale? Fills a database with 50,000 matches and 1,000,000 turns, or with `--matches
1000000` 20M turns (DuckDB `range()` inserts in a child process, 50,000 matches a statement, the summaries then
built from the log as `engine rescore` builds them; each turn with a prompt of ~550 and an answer of ~60
characters, so a text search reads real text), then times every query each page runs, through the same
functions the pages call (engine/present/queries.py, the ratings, and every leaderboard and figure the suites of
engine/papers/ declare), with each call's own peak memory and this process's after them, its readers bounded as
`engine serve` bounds the dashboard's (`connections.READER_MEMORY_ENV`). Budget (`BUDGET_MS`): every call of
every query (the first, in this fresh process, included) at most 150 ms up to 50,000 matches, 300 ms past; every
page loaded through app.py (AppTest, as the served dashboard does) in at most 2 s; peak RSS under 600 MB, of this
process and of that child (its RSS is the dashboard's). The last line is the verdict.

TrueSkill is a replay of the matches in the order they finished. The child that fills the database ends as
`python -m engine run` does, by bringing the saved replays (every game, each game) up to date; its time is
printed, and the pages' ratings then load them and replay only what finished since. A TrueSkill view filtered
by run, preset or date replays from scratch: the page asks first above sharing.SLOW_SCORER_LIMIT matches, and
that call is timed separately, outside the budget, as are the transcripts' text searches through the prompts
and through every turn, which run only when their box is ticked (by default the answers and the moderator's
messages of the newest `transcripts.TURNS_SEARCHED` turns are searched).

    .venv/bin/python bench/dashboard.py [--matches 50000] [--turns-per-match 20] [--repeats 3] [--db PATH]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import replace
from datetime import date
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import store  # noqa: E402
from engine.papers import headline  # noqa: E402
from engine.papers import summaries as paper_summaries  # noqa: E402, F401  (its import registers the papers' summaries)
from engine.papers.gamabench.games import GAMES as GAMABENCH  # noqa: E402
from engine.papers.magic.intervals import ability_intervals, profile_scope  # noqa: E402
from engine.papers.registry import all_suites, get_suite  # noqa: E402
from engine.present import answer_flags, default_views, queries, transcripts  # noqa: E402
from engine.score import compare, ratings  # noqa: E402
from engine.score.kept_tables import forget  # noqa: E402
from engine.serve.launch import processes  # noqa: E402
from engine.store import connections, summaries  # noqa: E402
from engine.store.selection import Selection  # noqa: E402
from pages.shared.caching import SLOW_SCORER_LIMIT  # noqa: E402

# every call of every query a page makes on load, the first in a fresh process included: 150 ms up to 50,000
# matches, 300 ms past (issue 28: at 1M matches); a page's load under AppTest; the dashboard's peak memory
BUDGET_MS = {50_000: 150.0, None: 300.0}
BUDGET_PAGE_S = 2.0
BUDGET_RSS_MB = 600.0
GAMES = [*GAMABENCH, "tictactoe", "connect_four", "texas_holdem", "hanabi", "undercover",
         "chameleon", "prisoners_dilemma", "cost_sharing"]
MODELS = 8
SEATS = 4
FILL_CHUNK = 50_000
FILL_MEMORY = "2GB"


def fill(db: Path, n_matches: int, turns_per_match: int) -> None:
    """Synthetic but schema-true rows: every game, 8 models, conditions varied as the studies vary them. Inserted
    FILL_CHUNK matches at a time (a million matches' 20M turns in one statement would hold gigabytes), then the
    summaries built from the log as `engine rescore` builds them."""
    store.init_db(db)
    with store.connect(db) as con:
        con.execute("SET enable_progress_bar = false")
        con.execute(f"SET memory_limit = '{FILL_MEMORY}'")  # a bulk load, not the run's writer and its 128 MB
        con.execute("""
            INSERT INTO runs SELECT 'run-' || r, 'bench ' || r, '{}', CASE WHEN r = 0 THEN 'import:gamabench'
                   ELSE 'engine' END, 'done', TIMESTAMP '2025-01-01' + INTERVAL (r) DAY, NULL, 0, 0, NULL, NULL, NULL
            FROM range(10) t(r)""")
        start = time.perf_counter()
        for first in range(0, n_matches, FILL_CHUNK):
            con.execute(_chunk_sql(first, min(first + FILL_CHUNK, n_matches), turns_per_match))
            done = min(first + FILL_CHUNK, n_matches)
            if done < n_matches:
                print(f"  {done:,} of {n_matches:,} matches inserted ({time.perf_counter() - start:.0f} s)",
                      flush=True)
        start = time.perf_counter()
        con.execute("BEGIN")
        summaries.rebuild(con)  # rows inserted around the writer: their summaries built as `rescore` builds them
        con.execute("COMMIT")
    print(f"summaries built from the log in {time.perf_counter() - start:.1f} s", flush=True)


def _chunk_sql(first: int, end: int, turns_per_match: int) -> str:
    """The rows of matches number `first` to `end` - 1 (every table but runs)."""
    games = "[" + ", ".join(f"'{g}'" for g in GAMES) + "]"
    gama = "[" + ", ".join(f"'{g}'" for g in GAMABENCH) + "]"
    matches = f"range({first}, {end}) t(i)"
    return f"""
            INSERT INTO matches SELECT 'm' || lpad(i::VARCHAR, 7, '0'), 'run-' || (i % 10),
                   {games}[1 + i % {len(GAMES)}],
                   CASE WHEN i % 7 = 0 THEN 'no_hint' ELSE 'default' END,
                   CASE WHEN {games}[1 + i % {len(GAMES)}] = 'undercover' THEN '{{"rules": "wis"}}' ELSE '{{}}' END,
                   (i // {len(GAMES)}) % 50, (i // {len(GAMES) * 50}) % 5, 'ok', NULL,
                   TIMESTAMP '2025-01-01' + INTERVAL (i % 30) DAY, TIMESTAMP '2025-01-01' + INTERVAL (i % 30) DAY,
                   '{{"special_seat": 0, "words": ["w0", "w1", "w2", "w3"]}}', 'bench', 1, false, NULL
            FROM {matches};
            INSERT INTO seats SELECT 'm' || lpad(i::VARCHAR, 7, '0'), s, 'p' || s,
                   'model-' || ((i // 3 + s * (i % 2)) % {MODELS}),
                   CASE WHEN s = 0 THEN 'spy' ELSE 'civilian' END, 'v' || (1 + (i // 5) % 5),
                   ['vanilla', 'cot', 'pgm'][1 + (i // 11) % 3], [0.0, 0.5, 1.0][1 + (i // 13) % 3],
                   (hash(i, s) % 1000) / 10.0, s = i % {SEATS}, 1 + (s + i) % {SEATS},
                   'model-' || ((i // 3 + s * (i % 2)) % {MODELS}), 256, NULL  -- named by the rebuild
            FROM {matches}, range({SEATS}) u(s);
            INSERT INTO turns SELECT 'm' || lpad(i::VARCHAR, 7, '0'), k, 1 + k // 5, 'act',
                   CASE WHEN k % 5 = 0 THEN NULL ELSE k % 5 - 1 END,
                   printf('[{{"role": "user", "content": "Round %d of match %d. %s"}}]', 1 + k // 5, i,
                          repeat('Players ' || (hash(i, k) % 1000) || ' and ' || (hash(k, i) % 1000)
                                 || ' chose numbers; the target was two thirds of their mean. ', 6)),
                   printf('I think the others will pick about %d, so I choose {{"chosen_number": %d}}.',
                          hash(i, k) % 60, hash(k, i) % 40), '{{"action": 1}}', TRUE,
                   k % 97 = 0, (k % 53 = 0)::INTEGER, NULL,
                   printf('{{"round": %d, "last": {{"round": %d, "mean": %.2f, "target": %.2f}}, '
                          '"last_move": {{"reward": %.2f}}}}', 1 + k // 5, 1 + k // 5, (hash(i, k) % 100)::DOUBLE,
                          (hash(i, k) % 100) * 2 / 3.0, ((hash(k, i) % 200)::INTEGER - 100) / 100.0),
                   NULL, 50, 8, 0.0001, 400.0, FALSE, 0
            FROM {matches}, range({turns_per_match}) u(k);
            INSERT INTO metrics SELECT 'm' || lpad(i::VARCHAR, 7, '0'), s, 'gamabench_score', (hash(i, s) % 1000) / 10.0
            FROM {matches}, (SELECT unnest([NULL, 0, 1, 2, 3]) AS s)
            WHERE list_contains({gama}, {games}[1 + i % {len(GAMES)}]);
            INSERT INTO metrics SELECT 'm' || lpad(i::VARCHAR, 7, '0'), s, name, (hash(i, s, name) % 10)::DOUBLE
            FROM {matches}, range({SEATS}) u(s),
                 (SELECT unnest(['win_prob:call', 'hanabi_play', 'credits', 'max_credits', 'votes_cast',
                                 'votes_correct', 'speeches', 'fouls']) AS name)
            WHERE {games}[1 + i % {len(GAMES)}] IN ('texas_holdem', 'hanabi', 'undercover', 'chameleon');"""


def filled(db: Path, n_matches: int, turns_per_match: int) -> bool:
    """Whether `db` already holds the bench's rows at this size (and this code's schema: an older one is upgraded)."""
    if not db.exists():
        return False
    store.check_db(db, timeout=None)
    found = store.query(db, "SELECT (SELECT count(*) FROM matches) m, (SELECT count(*) FROM turns) t").iloc[0]
    return (found.m, found.t) == (n_matches, n_matches * turns_per_match)


def refresh_ratings(db: Path) -> None:
    """What `python -m engine run` does after a run: bring the saved TrueSkill replays and the default views' tables
    up to date (engine/present/default_views.py)."""
    start = time.perf_counter()
    refreshed = default_views.refresh(db)
    print(f"the run command's refresh replayed every match and kept {len(refreshed)} views in "
          f"{time.perf_counter() - start:.1f} s (once: a later run replays only its own matches)", flush=True)


def page_queries(db: Path) -> dict[str, list[tuple[str, Callable[[], object]]]]:
    """The queries each page runs on its default view (and on one model / one game chosen)."""
    any_model, game_filter = "model-0", Selection(games=("guessing_game",))  # a label, as Robustness picks one
    # an agent as the Games page's picker names it (a label played at several settings is one agent per setting)
    named_model = queries.agents(db, settings=True)["agent"].iloc[0]
    run_filter = Selection(run_ids=("run-1",))
    day, week = (Selection(date_from=date(2025, 1, 2), date_to=date(2025, 1, days)) for days in (2, 8))
    search = transcripts.MatchSearch
    newest = transcripts.find_matches(db, search())["match_id"].iloc[0]
    return {
        "overview": [
            ("count_matches", lambda: store.count_matches(db)),
            ("runs_table", lambda: queries.runs_table(db)),
            ("agent_figures by game", lambda: headline.agent_figures(db, by_game=True)),
            ("agent_figures by game, one run", lambda: headline.agent_figures(db, Selection(run_ids=("run-1",)),
                                                                              by_game=True)),
            ("recent_matches", lambda: queries.recent_matches(db)),
            ("recent_matches one run", lambda: queries.recent_matches(db, "run-1")),
        ],
        "launch": [
            ("models_played", lambda: queries.models_played(db)),
            ("progress (the runs panel, every 2 s)", lambda: processes.progress(db)),
        ],
        "leaderboard": [
            ("filter_options", lambda: queries.filter_options(db)),
            *((f"{suite.name} headline", lambda suite=suite: headline.headline(db, suite.name))
              for suite in all_suites().values()),
            *((f"{suite.name} coverage (the caption)", lambda suite=suite: headline.coverage(db, suite.name))
              for suite in all_suites().values()),
            ("agent_figures one run", lambda: headline.agent_figures(db, run_filter)),
            ("agent_figures of a day", lambda: headline.agent_figures(db, day)),
            ("agent_figures of a week", lambda: headline.agent_figures(db, week)),
            ("agent_figures from the first day on", lambda: headline.agent_figures(db, Selection(
                date_from=date(2025, 1, 1)))),
            *((f"{suite.name} headline of a week", lambda suite=suite: headline.headline(db, suite.name, week))
              for suite in all_suites().values()),
            ("Bradley-Terry of a week", lambda: ratings.bradley_terry_table(db, selection=week)),
            ("TrueSkill every game", lambda: ratings.trueskill_table(db)),
            ("Bradley-Terry every game", lambda: ratings.bradley_terry_table(db)),
            ("TrueSkill one game", lambda: ratings.trueskill_table(db, selection=game_filter)),
            ("Bradley-Terry one game", lambda: ratings.bradley_terry_table(db, selection=game_filter)),
            ("Bradley-Terry one run", lambda: ratings.bradley_terry_table(db, selection=run_filter)),
            *((f"{suite.name} leaderboard", lambda suite=suite: suite.leaderboard(db))
              for suite in all_suites().values()),
            *((f"{suite.name} pairwise matrices", lambda suite=suite: compare.matrices(
                db, Selection().within(suite.variants))) for suite in all_suites().values()),
            ("A versus B: the agents to choose", lambda: compare.agent_names(db)),
        ],
        "games": [
            ("agents", lambda: queries.agents(db)),
            ("agent_figures one game", lambda: headline.agent_figures(db, game_filter)),
            *figures(db, named_model),
        ],
        "abilities": [
            ("MAgIC ability profile", lambda: get_suite("magic").leaderboard(db)),
            ("MAgIC abilities' n and intervals", lambda: ability_intervals(db, profile_scope(Selection()))),
        ],
        "robustness": [
            ("robustness (the cells' moments, every factor's tables)", lambda: queries.robustness(db, any_model)),
            ("model labels (which agent the page opens on)", lambda: queries.model_labels(db)),
            ("answer flags of one model", lambda: answer_flags.answer_flags(db, agents=(any_model,))),
        ],
        "transcripts": [
            ("games", lambda: transcripts.games(db)),
            ("agents", lambda: transcripts.agents(db)),
            ("agents one game", lambda: transcripts.agents(db, "tictactoe")),
            ("find_matches newest", lambda: transcripts.find_matches(db, search())),
            ("find_matches one game, one agent won", lambda: transcripts.find_matches(
                db, search("tictactoe", (any_model,), "the agent won"))),
            ("find_matches parse failures", lambda: transcripts.find_matches(db, search(parse_failures=True))),
            (f"find_matches text search (no hit: the newest {transcripts.TURNS_SEARCHED:,} turns)",
             lambda: transcripts.find_matches(db, search(text="no such words anywhere"))),
            ("match_info", lambda: transcripts.match_info(db, newest)),
            ("match_seats", lambda: transcripts.match_seats(db, newest)),
            ("match_turns", lambda: transcripts.match_turns(db, newest)),
        ],
    }


def figures(db: Path, model: str) -> list[tuple[str, Callable[[], object]]]:
    """Every figure the suites register, as the games page computes it: for each of its games, over every
    match and over the matches of one model."""
    calls = []
    for suite in all_suites().values():
        for figure in suite.figures:
            for game in figure.games:
                every = Selection().of_game(game)
                mine = replace(every, agents=(model,))
                name = figure.name.format(game=game)
                calls.append((name, lambda f=figure, s=every: f.compute(db, s)))
                calls.append((f"{name}, one model", lambda f=figure, s=mine: f.compute(db, s)))
    return calls


def on_request(db: Path) -> list[tuple[str, Callable[[], object]]]:
    """What the pages run only when asked: TrueSkill over a selection filtered by run (replayed from scratch; the page
    asks above sharing.SLOW_SCORER_LIMIT matches), and the transcripts' text searches on a ticked box: through the
    prompts too ("Search the prompts too"), through every turn ("Search every turn")."""
    search = transcripts.MatchSearch
    return [("TrueSkill one run (replayed from scratch)",
             lambda: ratings.trueskill_table(db, selection=Selection(run_ids=("run-1",)))),
            ("find_matches text search in prompts too (no hit)", lambda: transcripts.find_matches(
                db, search(text="no such words anywhere", in_prompts=True))),
            ("find_matches text search through every turn (no hit)", lambda: transcripts.find_matches(
                db, search(text="no such words anywhere", every_turn=True))),
            ("A versus B (two agents chosen)", lambda: compare.compare(db, *compare.agent_names(db)[:2]))]


def call_budget_ms(n_matches: int) -> float:
    """The budget of one call at this scale (`BUDGET_MS`)."""
    return next(ms for most, ms in BUDGET_MS.items() if most is None or n_matches <= most)


def timed(fn: Callable[[], object], repeats: int, budget_ms: float) -> list[float]:
    """Milliseconds of `repeats` calls; a call 10x over budget is not repeated (its figure is clear already)."""
    out: list[float] = []
    while len(out) < repeats and not (out and out[0] > 10 * budget_ms):
        start = time.perf_counter()
        fn()
        out.append((time.perf_counter() - start) * 1000)
    return out


def run_timed(name: str, fn: Callable[[], object], repeats: int, budget_ms: float) -> float | None:
    """The slowest of `repeats` calls of `fn` in milliseconds (the first, cold call included), printed with the
    median and the most memory its calls took above the process's memory before them; None when it fails on the
    synthetic rows."""
    before = new_peak()
    try:
        times = timed(fn, repeats, budget_ms)
    except Exception as exc:  # a scorer may want rows the synthetic data lacks: say so, go on
        print(f"  {name:52s} failed on the synthetic rows: {type(exc).__name__}: {exc}")
        return None
    slowest = max(times)
    flag = "ok" if slowest <= budget_ms else "OVER"
    print(f"  {name:52s} first {times[0]:7.1f} ms  median {statistics.median(times):7.1f} ms  max {slowest:7.1f} ms  "
          f"{slowest / budget_ms:5.2f} of budget  {flag}  peak +{_status_mb('VmHWM') - before:4.0f} MB")
    return slowest


def in_child(target: Callable[..., None], *args: object) -> bool:
    """Run the writer's part (filling, the run command's refresh) in a child process, so it does not count in
    the dashboard's RSS or warm its memory."""
    child = multiprocessing.get_context("spawn").Process(target=target, args=args)
    child.start()
    child.join()
    if child.exitcode:
        print(f"{target.__name__} failed (exit code {child.exitcode})")
    return child.exitcode == 0


_PEAK_BEFORE = [0.0]  # this process's high-water mark before the last `new_peak` reset it


def _status_mb(key: str) -> float:
    """A figure of this process's /proc status in MB (VmRSS: now; VmHWM: the most since start or the last reset)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{key}:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def new_peak() -> float:
    """Start measuring a call's own peak: the high-water mark so far is kept (`peak_rss_mb`) and reset to the
    memory held now (Linux: `/proc/self/clear_refs`), which is returned in MB; the call's peak is VmHWM after it."""
    _PEAK_BEFORE[0] = peak_rss_mb()
    Path("/proc/self/clear_refs").write_text("5")
    return _status_mb("VmRSS")


def peak_rss_mb() -> float:
    """This process's peak RSS: the high-water mark of its own memory (VmHWM, and before the last reset). Not
    getrusage's ru_maxrss, which Linux carries over from the parent through fork and exec: a spawned child would
    report at least the peak of the process that started it (here, the page queries' 673 MB before the dashboard
    child loaded a page)."""
    return max(_PEAK_BEFORE[0], _status_mb("VmHWM"))


PAGES = ("overview", "launch", "leaderboard", "abilities", "games", "robustness", "transcripts", "glossary")


def served_pages(db: Path, out) -> None:
    """In a child process, as the dashboard serves one user: every page loaded through app.py (AppTest, one
    session) on its default view; sends (page, seconds, peak RSS in MB so far) after each."""
    import logging

    from streamlit.testing.v1 import AppTest

    from tests.page_run import serve_like_the_dashboard

    logging.getLogger("streamlit.runtime.scriptrunner_utils.script_run_context").disabled = True
    os.environ["ARENA_DB"] = str(db)
    os.environ[connections.READER_MEMORY_ENV] = connections.PAGES_READER_MEMORY  # as `engine serve` bounds its readers
    serve_like_the_dashboard()
    with store.serving_pages():
        app = AppTest.from_file(str(Path(__file__).resolve().parent.parent / "app.py"), default_timeout=600).run()
        for page in PAGES:
            start = time.perf_counter()
            app.switch_page(f"pages/{page}.py").run()
            failed = f": {app.exception[0].value}" if app.exception else ""
            out.put((page + failed, time.perf_counter() - start, peak_rss_mb()))
    out.put(None)


def served(db: Path) -> tuple[dict[str, float], float]:
    """Each page's load in seconds and the peak RSS of a process serving every page (`served_pages`), printed
    page by page."""
    ctx = multiprocessing.get_context("spawn")
    out = ctx.Queue()
    child = ctx.Process(target=served_pages, args=(db, out))
    child.start()
    loads: dict[str, float] = {}
    peak = 0.0
    while (item := out.get(timeout=3600)) is not None:
        page, seconds, peak = item
        loads[page] = seconds
        flag = "ok" if seconds <= BUDGET_PAGE_S else "OVER"
        print(f"  {page:52s} loaded in {seconds:6.1f} s; peak RSS so far {peak:5.0f} MB  {flag}")
    child.join()
    return loads, peak


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=50_000)
    parser.add_argument("--turns-per-match", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--db", type=Path, default=None,
                        help="keep the database here (default: a temporary one); one already there with as many "
                             "matches and turns is reused (a million matches take minutes to fill)")
    parser.add_argument("--skip-refresh", action="store_true",
                        help="skip the run command's TrueSkill refresh (at a million matches its read of every match "
                             "ran out of the reader's memory after 11 min)")
    parser.add_argument("--only", action="append", default=[], metavar="TEXT",
                        help="time only the calls whose 'page: name' holds TEXT (repeatable), and load no page: "
                             "for working on a few calls (no verdict)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, ExitStack() as serving:
        db = args.db or Path(tmp) / "bench.duckdb"
        if not filled(db, args.matches, args.turns_per_match):
            forget(db)
            for stale in (db, Path(f"{db}.wal"), ratings.saved_replays_path(db)):
                stale.unlink(missing_ok=True)
            start = time.perf_counter()
            if not in_child(fill, db, args.matches, args.turns_per_match):
                return 2
            fill_s = time.perf_counter() - start
            print(f"filled in {fill_s:.1f} s ({args.matches * args.turns_per_match / fill_s:,.0f} turns/s)")
        else:  # the views a page kept on request in an earlier bench would make its first call a look-up: dropped,
            forget(db)  # the run command's refresh keeps its own again below
            print(f"reusing {db}, filled before (its kept views dropped)")
        counts = store.query(db, "SELECT (SELECT count(*) FROM matches) m, (SELECT count(*) FROM turns) t, "
                                 "(SELECT count(*) FROM seats) s, (SELECT count(*) FROM metrics) x").iloc[0]
        print(f"{counts.m:,} matches, {counts.t:,} turns, {counts.s:,} seats, {counts.x:,} metrics; "
              f"file {db.stat().st_size / 2**20:,.0f} MB")
        if args.skip_refresh:
            print("the run command's TrueSkill refresh skipped: the pages' TrueSkill replays from scratch")
        elif not in_child(refresh_ratings, db):
            print("the run command's TrueSkill refresh failed: the pages' TrueSkill replays from scratch")
        os.environ[connections.READER_MEMORY_ENV] = connections.PAGES_READER_MEMORY  # from here the calls read as
        serving.enter_context(store.serving_pages())  # `engine serve`'s pages do
        budget_ms = call_budget_ms(args.matches)
        slowest_ms: dict[str, float] = {}
        failed = []
        for page, calls in page_queries(db).items():
            calls = [(name, fn) for name, fn in calls
                     if not args.only or any(text in f"{page}: {name}" for text in args.only)]
            if calls:
                print(f"\npage {page}")
            for name, fn in calls:
                ms = run_timed(name, fn, args.repeats, budget_ms)
                if ms is None:
                    failed.append(f"{page}: {name}")
                else:
                    slowest_ms[f"{page}: {name}"] = ms
        if args.only:
            print(f"\n--only: {len(slowest_ms)} calls timed, no pages loaded, no verdict")
            return 0
        slowest = max(slowest_ms, key=slowest_ms.get)
        over = [name for name, ms in slowest_ms.items() if ms > budget_ms]
        rss_mb = peak_rss_mb()
        print(f"\nslowest of {len(slowest_ms)} page queries: {slowest_ms[slowest]:.1f} ms ({slowest}); "
              f"over {budget_ms:.0f} ms: {len(over)}" + (f" ({'; '.join(over)})" if over else "")
              + (f"; failed: {'; '.join(failed)}" if failed else ""))
        print(f"peak RSS after all page queries {rss_mb:.0f} MB = {rss_mb / BUDGET_RSS_MB:.2f} of the "
              f"{BUDGET_RSS_MB:.0f} MB budget")
        print("\nthe dashboard itself: every page through app.py in one process")
        loads, served_mb = served(db)
        print(f"dashboard peak RSS {served_mb:.0f} MB = {served_mb / BUDGET_RSS_MB:.2f} of the "
              f"{BUDGET_RSS_MB:.0f} MB budget")
        print(f"\nonly when asked, outside the budget (TrueSkill above {SLOW_SCORER_LIMIT:,} matches of a filtered "
              "selection; the prompts on a ticked box):")
        for name, fn in on_request(db):
            run_timed(f"{name}, first call", fn, 1, budget_ms)
            run_timed(f"{name}, again", fn, 1, budget_ms)
        slow_pages = [page for page, seconds in loads.items() if seconds > BUDGET_PAGE_S or ":" in page]
        passed = (not (over or failed or slow_pages or len(loads) < len(PAGES))
                  and max(rss_mb, served_mb) <= BUDGET_RSS_MB)
        print(f"\nVERDICT at {counts.m:,} matches: {'PASS' if passed else 'FAIL'}: "
              f"{len(slowest_ms) - len(over)} of {len(slowest_ms) + len(failed)} page calls within {budget_ms:.0f} ms "
              f"(slowest {slowest_ms[slowest]:.0f} ms); {len(loads) - len(slow_pages)} of {len(PAGES)} pages loaded "
              f"within {BUDGET_PAGE_S:.0f} s (slowest {max(loads.values(), default=float('nan')):.1f} s); dashboard "
              f"peak RSS {served_mb:.0f} MB, the calls' {rss_mb:.0f} MB, of {BUDGET_RSS_MB:.0f} MB")
        return 0 if passed else 1

if __name__ == "__main__":
    sys.exit(main())
