"""Every SQL query the dashboard pages run, as named functions the pages and bench/dashboard.py share.

Each returns a small aggregated DataFrame (one row per agent, game, condition, step...), computed by
DuckDB over a short-lived read-only connection: no page loads a whole table into pandas. A
`Selection` (engine/selection.py) narrows any of them to runs, games, presets, dates and agents.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from engine import store
from engine.metrics import stats
from engine.selection import ALL, Selection
from engine.suites.gamabench import GAMES as GAMABENCH_GAMES

FACTORS = {"prompt_version": "v1", "temperature": 1.0, "strategy": "vanilla", "repeat": 0}  # the paper's defaults
MAX_CURVE_MATCHES = 200  # per-round curves average at most this many matches (the newest)




def _query(db: str | Path, sql: str, params: list | None = None) -> pd.DataFrame:
    return store.query(db, sql, params)


# ---------------------------------------------------------------- selection widgets
def filter_options(db: str | Path) -> pd.DataFrame:
    """One row per run, game and preset: run name, source, matches and the first and last finish date."""
    return _query(db, """
        SELECT m.run_id, r.name AS run_name, r.source, m.game, m.preset, count(*) AS matches,
               min(m.finished_at)::DATE AS first_day, max(m.finished_at)::DATE AS last_day
        FROM matches m LEFT JOIN runs r USING (run_id)
        WHERE m.status = 'ok' GROUP BY ALL ORDER BY m.run_id, m.game, m.preset""")


def agents(db: str | Path, filters: Selection = ALL) -> pd.DataFrame:
    """Agents (label) with their seats played, most played first."""
    where, params = filters.where()
    return _query(db, f"""
        SELECT coalesce(s.label, s.agent) AS agent, count(*) AS seats
        FROM seats s JOIN matches m USING (match_id) WHERE {where}
        GROUP BY ALL ORDER BY seats DESC, agent""", params)


# ---------------------------------------------------------------- leaderboards
def gamabench_scores(db: str | Path, filters: Selection = ALL) -> pd.DataFrame:
    """γ-Bench's 0-100 table: one row per model, condition and source (`ours` or `published` for imported
    GAMA-Bench records), one column per game, `overall` = mean of the eight. The scores are the
    `gamabench_score` metrics the games stored (the same classmethod the scorer uses): a condition holding
    every seat of a match counts with the match score, else with the mean of its seats' scores; a cell
    is the mean over matches; `setting` is 'vanilla' for the paper's default parameters, else 'custom'."""
    where, params = filters.where()
    df = _query(db, f"""
        WITH picked AS (
          SELECT m.match_id, m.game, m.params, r.source FROM matches m LEFT JOIN runs r USING (run_id)
          WHERE {where} AND m.game IN (SELECT unnest(?))),
        seat_count AS (SELECT match_id, count(*) AS n FROM seats WHERE match_id IN (SELECT match_id FROM picked)
                       GROUP BY ALL),
        score AS (SELECT match_id, seat, value FROM metrics WHERE name = 'gamabench_score'
                  AND match_id IN (SELECT match_id FROM picked)),
        groups AS (
          SELECT s.match_id, s.agent AS model, s.prompt_version, s.temperature, s.strategy, count(*) AS n,
                 avg(sc.value) AS seat_score
          FROM seats s LEFT JOIN score sc ON sc.match_id = s.match_id AND sc.seat = s.seat
          WHERE s.match_id IN (SELECT match_id FROM picked) GROUP BY ALL)
        SELECT g.model, g.prompt_version, g.temperature, g.strategy, p.game, p.params,
               CASE WHEN p.source LIKE 'import:%' THEN 'published' ELSE 'ours' END AS source,
               avg(CASE WHEN g.n = c.n THEN coalesce(ms.value, g.seat_score) ELSE g.seat_score END) AS score,
               count(*) AS matches
        FROM groups g JOIN picked p USING (match_id) JOIN seat_count c USING (match_id)
        LEFT JOIN score ms ON ms.match_id = g.match_id AND ms.seat IS NULL
        GROUP BY ALL""", [*params, list(GAMABENCH_GAMES)])
    columns = ["model", "prompt_version", "temperature", "strategy", "setting", "source", *GAMABENCH_GAMES,
               "overall", "matches"]
    if df.empty:
        return pd.DataFrame(columns=columns)
    df["setting"] = ["vanilla" if _is_vanilla(game, p) else "custom" for game, p in zip(df["game"], df["params"],
                                                                                      strict=True)]
    keys = ["model", "prompt_version", "temperature", "strategy", "setting", "source"]
    frame = df.assign(**{k: df[k].astype(object).where(df[k].notna(), "-") for k in keys})
    frame["weighted"] = frame["score"] * frame["matches"]
    grouped = frame.groupby([*keys, "game"]).agg(weighted=("weighted", "sum"), matches=("matches", "sum"))
    grouped["score"] = grouped["weighted"] / grouped["matches"]
    table = grouped["score"].unstack("game").reindex(columns=list(GAMABENCH_GAMES))
    table["overall"] = table[list(GAMABENCH_GAMES)].mean(axis=1, skipna=False)
    table["matches"] = grouped["matches"].groupby(level=keys).sum()
    table = table.reset_index()
    table.columns.name = None
    table["temperature"] = pd.to_numeric(table["temperature"].replace("-", None))  # bots have no condition
    table[["prompt_version", "strategy"]] = table[["prompt_version", "strategy"]].replace("-", None)
    table = table.sort_values(["setting", "overall", "model"], ascending=[False, False, True], na_position="last")
    return table[columns].reset_index(drop=True)


