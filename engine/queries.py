"""Every SQL query the dashboard pages run, as named functions the pages and bench/dashboard.py share.

Each returns a small aggregated DataFrame (one row per agent, game, condition, step...), computed by
DuckDB over a short-lived read-only connection: no page loads a whole table into pandas. A
`Selection` (engine/selection.py) narrows any of them to runs, games, presets, dates and agents.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import numpy as np
import pandas as pd

from engine import store
from engine.agents.base import AgentSpec
from engine.metrics import stats
from engine.metrics.agent_figures import summary_rows, summary_where
from engine.selection import ALL, Selection, agent_sql
from engine.settings import setting_labels
from engine.store.summaries import SETTINGS_SOURCE, match_scores_sql
from engine.suites import get_suite

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
    turn's `fallback` (650 ms at 1M matches), so only the filter that leaves such matches out asks for it."""
    fallback_matches = (", count(*) FILTER (WHERE m.match_id IN (SELECT match_id FROM turns WHERE fallback)) "
                        "AS fallback_matches") if fallbacks else ""
    return _query(db, f"""
        SELECT m.run_id, r.name AS run_name, r.source, m.game, m.preset, count(*) AS matches{fallback_matches},
               min(m.finished_at)::DATE AS first_day, max(m.finished_at)::DATE AS last_day
        FROM matches m LEFT JOIN runs r USING (run_id)
        WHERE m.status = 'ok' GROUP BY ALL ORDER BY m.run_id, m.game, m.preset""")


def settings_source(db: str | Path) -> str:
    """What `agent_sql` reads the agents' settings from: `agent_settings` while the summaries are in step
    (`store.summaries_in_step`: the same settings as the seats', a few rows), else the seats (four scans of them
    cost 2 s at 1M matches). Call it inside `store.reading(db)`, beside the query it serves."""
    return SETTINGS_SOURCE if store.summaries_in_step(db) else "seats"


def agents(db: str | Path, selection: Selection = ALL, settings: bool = False) -> pd.DataFrame:
    """Agents with their seats played, most played first: by label, or with `settings` each setting of a label
    apart, as the leaderboards name agents (`agent_sql`; the Robustness page compares a label's settings). Summed
    from `agent_summary` (the placed seats) and the log's seats without a place, when the selection is a sum of
    summary rows and they are in step (a scan of 4M seats and their names took 400 ms at 1M matches)."""
    with store.reading(db):
        where = summary_where(selection, contested=False) if store.summaries_in_step(db) else None
        if where is None:
            return _logged_agents(db, selection, settings)
        rows, params = summary_rows(where)
        unplaced_matches = [row[0] for row in store.rows(db, "SELECT DISTINCT match_id FROM seats WHERE rank IS NULL")]
        unplaced, more = _seats_sql(selection, settings, SETTINGS_SOURCE, unplaced_matches)
        return _query(db, f"""
            SELECT agent, sum(seats)::BIGINT AS seats FROM (
                SELECT {"k.agent_name" if settings else "k.label"} AS agent, k.seats FROM ({rows}) k
                UNION ALL {unplaced})
            GROUP BY ALL ORDER BY seats DESC, agent""", [*params, *more])


def _logged_agents(db: str | Path, selection: Selection, settings: bool) -> pd.DataFrame:
    seats, params = _seats_sql(selection, settings, "seats")
    return _query(db, f"SELECT agent, count(*) AS seats FROM ({seats}) GROUP BY ALL ORDER BY seats DESC, agent",
                  params)


def _seats_sql(selection: Selection, settings: bool, source: str,
              unplaced_of: list[str] | None = None) -> tuple[str, list]:
    """One row (`agent`, `seats` 1) per seat of the selected matches, named from `source`; with `unplaced_of`,
    only the seats without a place of those matches (a list, so the 1M matches are not hashed to find them)."""
    where, params = selection.where()
    name = agent_sql("s", source=source) if settings else "coalesce(s.label, s.agent)"
    if unplaced_of is not None:
        where, params = f"s.rank IS NULL AND s.match_id IN (SELECT unnest(?)) AND {where}", [unplaced_of, *params]
    return f"SELECT {name} AS agent, 1 AS seats FROM seats s JOIN matches m USING (match_id) WHERE {where}", params


