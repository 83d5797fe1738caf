"""Every SQL query the dashboard pages run, as named functions the pages and bench/dashboard.py share.

Each returns a small aggregated DataFrame (one row per agent, game, condition, step...), computed by
DuckDB over a short-lived read-only connection: no page loads a whole table into pandas. A
`Selection` (engine/store/selection.py) narrows any of them to runs, games, presets, dates and agents.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd

from engine import store
from engine.agents.agent_names import model_sql
from engine.agents.base import AgentSpec
from engine.games.settings import setting_labels
from engine.papers.registry import get_suite
from engine.score import stats
from engine.score.agent_figures import summed
from engine.store.selection import ALL, Selection, agent_sql
from engine.store.summaries import match_scores_sql
from engine.store.valid_answers import valid_sql

# the paper's defaults, and the engine's answer length cap (a model's answers change with it)
FACTORS = {"prompt_version": "v1", "temperature": 1.0, "strategy": "vanilla",
           "max_tokens": AgentSpec.__dataclass_fields__["max_tokens"].default, "repeat": 0}
SCORED_0_100 = frozenset(get_suite("gamabench").games)  # γ-Bench's 0-100 score; other games' have no fixed scale




def _query(db: str | Path, sql: str, params: list | None = None) -> pd.DataFrame:
    return store.query(db, sql, params)


# ---------------------------------------------------------------- selection widgets
def filter_options(db: str | Path, fallbacks: bool = False) -> pd.DataFrame:
    """One row per run, game and preset: run name, source, matches and the first and last finish date; with
    `fallbacks`, also how many of those matches had a fallback move (`fallback_matches`). That count reads every
    turn's `fallback`, slow on a large database, so only the filter that leaves such matches out asks for it."""
    fallback_matches = (", count(*) FILTER (WHERE m.match_id IN (SELECT match_id FROM turns WHERE fallback)) "
                        "AS fallback_matches") if fallbacks else ""
    return _query(db, f"""
        SELECT m.run_id, r.name AS run_name, r.source, m.game, m.preset, count(*) AS matches{fallback_matches},
               min(m.finished_at)::DATE AS first_day, max(m.finished_at)::DATE AS last_day
        FROM matches m LEFT JOIN runs r USING (run_id)
        WHERE m.status = 'ok' GROUP BY ALL ORDER BY m.run_id, m.game, m.preset""")


def agents(db: str | Path, selection: Selection = ALL, settings: bool = False) -> pd.DataFrame:
    """Agents with their seats played, most played first: by label, or with `settings` each setting of a label
    apart, as the leaderboards name agents (`agent_sql`; the Robustness page compares a label's settings). The
    placed seats summed from the selection's `agent_summary` rows (`summed`), and the log's seats without a place."""
    with store.reading(db):
        rows, params = summed(db, selection, contested=False).rows(db)
        unplaced_matches = [row[0] for row in store.rows(db, "SELECT DISTINCT match_id FROM seats WHERE rank IS NULL")]
        unplaced, more = _seats_sql(selection, settings, unplaced_matches)
        return _query(db, f"""
            SELECT agent, sum(seats)::BIGINT AS seats FROM (
                SELECT {"k.agent_name" if settings else "k.label"} AS agent, k.seats FROM ({rows}) k
                UNION ALL {unplaced})
            GROUP BY ALL ORDER BY seats DESC, agent""", [*params, *more])


def _seats_sql(selection: Selection, settings: bool, unplaced_of: list[str]) -> tuple[str, list]:
    """One row (`agent`, `seats` 1) per seat without a place of the selected matches among `unplaced_of` (a list,
    so the 1M matches are not hashed to find them)."""
    where, params = selection.where()
    name = agent_sql("s") if settings else model_sql("s")
    where, params = f"s.rank IS NULL AND s.match_id IN (SELECT unnest(?)) AND {where}", [unplaced_of, *params]
    return f"SELECT {name} AS agent, 1 AS seats FROM seats s JOIN matches m USING (match_id) WHERE {where}", params


