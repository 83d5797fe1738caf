"""Leaderboards: per game and overall, win rates with Wilson 95% intervals, matches and cost per match,
TrueSkill and Bradley-Terry ratings; γ-Bench's 0-100 table (imported GAMA-Bench rows marked
`published`); the Who-is-Spy ranking and LLMArena's table. Filters by run, game, preset and date."""

from dataclasses import replace

import plotly.graph_objects as go
import streamlit as st

from engine import queries, store
from engine.metrics import llmarena, wis
from engine.metrics.ratings import bradley_terry_table, saved_replay, trueskill_table
from engine.sharing import Report, cached, filter_bar, show_table, slow_scorer_wanted, url_selectbox

DB = store.default_db()
report = Report("Leaderboards")

st.title("Leaderboards")
if store.count_matches(DB) == 0:
    st.info("No matches yet. Play some with `python -m engine run runs/quick.yaml` (or `make run`).")
    st.stop()

options = queries.filter_options(DB)
filters = filter_bar(options, report=report, db=DB)


def win_rate_chart(table, title: str) -> go.Figure:
    fig = go.Figure(go.Bar(
        x=table["agent"], y=table["win_rate"],
        error_y={"type": "data", "symmetric": False, "array": table["ci_high"] - table["win_rate"],
                 "arrayminus": table["win_rate"] - table["ci_low"]}))
    fig.update_layout(title=title, yaxis_title="win rate (95% Wilson interval)", yaxis_range=[0, 1], height=360)
    return fig


def ratings(game: str | None):
    """TrueSkill and Bradley-Terry tables over the selected matches (of `game` when given)."""
    suffix = game or "overall"
    scope = filters if game is None else replace(filters, games=(game,))
    if not saved_replay(scope) and not slow_scorer_wanted("TrueSkill", options, scope.games or None,
                                                          f"ratings_{suffix}"):
        return
    st.markdown("TrueSkill (μ with its 95% interval μ ± 1.96σ; conservative = μ - 3σ; the selected matches replayed "
                "in the order they finished)")
    show_table(report, f"TrueSkill ({suffix})", cached(trueskill_table, DB, filters=scope), f"trueskill_{suffix}")
    st.markdown("Bradley-Terry (bootstrap 95% interval; ranks separate only non-overlapping intervals)")
    show_table(report, f"Bradley-Terry ({suffix})", cached(bradley_terry_table, DB, filters=scope),
               f"bradley_terry_{suffix}")


st.header("Overall")
overall = queries.win_rates(DB, filters, by_game=False)
if overall.empty:
    st.info("No finished matches match these filters.")
else:
    fig = win_rate_chart(overall, "Win rate over all selected games")
    st.plotly_chart(fig)
    report.figure("Win rate over all selected games", fig)
    show_table(report, "Overall win rates", overall, "win_rates_overall")
    ratings(None)

st.header("Per game")
per_game = queries.win_rates(DB, filters, by_game=True)
if not per_game.empty:
    game = url_selectbox("Game", sorted(per_game["game"].unique()), "game")
    rows = per_game[per_game["game"] == game].drop(columns="game")
    fig = win_rate_chart(rows, f"Win rate: {game}")
    st.plotly_chart(fig)
    report.figure(f"Win rate: {game}", fig)
    show_table(report, f"Win rates: {game}", rows, f"win_rates_{game}")
    ratings(game)

st.header("γ-Bench (0-100)")
gama = queries.gamabench_scores(DB, filters)
if gama.empty:
    st.caption("No γ-Bench games in this selection yet.")
else:
    st.caption("Rows with source `published` are GAMA-Bench's own records, imported with "
               "`python -m engine import gamabench DIR` and scored as the authors' `compute_score` does: from "
               "the figures each round record stores (Diner `cheap_player`: an answer outside the options counts "
               "as costly; a record that stops early scores the rounds it has; Battle Royale `shot_player` "
               "'null' is a wrong shot). `overall` needs all eight games.")
    show_table(report, "γ-Bench scores", gama, "gamabench")

st.header("Who is Spy ranking")
ranking = cached(wis.leaderboard, DB, filters=filters)
if ranking.empty:
    st.caption("No Who-is-Spy (`undercover`, rules `wis`) games yet.")
else:
    st.caption("Ranking = 100 + the sum of scores - games played (over the selected WiS games).")
    show_table(report, "Who is Spy ranking", ranking, "wis_ranking")

st.header("LLMArena")
if saved_replay(replace(filters, games=())) or slow_scorer_wanted("LLMArena's table", options, llmarena.GAMES,
                                                                  "llmarena_table"):
    board = cached(llmarena.leaderboard, DB, filters=filters)
    if board.empty:
        st.caption("No LLMArena games in this selection.")
    else:
        st.caption("Per game: TrueSkill mu (Bid, Hanabi: average reward) as a share of the best agent's · 100, "
                   "over the selected matches.")
        show_table(report, "LLMArena", board, "llmarena")

report.download("leaderboards")
