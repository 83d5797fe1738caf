"""Games: the per-game figures the papers plot, for the model and runs chosen: every figure that a suite
playing the game registers (engine/suites/), e.g. γ-Bench's per-round curves (γ-Bench paper §3); LLMArena's hint
ablation, ConnectFour rewards, Hold'em actions against hand strength and Hanabi's action shares (LLMArena paper);
Who is Spy's per-role table (WiS paper)."""

from dataclasses import replace

import pandas as pd
import plotly.express as px
import streamlit as st

from engine import headline, queries, store
from engine.numbers import on_one_scale
from engine.palette import PALETTE
from engine.suites import suites_of
from pages.shared import links, numbers
from pages.shared.caching import cached
from pages.shared.opening import open_filtered_page
from pages.shared.report import Report
from pages.shared.tables import column_help, show_table, win_rates_view
from pages.shared.url_widgets import url_selectbox

ANY = "any agent"
DB = store.default_db()
report = Report("Games")

options, selection = open_filtered_page("Games", DB, report, games=False)
games = sorted(options["game"].unique())
left, right = st.columns(2)
with left:
    game = url_selectbox("Game", games, "game", default="guessing_game")
with right:
    agent = url_selectbox("Agent", [ANY, *queries.agents(DB, selection, settings=True)["agent"]], "agent")
mine = None if agent == ANY else agent


def only_mine(table):
    return table if mine is None or table.empty or "agent" not in table else table[table["agent"] == mine]


def rounds_caption(table, mine: str | None) -> str:
    """What a per-round curve's points average: the matches of its setting that reached each round (fewer in later
    rounds when matches of one setting end at different rounds); one curve per setting."""
    where = "" if mine is None else f" with {mine} at the table"
    spreads = []
    for setting, rows in (table.groupby("setting", sort=True) if "setting" in table else [("", table)]):
        counts = rows.sort_values("step")["matches"].astype(int)
        first, last = counts.iloc[0], counts.iloc[-1]
        spread = (f"{first} at round {rows['step'].min()}, {last} at round {rows['step'].max()}" if first != last
                  else f"{first} at every round")
        spreads.append(f"{setting}: {spread}" if setting else spread)
    return (f"One curve per setting (preset and parameters: a 3-player one-round game is never averaged with a "
            f"10-player twenty-round one). Each round's point is the mean over the matches{where} of its setting that "
            f"reached that round ({'; '.join(spreads)}; the table's `matches` column gives each round's count).")


def axes(table, columns) -> list[tuple[str, list[str]]]:
    """The series of a chart split by unit, so that a count and a share never share an axis: shares (every value
    between 0 and 1: a yes/no field's share, a rate) on one chart, the other numbers on another."""
    if isinstance(columns, str):
        return [("", [columns])]
    shares = [c for c in columns if table[c].dropna().between(0, 1).all()]
    values = [c for c in columns if c not in shares]
    return [(unit, group) for unit, group in (("", values), ("share", shares)) if group]


def without_blank_rounds(table):
    """A per-round table without the rounds that have no figure left to show: Pirate's proposal step records only
    the proposer (a seat, hidden), so its row was blank beside a count of matches."""
    if not {"step", "matches"} <= set(table.columns):
        return table
    shown = [c for c in table.columns if c not in ("setting", "step", "matches")]
    return table.dropna(how="all", subset=shown).reset_index(drop=True) if shown else table


def draw_settings(figure, table) -> None:
    """A per-round figure drawn once per setting (`setting` column), each its own chart; else as is."""
    if "setting" not in table:
        draw(figure, table)
        return
    for setting, rows in table.groupby("setting", sort=True):
        draw(figure, rows.drop(columns="setting").reset_index(drop=True), setting)