# ---------------------------------------------------------------- leaderboards
# ---------------------------------------------------------------- robustness
def robustness_scores(db: str | Path, agent: str, selection: Selection = ALL) -> pd.DataFrame:
    """One row per match and condition of `agent`'s seats, in no particular order: game, preset, params (JSON),
    run, seed, repeat, prompt_version, temperature, strategy, max_tokens and its score (γ-Bench games: the 0-100
    score, the match's when the agent holds every seat; other games: the mean seat score), whether the score is the
    agent's own (`own`: no move of its was a fallback) and its decisions and valid ones there: the rows the page's
    figures summarize (`robustness`), for a caller that wants them one by one. Its many rows come through Arrow
    (`store.query_many_rows`)."""
    with store.reading(db):
        rows, params = _agent_scores_sql(db, agent, selection)
        return store.query_many_rows(db, rows, params)


def _agent_scores_sql(db: str | Path, agent: str, selection: Selection) -> tuple[str, list]:
    """The SQL of `robustness_scores`' rows and its parameters (call it inside `store.reading(db)`). From
    `match_scores` (the writer keeps those rows per match and agent) while the summaries are in step: one filtered
    scan, where the log's read hashes all the agent's matches against the seats, matches and metrics, which is
    slow on a large database and was most of the dashboard's peak memory. Else the same rows are computed from the log
    (`summaries.match_scores_sql`) from the agent's seats in the selected matches."""
    columns = """x.game, x.preset, x.params::VARCHAR AS params, x.run_id, x.seed, x."repeat", x.prompt_version,
                 x.temperature, x.strategy, x.max_tokens, x.score, coalesce(v.own, true) AS own,
                 coalesce(v.decisions, 0) AS decisions, coalesce(v.valid, 0) AS valid"""
    moves = f"LEFT JOIN ({_MOVES}) v ON v.match_id = x.match_id AND " + " AND ".join(
        f"v.{c} IS NOT DISTINCT FROM x.{c}" for c in ("prompt_version", "temperature", "strategy", "max_tokens"))
    if store.summaries_in_step(db):
        where, params = selection.where()
        # every row is an `ok` match's: the selection's conditions on the matches read its own columns
        return f"""SELECT {columns} FROM (SELECT * FROM (SELECT *, 'ok' AS status FROM match_scores WHERE label = ?) m
                   WHERE {where}) x {moves}""", [agent, *params, agent]
    where, params = selection.where()
    rows = match_scores_sql(f"(SELECT * FROM matches m WHERE {where})", "seats", "metrics",
                            scored_seats=f"(SELECT * FROM seats WHERE {model_sql('')} = ?)")
    return f"SELECT {columns} FROM ({rows}) x {moves}", [*params, agent, agent]


# per match and setting of an agent (its label the parameter): its decisions, those valid (`valid_answers`), and
# whether every one of its moves was its own (no fallback move): a score of a match with a fallback move is the
# engine's random play as much as the agent's
_MOVES = f"""SELECT t.match_id, s.prompt_version, s.temperature, s.strategy, s.max_tokens, count(*) AS decisions,
                    count(*) FILTER (WHERE {valid_sql("t")}) AS valid, NOT bool_or(coalesce(t.fallback, false)) AS own
             FROM turns t JOIN seats s ON s.match_id = t.match_id AND s.seat = t.seat
             WHERE {model_sql('s')} = ? GROUP BY ALL"""


def score_range(game: str, scores: pd.Series) -> tuple[float, float]:
    """The range a game's scores can take: γ-Bench's 0-100, else the lowest and highest of `scores` (a mean cannot
    leave the range of its data)."""
    return (0.0, 100.0) if game in SCORED_0_100 else (float(scores.min()), float(scores.max()))


