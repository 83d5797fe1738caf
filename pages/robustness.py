"""Robustness (GAMA-Bench RQ1, seed 002 §4.1): for one model, its scores across prompt versions,
temperatures, strategies and repeats; per level the mean and spread, a t-test against the default
(paired on shared seeds, Welch otherwise; Holm-corrected) and Cohen's d; per game and factor, and per
game over all factors, a verdict (engine/metrics/stats.py's `robustness_verdict`: sensitive when a level differs
Holm-significantly, robust only when an equivalence test shows every difference small, else inconclusive; the
paper's spread across levels is shown beside it)."""

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from engine import queries, store
from engine.metrics import stats
from engine.suites import get_suite
from pages.shared import Report, show_table, url_selectbox
from pages.shared.markdown import plain
from pages.shared.opening import open_filtered_page

FACTOR_NAMES = {"prompt_version": "prompt versions", "temperature": "temperatures", "strategy": "strategies",
                "repeat": "repeats"}
SCORED_0_100 = set(get_suite("gamabench").games)  # γ-Bench's 0-100 score; other games' scores have no fixed scale
DB = store.default_db()


def on_scale(table: pd.DataFrame, on_0_100: bool) -> pd.DataFrame:
    """The level means' 95% intervals clipped to 0-100 where the score lives there (a mean cannot leave its
    scale; the t interval of a few scores near 100 would reach 112)."""
    return table.assign(low=table["low"].clip(0, 100), high=table["high"].clip(0, 100)) if on_0_100 else table


def interval_trace(table: pd.DataFrame, game: str) -> go.Scatter:
    """One game's level means with their 95% intervals, levels in numeric order where they are numbers
    (temperatures, repeats) and the default first otherwise."""
    numeric = pd.to_numeric(table["level"], errors="coerce")
    rows = table.iloc[numeric.argsort(kind="stable")] if numeric.notna().all() else table
    low, high = rows["low"], rows["high"]
    return go.Scatter(x=rows["level"].astype(str).tolist(), y=rows["mean"].tolist(), name=game, mode="lines+markers",
                      error_y={"type": "data", "symmetric": False, "array": (high - rows["mean"]).fillna(0).tolist(),
                               "arrayminus": (rows["mean"] - low).fillna(0).tolist()})


def game_verdict(verdicts: pd.Series) -> str:
    """A game over all its factors: sensitive to any, inconclusive on any, robust to those with a verdict."""
    for verdict in ("sensitive", "inconclusive", "robust"):
        if (verdicts == verdict).any():
            return verdict
    return "not enough data"


report = Report("Robustness")

STUDY = "No matches yet. Play a study, e.g. `python -m engine run runs/gamabench_temperatures.yaml`."
_, filters = open_filtered_page("Robustness", DB, report, empty=STUDY)
played = queries.agents(DB, filters)["agent"].tolist()
agent = url_selectbox("Model", sorted(played, key=lambda a: a.startswith("bot:")), "agent")  # models first
scores = queries.robustness_scores(DB, agent, filters) if agent else None
if scores is None or scores.empty:
    st.info("No scored matches of this model in the selection.")
    st.stop()

st.header("What it played")
st.caption(f"Scores per game and condition (prompt version, temperature, strategy); a factor is tested where a game "
           f"was played at two or more of its levels, a verdict needs {stats.MIN_SAMPLE} scores a level.")
conditions = scores.assign(**{k: scores[k].astype(object).where(scores[k].notna(), "-")
                              for k in ("prompt_version", "temperature", "strategy")}).groupby(
    ["game", "prompt_version", "temperature", "strategy"], as_index=False)["score"].agg(["count", "mean", "std"])
show_table(report, "Scores per game and condition", conditions.rename(columns={"count": "scores"}),
           "robustness_conditions")

tables = queries.robustness_tables(scores)
summary = []
for factor, label in FACTOR_NAMES.items():
    st.header(label.capitalize())
    varied = [game for f, game in tables if f == factor]
    if not varied:
        st.caption(f"{plain(agent)} has not played any game at more than one of its {label}.")
        continue
    fig = go.Figure()
    for game in varied:
        on_0_100 = game in SCORED_0_100
        table = on_scale(tables[(factor, game)], on_0_100)
        margin = stats.equivalence_margin(table["std"].iloc[0], on_0_100)
        verdict = stats.robustness_verdict(table, margin)
        summary.append({"game": game, "factor": factor, "levels": len(table),
                        "std_of_means": table["mean"].std(ddof=1), "margin": margin,
                        "significant": int(table["significant"].sum()), "verdict": verdict})
        fig.add_trace(interval_trace(table, game))
        short = f" (fewer than {stats.MIN_SAMPLE} scores at the default or at every other level)"
        st.markdown(f"**{plain(game)}**: {verdict}" + (short if verdict == "not enough data" else ""))
        show_table(report, f"{game} across {label}", table, f"robustness_{factor}_{game}")
    fig.update_layout(title=f"Mean score (95% interval of the mean) across {label}", xaxis_title=factor,
                      yaxis_title="score", height=400, xaxis={"type": "category"},  # levels as they are
                      yaxis={"range": [-2, 102]} if set(varied) <= SCORED_0_100 else {})
    st.plotly_chart(fig)
    report.figure(f"Mean score across {label}", fig)

if summary:
    st.header("Verdicts")
    st.caption(f"A verdict needs at least {stats.MIN_SAMPLE} scores at the default and at a level (the paper's five "
               f"runs); below that: not enough data. **Sensitive**: a level differs from the default with a "
               f"Holm-adjusted p < {stats.ALPHA:g}. **Robust**: the 95% interval of every level's difference from "
               f"the default lies within ± the margin (an equivalence test), {stats.SCORE_MARGIN:g} points of "
               f"γ-Bench's 0-100 score (between the paper's \"consistent\" 2.4-3.4 and the 7.6-11.0 it singles out) "
               f"or {stats.SD_MARGIN:g} standard deviations of the default's scores on other games. "
               "**Inconclusive**: neither; more scores would tell. "
               "`std_of_means` is the paper's spread across levels.")
    verdicts = pd.DataFrame(summary)
    per_game = verdicts.groupby("game", as_index=False).agg(
        factors=("factor", "nunique"), significant=("significant", "sum"), verdict=("verdict", game_verdict))
    show_table(report, "Verdict per game", per_game, "robustness_per_game")
    show_table(report, "Verdicts per factor", verdicts, "robustness_verdicts")
report.download("robustness")
