"""The site's charts: a paper's per-game figure drawn as its suite declares it (`engine.suites.Chart`), and the
win rates of a game with their intervals, as static plotly HTML that loads plotly.js from the site's one copy.
Colours from a colour-blind safe palette, so agents stay apart."""

from __future__ import annotations

import html

import pandas as pd
import plotly.express as px
import plotly.graph_objects as go
import plotly.io as pio

from engine.numbers import is_rate
from engine.palette import PALETTE
from engine.precision import fixed_nested
from engine.suites import Chart


def chart_html(fig: go.Figure) -> str:
    """A figure as a `<div>` and its script (plotly escapes the text it embeds: a label stays text); its numbers
    at the arena's one precision, as the tables beside it."""
    fig = go.Figure(fixed_nested(fig.to_dict()))
    return pio.to_html(fig, full_html=False, include_plotlyjs=False, config={"displaylogo": False})


def as_text(table: pd.DataFrame) -> pd.DataFrame:
    """The text columns of `table` as plotly shows text literally: plotly reads a few tags in labels (<b>, <a>,
    <br>), so an agent named with markup would be drawn as markup; its entities (&lt;) it draws as characters."""
    table = table.copy()
    for column in table.columns:
        if pd.api.types.is_string_dtype(table[column]) or table[column].dtype == object:
            table[column] = table[column].map(lambda v: html.escape(v, quote=False) if isinstance(v, str) else v)
    return table


def declared(chart: Chart, table: pd.DataFrame, title: str) -> list[go.Figure]:
    """The figure its suite declares, one chart per setting (`setting` column: a 3-player and a 10-player game are
    never drawn as one curve)."""
    table = as_text(table)
    settings = table.groupby("setting", sort=True) if "setting" in table else [("", table)]
    figures = []
    for setting, rows in settings:
        rows = rows.drop(columns="setting", errors="ignore").reset_index(drop=True)
        columns = chart.columns(rows)
        if not columns:
            continue
        extra = {k: v for k, v in (("color", chart.color), ("facet_col", chart.facet_col),
                                   ("barmode", chart.barmode)) if v is not None}
        for key in ("color", "facet_col"):  # a yes/no field in the legend as a word, not True/False
            if key in extra and pd.api.types.is_bool_dtype(rows[extra[key]]):
                rows = rows.assign(**{extra[key]: rows[extra[key]].map({True: "yes", False: "no"})})
        plot = px.line if chart.kind == "line" else px.bar
        fig = plot(rows, x=chart.x, y=columns, title=html.escape(f"{title}, {setting}" if setting else title),
                   color_discrete_sequence=PALETTE, **extra, **({"markers": True} if chart.kind == "line" else {}))
        shares = [columns] if isinstance(columns, str) else columns
        fig.update_layout(xaxis_title=chart.x_title or chart.x, height=420,
                          yaxis_title=chart.y_title or (shares[0] if len(shares) == 1 else "value"))
        if pd.api.types.is_integer_dtype(rows[chart.x]):  # rounds, steps: whole-number ticks, never 1.5
            fig.update_xaxes(tickformat="d", dtick=1 if rows[chart.x].max() - rows[chart.x].min() <= 20 else None)
        if all(is_rate(c) for c in shares):
            fig.update_yaxes(range=[0, 1], tickformat=".0%", hoverformat=".1%")  # shares in %, as the tables show them
        figures.append(fig)
    return figures


def win_rates(rows: pd.DataFrame, title: str) -> go.Figure:
    """`engine.headline.agent_figures` rows: each agent's win rate with its 95% Wilson interval, in %."""
    rows = as_text(rows[["agent", "win_rate", "win_lo", "win_hi"]])
    fig = go.Figure(go.Bar(
        x=rows["agent"], y=rows["win_rate"], marker_color=[PALETTE[i % len(PALETTE)] for i in range(len(rows))],
        error_y={"type": "data", "symmetric": False, "array": rows["win_hi"] - rows["win_rate"],
                 "arrayminus": rows["win_rate"] - rows["win_lo"]}))
    fig.update_layout(title=html.escape(title), yaxis_title="win rate per seat (95% Wilson interval)",
                      yaxis_range=[0, 1], yaxis_tickformat=".0%", yaxis_hoverformat=".1%", height=360)
    return fig
