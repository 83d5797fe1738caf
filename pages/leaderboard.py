"""Leaderboards: per game and overall, win rates with Wilson 95% intervals, matches and cost per match,
TrueSkill and Bradley-Terry ratings; γ-Bench's 0-100 table (imported GAMA-Bench rows marked
`published`); the Who-is-Spy ranking and LLMArena's table. Selection by run, game, preset and date."""

from dataclasses import replace

import plotly.graph_objects as go
import streamlit as st

from engine import published, queries, store
from engine.metrics.ratings import bradley_terry_table, saved_replay, trueskill_table
from engine.suites import all_suites
from pages.shared import Report, cached, filter_bar, show_table, slow_scorer_wanted, url_selectbox

DB = store.default_db()
report = Report("Leaderboards")

st.title("Leaderboards")
if store.count_matches(DB) == 0:
    st.info("No matches yet. Play some with `python -m engine run runs/quick.yaml` (or `make run`).")
    st.stop()

options = queries.filter_options(DB)
filters = filter_bar(options)


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

for suite in all_suites().values():
    if suite.name == "other" and not suite.games:
        continue
    st.header(suite.title)
    if suite.slow and not saved_replay(replace(filters, games=())) and not slow_scorer_wanted(
            f"{suite.title}'s table", options, suite.games, f"{suite.name}_table"):
        continue
    board = cached(suite.board, DB, filters=filters)
    if board.empty:
        st.caption(suite.empty)
    else:
        st.caption(suite.caption)
        paper = cached(published.reference, DB, suite=suite.name)  # the paper's rows for the models we played
        show_table(report, suite.title, published.beside(board, paper), suite.name)

report.download("leaderboards")
