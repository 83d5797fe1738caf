"""Robustness (GAMA-Bench RQ1, γ-Bench paper §4.1): for one model, its scores across prompt versions,
temperatures, strategies and repeats, compared within one game and setting (preset and params: a 3-player
and a 10-player guessing game are never pooled); per level the mean and spread, a t-test against the default
(paired on shared seeds, Welch otherwise; Holm-corrected) and Cohen's d, but only where the level and the
default have stats.MIN_SAMPLE scores; per game, setting and factor, and per game and setting over all factors,
a verdict (engine/score/stats.py's `robustness_verdict`: not enough data unless every level was tested;
sensitive when a level differs Holm-significantly; robust only when an equivalence test shows every difference
small; else inconclusive; the paper's spread across levels is shown beside it). The scores compared are the model's
own (a match where the engine played a fallback move for it is left out unless `with_fallbacks`); each level shows
its own scores and valid-move rate, and answers that may copy the prompt are flagged
(engine/present/answer_flags.py)."""

import json
import math
import re

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from engine import store
from engine.present import answer_flags, queries
from engine.present.captions import glossed
from engine.present.column_help import COLUMN_HELP
from engine.present.suite_tables import with_condition
from engine.score import stats
from engine.store import valid_answers
from pages.shared import numbers
from pages.shared.markdown import plain
from pages.shared.numbers import readable
from pages.shared.opening import open_filtered_page
from pages.shared.report import Report
from pages.shared.tables import column_definitions, fitted_columns, show_table
from pages.shared.url_widgets import url_selectbox, url_toggle

FACTOR_NAMES = {"prompt_version": "prompt versions", "temperature": "temperatures", "strategy": "strategies",
                "max_tokens": "answer length caps", "repeat": "repeats"}
FACTOR_WHY = {
    "prompt_version": "the same game under the prompt's five wordings (v1 is the default)",
    "temperature": "the same game at other sampling temperatures (1.0 is the default)",
    "strategy": "the same game with a prompting strategy (cot, persona, pgm) against vanilla",
    "max_tokens": f"the same game with another cap on the answer's tokens (max_tokens; {queries.FACTORS['max_tokens']} "
                  "is the default)",
    "repeat": "the same condition played again on new seeds (γ-Bench runs a model five times to show its variance): "
              "a difference between repeats is chance alone, so a robust model shows none"}
DB = store.default_db()
# rows of "What it played" drawn at once: past them, one game's (a model of a large database has a thousand
# conditions, slow to draw, format and put in the report)
PLAYED_AT_ONCE = 100
TWO_DECIMALS = dict.fromkeys(["mean", "sd", "sd of means", "margin"], 2)  # scores, even where whole (5 is 5.00)
COMPARISON_COLUMNS = {
    "level": "the factor's value; the first row is the default, which every other row is compared with",
    "scores": "matches scored at this level (one score per match: the γ-Bench 0-100 score, else the model's mean "
              "seat score)",
    "mean (95% CI)": "mean score, with the 95% interval of the mean (clipped to the score range)",
    "sd": "standard deviation of the scores",
    "difference (95% CI)": "mean minus the default's mean, with the test's 95% interval of the difference",
    "test": f"paired t on the seeds both levels played (when every score has its pair; in brackets, how many), else "
            f"Welch's t; '{stats.NOT_TESTED}' when this level or the default has fewer than {stats.MIN_SAMPLE} scores",
    "p (Holm)": "the test's two-sided p-value adjusted by Holm's method over the tested levels of this table (blank "
                "when both levels scored the same on every seed: no p; the unadjusted p is in the downloads)",
    "d": "Cohen's d: the difference in pooled standard deviations of the two levels' scores",
    "significant": f"yes when p (Holm) < {stats.ALPHA:g}; blank when not tested",
    "own": "matches at this level in which none of the model's moves was a fallback (the engine's random move in "
           "its place): its own scores, the only ones compared unless fallbacks are counted",
    "valid": f"{valid_answers.DEFINITION}, over every match of this level"}
