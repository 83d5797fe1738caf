"""What the run command computes after a run (engine/cli/main.py), so that the dashboard's first view of the
database reads a file instead of the log: the saved TrueSkill replays brought up to date (`ratings.refresh_saved`,
which replays only the matches since), then the tables that depend on the whole history kept for the database's
new state (engine/score/kept_tables.py) for the views a page opens by default: TrueSkill and Bradley-Terry of
every game and of each game, Bradley-Terry of the newest runs, every played suite's headline and table (a rated headline
fits a bootstrap; the others sum a hundred thousand summary rows at 50,000 matches), and LLMArena's figures (each
reads every match's turns or metrics). Any other view is computed when first asked, then kept until the next
write.
"""

from __future__ import annotations

from pathlib import Path

from engine import store
from engine.papers import headline
from engine.papers.magic.intervals import ability_intervals, profile_scope
from engine.papers.registry import all_suites, get_suite
from engine.score import ratings
from engine.score.ratings import bradley_terry_table, trueskill_table
from engine.store.selection import Selection

NEWEST_RUNS = 10  # the runs whose Bradley-Terry table is ready: the Overview lists the newest first


def refresh(db: str | Path) -> list[str]:
    """Bring the saved replays and the default views' tables up to date; returns the views computed. Each view
    reads over one connection (`store.reading`: an open costs 25 ms, and a view makes a dozen reads), let go
    between views so that another run's writer waits for one view at most; the file stays open between them
    (`store.keeping_open`), let go as soon as a writer of the arena waits."""
    with store.keeping_open():
        return _refresh(db)


def _refresh(db: str | Path) -> list[str]:
    with store.reading(db):
        ratings.refresh_saved(db)
        games = [g for (g,) in store.rows(db, "SELECT DISTINCT game FROM matches WHERE status = 'ok' ORDER BY game")]
        runs = [r for (r,) in store.rows(db, "SELECT run_id FROM runs ORDER BY created_at DESC NULLS LAST, run_id "
                                             "LIMIT ?", [NEWEST_RUNS])]
    views = ["every game", *games, *(f"run {r}" for r in runs)]
    for selection in (Selection(), *(Selection(games=(g,)) for g in games)):
        with store.reading(db):
            trueskill_table(db, selection=selection)
            bradley_terry_table(db, selection=selection)
            headline.ratings(db, selection)  # the Leaderboards page's table of one game
    for run in runs:
        with store.reading(db):
            bradley_terry_table(db, selection=Selection(run_ids=(run,)))
    for suite in all_suites().values():  # the Leaderboards page's tables, of the suites played
        if not set(suite.games) & set(games):
            continue
        with store.reading(db):
            headline.headline(db, suite.name)
        with store.reading(db):
            suite.leaderboard(db)
        views += [f"{suite.name} headline", f"{suite.name} leaderboard"]
    if set(get_suite("magic").games) & set(games):  # Abilities' n and intervals, beside MAgIC's table
        with store.reading(db):
            ability_intervals(db, profile_scope(Selection()))
        views.append("magic ability intervals")
    llmarena = get_suite("llmarena")
    for figure in llmarena.figures:  # the Games page's view of each game: every match of it
        for game in figure.games:
            with store.reading(db):
                figure.compute(db, Selection().of_game(game))
            views.append(figure.name.format(game=game))
    return views