CONDITION = ["game", "preset", "params", *FACTORS]  # what a cell of the robustness moments is one of
# the scores as the moments read them, whichever source: one type per column (a frame's blank column has none)
_TYPED_SCORES = """SELECT game::VARCHAR AS game, preset::VARCHAR AS preset, params::VARCHAR AS params,
    prompt_version::VARCHAR AS prompt_version, temperature::DOUBLE AS temperature, strategy::VARCHAR AS strategy,
    max_tokens::INTEGER AS max_tokens, "repeat"::INTEGER AS "repeat", seed::BIGINT AS seed, score::DOUBLE AS score,
    own::BOOLEAN AS own, decisions::BIGINT AS decisions, valid::BIGINT AS valid
    FROM (<scores>)"""
# the scores a comparison reads: the agent's own ("own": no fallback move of its in the match), or every one (`<every>`
# true: `_robustness`' own_only off)
_COMPARED = "(own OR <every>)"
_CELLS = f"""WITH r AS ({_TYPED_SCORES})
    SELECT {", ".join(f'"{c}"' for c in CONDITION)}, count(*) FILTER (WHERE {_COMPARED}) AS n,
           count(score) FILTER (WHERE {_COMPARED}) AS scored, avg(score) FILTER (WHERE {_COMPARED}) AS mean,
           var_pop(score) FILTER (WHERE {_COMPARED}) * count(score) FILTER (WHERE {_COMPARED}) AS m2,
           min(score) FILTER (WHERE {_COMPARED}) AS lowest, max(score) FILTER (WHERE {_COMPARED}) AS highest,
           bit_xor(seed) FILTER (WHERE {_COMPARED}) AS seeds_xor,
           coalesce(sum(seed % 1000003) FILTER (WHERE {_COMPARED}), 0)::BIGINT AS seeds_sum,
           count(*) AS matches, count(*) FILTER (WHERE own) AS own, sum(decisions)::BIGINT AS decisions,
           sum(valid)::BIGINT AS valid
    FROM r GROUP BY ALL"""
_UNLESS_UNSCORED = "CASE WHEN count(a.score - b.score) = count(*) THEN {} ELSE 'NaN'::DOUBLE END"
# the pairs of the levels whose cells may pair with their default's (`_levels`' `pairable`): where each side played
# each seed once, its rows joined to the default's on the seed, kept where both played the same seeds
_PAIRS = f"""WITH r AS (SELECT * FROM ({_TYPED_SCORES}) WHERE {_COMPARED}),
    wanted AS (SELECT unnest(?::INTEGER[]) AS k, unnest(?::BOOLEAN[]) AS is_default,
                      {", ".join(f'unnest(?::{kind}[]) AS "{c}"' for c, kind in zip(CONDITION, (
                          "VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR", "DOUBLE", "VARCHAR", "INTEGER", "INTEGER"),
                                                                                     strict=True))}),
    picked AS (SELECT w.k, w.is_default, r.seed, r.score FROM r JOIN wanted w
               ON {" AND ".join(f'r."{c}" IS NOT DISTINCT FROM w."{c}"' for c in CONDITION)}),
    sides AS (SELECT k, count(*) FILTER (WHERE NOT is_default) AS n,
                     count(DISTINCT seed) FILTER (WHERE NOT is_default) AS seeds,
                     count(*) FILTER (WHERE is_default) AS n_ref,
                     count(DISTINCT seed) FILTER (WHERE is_default) AS seeds_ref
              FROM picked GROUP BY k),
    paired AS (SELECT a.k, count(*) AS pairs, {_UNLESS_UNSCORED.format("avg(a.score - b.score)")} AS paired_mean,
                      {_UNLESS_UNSCORED.format("var_pop(a.score - b.score) * count(*)")} AS paired_m2
               FROM picked a JOIN picked b ON a.k = b.k AND a.seed = b.seed AND NOT a.is_default AND b.is_default
               WHERE a.k IN (SELECT k FROM sides WHERE n = seeds AND n_ref = seeds_ref) GROUP BY a.k)
    SELECT k, pairs, paired_mean, paired_m2 FROM paired JOIN sides USING (k) WHERE pairs = n AND pairs = n_ref"""