_VANILLA: dict[tuple[str, str], bool] = {}


def _is_vanilla(game: str, params: str) -> bool:
    """Whether the match ran with the paper's default parameters (cached: few distinct settings exist)."""
    key = (game, params)
    if key not in _VANILLA:
        from engine.metrics.gamabench import setting_of

        _VANILLA[key] = not setting_of(game, json.loads(params) if params else {})
    return _VANILLA[key]


# ---------------------------------------------------------------- per-game figures
def round_curves(db: str | Path, filters: Selection) -> pd.DataFrame:
    """The figures a γ-Bench game records each step (the `last` record of the public state: mean and
    target, share going, total bid, pot...), averaged per step over the selected matches of the one game
    the selection names (the newest MAX_CURVE_MATCHES of them). Columns: step, matches, then one per
    numeric field."""
    if len(filters.games) != 1:
        raise ValueError("round_curves reads one game: narrow the selection to it (Selection.of_game)")
    where, params = filters.where()
    df = _query(db, f"""
        WITH picked AS (
          SELECT m.match_id FROM matches m WHERE {where}
          ORDER BY m.finished_at DESC LIMIT {MAX_CURVE_MATCHES}),
        steps AS (
          SELECT t.match_id, min(t.turn) AS first_turn, json_extract(t.state, '$.last') AS record
          FROM turns t WHERE t.seat IS NOT NULL AND t.match_id IN (SELECT match_id FROM picked)
          GROUP BY t.match_id, record)
        SELECT match_id, row_number() OVER (PARTITION BY match_id ORDER BY first_turn) AS step,
               record::VARCHAR AS record
        FROM steps WHERE record IS NOT NULL ORDER BY match_id, step""", params)
    if df.empty:
        return pd.DataFrame(columns=["step", "matches"])
    rows = []
    for match_id, step, record in df.itertuples(index=False):
        fields = json.loads(record) or {}
        numbers = {k: float(v) for k, v in fields.items()
                   if isinstance(v, (int, float)) and not isinstance(v, bool) and k != "round"}
        numbers |= {k: float(v) for k, v in fields.items() if isinstance(v, bool)}
        rows.append({"match_id": match_id, "step": step} | numbers)
    per_step = pd.DataFrame(rows)
    curves = per_step.drop(columns="match_id").groupby("step").mean()
    curves.insert(0, "matches", per_step.groupby("step")["match_id"].nunique())
    return curves.reset_index()