# ---------------------------------------------------------------- leaderboards
# ---------------------------------------------------------------- robustness
def robustness_scores(db: str | Path, agent: str, selection: Selection = ALL) -> pd.DataFrame:
    """One row per match and condition of `agent`'s seats, in no particular order: game, preset, params (JSON),
    run, seed, repeat, prompt_version, temperature, strategy, max_tokens and its score (γ-Bench games: the 0-100
    score, the match's when the agent holds every seat; other games: the mean seat score).

    Read from `match_scores` (the writer keeps those rows per match and agent) while the summaries are in step: one
    filtered scan, where the log's read hashed the agent's 333,000 matches at a million matches against the seats,
    matches and metrics (2.5-3.5 s, and most of the dashboard's peak memory). Else the same rows are computed from
    the log (`summaries.match_scores_sql`) from the agent's seats in the selected matches. Its many rows come through
    Arrow (`store.query_many_rows`)."""
    columns = """game, preset, params::VARCHAR AS params, run_id, seed, "repeat", prompt_version, temperature,
                 strategy, max_tokens, score"""
    with store.reading(db):
        if store.summaries_in_step(db):
            where, params = selection.where(settings=SETTINGS_SOURCE)
            # every row is an `ok` match's: the selection's conditions on the matches read its own columns
            return store.query_many_rows(db, f"""
                SELECT {columns} FROM (SELECT *, 'ok' AS status FROM match_scores WHERE label = ?) m
                WHERE {where}""", [agent, *params])
        where, params = selection.where()
        rows = match_scores_sql(f"(SELECT * FROM matches m WHERE {where})", "seats", "metrics",
                                scored_seats="(SELECT * FROM seats WHERE coalesce(label, agent) = ?)")
        return store.query_many_rows(db, f"SELECT {columns} FROM ({rows})", [*params, agent])


def score_range(game: str, scores: pd.Series) -> tuple[float, float]:
    """The range a game's scores can take: γ-Bench's 0-100, else the lowest and highest of `scores` (a mean cannot
    leave the range of its data)."""
    return (0.0, 100.0) if game in SCORED_0_100 else (float(scores.min()), float(scores.max()))


def robustness_tables(scores: pd.DataFrame) -> dict[tuple[str, str], pd.DataFrame]:
    """(factor, game) -> each level of the factor against its default (stats.compare_levels), in one block per
    setting of the game (column `setting`: `engine.settings.setting_label`, as every page names it): a 3-player and
    a 10-player guessing game are compared within, never pooled (a valuation seed changes no rule: one setting).
    In a setting the other factors are held at their defaults where the data has them; a block only where the
    factor took 2+ levels so held. Intervals of the mean are clipped to `score_range`.

    The rows are split once into numpy arrays (each factor's levels numbered) and each block is a set of positions
    in them: slicing the frame per block and factor cost seconds for a model's 333,000 scores at a million matches."""
    factors = {name: scores[name].array for name in FACTORS}  # as stored: taking rows of strings converts none
    numbered = {name: _numbered(scores[name], default) for name, default in FACTORS.items()}
    seeds, values = scores["seed"].to_numpy(), scores["score"].to_numpy(dtype=float)
    blocks: dict[tuple[str, str], list[dict]] = {}
    keys = pd.DataFrame({"game": scores["game"].to_numpy(), "setting": setting_labels(scores).to_numpy()})
    for (game, setting), rows in sorted(keys.groupby(["game", "setting"]).indices.items()):
        bounds = score_range(game, pd.Series(values[rows]))
        for factor, held in _held_at_defaults({name: (codes[rows], default) for name, (codes, default)
                                               in numbered.items()}):
            picked = rows[held & (numbered[factor][0][rows] >= 0)]  # a missing level is no level
            levels = factors[factor][picked].to_numpy()
            default = FACTORS[factor] if bool((levels == FACTORS[factor]).any()) else pd.Series(levels).mode().iloc[0]
            compared = stats.level_comparisons(levels, seeds[picked], values[picked], default, bounds=bounds)
            blocks.setdefault((factor, game), []).extend(row | {"setting": setting} for row in compared)
    return {key: stats.comparison_table(rows, first=("setting",)) for key, rows in blocks.items()}


