"""Overview: the runs in the database, per game each agent's win rate (the one definition of engine/headline.py:
seats won / seats held over contested matches, self-play left out) and mean score, and the newest matches,
each linking to its transcript. Reads the database read-only through engine/queries.py and engine/headline.py."""

from urllib.parse import urlencode

import streamlit as st

from engine import headline, queries, store
from engine.selection import Selection
from pages.shared import readable
from pages.shared.markdown import plain
from pages.shared.opening import open_page

DB = store.default_db()

open_page("Game Arena for LLMs", DB, caption=f"Database: `{DB}`")

runs = queries.runs_table(DB)
st.subheader("Runs")
st.dataframe(readable(runs), hide_index=True, width="stretch")

choice = st.selectbox("Run", ["all runs", *runs["run_id"].tolist()])
selection = Selection() if choice == "all runs" else Selection(run_ids=(choice,))

st.subheader("Win rate and mean score per agent, by game")
st.caption(f"Win rate: {headline.DEFINITIONS['win rate']}. Games played only in self-play are not listed.")
figures = headline.agent_figures(DB, selection, by_game=True)
if not figures.empty:
    for game, rows in figures.sort_values(["game", "win_rate"], ascending=[True, False]).groupby("game", sort=True):
        st.markdown(f"**{plain(game)}**")
        st.dataframe(readable(rows[["agent", "matches", "seats", "wins", "win_rate", "win_lo", "win_hi",
                                    "mean_score"]]), hide_index=True, width="stretch")

st.subheader("Matches")
matches = queries.recent_matches(DB, None if choice == "all runs" else choice)
shown = readable(matches).assign(transcript=[f"transcripts?{urlencode({'match': m})}" for m in matches["match_id"]])
st.dataframe(shown, hide_index=True, width="stretch", column_config={
    "transcript": st.column_config.LinkColumn("transcript", display_text="open"),
    "error": st.column_config.TextColumn("error", width="large")})