@dataclass(frozen=True)
class Robustness:
    """A model's robustness figures. `cells`: one row per game, preset, params, condition (FACTORS) and repeat with
    its rows (`n`) and the moments of their scores (`scored`, `mean`, `m2`: the sum of squared deviations, `lowest`,
    `highest`; a row without a score counts in none) and `setting`
    (`engine.games.settings.setting_label`, as every page names it). `tables`: one row per factor, game, setting and
    level, each level against its default (`stats.compare_moments`' columns after factor, game and setting)."""

    cells: pd.DataFrame
    tables: pd.DataFrame


def robustness(db: str | Path, agent: str, selection: Selection = ALL, own_only: bool = True) -> Robustness:
    """`agent`'s robustness figures over the selection (`robustness_scores`' rows), added up by DuckDB: the scores'
    moments per cell, then the pairs of the levels that may pair (`_robustness`); with `own_only` (the default) the
    moments, tests and verdicts read only its own scores (a match where the engine played a fallback move for it
    scores the engine's random play). A model has 333,000 scores at a million matches; the cells are a few thousand
    rows, the tests in numpy."""
    with store.reading(db):
        scores, params = _agent_scores_sql(db, agent, selection)
        return _robustness(lambda sql, more: store.query_many_rows(db, sql.replace("<scores>", scores),
                                                                   [*params, *more]), own_only)


def robustness_tables(scores: pd.DataFrame, own_only: bool = True) -> dict[tuple[str, str], pd.DataFrame]:
    """`robustness`' tables from rows in `robustness_scores`' shape (the same SQL over the frame, in memory), as
    (factor, game) -> its blocks, one per setting (column `setting`); rows without `own` count as the agent's own."""
    scores = scores.assign(**{c: v for c, v in (("own", True), ("decisions", 0), ("valid", 0)) if c not in scores})
    with duckdb.connect() as con:
        con.register("given_scores", scores)
        tables = _robustness(lambda sql, more: con.execute(
            sql.replace("<scores>", "SELECT * FROM given_scores"), more).df(), own_only).tables
    return {key: table.drop(columns=["factor", "game"]).reset_index(drop=True).assign(
                level=lambda t: pd.Series(t["level"].tolist()))  # one factor's levels: one dtype (text, numbers)
            for key, table in tables.groupby(["factor", "game"], sort=False)}


