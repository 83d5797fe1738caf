"""Games: the per-game figures the papers plot, for the model and runs chosen: every figure that a suite
playing the game declares (engine/papers/<paper>/suite.py), e.g. γ-Bench's per-round curves (γ-Bench paper §3);
LLMArena's hint ablation, ConnectFour rewards, Hold'em actions against hand strength and Hanabi's action shares
(LLMArena paper); Who is Spy's per-role table (WiS paper)."""

from dataclasses import replace

import streamlit as st

from engine import store
from engine.papers import headline
from engine.papers.registry import suites_of
from engine.present import queries
from engine.present.captions import glossed, pool_caption
from engine.present.column_help import column_help
from engine.present.figures import declared_figures
from engine.present.numbers import on_one_scale
from engine.present.suite_tables import by_win_rate, win_rates_view
from pages.shared import links
from pages.shared.opening import open_filtered_page
from pages.shared.report import Report
from pages.shared.tables import column_definitions, show_table
from pages.shared.url_widgets import url_selectbox

ANY = "any agent"
DB = store.default_db()
report = Report("Games")

options, selection = open_filtered_page("Games", DB, report, games=False)
chosen = options[options["run_id"].isin(selection.run_ids)] if selection.run_ids else options
chosen = chosen[chosen["preset"].isin(selection.presets)] if selection.presets else chosen
games = sorted(chosen["game"].unique()) or sorted(options["game"].unique())  # the games the chosen runs played
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
    return (f"Each round's point is the mean over the matches{where} of its setting that reached that round: "
            f"{'; '.join(spreads)}.")


def draw(figure, table) -> None:
    """A figure's charts, as its suite declares them (engine/present/figures.py: the static site draws the same); a flat
    chart says that every value is 0 rather than leave an empty axis unexplained."""
    title = f"{game}: {figure.title}" if figure.chart.kind == "line" else figure.title
    for drawn in declared_figures(figure.chart, table, title):
        if drawn.all_zero:
            report.caption(glossed(f"{drawn.title}: every value is 0" + (
                " (no illegal moves)." if "illegal_move_rate" in figure.chart.columns(table) else "."), "valid moves"))
        st.plotly_chart(drawn.figure)
        report.figure(drawn.title, drawn.figure)


st.header(game)
shown = replace(selection.of_game(game), agents=() if mine is None else (mine,))
for suite in suites_of(game):
    for figure in suite.figures_of(game):
        table = only_mine(figure.table(DB, selection=shown))
        table = table.rename(columns=suite.layout.renamed)  # a column under the one name its suite's table gives it
        if table.empty:
            report.caption(glossed(f"{suite.title}: {figure.title}: nothing recorded for this selection.",
                                   suite.title))
            continue
        if {"step", "matches"} <= set(table.columns):  # a per-round curve: say what each point averages
            report.caption(glossed(rounds_caption(table, mine), "per-round curve"))
        if figure.chart is not None:
            draw(figure, table)
        if figure.show_table:
            units = suite.units_of(figure)  # shares in % and each unit in its header, as the suite's table's
            helps = column_help(on_one_scale(table.head(0), units).columns, game, suite.layout.helps)
            show_table(report, f"{game}: {figure.title}", table, figure.name.format(game=game), helps=helps,
                       units=units)
            column_definitions(helps)

st.subheader("Win rates")
rates = only_mine(headline.agent_figures(DB, selection.of_game(game), by_game=True))
if rates.empty:
    report.caption(glossed(f"No contested {game} match in this selection (self-play only, or none).", "self-play"))
for rule_set, rows in rates.groupby("rule_set", sort=True):  # one pool per rule set, as Overview and Leaderboards
    rows = by_win_rate(rows)  # highest first, as Leaderboards and the site order it too
    pool = links.pool_label(game, rule_set)
    report.caption(pool_caption(pool, game))
    show_table(report, f"{pool}: win rates", rows, f"win_rates_{game}{'_' + rule_set if rule_set else ''}",
               shown=win_rates_view(rows, game))
report.download(f"games_{game}")
