"""Abilities (MAgIC paper Figure 1): the radar of the seven abilities for several challengers at
once, the radar's area against the win rate, and vanilla against PGM side by side, all on the paper's one
0-100 scale (Figure 1: abilities and win rates in percent, the radar's area as a percentage of the full radar;
the profile adds the area in the paper's own unit, the raw polygon on 0-100 axes).
Figures come from the MAgIC suite's own table, the one Leaderboards shows (`own_table`: contested matches, the
same partial marks through `own_table_view`); NaN where a game was not played."""

import html

import plotly.graph_objects as go
import streamlit as st

from engine import store
from engine.papers.magic.abilities import ABILITIES, ABILITY_COLUMNS, AREA, PAPER_AREA, RADAR_SCALE
from engine.papers.magic.intervals import ability_intervals, profile_scope
from engine.papers.magic.suite import MEAN_ROLE_WIN_RATE
from engine.papers.registry import get_suite, own_table
from engine.present import numbers
from engine.present.captions import glossed, own_table_caption
from engine.present.palette import painted
from engine.present.suite_tables import complete_first, partial_rows
from engine.store.selection import Selection
from pages.shared.caching import filter_options
from pages.shared.markdown import plain
from pages.shared.opening import open_page
from pages.shared.own_tables import show_own_table
from pages.shared.report import Report, runs_of
from pages.shared.tables import show_table
from pages.shared.url_widgets import url_multiselect

SUITE = get_suite("magic")
RADIAL_ANGLE = 90 + 180 / len(ABILITIES)  # the scale's numbers between the first two abilities, not on one's label
LEGEND_RIGHT = {"x": 1.08, "xanchor": "left", "y": 1, "yanchor": "top"}  # beside the plot, clear of it
DB = store.default_db()
report = Report("Abilities (MAgIC)")


def challenger_of(agent: str, strategy) -> str:
    return f"{agent} · {strategy}" if isinstance(strategy, str) and strategy else agent  # bots have no strategy


open_page("Abilities (MAgIC)", DB, empty="No data yet: play MAgIC's games (e.g. `python -m engine run "
          "runs/magic_social.yaml` and `runs/magic_game_theory.yaml`).")

profile = own_table(DB, suite=SUITE.name, selection=Selection())
if profile.empty:
    st.info(f"No data yet: {SUITE.empty}")
    st.stop()

profile["challenger"] = [challenger_of(a, s) for a, s in zip(profile["agent"], profile["strategy"], strict=True)]
names = profile["challenger"].tolist()
profile["abilities"] = profile[ABILITY_COLUMNS].notna().sum(axis=1)
fullest = profile.sort_values(["abilities", AREA, "win_rate"], ascending=False, na_position="last", kind="stable")
complete = fullest[fullest["abilities"] == fullest["abilities"].max()]
opening = (complete if len(complete) >= 2 else fullest)["challenger"].tolist()[:4]  # the most abilities measured
chosen = url_multiselect("Challengers", names, "agents", default=opening) or opening
report.scope(DB, {"challengers": ", ".join(chosen)}, runs_of(Selection(games=SUITE.games), filter_options(DB)))
shown = profile[profile["challenger"].isin(chosen)]


def as_text(label: str) -> str:
    """A label as plotly draws text (it reads <a href>, <b>, <br> in names, ticks and hover text as markup)."""
    return html.escape(label, quote=False)


# what each ability rests on: the seats behind it and its 95% interval, over the profile's matches
intervals = ability_intervals(DB, selection=profile_scope(Selection()))
intervals.insert(0, "challenger", [challenger_of(a, s) for a, s in zip(intervals["agent"], intervals["strategy"],
                                                                       strict=True)])
behind = intervals.set_index(["challenger", "ability"])


def radar(rows, title: str) -> go.Figure:
    fig = painted(go.Figure())  # agents told apart (Streamlit's theme draws two in near-identical blues)
    for row in rows.itertuples(index=False):
        values = [row[rows.columns.get_loc(a)] for a in ABILITY_COLUMNS]  # 0-100 as the scorer gives them
        rests = [behind.loc[(row.challenger, a)] if (row.challenger, a) in behind.index else None for a in ABILITIES]
        hover = [numbers.interval(v, r["low"], r["high"]) + f", n = {int(r['n']):,}" if r is not None and v == v
                 else "not played" for v, r in zip(values, rests, strict=True)]
        fig.add_trace(go.Scatterpolar(r=[*values, values[0]], theta=[*ABILITIES, ABILITIES[0]],
                                      name=as_text(row.challenger), fill="toself", opacity=0.6,
                                      customdata=[*hover, hover[0]],
                                      hovertemplate="%{theta}: %{customdata}<extra>%{fullData.name}</extra>"))
    fig.update_layout(title=title, height=520, legend=LEGEND_RIGHT, polar={
        "angularaxis": {"rotation": 90, "direction": "clockwise"},
        "radialaxis": {"range": [0, RADAR_SCALE], "tickvals": [20, 40, 60, 80, 100], "angle": RADIAL_ANGLE,
                       "tickangle": RADIAL_ANGLE, "tickfont": {"size": 10}}})
    return fig