def _robustness(read, own_only: bool = True) -> Robustness:
    """The figures from `read(sql, params)`, which runs the SQL with the scores' rows in place of `<scores>`.

    Per game and setting (a 3-player and a 10-player guessing game are compared within, never pooled; a valuation
    seed changes no rule: one setting) and factor: the cells whose other factors are at their defaults where the
    data has them (`_held_at_defaults`), a block only where the factor took 2+ levels so held; the factor's default
    is FACTORS' where played, else its most played level. Each level's moments are its cells' pooled; intervals of
    the mean are clipped to `score_range`. A level's scores pair with the default's only when each side played each
    seed once and both the same seeds: the levels with as many rows as the default and the same xor and sum of
    their seeds (the sum modulo a prime, exact in a float: what the same seeds have; a cheap sieve, where counting
    distinct seeds per cell doubled the cells' read at a million matches) are sent to `_PAIRS`, which tells.
    `own_only`: only the agent's own scores count in the moments and pairs; each level says how many of its scores
    are its own (`own`) and its valid-move rate (`valid_rate`) either way."""
    every = "false" if own_only else "true"  # what `_COMPARED` counts: every score, or the agent's own only

    def read_compared(sql: str, more: list) -> pd.DataFrame:
        return read(sql.replace("<every>", every), more)

    cells = read_compared(_CELLS, [])
    cells = cells.astype({"max_tokens": "Int32", "repeat": "Int32"}).assign(setting=setting_labels(cells))
    unscored = cells["scored"].to_numpy() < cells["n"].to_numpy()  # a level holding one has no mean (as numpy)
    has_scores = cells["n"].to_numpy() > 0  # a cell of fallback scores only, left out, adds nothing to its level
    moments = [cells["n"].to_numpy(dtype=float), *(np.where(unscored, np.nan, np.where(
        has_scores, cells[name].to_numpy(dtype=float), 0.0)) for name in ("mean", "m2"))]
    seeds = (cells["seeds_xor"].fillna(0).to_numpy(dtype=np.int64), cells["seeds_sum"].to_numpy(dtype=float))
    lowest, highest = cells["lowest"].to_numpy(dtype=float), cells["highest"].to_numpy(dtype=float)
    numbered = {name: _numbered(cells[name], default) for name, default in FACTORS.items()}
    uniques = {name: list(pd.unique(cells[name].dropna())) for name in FACTORS}  # in the order factorize numbers
    blocks: dict[str, list] = {name: [] for name in ("factor", "game", "setting", "floor", "ceiling", "block",
                                                     "level", "is_default", "n", "mean", "m2", "cells", "pairable")}
    for (game, setting), rows in sorted(cells.groupby(["game", "setting"]).indices.items()):
        rows = np.sort(rows)
        floor, ceiling = score_range(game, pd.Series([*lowest[rows], *highest[rows]]))
        for factor, held in _held_at_defaults({name: (codes[rows], default) for name, (codes, default)
                                               in numbered.items()}):
            picked = rows[held & (numbered[factor][0][rows] >= 0)]  # a missing level is no level
            levels = _levels(numbered[factor][0][picked], uniques[factor], FACTORS[factor], picked,
                             *(values[picked] for values in (*moments, *seeds)))
            for name, values in (levels | {"factor": factor, "game": game, "setting": setting, "floor": floor,
                                           "ceiling": ceiling, "block": len(blocks["block"])}).items():
                blocks[name].extend(values if name in levels else [values] * len(levels["n"]))
    levels = pd.DataFrame(blocks | {"level": pd.Series(blocks["level"], dtype=object).to_numpy(), "pairs": np.nan,
                                    "paired_mean": np.nan, "paired_m2": np.nan})
    pairable = levels.index[levels.pop("pairable").to_numpy(dtype=bool)]
    if len(pairable):
        pairs = _pairs(read_compared, cells, levels, pairable)
        levels.loc[pairs.index, ["pairs", "paired_mean", "paired_m2"]] = pairs.to_numpy()
    own, decisions, valid = (cells[name].fillna(0).to_numpy(dtype=float) for name in ("own", "decisions", "valid"))
    levels["own"] = [int(own[at].sum()) for at in levels["cells"]]
    with np.errstate(invalid="ignore", divide="ignore"):  # a level without a decision has no rate
        levels["valid_rate"] = [valid[at].sum() / decisions[at].sum() for at in levels["cells"]]
    tables = stats.compare_moments(levels.drop(columns="cells"))
    return Robustness(cells, tables[["factor", "game", "setting", *stats.COMPARISON_COLUMNS, *OWN_COLUMNS]])


OWN_COLUMNS = ["own", "valid_rate"]  # per level: its own scores (no fallback move), its decisions' valid share


