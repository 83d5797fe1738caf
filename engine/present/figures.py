"""A paper's per-game figure drawn as its suite declares it (`engine.papers.Chart`), for the Games page and the
static site alike, so both draw the same charts: one chart per setting (a 3-player one-round game is never one curve
with a 10-player twenty-round one), one per unit (a count and a share never share an axis), bars where a line would
be a lone dot, yes/no legends as the tables say them, whole-number rounds, shares in % on a 0-100% axis, the y axis
named after its one series or the unit the series share, and colours from the colour-blind safe palette."""

from __future__ import annotations

import html
from dataclasses import dataclass

import pandas as pd
import plotly.express as px
import plotly.graph_objects as go

from engine.papers.registry import Chart
from engine.present.numbers import is_rate, number
from engine.present.palette import PALETTE


@dataclass(frozen=True)
class Drawn:
    """One chart of a figure, with its title and whether every value it draws is 0 (a flat chart to explain)."""

    title: str
    figure: go.Figure
    all_zero: bool


def as_text(table: pd.DataFrame) -> pd.DataFrame:
    """The text columns of `table` as plotly shows text literally: plotly reads a few tags in labels (<b>, <a>,
    <br>), so an agent named with markup would be drawn as markup; its entities (&lt;) it draws as characters."""
    table = table.copy()
    for column in table.columns:
        if pd.api.types.is_string_dtype(table[column]) or table[column].dtype == object:
            table[column] = table[column].map(lambda v: html.escape(v, quote=False) if isinstance(v, str) else v)
    return table


def axes(table: pd.DataFrame, columns: list[str] | str) -> list[tuple[str, list[str]]]:
    """The series of a chart split by unit: shares (every value between 0 and 1: a yes/no field's share, a rate) on
    one chart, the other numbers on another."""
    if isinstance(columns, str):
        return [("", [columns])]
    shares = [c for c in columns if table[c].dropna().between(0, 1).all()]
    values = [c for c in columns if c not in shares]
    return [(unit, group) for unit, group in (("", values), ("share", shares)) if group]


def declared_figures(chart: Chart, table: pd.DataFrame, title: str) -> list[Drawn]:
    """The charts of one figure's `table` (rows as its scorer returns them, a `setting` column or not)."""
    table = as_text(table)
    settings = table.groupby("setting", sort=True) if "setting" in table else [("", table)]
    drawn = []
    for setting, rows in settings:
        drawn += _one_setting(chart, rows.drop(columns="setting", errors="ignore").reset_index(drop=True),
                              f"{title}, {setting}" if setting else title)
    return drawn


def _one_setting(chart: Chart, table: pd.DataFrame, title: str) -> list[Drawn]:
    plot = px.line if chart.kind == "line" else px.bar
    extra = {k: v for k, v in (("color", chart.color), ("facet_col", chart.facet_col), ("barmode", chart.barmode))
             if v is not None}
    for key in ("color", "facet_col"):  # a yes/no field in the legend as its table shows it, not True/False
        if key in extra and pd.api.types.is_bool_dtype(table[extra[key]]):
            table = table.assign(**{extra[key]: table[extra[key]].map(number)})
    if chart.kind == "line" and table[chart.x].nunique() == 1:
        plot = px.bar  # one round recorded: bars, where a line would be a lone dot
        extra.setdefault("barmode", "group")
    drawn, split = [], axes(table, chart.columns(table))
    for unit, columns in split:
        named = title + (f" ({unit}s)" if unit and len(split) > 1 else "")  # which of the figure's charts this is
        # without a colour of their own, the series are the legend's entries (a single one too: it is named)
        series = columns if len(columns) > 1 or "color" not in extra else columns[0]
        fig = plot(table, x=chart.x, y=series, title=html.escape(named, quote=False), **extra,
                   color_discrete_sequence=PALETTE, **({"markers": True} if plot is px.line else {}))
        fig.update_layout(xaxis_title=chart.x_title or chart.x, yaxis_title=chart.y_label(columns, unit), height=420,
                          legend_title_text=chart.color or "", showlegend=True)
        if isinstance(series, list):  # the legend names columns: in words ("winning number", not winning_number)
            fig.for_each_trace(lambda trace: trace.update(name=trace.name.replace("_", " ")))
        if unit or all(is_rate(c) for c in columns):
            fig.update_yaxes(range=[0, 1], tickformat=".0%", hoverformat=".1%")  # shares in %, as the tables
        steps = table[chart.x]
        if pd.api.types.is_integer_dtype(steps):  # rounds, steps: whole-number ticks, never 2.5
            fig.update_xaxes(tickformat="d", dtick=1 if steps.max() - steps.min() <= 20 else None)
        drawn.append(Drawn(named, fig, not table[columns].fillna(0).to_numpy().any()))
    return drawn