# ---------------------------------------------------------------- robustness
def robustness_scores(db: str | Path, agent: str, filters: Selection = ALL) -> pd.DataFrame:
    """One row per match and condition of `agent`'s seats: game, run, seed, repeat, prompt_version,
    temperature, strategy and its score (γ-Bench games: the 0-100 score, the match's when the agent
    holds every seat; other games: the mean seat score)."""
    where, params = filters.where()
    return _query(db, f"""
        WITH picked AS (SELECT m.match_id, m.game, m.run_id, m.seed, m."repeat" FROM matches m WHERE {where}
                        AND m.match_id IN (SELECT match_id FROM seats WHERE coalesce(label, agent) = ?)),
        seat_count AS (SELECT match_id, count(*) AS n FROM seats WHERE match_id IN (SELECT match_id FROM picked)
                       GROUP BY ALL),
        mine AS (
          SELECT s.match_id, s.prompt_version, s.temperature, s.strategy, count(*) AS n, avg(s.score) AS seat_score
          FROM seats s WHERE s.match_id IN (SELECT match_id FROM picked) AND coalesce(s.label, s.agent) = ?
          GROUP BY ALL)
        SELECT p.game, p.run_id, p.seed, p."repeat", x.prompt_version, x.temperature, x.strategy,
               CASE WHEN x.n = c.n THEN coalesce(ms.value, x.seat_score) ELSE x.seat_score END AS score
        FROM mine x JOIN picked p USING (match_id) JOIN seat_count c USING (match_id)
        LEFT JOIN metrics ms ON ms.match_id = x.match_id AND ms.seat IS NULL AND ms.name = 'gamabench_score'
        ORDER BY p.game, p.seed""", [*params, agent, agent])


def robustness_tables(scores: pd.DataFrame) -> dict[tuple[str, str], pd.DataFrame]:
    """(factor, game) -> each level of the factor against its default (stats.compare_levels), the other
    factors held at their defaults where the data has them; only for games played at 2+ levels so held."""
    tables = {}
    for game, rows in scores.groupby("game", sort=True):
        columns = {name: rows[name].to_numpy() for name in FACTORS}
        varied = {name: len(pd.unique(values[pd.notna(values)])) > 1 for name, values in columns.items()}
        for factor in FACTORS:
            if not varied[factor]:
                continue
            keep = np.ones(len(rows), dtype=bool)
            for other, default in FACTORS.items():
                if other in (factor, "repeat") or not varied[other]:
                    continue
                held = columns[other] == default
                if held.any():
                    keep &= held
            mine = rows[keep]
            levels = mine[factor]
            if levels.nunique() < 2:  # holding the other factors at their defaults left one level (or none)
                continue
            default = FACTORS[factor] if (levels == FACTORS[factor]).any() else levels.mode().iloc[0]
            tables[(factor, game)] = stats.compare_levels(
                pd.DataFrame({"level": levels, "seed": mine["seed"], "score": mine["score"]}), default)
    return tables


def models_played(db: str | Path) -> list[str]:
    """The model strings (not bots) that have played here: the launch form offers them first."""
    rows = _query(db, "SELECT DISTINCT agent FROM seats WHERE agent NOT LIKE 'bot:%' ORDER BY agent")
    return [] if rows.empty else rows["agent"].tolist()


# ---------------------------------------------------------------- the overview page
def runs_table(db: str | Path) -> pd.DataFrame:
    """Every run, newest first, with its progress."""
    return _query(db, """
        SELECT run_id, name, source, status, n_done, n_matches, created_at, finished_at
        FROM runs ORDER BY created_at DESC""")


def recent_matches(db: str | Path, run_id: str | None = None, limit: int = 500) -> pd.DataFrame:
    """The newest `limit` matches (any status) with their lineups."""
    return _query(db, """
        WITH recent AS (
            SELECT * FROM matches m WHERE ? IS NULL OR m.run_id = ?
            ORDER BY m.finished_at DESC NULLS LAST, m.match_id LIMIT ?)
        SELECT m.match_id, m.run_id, m.game, m.preset, m.seed, m."repeat", m.status, m.error,
               string_agg(s.label, ', ' ORDER BY s.seat) AS lineup, m.finished_at
        FROM recent m JOIN seats s USING (match_id)
        GROUP BY ALL ORDER BY m.finished_at DESC NULLS LAST, m.match_id""", [run_id, run_id, limit])
