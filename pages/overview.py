"""Overview: the runs in the database, per game each agent's win rate (the one definition of engine/papers/headline.py:
seats won / seats held over contested matches, self-play left out) and mean score, and the newest matches,
each linking to its transcript. Reads the database read-only through engine/present/queries.py and
engine/papers/headline.py."""


import pandas as pd
import streamlit as st

from engine import store
from engine.games import get_game
from engine.papers import headline
from engine.present import queries
from engine.present.captions import glossed, pool_caption
from engine.present.suite_tables import win_rates_view
from engine.store.selection import Selection
from engine.wording import count
from pages.shared import links, numbers
from pages.shared.caching import filter_options
from pages.shared.markdown import plain
from pages.shared.numbers import readable
from pages.shared.opening import open_page
from pages.shared.report import Report, download_table, runs_of
from pages.shared.tables import (
    compact_lineup,
    fitted_columns,
    match_link_column,
    show_table,
    tooltips,
)
from pages.shared.url_widgets import url_selectbox

DB = store.default_db()
# the runs table's columns in words (the database's names are for SQL)
RUN_COLUMNS = {"run_id": "run", "name": "name", "source": "source", "status": "status", "n_done": "matches played",
               "n_matches": "matches planned", "created_at": "created", "finished_at": "finished"}
WHOLE = "A double click on a cut cell shows it whole."
NEWEST = 500  # the matches table's rows: Transcripts searches them all
report = Report("Overview")


def matches_caption(shown: int, run: str) -> str:
    """What the matches table lists: how many, of which run, in what order and status, and what a row opens."""
    where = "every run" if run == "all runs" else f"run {run}"
    newest_only = f" (the newest {NEWEST} only: Transcripts searches every match)" if shown >= NEWEST else ""
    return glossed(f"The {count(shown, 'match')} of {where}{newest_only}, newest first, whatever their status "
                   "(an error column shows why a match stopped). A match id opens its turns in Transcripts.")

open_page("Game Arena for LLMs", DB, caption=glossed(f"Database: `{DB}`."))

runs = queries.runs_table(DB)
st.subheader("Runs")
# the run's name takes what the other columns leave of the window (a long name is cut, whole on a double click)
show_table(report, "Runs", runs, "runs", shown=readable(runs).rename(columns=RUN_COLUMNS), column_config={
    "name": {"help": f"the run's name (its spec's `name`). {WHOLE}"},
    "created": {"help": "when the run started, in UTC"}, "finished": {"help": "when the run ended, in UTC"}},
    fill=("name",))

choice = url_selectbox("Run", ["all runs", *runs["run_id"].tolist()], "run")  # kept in the URL, as every page
selection = Selection() if choice == "all runs" else Selection(run_ids=(choice,))
report.scope(DB, {} if choice == "all runs" else {"runs": choice}, runs_of(selection, filter_options(DB)))

st.subheader("Win rate and mean score per agent, by game and rule set")
report.caption(glossed("Each table pools the contested matches of one game under one rule set, every preset: self-play "
                       "of a competitive game is left out. The mean score is on the game's own scale, not a win rate.",
                       "pool"))
figures = headline.agent_figures(DB, selection, by_game=True)
if not figures.empty:
    ordered = figures.sort_values(["game", "rule_set", "win_rate"], ascending=[True, True, False])
    for (game, rule_set), rows in ordered.groupby(["game", "rule_set"], sort=True):
        meaning = get_game(game).score_meaning_of(rule_set)  # the pooled rule set's alone
        presets = sorted({p for listed in rows["presets"] for p in listed})
        st.markdown(f"**{plain(links.pool_label(game, rule_set))}**")
        report.caption(pool_caption(links.pool_label(game, rule_set), game, presets))
        shown = win_rates_view(rows, game)[["agent", "matches", "seats", "wins", "draws", "win rate (95% CI)"]].assign(
            **{"mean score": rows["mean_score"].map(numbers.number).to_numpy()})
        show_table(report, f"Win rate and mean score: {links.pool_label(game, rule_set)}",
                   rows.drop(columns=["presets"], errors="ignore"),
                   f"win_rates_{game}{'_' + rule_set if rule_set else ''}", shown=shown,
                   column_config={"mean score": {"help": meaning}})

st.subheader("Matches")
matches = queries.recent_matches(DB, None if choice == "all runs" else choice, limit=NEWEST)
report.caption(matches_caption(len(matches), choice))
# the match id is the link to its transcript (one column, not two: the table fits a 1400 px window); an error column
# only when a match has one; the long texts (an error, the lineup) last, as wide as the rest leaves (a cut cell reads
# whole on a double click, as their headers' tooltips say)
errored = matches["error"].fillna("").astype(str).str.strip().ne("").any()
order = ["game", "status", "preset", "seed", "repeat", "finished_at", *(["error"] if errored else []), "lineup"]
opened = pd.DataFrame({"transcript": matches["match_id"].map(links.match_link)})
shown = pd.concat([opened, readable(matches[order]).assign(lineup=matches["lineup"].map(compact_lineup))],
                  axis=1)  # the link first: never off-screen
shown, config = fitted_columns(shown, {
    "transcript": match_link_column(matches["match_id"],
                                    "the match's id: opens its turns in Transcripts, in a new tab"),
    "finished_at": {"label": "finished", "help": "when the match finished, in UTC"},
    "lineup": {"help": f"the agents in seat order, seat 0 first (×3: the same agent in three seats in a row). {WHOLE}"},
    **({"error": {"help": f"why the match stopped. {WHOLE}"}} if errored else {})}, fill=("error", "lineup"))
st.dataframe(shown, hide_index=True, width="stretch", column_config=config)
download_table(matches[["match_id", *order]], "matches")
report.table("Matches", readable(matches[["match_id", *order]]).assign(lineup=shown["lineup"].to_numpy()),
             helps=tooltips(config))
report.download("overview")
