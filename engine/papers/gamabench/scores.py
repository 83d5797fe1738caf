"""γ-Bench (GAMA-Bench; formulas in docs/METRICS.md): the 0-100 table and the per-round figures.

Each match's score is stored as the `gamabench_score` metric (the match's, seat NULL, and each seat's):
a match we played by the game's own `score` classmethod over its moves (`Game.metrics`), an imported
GAMA-Bench record as the authors' `compute_score` scores it, from the figures its round records store
(`records.record_score` over the `gama_record` kept in the match outcome; its quirks are
listed there). `python -m engine rescore` recomputes both from what the database keeps, so a changed
formula reaches the table without a replay of the agents.

- `leaderboard(db, selection)`: one row per model, condition (prompt_version, temperature, strategy),
  `setting` (`engine.games.settings.setting_label`, as every page names it: 'vanilla' with the paper's default
  parameters, else 'custom: golds=4' naming each one changed, a row per setting value as the paper's Table 9;
  an imported record of a study of its own, `own_setting` in its outcome, is named with it, "study _t5",
  "custom: golds=4 (_g0)", whatever its parameters: the authors' leaderboard reads only runs
  `_v1_1`..`_v1_5`) and `source` (`ours`, or
  `published` for imported records); one column per game; `overall` = the mean of the eight (empty unless
  all eight were played); `overall_sd` its spread over the row's runs (the standard deviation of each run's
  overall: a published row's five runs `_v1_1`..`_v1_5`); each cell the mean over matches. A match whose seats
  all share the model and condition counts with its match score; in a mixed match each model and condition
  counts with the mean of its seats' scores.
- `round_figures(db, selection)`: the figures the paper plots, one row per step of every selected match
  (a round of a simultaneous game, a shot in Battle Royale, a proposal or a vote in the Pirate Game):
  `match_id`, `run_id`, `step`, and the fields of the step's public record, e.g. guessing_game `mean`,
  `target`, `winning_number`, `choices`; bar_game `share_go`, `go_count`; divide_dollar `total`, `bids`;
  public_goods `contributions`, `pot`; diner_dilemma `costly_count`, `bill`; sealed_bid_auction `bids`,
  `valuations`, `winning_bid`; battle_royale `shooter`, `target`, `hit`, `players_left`; pirate_game
  `proposer`, `plan`, `votes`, `passed`. These records are the `last` field of the `state` JSON of each
  decision turn, so SQL works too: `SELECT match_id, round, state->'last' FROM turns WHERE seat IS NOT NULL`.
- `round_curves(db, selection)`: those figures' numbers averaged per setting and step over the matches of one game
  (summed from `step_summary` rows, engine/papers/gamabench/summary.py).
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pandas as pd

from engine import store
from engine.games.settings import setting_labels
from engine.papers.gamabench.games import GAMES
from engine.papers.gamabench.summary import GAMABENCH_SUMMARY, STEP_SUMMARY
from engine.score.agent_figures import Summed, summed
from engine.score.kept_tables import kept_per_state
from engine.score.precision import fixed_values
from engine.store.selection import ALL, Selection, agent_sql


@kept_per_state
def leaderboard(db: str | Path, selection: Selection = ALL) -> pd.DataFrame:
    """γ-Bench's 0-100 table: one row per model, condition and source (`ours` or `published` for imported
    GAMA-Bench records), one column per game, `overall` = mean of the eight. The scores are the
    `gamabench_score` metrics the games stored (the same classmethod the scorer uses): a condition holding
    every seat of a match counts with the match score, else with the mean of its seats' scores; a cell
    is the mean over matches; `setting` is 'vanilla' for the paper's default parameters, else a row per setting
    value and study (`_setting`), so two settings are never one row. A model is its agent's name, as every table
    gives it (`selection.agent_sql`: its label, agent string and settings; the settings have columns of their own
    too, to sort and filter by). The table is summed in SQL (`_TABLE`) from the selection's `gamabench_summary` rows
    (`agent_figures.summed`): grouping the score rows in pandas is slower on a large database."""
    with store.reading(db):
        where = summed(db, selection, contested=False)
        scores, params = _scores(db, where)
        settings = _setting_names(db, not where.answers(db, GAMABENCH_SUMMARY.table))
        table = store.query(db, _TABLE.format(scores=scores), [*params, *(settings[c].tolist() for c in settings)])
    columns = ["model", "prompt_version", "temperature", "strategy", "setting", "source", *GAMES,
               "overall", "overall_sd", "matches"]
    if table.empty:
        return pd.DataFrame(columns=columns)
    table = table.assign(other=table["setting"] != "vanilla").sort_values(
        ["other", "setting", "overall", "model"], ascending=[True, True, False, True], na_position="last",
        key=fixed_values)
    return table[columns].reset_index(drop=True)


# what `leaderboard` reads per model, condition, game, setting, run and source: the mean score over its matches
# (`score`, over those with one) and the matches (`matches`); a match's score for a model and condition is its
# match score where they hold every seat, else the mean of their seats' scores
_SCORES = """model, prompt_version, temperature, strategy, game, preset, params::VARCHAR AS params, own_setting,
             "repeat", CASE WHEN source LIKE 'import:%' THEN 'published' ELSE 'ours' END AS source"""
_KEYS = "model, prompt_version, temperature, strategy, setting, source"
# the table from those rows (`scores`, then the settings' names as five lists: game, preset, params, own_setting,
# name): each cell the mean over its matches (a row's weight its matches), `overall` the mean of the eight games
# (none unless all eight have one), `overall_sd` the standard deviation of each run's overall (over the runs that
# have one)
_TABLE = f"""
    WITH s AS ({{scores}}),
    setting_names AS (SELECT unnest(?) AS game, unnest(?) AS preset, unnest(?) AS params, unnest(?) AS own_setting,
                             unnest(?) AS setting),
    named AS (
      SELECT s.*, s.score * s.matches AS weighted, n.setting
      FROM s LEFT JOIN setting_names n ON n.game = s.game AND n.preset IS NOT DISTINCT FROM s.preset
                                       AND n.params IS NOT DISTINCT FROM s.params
                                       AND n.own_setting IS NOT DISTINCT FROM s.own_setting),
    cells AS (SELECT {_KEYS}, game, sum(weighted) / sum(matches) AS score, sum(matches) AS matches
              FROM named GROUP BY ALL),
    runs AS (SELECT {_KEYS}, CASE WHEN count(score) = {len(GAMES)} THEN avg(score) END AS overall
             FROM (SELECT {_KEYS}, "repeat", game, sum(weighted) / sum(matches) AS score FROM named GROUP BY ALL)
             GROUP BY {_KEYS}, "repeat"),
    spread AS (SELECT {_KEYS}, stddev_samp(overall) AS overall_sd FROM runs GROUP BY ALL),
    board AS (
      SELECT {_KEYS}, {", ".join(f"max(score) FILTER (WHERE game = '{game}') AS {game}" for game in GAMES)},
             sum(matches)::BIGINT AS matches
      FROM cells GROUP BY ALL)
    SELECT b.* EXCLUDE (matches), ({" + ".join(f"b.{game}" for game in GAMES)}) / {len(GAMES)} AS overall,
           p.overall_sd, b.matches
    FROM board b JOIN spread p ON {" AND ".join(f"p.{k} IS NOT DISTINCT FROM b.{k}" for k in _KEYS.split(", "))}
    ORDER BY {", ".join(f"b.{k} NULLS FIRST" for k in _KEYS.split(", "))}"""


def _scores(db: str | Path, where: Summed) -> tuple[str, list]:
    """The scores `_TABLE` reads, summed from the `gamabench_summary` rows `where` selects (a match's score as
    `summary.gamabench_contributions_sql` defines it): its matches, scored matches and score sums."""
    rows, params = where.rows(db, GAMABENCH_SUMMARY.table)
    return f"""
        WITH k AS (
          SELECT k.agent_name AS model, k.temperature, k.prompt_version, k.strategy, k.game, k.preset, k.params,
                 k.own_setting, k."repeat", r.source, sum(k.matches) AS matches, sum(k.scored) AS scored,
                 sum(k.total) AS total
          FROM ({rows}) k LEFT JOIN runs r USING (run_id)
          WHERE k.game IN (SELECT unnest(?)) GROUP BY ALL)
        SELECT {_SCORES}, sum(total) / nullif(sum(scored), 0) AS score, sum(matches)::BIGINT AS matches
        FROM k GROUP BY ALL""", [*params, list(GAMES)]


def _setting_names(db: str | Path, logged: bool) -> pd.DataFrame:
    """Each setting (game, preset, params, and an imported record's study: `own_setting`) of γ-Bench's games the
    summaries (or, `logged`, the matches) hold, with its name (`settings.setting_labels`, then `_setting`): the few
    dozen settings named once, in Python, for `_TABLE` to join."""
    source, own = ("matches", "outcome->>'$.own_setting'") if logged else (GAMABENCH_SUMMARY.table, "own_setting")
    found = store.query(db, f"""SELECT DISTINCT game, preset, params::VARCHAR AS params, {own} AS own_setting
                                FROM {source} WHERE game IN (SELECT unnest(?))""", [list(GAMES)])
    labels = setting_labels(found).tolist() if not found.empty else []
    studies = found["own_setting"].tolist() if not found.empty else []
    names = [label if pd.isna(study) else _setting(label, study) for label, study in zip(labels, studies, strict=True)]
    named = pd.DataFrame({"game": found.get("game", []), "preset": found.get("preset", []),
                          "params": found.get("params", []), "own_setting": found.get("own_setting", []),
                          "name": names}).astype(object)
    return named.where(named.notna(), None)  # SQL's NULL, not a NaN the join would read as the text 'nan'


def _setting(label: str, own_setting: str) -> str:
    """A row's setting: its parameters as `setting_label` names them, with the study an imported record's file
    belongs to when it is not one of the leaderboard's runs ("study _t5", "custom: golds=4 (_g0)", "study filed as
    gpt-4-0125-" for an older copy of a run under a name board.py does not read)."""
    study = own_setting if " " in own_setting else f"_{own_setting}"  # a file suffix, or "filed as gpt-4-0125-"
    return f"study {study}" if label == "vanilla" else f"{label} ({study})"


def _step_records(db: str | Path, selection: Selection) -> pd.DataFrame:
    """match_id, run_id, step and the step's public record (JSON text) of the selected matches, in play order.

    The steps without a record are numbered last and dropped only after the numbering: a `record IS NOT NULL`
    before it is pushed down by DuckDB below the match filter, parsing the state of every turn in the
    database instead of those of the selected matches only.
    The selected matches' turns are found by their row ids first (reading their match and seat only), then their
    states read: a join on the match read the state of every turn it scanned."""
    where, params = selection.where()
    return store.query(db, f"""
        WITH picked AS (SELECT m.match_id, m.run_id FROM matches m WHERE {where} AND m.game IN (SELECT unnest(?))),
        steps AS (
          SELECT t.match_id, min(t.turn) AS first_turn, json_extract(t.state, '$.last') AS record
          FROM turns t WHERE t.rowid IN (SELECT rowid FROM turns
                                         WHERE seat IS NOT NULL AND match_id IN (SELECT match_id FROM picked))
          GROUP BY t.match_id, record),
        numbered AS (
          SELECT s.match_id, p.run_id, s.record,
                 row_number() OVER (PARTITION BY s.match_id ORDER BY s.record IS NULL, s.first_turn) AS step
          FROM steps s JOIN picked p USING (match_id))
        SELECT match_id, run_id, step, record::VARCHAR AS record FROM numbered
        WHERE record IS NOT NULL ORDER BY match_id, step""", [*params, list(GAMES)])


def round_figures(db: str | Path, selection: Selection = ALL) -> pd.DataFrame:
    """Per-step records of the selected matches (see the module docstring), in play order."""
    rows = [{"match_id": match_id, "run_id": run_id, "step": step} | (json.loads(record) or {})
            for match_id, run_id, step, record in _step_records(db, selection).itertuples(index=False)]
    return pd.DataFrame(rows, columns=None if rows else ["match_id", "run_id", "step"])


def round_curves(db: str | Path, selection: Selection) -> pd.DataFrame:
    """The numbers each step of one game records (mean and target, share going, total bid, pot...), averaged
    per setting and step over the selected matches of the one game the selection names: a 3-player one-round game
    is never averaged with a 10-player twenty-round one. The steps and their numbers are
    `summary.step_values_sql`'s (a yes/no as its share; seats and the round's number left out; the steps
    holding a number numbered from 1). Summed from `step_summary` rows: the stored ones when the selection is a
    sum of them (runs, presets, rule sets, matches without fallback moves, at most one agent) and they are in step
    with the log, else those of its matches computed from the log by the same definition (`agent_figures.summed`).
    Columns: setting (`engine.games.settings.setting_label`: "vanilla",
    "custom: players=3, rounds=1", as every page names it), step, matches (those of the setting that reached the
    step), then one per field, in name order."""
    if len(selection.games) != 1:
        raise ValueError("round_curves reads one game: narrow the selection to it (Selection.of_game)")
    with store.reading(db):  # one connection for every read: opening a large file costs more than a read
        # one agent's curves are its rows; two agents' or more the matches' own rows of the matches they pick
        one_agent = len(selection.agents) == 1
        where = summed(db, replace(selection, agents=()) if one_agent else selection, contested=False)
        steps = _steps(db, where, selection.agents if one_agent else ())
    if steps.empty:
        return pd.DataFrame(columns=["setting", "step", "matches"])
    steps["setting"] = setting_labels(steps)
    steps = steps.groupby(["setting", "step", "name"], dropna=False)[["matches", "total"]].sum().reset_index()
    reached = steps[steps["name"].isna()].set_index(["setting", "step"])["matches"]
    fields = steps[steps["name"].notna()]
    means = fields.assign(mean=fields["total"] / fields["matches"])
    curves = means.pivot(index=["setting", "step"], columns="name", values="mean").reindex(reached.index)
    curves.columns.name = None
    curves.insert(0, "matches", reached.astype(int))
    return curves.reset_index()


def _steps(db: str | Path, where: Summed, agents: tuple[str, ...]) -> pd.DataFrame:
    """Per setting, step and field (`name`; NULL: the step itself) the matches and the field's sum, from the
    `step_summary` rows `where` selects: those of the one agent of `agents` (by its name), else the matches' own
    (agent_name NULL: a match counted once, whoever sat)."""
    rows, params = where.rows(db, STEP_SUMMARY.table)
    who = f"{agent_sql('k')} = ?" if agents else f"{agent_sql('k')} IS NULL"
    return store.query(db, f"""
        SELECT k.game, k.preset, k.params::VARCHAR AS params, k.step, k.name, sum(k.matches)::BIGINT AS matches,
               sum(k.total) AS total
        FROM ({rows}) k WHERE {who} GROUP BY ALL""", [*params, *agents])