def _levels(numbers: np.ndarray, values: list, default, positions: np.ndarray, n: np.ndarray, mean: np.ndarray,
            m2: np.ndarray, seeds_xor: np.ndarray, seeds_sum: np.ndarray) -> dict[str, list]:
    """One block's levels (the default first, then in order) from its cells (their level `numbers` in the factor's
    `values`, their `positions` in the cells, moments, the xor and the sum of their seeds): each level's pooled
    moments, its cells' positions, and whether it may pair with the default (`pairable`: as many rows, at least
    MIN_SAMPLE, and the same xor and sum; `_PAIRS` tells). The default is `default` where played, else the most
    played level (the lowest of a tie)."""
    present, codes = np.unique(numbers, return_inverse=True)
    found = [values[i] for i in present]
    n, mean, m2 = stats.pooled(codes, n, mean, m2)
    if default not in found:
        default = min(level for i, level in enumerate(found) if n[i] == n.max())
    order = sorted(range(len(found)), key=lambda i: (found[i] != default, found[i]))
    by_level = np.argsort(codes, kind="stable")
    starts = np.searchsorted(codes[by_level], np.arange(len(found)))
    seeds = list(zip(np.bitwise_xor.reduceat(seeds_xor[by_level], starts).tolist(),
                     np.bincount(codes, seeds_sum, len(found)).tolist(), strict=True))
    ref = order[0]
    return {"level": [found[i] for i in order], "is_default": [i == ref for i in order],
            "n": [int(n[i]) for i in order], "mean": mean[order].tolist(), "m2": m2[order].tolist(),
            "cells": [positions[codes == i] for i in order],
            "pairable": [i != ref and seeds[i] == seeds[ref] and n[i] == n[ref] >= max(stats.MIN_SAMPLE, 2)
                         for i in order]}


def _pairs(read, cells: pd.DataFrame, levels: pd.DataFrame, pairable: pd.Index) -> pd.DataFrame:
    """The pairs' moments (pairs, paired_mean, paired_m2) of the `pairable` levels that do pair, by their index in
    `levels`: each level's cells and its block's default's are sent as lists and joined to the scores."""
    default_of = levels.index[levels["is_default"]].to_series(index=levels.loc[levels["is_default"], "block"])
    ks, sides, positions = [], [], []
    for k in pairable:
        for is_default, row in ((False, k), (True, default_of[levels.at[k, "block"]])):
            for position in levels.at[row, "cells"]:
                ks.append(int(k))
                sides.append(is_default)
                positions.append(position)
    keys = cells.iloc[positions]
    lists = [keys[c].astype(object).where(keys[c].notna(), None).tolist() for c in CONDITION]
    found = read(_PAIRS, [ks, sides, *lists])
    return found.set_index("k")[["pairs", "paired_mean", "paired_m2"]].astype(float)


def _numbered(values: pd.Series, default) -> tuple[np.ndarray, int]:
    """A factor's values as level numbers (-1 where missing) and the number of its default (-2 when it was not
    played: no value has it)."""
    codes, levels = pd.factorize(values)
    return codes, next(iter(np.flatnonzero(np.asarray(levels == default, dtype=bool))), -2)


def _held_at_defaults(numbered: dict[str, tuple[np.ndarray, int]]):
    """(factor, mask) for each factor that varies in one game and setting (`numbered`: each factor's level numbers
    there and its default's): the rows whose other factors are at their defaults, where the data has those defaults;
    only factors left with 2+ levels."""
    def levels(codes: np.ndarray) -> int:
        return np.count_nonzero(np.bincount(codes + 1)[1:])  # -1, missing, counts in none

    varied = {name: levels(codes) > 1 for name, (codes, _) in numbered.items()}
    for factor in FACTORS:
        if not varied[factor]:
            continue
        keep = np.ones(len(numbered[factor][0]), dtype=bool)
        for other in FACTORS:
            if other in (factor, "repeat") or not varied[other]:
                continue
            codes, default = numbered[other]
            held = codes == default
            if held.any():
                keep &= held
        if levels(numbered[factor][0][keep]) >= 2:  # holding the other factors at their defaults may leave one level
            yield factor, keep


def model_labels(db: str | Path) -> set[str]:
    """The agents, named as the pages name them (label, else agent string), that seated a model (not a bot): a
    labelled bot ("alpha-bot") is no model, whatever its label says."""
    rows = _query(db, f"SELECT DISTINCT {model_sql('')} AS agent FROM seats WHERE agent NOT LIKE 'bot:%'")
    return set() if rows.empty else set(rows["agent"])