fig = radar(shown, "Seven abilities")
st.plotly_chart(fig)
report.figure("Seven abilities", fig)
missing = shown[shown[ABILITY_COLUMNS].isna().any(axis=1)]["challenger"].tolist()
rested = intervals[intervals["challenger"].isin(chosen)].assign(
    ability=lambda t: t["ability"] + " (0-100)",
    interval=lambda t: [numbers.interval(v, lo, hi) for v, lo, hi in zip(t["value"], t["low"], t["high"], strict=True)])
gaps = f" Missing abilities leave gaps and no area: {', '.join(map(plain, missing))}." if missing else ""
report.caption(glossed("Each ability with its 95% Wilson interval (clipped to 0-100: Deception's shift by its fixed "
                       "guess term can carry it past) and n, the challenger's matches behind it (the radar's hover "
                       "shows both)." + gaps, "ability"))
show_table(report, "Abilities: n and 95% intervals", rested[["challenger", "ability", "n", "trials", "value", "low",
                                                              "high"]], "ability_intervals",
           shown=rested[["challenger", "ability", "interval", "n", "trials"]])

short = partial_rows(shown, SUITE.layout)  # a mean over fewer than the seven roles: marked on the chart
coverage = SUITE.layout.coverage
ticks = [as_text(f"{c} (partial: {int(n)} of {coverage.whole} {coverage.unit})" if p else c)
         for c, n, p in zip(shown["challenger"], shown["roles"], short, strict=True)]
bars = go.Figure([
    go.Bar(x=ticks, y=shown[AREA].tolist(), name="radar area (% of the full radar)",
           customdata=shown[PAPER_AREA].tolist(),  # the paper's own unit, in the hover
           hovertemplate="%{y:.1f}% of the full radar; %{customdata:,.0f} on 0-100 axes (Figures 1 and 6)"),
    # points, not a line: the agents side by side are unrelated, a line joining them would read as a trend
    go.Scatter(x=ticks, y=(shown["win_rate"] * RADAR_SCALE).tolist(),
               name=f"{MEAN_ROLE_WIN_RATE} (%)", mode="markers+text", textposition="top center", textfont={"size": 10},
               text=[as_text(f"{c}: {numbers.percent(w)}")
                     for c, w in zip(shown["challenger"], shown["win_rate"], strict=True)],
               marker={"symbol": ["circle-open" if p else "circle" for p in short], "size": 10, "color": "red"}),
])
bars.update_layout(title=f"Radar area against the {MEAN_ROLE_WIN_RATE} (the paper's Figure 1)", height=420,
                   legend=LEGEND_RIGHT, yaxis={"title": "%", "range": [0, RADAR_SCALE], "dtick": 20})
st.plotly_chart(bars)
report.figure(f"Radar area against the {MEAN_ROLE_WIN_RATE}", bars)
partial_note = (" Partial (an open marker, named on the axis): a mean over fewer of the seven roles, not comparable, "
                "with no radar area." if short.any() else "")
report.caption(glossed(f"The {MEAN_ROLE_WIN_RATE} is MAgIC's mean of seven role win rates, not the win rate of the "
                       f"other pages; the bars are the radar's area in % of the full radar.{partial_note}",
                       "mean role win rate"))

st.subheader("Vanilla against PGM")
pairs = profile[profile["strategy"].isin(["vanilla", "pgm"])]
both = sorted(a for a, rows in pairs.groupby("agent") if set(rows["strategy"]) == {"vanilla", "pgm"})
if not both:
    st.caption(glossed("No agent has played both the vanilla and the pgm strategy yet: play one model with "
                       "`strategy: vanilla` and with `strategy: pgm` (the commented-out challenger seats of "
                       "runs/magic_game_theory.yaml and runs/magic_social.yaml).", "ability"))
else:
    pick = pairs[pairs["agent"].isin(both)]
    left, right = st.columns(2)
    for column, strategy in ((left, "vanilla"), (right, "pgm")):
        side = radar(pick[pick["strategy"] == strategy], strategy)
        column.plotly_chart(side)
        report.figure(f"Abilities: {strategy}", side)
    pick = pick.assign(win_rate=pick["win_rate"] * RADAR_SCALE)  # 0-100, as the radars and the abilities
    wide = pick.pivot_table(index="agent", columns="strategy", values=[*ABILITY_COLUMNS, "win_rate", AREA]).rename(
        columns={"win_rate": f"{MEAN_ROLE_WIN_RATE} (%)"})
    # "Rationality · pgm (0-100)": the strategy beside the figure, its scale last as in every header
    wide.columns = [f"{name} · {strategy} ({unit}" for (name, _, unit), strategy in
                    ((column.rpartition(" ("), strategy) for column, strategy in wide.columns)]
    show_table(report, "Vanilla against PGM", wide.reset_index(), "vanilla_vs_pgm")

st.subheader("Profile")
report.caption(own_table_caption(SUITE))
table = complete_first(profile.drop(columns=["challenger", "abilities"]), SUITE.layout)  # partial rows last
show_own_table(report, "Ability profile", table, "ability_profile", SUITE.layout)
report.download("abilities")