PLAYED_COLUMNS = {
    "setting": "vanilla: the game's default parameters; custom: the parameters that differ from them (as γ-Bench's own "
               "table on Leaderboards calls them), after the preset unless it is the default; levels are compared only "
               "within one setting",
    "condition": COLUMN_HELP["condition"],
    "scores": "matches scored (the model's own unless fallbacks are counted)", "mean": "mean score",
    "sd": "standard deviation of the scores", "own": COMPARISON_COLUMNS["own"],
    "valid": COMPARISON_COLUMNS["valid"],
    "params": "every parameter of the setting (a double click on a cut cell shows it whole)"}
VERDICT_COLUMNS = {
    "tested": f"levels other than the default with {stats.MIN_SAMPLE} scores or more, as the default, of the levels "
              "other than the default",
    "sd of means": "the paper's spread: standard deviation of the levels' mean scores",
    "margin": "the equivalence margin: how far a level's mean may be from the default's and count as the same",
    "significant": "tested levels whose p (Holm) is below the threshold"}


def p_text(p: float) -> str:
    """A p-value in the dashboard's format (2 decimals, "< 0.01" below), with more digits only where rounding would
    carry it across the threshold: 0.046 shown as "0.05" beside "significant: yes" reads as a contradiction."""
    shown, digits = numbers.p_value(p), 2
    while shown and shown != "< 0.01" and (float(shown) < stats.ALPHA) != (p < stats.ALPHA):
        digits += 1
        shown = f"{p:.{digits}f}"
    return shown


def params_text(params: str | None) -> str:
    """A setting's params JSON as "players=3, ratio=0.67": numbers in the page's format."""
    values = json.loads(params) if params else {}
    return ", ".join(f"{k}={numbers.cell(v, 2, k) if isinstance(v, float) else json.dumps(v).strip(chr(34))}"
                     for k, v in values.items())


def comparison_view(table: pd.DataFrame) -> pd.DataFrame:
    """One setting's `compare_levels` block as the page shows it: readable names, intervals as "value [lo to hi]",
    2 decimals, p-values by `p_text`, blanks for what was not computed."""
    return pd.DataFrame({
        "level": [numbers.cell(v, 2, "level") for v in table["level"]],
        "scores": table["n"].map(numbers.number),
        "mean (95% CI)": [numbers.interval(*v) for v in zip(table["mean"], table["low"], table["high"], strict=True)],
        "sd": table["std"].map(numbers.number),
        "difference (95% CI)": [numbers.interval(*v) for v in zip(table["diff"], table["diff_low"],
                                                                    table["diff_high"], strict=True)],
        "test": [f"{test} ({numbers.number(pairs)})" if test == "paired t" and not numbers.missing(pairs)
                 else test for test, pairs in zip(table["test"], table["pairs"], strict=True)],
        "p (Holm)": table["p_holm"].map(p_text),
        "d": table["cohens_d"].map(numbers.number),
        "significant": table["significant"].map(numbers.number),
        "own": table["own"].map(numbers.number),
        "valid": table["valid_rate"].map(numbers.percent)})


def in_level_order(table: pd.DataFrame) -> pd.DataFrame:
    """Levels in numeric order where they are numbers (temperatures, repeats), else as compare_levels gives them
    (the default first)."""
    numeric = pd.to_numeric(table["level"], errors="coerce")
    return table.iloc[numeric.argsort(kind="stable")] if numeric.notna().all() else table


