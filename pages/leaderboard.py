"""Leaderboards: per suite, a headline table in the manner of Chatbot Arena (rank from non-overlapping rating
intervals, Bradley-Terry rating with its 95% interval, win rate, matches, valid moves, fallback wins, cost;
self-play left out, provisional agents not ranked: engine/headline.py defines each number), a games x
agents grid whose cells open their transcripts (HELM's scenarios x models), and the paper's own table
with partial averages marked; then per game the win rates and TrueSkill / Bradley-Terry ratings.
Selection by run, game, preset and date."""

from dataclasses import replace
from urllib.parse import urlencode

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from engine import headline, published, store
from engine.metrics.ratings import bradley_terry_table, saved_replay, trueskill_table
from engine.suites import all_suites
from pages.shared import (
    Report,
    cached,
    download_table,
    readable,
    show_table,
    slow_scorer_wanted,
    url_selectbox,
)
from pages.shared.opening import open_filtered_page

DB = store.default_db()
report = Report("Leaderboards")

options, filters = open_filtered_page("Leaderboards", DB, report)


def win_rate_chart(table, title: str) -> go.Figure:
    fig = go.Figure(go.Bar(
        x=table["agent"], y=table["win_rate"],
        error_y={"type": "data", "symmetric": False, "array": table["win_hi"] - table["win_rate"],
                 "arrayminus": table["win_rate"] - table["win_lo"]}))
    fig.update_layout(title=title, yaxis_title="win rate per seat (95% Wilson interval)", yaxis_range=[0, 1],
                      height=360)
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


st.caption("Only contested matches count: self-play (every seat the same agent) is left out of win rates and "
           f"ratings. Fewer than {headline.MIN_MATCHES} contested matches: provisional, not ranked.")
with st.expander("What each number means"):
    st.markdown("\n".join(f"- **{name}**: {text}" for name, text in headline.DEFINITIONS.items()))


def interval(value: float, lo: float, hi: float, decimals: int) -> str:
    """"-72 [-117, -13]": brackets and a comma, since a dash between bounds misreads once they are negative."""
    if value != value:
        return ""
    return f"{value:.{decimals}f} [{lo:.{decimals}f}, {hi:.{decimals}f}]" if lo == lo and hi == hi else (
        f"{value:.{decimals}f}")


def usd(value: float) -> str:
    return "" if value != value else "$0" if value == 0 else f"${value:.2f}" if value >= 0.01 else f"${value:.4f}"


def headline_view(table) -> "pd.DataFrame":
    """The headline table as the page shows it: rank blank for a provisional agent (so marked), intervals in
    brackets, rates as percentages, dollars per match."""
    return pd.DataFrame({
        "rank": ["" if pd.isna(r) else str(int(r)) for r in table["rank"]],
        "agent": [a + (" (provisional)" if provisional else "")
                  for a, provisional in zip(table["agent"], table["provisional"], strict=True)],
        "rating (95% CI)": [interval(*v, 0) for v in zip(table["rating"], table["rating_lo"], table["rating_hi"],
                                                           strict=True)],
        "win rate (95% CI)": [interval(*v, 2) for v in zip(table["win_rate"], table["win_lo"], table["win_hi"],
                                                             strict=True)],
        "matches": table["matches"].astype(int).astype(str),
        "valid moves": ["" if v != v else f"{100 * v:.1f}%" for v in table["valid_rate"]],
        "fallback wins": table["fallback_wins"].astype(int).astype(str),
        "cost / match": [usd(v) for v in table["cost_per_match"]],
    })


def grid(db, suite, selection):
    """Games x agents (HELM's scenarios x models): each cell the agent's win rate in that game over contested
    matches and the number of its seats, linking to those matches in Transcripts."""
    cells = headline.agent_figures(db, selection.within(suite.variants), by_game=True)
    cells["link"] = [
        f"transcripts?{urlencode({'game': g, 'agents': a, 'cell': f'{w:.2f} ({n})'})}"
        for g, a, w, n in zip(cells["game"], cells["agent"], cells["win_rate"], cells["seats"], strict=True)]
    view = cells.pivot(index="game", columns="agent", values="link").reindex(
        [g for g in suite.games if g in set(cells["game"])]).fillna("").reset_index()
    config = {a: st.column_config.LinkColumn(a, display_text=r"cell=([^&]*)") for a in view.columns[1:]}
    numbers = cells.pivot(index="game", columns="agent", values="win_rate").reset_index()
    return view, numbers, config


def paper_view(board, suite):
    """The paper's table, an average over only some of its games marked `partial`."""
    board = board.copy()
    covered = {"games": None, "roles": 7}.items()
    for column, whole in covered:
        if column in board.columns:
            whole = whole or int(board[column].max())
            board[column] = [f"{int(n)} of {whole}" + ("" if n == whole else " (partial)") if n == n else ""
                             for n in board[column]]
    return readable(board)


for suite in all_suites().values():
    if suite.name == "other" and not suite.games:
        continue
    st.header(suite.title)
    table = cached(headline.headline, DB, suite=suite.name, selection=filters)
    if not table.empty:
        show_table(report, f"{suite.title}: headline", table, f"headline_{suite.name}", shown=headline_view(table))
        view, numbers, config = grid(DB, suite, filters)
        st.markdown("**Games x agents**: win rate (seats held); a cell opens its matches in Transcripts.")
        st.dataframe(view, hide_index=True, width="stretch", column_config=config)
        download_table(numbers, f"grid_{suite.name}")
        report.table(f"{suite.title}: games x agents (win rate)", readable(numbers))
    if suite.slow and not saved_replay(replace(filters, games=())) and not slow_scorer_wanted(
            f"{suite.title}'s table", options, suite.games, f"{suite.name}_table"):
        continue
    board = cached(suite.board, DB, filters=filters)
    if not board.empty:
        st.markdown(f"**{suite.paper}'s own table**" if suite.paper else "**Per game**")
        st.caption(suite.caption)
        paper = cached(published.reference, DB, suite=suite.name)  # the paper's rows for the models we played
        board = published.beside(board, paper)
        show_table(report, suite.title, board, suite.name, shown=paper_view(board, suite))
    elif table.empty:
        st.caption(suite.empty)
    else:
        st.caption(f"{suite.paper}'s own table: nothing to score in this selection.")

st.header("Per game")
played = sorted(headline.agent_figures(DB, filters, by_game=True).get("game", pd.Series(dtype=str)).unique())
game = url_selectbox("Game", played, "game") if played else None  # games with contested matches
rows = headline.agent_figures(DB, filters.of_game(game)) if game else pd.DataFrame()
if rows.empty:
    st.caption(f"No contested {game} match in this selection (self-play only, or none).")
else:
    rows = rows.sort_values("win_rate", ascending=False)[[
        "agent", "matches", "seats", "wins", "win_rate", "win_lo", "win_hi", "valid_rate", "fallback_wins",
        "cost_per_match"]]
    fig = win_rate_chart(rows, f"Win rate: {game}")
    st.plotly_chart(fig)
    report.figure(f"Win rate: {game}", fig)
    show_table(report, f"Win rates: {game}", rows, f"win_rates_{game}")
    ratings(game)

report.download("leaderboards")
