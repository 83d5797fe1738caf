"""Overview: the runs in the database, their matches, and per game the wins and mean score of each agent.
Reads the database read-only, one short query at a time."""

import streamlit as st

from engine import store

DB = store.default_db()

st.title("Game Arena for LLMs")
st.caption(f"Database: `{DB}`")

if store.count_matches(DB) == 0:
    st.info("No matches yet. Play some with `python -m engine run runs/quick.yaml` (or `make run`).")
    st.stop()

runs = store.query(DB, """
    SELECT run_id, name, source, status, n_done, n_matches, created_at, finished_at
    FROM runs ORDER BY created_at DESC""")
st.subheader("Runs")
st.dataframe(runs, hide_index=True, width="stretch")

choice = st.selectbox("Run", ["all runs", *runs["run_id"].tolist()])
run_filter, params = ("", []) if choice == "all runs" else ("AND m.run_id = ?", [choice])

st.subheader("Wins and mean score per agent, by game")
table = store.query(DB, f"""
    SELECT m.game, s.label AS agent, count(*) AS seats_played, sum(CASE WHEN s.won THEN 1 ELSE 0 END) AS wins,
           round(avg(CASE WHEN s.won THEN 1.0 ELSE 0.0 END), 3) AS win_rate, round(avg(s.score), 2) AS mean_score
    FROM seats s JOIN matches m USING (match_id)
    WHERE m.status = 'ok' {run_filter}
    GROUP BY m.game, s.label ORDER BY m.game, win_rate DESC, mean_score DESC""", params)
for game, rows in table.groupby("game", sort=True):
    st.markdown(f"**{game}**")
    st.dataframe(rows.drop(columns="game"), hide_index=True, width="stretch")

st.subheader("Matches")
matches = store.query(DB, f"""
    SELECT m.match_id, m.run_id, m.game, m.preset, m.seed, m."repeat", m.status, m.error,
           string_agg(s.label, ', ' ORDER BY s.seat) AS lineup, m.finished_at
    FROM matches m JOIN seats s USING (match_id)
    WHERE TRUE {run_filter}
    GROUP BY ALL ORDER BY m.finished_at DESC LIMIT 500""", params)
st.dataframe(matches, hide_index=True, width="stretch")
