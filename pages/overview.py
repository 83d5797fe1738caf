"""Overview: the runs in the database, their matches, and per game the wins and mean score of each agent.
Reads the database read-only through engine/queries.py (timed at scale by bench/dashboard.py)."""

import streamlit as st

from engine import queries, store
from pages.shared.markdown import plain

DB = store.default_db()

st.title("Game Arena for LLMs")
st.caption(f"Database: `{DB}`")

if store.count_matches(DB) == 0:
    st.info("No matches yet. Play some with `python -m engine run runs/quick.yaml` (or `make run`).")
    st.stop()

runs = queries.runs_table(DB)
st.subheader("Runs")
st.dataframe(runs, hide_index=True, width="stretch")

choice = st.selectbox("Run", ["all runs", *runs["run_id"].tolist()])
run_id = None if choice == "all runs" else choice

st.subheader("Wins and mean score per agent, by game")
for game, rows in queries.wins_by_game(DB, run_id).groupby("game", sort=True):
    st.markdown(f"**{plain(game)}**")
    st.dataframe(rows.drop(columns="game"), hide_index=True, width="stretch")

st.subheader("Matches")
st.dataframe(queries.recent_matches(DB, run_id), hide_index=True, width="stretch")