def _numbered(values: pd.Series, default) -> tuple[np.ndarray, np.ndarray]:
    """A factor's values as level numbers (-1 where missing) and the numbers of those equal to its default (none
    when it was not played)."""
    codes, levels = pd.factorize(values)
    return codes, np.flatnonzero(np.asarray(levels == default, dtype=bool))


def _held_at_defaults(numbered: dict[str, tuple[np.ndarray, np.ndarray]]):
    """(factor, mask) for each factor that varies in one game and setting (`numbered`: each factor's level numbers
    there and its default's): the rows whose other factors are at their defaults, where the data has those defaults;
    only factors left with 2+ levels."""
    def levels(codes: np.ndarray) -> int:
        return np.unique(codes[codes >= 0]).size

    varied = {name: levels(codes) > 1 for name, (codes, _) in numbered.items()}
    for factor in FACTORS:
        if not varied[factor]:
            continue
        keep = np.ones(len(numbered[factor][0]), dtype=bool)
        for other in FACTORS:
            if other in (factor, "repeat") or not varied[other]:
                continue
            codes, default = numbered[other]
            held = np.isin(codes, default)
            if held.any():
                keep &= held
        if levels(numbered[factor][0][keep]) >= 2:  # holding the other factors at their defaults may leave one level
            yield factor, keep


def models_played(db: str | Path) -> list[str]:
    """The model strings (not bots) that have played here: the launch form offers them first."""
    rows = _query(db, "SELECT DISTINCT agent FROM seats WHERE agent NOT LIKE 'bot:%' ORDER BY agent")
    return [] if rows.empty else rows["agent"].tolist()


# ---------------------------------------------------------------- the leaderboards page
def published_rows(db: str | Path, suite: str) -> pd.DataFrame:
    """The papers' own rows of `suite` (`engine/published.py`), wide: source, agent (the paper's model name),
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
    played under (`matches.rules_version`). The agents' settings are read from the summaries while they are in
    step (`store.summaries_in_step`: the same settings as the seats', without scanning them)."""
    with store.reading(db):
        return _recent_matches(db, run_id, limit, settings_source(db))


def _recent_matches(db: str | Path, run_id: str | None, limit: int, source: str) -> pd.DataFrame:
    picked = newest_matches(db, "? IS NULL OR m.run_id = ?", [run_id, run_id], limit, matches_only=True)
    return _query(db, f"""
        SELECT m.match_id, m.run_id, m.game, m.preset, m.seed, m."repeat", m.status, m.error, m.rules_version,
               string_agg({agent_sql("s", source=source)}, ', ' ORDER BY s.seat) AS lineup, m.finished_at
        FROM matches m JOIN seats s USING (match_id) WHERE m.match_id IN (SELECT unnest(?))
        GROUP BY ALL ORDER BY m.finished_at DESC NULLS LAST, m.match_id""", [picked])


def newest_matches(db: str | Path, where: str, params: list, limit: int, matches_only: bool = False) -> list[str]:
    """The ids of the newest `limit` matches of `matches m` that fit `where`: a list's rows picked before its
    lineups and counts are read for them alone. A list, not a subquery: an empty one then reads no turn (a semi
    join with nothing on one side still scanned the 20M turns). When `where` reads `matches` alone (evaluated
    twice, it costs little: a condition on the seats or turns is not), the newest `limit` finish times are found
    first, so only the matches from the last of them on are sorted with their ids (a million ids took 130 ms to
    sort, the times 10 ms)."""
    order = "ORDER BY m.finished_at DESC NULLS LAST"
    newer = ""
    if matches_only:
        last = store.rows(db, f"SELECT m.finished_at FROM matches m WHERE {where} {order} LIMIT 1 OFFSET ?",
                          [*params, limit - 1])
        if last and last[0][0] is not None:  # else fewer matches than `limit` have a finish time: sort them all
            newer, params = " AND m.finished_at >= ?", [*params, last[0][0]]
    return [row[0] for row in store.rows(db, f"""
        SELECT m.match_id FROM matches m WHERE ({where}){newer} {order}, m.match_id LIMIT ?""", [*params, limit])]
