"""The site's charts: the win rates of a game with their intervals (a paper's per-game figures are drawn by
engine/present/figures.py, as the Games page draws them), as static plotly HTML that loads plotly.js from the site's
one copy.
Colours from a colour-blind safe palette, so agents stay apart."""

from __future__ import annotations

import html

import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio

from engine.present.figures import as_text
from engine.present.palette import PALETTE
from engine.score.precision import fixed_nested


def chart_html(fig: go.Figure) -> str:
    """A figure as a `<div>` and its script (plotly escapes the text it embeds: a label stays text); its numbers
    at the arena's one precision, as the tables beside it."""
    fig = go.Figure(fixed_nested(fig.to_dict()))
    return pio.to_html(fig, full_html=False, include_plotlyjs=False, config={"displaylogo": False})


def win_rates(rows: pd.DataFrame, title: str) -> go.Figure:
    """`engine.papers.headline.agent_figures` rows: each agent's win rate with its 95% Wilson interval, in %."""
    rows = as_text(rows[["agent", "win_rate", "win_lo", "win_hi"]])
    fig = go.Figure(go.Bar(
        x=rows["agent"], y=rows["win_rate"], marker_color=[PALETTE[i % len(PALETTE)] for i in range(len(rows))],
        error_y={"type": "data", "symmetric": False, "array": rows["win_hi"] - rows["win_rate"],
                 "arrayminus": rows["win_rate"] - rows["win_lo"]}))
    fig.update_layout(title=html.escape(title), yaxis_title="win rate per seat (95% Wilson interval)",
                      yaxis_range=[0, 1], yaxis_tickformat=".0%", yaxis_hoverformat=".1%", height=360)
    return fig


def certainty_curve(curve: pd.DataFrame, title: str) -> go.Figure:
    """`certainty_reads.curve`: the widest adjacent interval against the matches played, look by look, and dashed
    to the point the next batch is expected to reach; dollars in the hover."""
    played, coming = curve[~curve["next"].astype(bool)], curve.tail(2) if curve["next"].astype(bool).any() else None
    fig = go.Figure(go.Scatter(x=played["matches"], y=played["widest"], mode="lines+markers", name="played",
                               customdata=played[["look", "usd", "open"]],
                               hovertemplate="look %{customdata[0]}: %{x} matches, $%{customdata[1]:.4f}, widest "
                                             "%{y:.3f}, %{customdata[2]} pairs open<extra></extra>",
                               line={"color": PALETTE[0]}))
    if coming is not None:
        fig.add_trace(go.Scatter(x=coming["matches"], y=coming["widest"], mode="lines+markers", name="next batch",
                                 line={"color": PALETTE[1], "dash": "dash"}))
    fig.update_layout(title=title, xaxis_title="matches played", yaxis_title="widest adjacent interval (share)")
    return fig