def draw(figure, table, setting: str = "") -> None:
    """A figure's chart, as its suite declares it (plotly express): one chart per unit (`axes`); a chart of rates
    that are all 0 keeps a 0-1 axis and says so, instead of an empty -1..1 axis."""
    chart = figure.chart
    plot = px.line if chart.kind == "line" else px.bar
    extra = {k: v for k, v in (("color", chart.color), ("facet_col", chart.facet_col), ("barmode", chart.barmode))
             if v is not None}
    for key in ("color", "facet_col"):  # a yes/no field in the legend as its table shows it, not True/False
        if key in extra and pd.api.types.is_bool_dtype(table[extra[key]]):
            table = table.assign(**{extra[key]: table[extra[key]].map(numbers.number)})
    if chart.kind == "line" and table[chart.x].nunique() == 1:
        plot = px.bar  # one round recorded: bars, where a line would be a lone dot
        extra.setdefault("barmode", "group")
    for unit, columns in axes(table, chart.columns(table)):
        title = f"{game}: {figure.title}" if chart.kind == "line" else figure.title
        title += f", {setting}" if setting else ""
        title += f" ({unit}s)" if unit else ""
        # without a colour of their own, the series are the legend's entries (a single one too: it is named)
        series = columns if len(columns) > 1 or "color" not in extra else columns[0]
        fig = plot(table, x=chart.x, y=series, title=title, **extra, color_discrete_sequence=PALETTE,
                   **({"markers": True} if plot is px.line else {}))
        fig.update_layout(xaxis_title=chart.x_title or chart.x, yaxis_title=chart.y_label(columns, unit), height=420,
                          legend_title_text=chart.color or "", showlegend=True)
        if unit or all(numbers.is_rate(c) for c in columns):
            fig.update_yaxes(range=[0, 1], tickformat=".0%", hoverformat=".1%")  # shares in %, as the tables show them
        if not table[columns].fillna(0).to_numpy().any():
            report.caption(f"{title}: every value is 0" + (" (no illegal moves)." if "illegal_move_rate" in columns
                                                       else "."))
        steps = table[chart.x]
        if pd.api.types.is_integer_dtype(steps):  # rounds, steps: whole-number ticks, never 2.5
            fig.update_xaxes(tickformat="d", dtick=1 if steps.max() - steps.min() <= 20 else None)
        st.plotly_chart(fig)
        report.figure(title, fig)


def definitions(helps: dict[str, str]) -> None:
    """One line per column of the table that has a definition (`column_help`), under it (the report lists them under
    its copy of the table)."""
    lines = [f"`{column}`: {text}" for column, text in helps.items()]
    if lines:
        st.caption("  \n".join(lines))


st.header(game)
shown = replace(selection.of_game(game), agents=() if mine is None else (mine,))
for suite in suites_of(game):
    for figure in suite.figures_of(game):
        table = only_mine(cached(figure.table, DB, selection=shown))
        table = table.drop(columns=list(figure.hidden.get(game, ())), errors="ignore")
        table = table.rename(columns=suite.layout.renamed)  # a column under the one name its suite's table gives it
        table = without_blank_rounds(table)
        if table.empty:
            report.caption(f"{suite.title}: {figure.title}: nothing recorded for this selection.")
            continue
        if {"step", "matches"} <= set(table.columns):  # a per-round curve: say what each point averages
            report.caption(rounds_caption(table, mine))
        if figure.chart is not None:
            draw_settings(figure, table)
        if figure.show_table:
            units = suite.units_of(figure)  # shares in % and each unit in its header, as the suite's table's
            helps = column_help(on_one_scale(table.head(0), units).columns, game, suite.layout.helps)
            show_table(report, f"{game}: {figure.title}", table, figure.name.format(game=game), helps=helps,
                       units=units)
            definitions(helps)

st.subheader("Win rates")
report.caption(f"Win rate: {headline.DEFINITIONS['win rate']}.")
rates = only_mine(headline.agent_figures(DB, selection.of_game(game), by_game=True))
if rates.empty:
    report.caption(f"No contested {game} match in this selection (self-play only, or none).")
for rule_set, rows in rates.groupby("rule_set", sort=True):  # one pool per rule set, as Overview and Leaderboards
    rows = rows.sort_values("win_rate", ascending=False, kind="stable")  # highest first, as they order it too
    pool = links.pool_label(game, rule_set)
    report.caption(f"Pools: the contested matches of {pool} in the selection, every preset.")
    show_table(report, f"{pool}: win rates", rows, f"win_rates_{game}{'_' + rule_set if rule_set else ''}",
               shown=win_rates_view(rows))
report.download(f"games_{game}")