def facets(blocks: list[tuple[str, str, pd.DataFrame]], label: str) -> go.Figure:
    """One small chart per game and setting (each on its own y scale: Hold'em's chips beside a 0-2 score would
    flatten the rest): level means with their 95% intervals; grey where a level has too few scores to be tested.
    The grid laid out here and the figure built from one dict, validated once: make_subplots and a layout update
    are slow for a factor's dozens of charts."""
    cols = min(3, len(blocks))
    rows = math.ceil(len(blocks) / cols)
    height = 260 * rows + 90
    gap_x, gap_y = 0.08, 110 / height
    width, tall = (1 - gap_x * (cols - 1)) / cols, (1 - gap_y * (rows - 1)) / rows
    traces, layout, titles = [], {}, []
    for i, (game, setting, table) in enumerate(blocks):
        table = in_level_order(table)
        left, top = (i % cols) * (width + gap_x), 1 - (i // cols) * (tall + gap_y)
        x, y = ("x", "y") if i == 0 else (f"x{i + 1}", f"y{i + 1}")
        traces.append({
            "type": "scatter", "xaxis": x, "yaxis": y,
            "x": [numbers.cell(v, 2, "level") for v in table["level"]],  # as the level tables write them: 1.00
            "y": table["mean"].tolist(), "mode": "lines+markers", "showlegend": False,
            "marker": {"color": ["#1f77b4" if n >= stats.MIN_SAMPLE else "#aaaaaa" for n in table["n"]], "size": 8},
            "line": {"color": "#1f77b4"}, "customdata": table["n"].tolist(),
            "hovertemplate": "level %{x}<br>mean %{y:.2f}<br>%{customdata} scores<extra></extra>",
            "error_y": {"type": "data", "symmetric": False, "color": "#1f77b4",
                        "array": (table["high"] - table["mean"]).fillna(0).tolist(),
                        "arrayminus": (table["mean"] - table["low"]).fillna(0).tolist()}})
        # levels as written (0.00, v1, repeat 2); each game's own scale (its table's header)
        layout[f"xaxis{i + 1 if i else ''}"] = {"domain": [left, left + width], "anchor": y, "type": "category",
                                                "title": {"text": label, "font": {"size": 11}}}
        layout[f"yaxis{i + 1 if i else ''}"] = {"domain": [top - tall, top], "anchor": x,
                                                "title": {"text": "mean score", "font": {"size": 11}}}
        titles.append({"text": f"{game}<br>{setting}", "x": left + width / 2, "y": top, "xref": "paper",
                       "yref": "paper", "xanchor": "center", "yanchor": "bottom", "showarrow": False,
                       "font": {"size": 12}})
    return go.Figure({"data": traces, "layout": layout | {
        "annotations": titles, "height": height, "margin": {"t": 110},
        "title": {"text": f"Mean score (95% interval of the mean) across {label}, per game and setting"}}})


def game_verdict(verdicts: pd.Series) -> str:
    """A game in one setting over all its factors: sensitive to any; robust only when robust to every one; not
    enough data when no factor has a verdict; else inconclusive."""
    if (verdicts == "sensitive").any():
        return "sensitive"
    if (verdicts == "robust").all():
        return "robust"
    return "not enough data" if (verdicts == "not enough data").all() else "inconclusive"


def block_summary(tables: pd.DataFrame) -> pd.DataFrame:
    """One row per factor, game and setting of `queries.robustness`' tables: its levels, the levels tested, the
    paper's spread (sd of the levels' means), the equivalence margin, the significant levels (blank when nothing
    was tested) and the verdict (`stats.robustness_verdicts`), every block in one pass."""
    by = ["factor", "game", "setting"]
    columns = ["game", "setting", "factor", "levels", "tested", "sd of means", "margin", "significant", "verdict"]
    if tables.empty:
        return pd.DataFrame(columns=columns)
    blocks = tables.groupby(by, sort=False)
    margin = stats.equivalence_margin(blocks["std"].transform("first").to_numpy(),
                                      tables["game"].isin(queries.SCORED_0_100).to_numpy())
    tested = tables["test"].isin(["paired t", "Welch t"])
    summary = tables.assign(tested=tested, significant=tables["significant"].eq(True), margin=margin).groupby(
        by, sort=False).agg(levels=("level", "size"), tested=("tested", "sum"), **{"sd of means": ("mean", "std")},
                            margin=("margin", "first"), significant=("significant", "sum"))
    summary["significant"] = summary["significant"].astype("Int64").where(summary["tested"] > 0)
    summary["verdict"] = stats.robustness_verdicts(tables, by, margin)
    # in the page's order: factor by factor, each factor's games and settings as the tables have them
    order = {factor: i for i, factor in enumerate(FACTOR_NAMES)}
    return summary.reset_index().sort_values("factor", key=lambda f: f.map(order), kind="stable",
                                             ignore_index=True)[columns]


report = Report("Robustness")

STUDY = "No matches yet. Play a study, e.g. `python -m engine run runs/gamabench_temperatures.yaml`."
_, selection = open_filtered_page("Robustness", DB, report, empty=STUDY)
played = queries.agents(DB, selection)["agent"].tolist()
models = queries.model_labels(DB)
agent = url_selectbox("Model", sorted(played, key=lambda a: a not in models), "agent")  # models first, by agent string
with_fallbacks = url_toggle(
    "Count the scores of matches where the engine played a fallback move for it", "with_fallbacks",
    help="Off: levels are compared on the model's own scores only (no fallback move of its in the match). On: every "
         "score counts, the engine's random moves included.")
figures = queries.robustness(DB, agent, selection, own_only=not with_fallbacks) if agent else None
if figures is None or figures.cells.empty:
    st.info("No scored matches of this model in the selection.")
    st.stop()

report.markdown(f"**Minimum sample: {stats.MIN_SAMPLE} scores a level** (the paper's five runs). A level with fewer, "
                "or whose default has fewer, is shown but not tested; a verdict needs every level of the comparison "
                "tested, else it is *not enough data*.")

flagged = answer_flags.flag_lines(answer_flags.answer_flags(DB, selection, agents=(agent,)))
if flagged:  # its scores may measure the prompt's example, not the model
    warning = ("**Answers to check**, they may measure the prompt rather than the model: "
               + "; ".join(map(plain, flagged)))
    st.warning(warning)
    report.text(warning)

st.header("What it played")
# a setting as every page names it ("vanilla", "custom: players=3, rounds=1": engine.games.settings.setting_label, the
# rule of γ-Bench's own table), as robustness keys its blocks; each distinct params written once
cells = figures.cells
played_in = cells.assign(params=cells["params"].map({params: params_text(params)
                                                     for params in cells["params"].unique()}))
condition = ["game", "setting", "prompt_version", "temperature", "strategy", "max_tokens", "params"]
groups = played_in.groupby(condition, dropna=False).ngroup().to_numpy()  # in the order of the keys
scored = cells["scored"].to_numpy(dtype=float)  # a cell's scores (a match without a score counts in no mean)
n, mean, m2 = stats.pooled(groups, scored, *(np.where(scored > 0, cells[name].to_numpy(dtype=float), 0.0)
                                             for name in ("mean", "m2")))
with np.errstate(invalid="ignore", divide="ignore"):
    sd = np.where(n > 1, np.sqrt(m2 / (n - 1)), np.nan)
conditions = played_in.iloc[np.unique(groups, return_index=True)[1]][condition].reset_index(drop=True)
conditions.columns = ["game", "setting", "prompt version", "temperature", "strategy", "max tokens", "params"]
own, decisions, valid = (np.bincount(groups, cells[name].fillna(0).to_numpy(dtype=float))
                         for name in ("own", "decisions", "valid"))
with np.errstate(invalid="ignore", divide="ignore"):  # a condition without a decision has no rate
    conditions = conditions.assign(scores=n.astype(int), mean=mean, sd=sd, **{
        "own": own.astype(int), "valid": np.where(decisions > 0, valid / decisions, np.nan)})
conditions = conditions[[*conditions.columns.drop("params"), "params"]]  # the long one last
# a max_tokens the model played at only one value is left blank (one condition: nothing to tell apart)
capped = conditions["max tokens"].nunique() > 1
if len(conditions) > PLAYED_AT_ONCE:  # one game's conditions at a time (the downloads: that game's)
    games = conditions["game"].unique().tolist()
    game = url_selectbox("Game played", games, "played_game")
    report.caption(glossed(f"{len(conditions):,} conditions in {len(games)} games: those of {plain(game)} shown (pick "
                           "another above).", "condition"))
    conditions = conditions[conditions["game"] == game].reset_index(drop=True)
# the model's condition in one column ("v1 · 1.00 · vanilla", blank for a bot, as the papers' tables on Leaderboards
# show it) and the params as wide as the rest leaves (a cut cell reads whole on a double click): the table fits a
# 1400 px window
played_shown = readable(conditions, TWO_DECIMALS)
played_shown["valid"] = conditions["valid"].map(numbers.percent)
played_shown["max tokens"] = [f"max_tokens={int(v)}" if capped and pd.notna(v) else ""
                              for v in conditions["max tokens"]]
played_shown = with_condition(played_shown, ["prompt version", "temperature", "strategy", "max tokens"])
played_shown, played_config = fitted_columns(played_shown, None, PLAYED_COLUMNS, fill=("params",), least=120)
show_table(report, "Scores per game, setting and condition", conditions, "robustness_conditions",
           shown=played_shown, column_config=played_config)
column_definitions(PLAYED_COLUMNS)

tables = figures.tables
summary = block_summary(tables)

# one factor at a time (a reader compares one; drawing every factor's tables and charts at once is far too slow
# on a large database): its charts, its verdicts, and one game's level table
compared = [label for factor, label in FACTOR_NAMES.items() if factor in set(summary["factor"])]
label = url_selectbox("Factor", list(FACTOR_NAMES.values()), "factor", default=(compared or [None])[0])
factor = next(factor for factor, name in FACTOR_NAMES.items() if name == label)
st.header(label.capitalize())
mine = summary[summary["factor"] == factor]
if mine.empty:
    report.caption(glossed(f"{plain(agent)} has not played any game at more than one of its {label}.", "verdict"))
else:
    report.caption(glossed(f"Compared: {FACTOR_WHY[factor]}. Other factors are held at their defaults, intervals "
                           "are 95% t intervals clipped to the scores' range, and grey points have fewer than "
                           f"{stats.MIN_SAMPLE} scores (not tested).", "verdict"))
    blocks = {(game, setting): table.reset_index(drop=True) for (game, setting), table in
              tables[tables["factor"] == factor].groupby(["game", "setting"], sort=False)}
    fig = facets([(game, setting, table) for (game, setting), table in blocks.items()], label)
    st.plotly_chart(fig)
    report.figure(f"Mean score across {label}", fig)
    for row in mine.itertuples(index=False):
        why = f" (a level or the default has fewer than {stats.MIN_SAMPLE} scores)" \
            if row.verdict == "not enough data" else ""
        report.markdown(f"**{plain(row.game)}**: {row.verdict}{why}, in setting {plain(row.setting)}")
    names = {f"{game} ({setting})": (game, setting) for game, setting in blocks}
    judged = [f"{row.game} ({row.setting})" for row in mine.itertuples(index=False) if row.verdict != "not enough data"]
    shown = url_selectbox(f"Levels across {label} of", list(names), f"levels_{factor}",
                          default=(judged or list(names))[0])
    table = blocks[names[shown]]
    slug = re.sub(r"\W+", "_", f"{factor} {shown}")  # a file name and a widget key
    show_table(report, f"{shown} across {label}", table, f"robustness_{slug}", shown=comparison_view(table),
               helps=COMPARISON_COLUMNS)
    column_definitions(COMPARISON_COLUMNS)

if not summary.empty:
    st.header("Verdicts")
    report.caption(glossed(f"A verdict needs {stats.MIN_SAMPLE} scores or more at the default and at every other "
                           "level. Robust means an equivalence test put every difference within the margin, not "
                           "merely no significant difference.", "verdict"))
    verdicts = summary.assign(factor=summary["factor"].str.replace("_", " "))
    per_game = verdicts.groupby(["game", "setting"], as_index=False).agg(
        factors=("factor", "nunique"),
        **{"with a verdict": ("verdict", lambda v: int((v != "not enough data").sum())),
           "sensitive to": ("factor", lambda f: ", ".join(f[verdicts.loc[f.index, "verdict"] == "sensitive"])),
           "verdict": ("verdict", game_verdict)})
    per_game_columns = {"factors": "factors compared in this game and setting",
                        "with a verdict": "factors with enough data for a verdict",
                        "sensitive to": "factors with a significant level",
                        "verdict": "sensitive to any factor; robust only when robust to every one; not enough data "
                                   "when no factor has a verdict; else inconclusive"}
    show_table(report, "Verdict per game and setting", per_game, "robustness_per_game", helps=per_game_columns)
    column_definitions(per_game_columns)
    by_factor = readable(verdicts, TWO_DECIMALS).drop(columns="levels")  # "1 of 2" says both, in one narrow column
    by_factor["tested"] = [f"{t} of {n - 1}" for t, n in zip(verdicts["tested"], verdicts["levels"], strict=True)]
    show_table(report, "Verdicts per factor", verdicts, "robustness_verdicts", shown=by_factor, helps=VERDICT_COLUMNS)
    column_definitions(VERDICT_COLUMNS)
report.download("robustness")