def models_played(db: str | Path) -> list[str]:
    """The model strings (not bots) that have played here: the launch form offers them first."""
    rows = _query(db, "SELECT DISTINCT agent FROM seats WHERE agent NOT LIKE 'bot:%' ORDER BY agent")
    return [] if rows.empty else rows["agent"].tolist()


# ---------------------------------------------------------------- the leaderboards page
def published_rows(db: str | Path, suite: str) -> pd.DataFrame:
    """The papers' own rows of `suite` (`engine/papers/published.py`), wide: source, agent (the paper's model name),
    strategy, one column per figure. Empty when the database has none (a file not yet upgraded)."""
    try:
        long = _query(db, "SELECT source, model, strategy, name, value FROM published WHERE suite = ?", [suite])
    except duckdb.CatalogException:
        return pd.DataFrame()
    if long.empty:
        return pd.DataFrame()
    wide = long.pivot_table(index=["source", "model", "strategy"], columns="name", values="value", sort=False)
    wide.columns.name = None
    return wide.reset_index().rename(columns={"model": "agent"})


def missing_runs(db: str | Path, run_ids: tuple[str, ...]) -> str | None:
    """One line naming the runs asked for (`--run`) that `db` does not hold, and those it does; None when it holds
    them all: a typo must not read as an empty study."""
    known = {row[0] for row in store.rows(db, "SELECT run_id FROM runs")}
    unknown = [r for r in run_ids if r not in known]
    if not unknown:
        return None
    return f"no run {', '.join(unknown)} in {db} (its runs: {', '.join(sorted(known)) or 'none'})"


# ---------------------------------------------------------------- the overview page
def runs_table(db: str | Path) -> pd.DataFrame:
    """Every run, newest first, with its progress."""
    return _query(db, """
        SELECT run_id, name, source, status, n_done, n_matches, created_at, finished_at
        FROM runs ORDER BY created_at DESC""")


def recent_matches(db: str | Path, run_id: str | None = None, limit: int = 500) -> pd.DataFrame:
    """The newest `limit` matches (any status) with their lineups and the version of their game's rules they were
    played under (`matches.rules_version`)."""
    with store.reading(db):  # one connection for both reads
        picked = newest_matches(db, "? IS NULL OR m.run_id = ?", [run_id, run_id], limit, matches_only=True)
        return _query(db, f"""
            SELECT m.match_id, m.run_id, m.game, m.preset, m.seed, m."repeat", m.status, m.error, m.rules_version,
                   string_agg({agent_sql("s")}, ', ' ORDER BY s.seat) AS lineup, m.finished_at
            FROM matches m JOIN seats s USING (match_id) WHERE m.match_id IN (SELECT unnest(?))
            GROUP BY ALL ORDER BY m.finished_at DESC NULLS LAST, m.match_id""", [picked])


def newest_matches(db: str | Path, where: str, params: list, limit: int, matches_only: bool = False) -> list[str]:
    """The ids of the newest `limit` matches of `matches m` that fit `where`: a list's rows picked before its
    lineups and counts are read for them alone. A list, not a subquery: an empty one then reads no turn (a semi
    join with nothing on one side still scanned the 20M turns). When `where` reads `matches` alone (evaluated
    twice, it costs little: a condition on the seats or turns is not), the newest `limit` finish times are found
    first, so only the matches from the last of them on are sorted with their ids: sorting the times alone is much
    cheaper than sorting every id with them."""
    order = "ORDER BY m.finished_at DESC NULLS LAST"
    newer = ""
    if matches_only:
        last = store.rows(db, f"SELECT m.finished_at FROM matches m WHERE {where} {order} LIMIT 1 OFFSET ?",
                          [*params, limit - 1])
        if last and last[0][0] is not None:  # else fewer matches than `limit` have a finish time: sort them all
            newer, params = " AND m.finished_at >= ?", [*params, last[0][0]]
    return [row[0] for row in store.rows(db, f"""
        SELECT m.match_id FROM matches m WHERE ({where}){newer} {order}, m.match_id LIMIT ?""", [*params, limit])]
