"""Robustness (GAMA-Bench RQ1, seed 002 §4.1): for one model, its scores across prompt versions,
temperatures, strategies and repeats; per level the mean and spread, a t-test against the default
(paired on shared seeds, Welch otherwise; Holm-corrected) and Cohen's d; per game and factor, and per
game over all factors, a verdict: robust when no level differs Holm-significantly from the default
(SPEC.md gives no numeric criterion; the paper's spread across levels is shown beside it)."""

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from engine import queries, store
from engine.metrics import stats
from pages.shared import Report, readable, show_table, url_selectbox
from pages.shared.markdown import plain
from pages.shared.opening import open_filtered_page

FACTOR_NAMES = {"prompt_version": "prompt versions", "temperature": "temperatures", "strategy": "strategies",
                "repeat": "repeats"}
DB = store.default_db()
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
        table = tables[(factor, game)]
        verdict = stats.robustness_verdict(table)
        summary.append({"game": game, "factor": factor, "levels": len(table),
                        "std_of_means": table["mean"].std(ddof=1), "significant": int(table["significant"].sum()),
                        "verdict": verdict})
        fig.add_trace(go.Scatter(x=table["level"].astype(str), y=table["mean"], name=game, mode="lines+markers",
                                 error_y={"type": "data", "array": table["std"].fillna(0)}))
        short = f" (fewer than {stats.MIN_SAMPLE} scores at the default or at every other level)"
        st.markdown(f"**{plain(game)}**: {verdict}" + (short if verdict == "not enough data" else ""))
        show_table(report, f"{game} across {label}", table, f"robustness_{factor}_{game}",
                   shown=readable(table, {"p": 3, "p_holm": 3}))  # a p-value of 0.004 is not 0.00
    fig.update_layout(title=f"Mean score (± sd) across {label}", xaxis_title=factor, yaxis_title="score",
                      height=400, xaxis={"type": "category"})  # levels as they are (a repeat is a whole number)
    st.plotly_chart(fig)
    report.figure(f"Mean score across {label}", fig)

if summary:
    st.header("Verdicts")
    st.caption(f"Robust: no level differs from the default with a Holm-adjusted p < {stats.ALPHA:g}. A verdict needs "
               f"at least {stats.MIN_SAMPLE} scores at the default and at a level (the paper's five runs); below "
               "that: not enough data. "
               "`std_of_means` is the paper's spread across levels (it calls 2.4-3.4 points consistent and "
               "singles out 7.6-11.0).")
    verdicts = pd.DataFrame(summary)
    per_game = verdicts.groupby("game", as_index=False).agg(
        factors=("factor", "nunique"), significant=("significant", "sum"),
        verdict=("verdict", lambda v: "not robust" if (v == "not robust").any()
                 else "robust" if (v == "robust").any() else "not enough data"))
    show_table(report, "Verdict per game", per_game, "robustness_per_game")
    show_table(report, "Verdicts per factor", verdicts, "robustness_verdicts")
report.download("robustness")
