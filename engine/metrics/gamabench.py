"""γ-Bench scores (GAMA-Bench, seed 002; formulas in SPEC.md), computed from the turns table.

A match we played is scored from its turns: its decision turns become moves (`moves_from_turns`)
and the game's own `score` classmethod turns them into 0-100. An imported GAMA-Bench record
(`python -m engine import gamabench DIR`) is scored as the authors' `compute_score` scores it, from
the figures its round records store (`gamabench_records.record_score` over the `gama_record` kept
in the match outcome; its quirks are listed there), not by replaying the answers. Both are
recomputed on every read, so a change of formula re-scores everything.

- `leaderboard(db)`: one row per model and condition (prompt_version, temperature, strategy) and
  `setting` ('vanilla' when the game ran with the paper's default parameters, else 'custom'); one
  column per game, named after it; `overall` = the mean of the eight (empty unless all eight were
  played); each cell is the mean over repeated matches. A match whose seats all share the model
  and condition counts with its match score; in a mixed match each model and condition counts
  with the mean of its seats' scores.
- `settings_scores(db)`: the same scores per game and non-default parameters (the paper's Table 9).
- `round_figures(db, game, run_ids=None)`: the figures the paper plots, one row per step of every
  match of `game` (a round of a simultaneous game, a shot in Battle Royale, a proposal or a vote in
  the Pirate Game): `match_id`, `run_id`, `agents`, `step`, and the fields of the step's public
  record, e.g. guessing_game `mean`, `target`, `winning_number`, `choices`; bar_game `share_go`,
  `go_count`; divide_dollar `total`, `bids`; public_goods `contributions`, `pot`; diner_dilemma
  `costly_count`, `bill`; sealed_bid_auction `bids`, `valuations`, `winning_bid`; battle_royale
  `shooter`, `target`, `hit`, `players_left`; pirate_game `proposer`, `plan`, `votes`, `passed`.
  These records are the `last` field of the `state` JSON of each decision turn, so SQL works too:
  `SELECT match_id, round, state->'last' FROM turns WHERE seat IS NOT NULL`.
"""

from __future__ import annotations

import json
from pathlib import Path
from statistics import mean
from typing import Any

import pandas as pd

from engine import store
from engine.games import get_game
from engine.games.gamabench_common import moves_from_turns
from engine.metrics.gamabench_records import record_score

GAMES = ("guessing_game", "bar_game", "divide_dollar", "public_goods", "diner_dilemma", "sealed_bid_auction",
         "battle_royale", "pirate_game")
CONDITION = ["model", "prompt_version", "temperature", "strategy"]
NOT_A_SETTING = {"valuation_seed", "max_turns"}  # change no rule a player faces


def _in_list(values: tuple[str, ...] | list[str]) -> str:
    return ", ".join("'" + v.replace("'", "''") + "'" for v in values)


def _matches(db: Path, games: tuple[str, ...], run_ids: list[str] | None) -> pd.DataFrame:
    where = f"status = 'ok' AND game IN ({_in_list(games)})"
    if run_ids is not None:
        where += f" AND run_id IN ({_in_list(run_ids) or 'NULL'})"
    return store.query(db, f"""SELECT match_id, run_id, game, params,
        json_extract(outcome, '$.gama_record') AS gama_record FROM matches WHERE {where}""")


def _decisions(db: Path, games: tuple[str, ...]) -> pd.DataFrame:
    return store.query(db, f"""
        SELECT t.match_id, t.turn, t.round, t.seat, t.phase, t.action, t.state
        FROM turns t JOIN matches m USING (match_id)
        WHERE m.status = 'ok' AND m.game IN ({_in_list(games)}) AND t.seat IS NOT NULL
        ORDER BY t.match_id, t.turn""")


def setting_of(game: str, params: dict[str, Any]) -> dict[str, Any]:
    """The parameters that differ from the paper's defaults (empty: the vanilla setting)."""
    defaults = get_game(game).resolve_params({})
    return {k: v for k, v in params.items() if k not in NOT_A_SETTING and defaults.get(k) != v}


def match_scores(db: str | Path, games: tuple[str, ...] = GAMES) -> pd.DataFrame:
    """One row per match and condition group of its seats: the condition, the game, its setting, the score."""
    db = Path(db)
    matches = _matches(db, games, None)
    if matches.empty:
        return pd.DataFrame()
    seats = store.query(db, f"""
        SELECT s.match_id, s.seat, s.agent AS model, s.prompt_version, s.temperature, s.strategy
        FROM seats s JOIN matches m USING (match_id) WHERE m.status = 'ok' AND m.game IN ({_in_list(games)})""")
    turns = {mid: rows.to_dict("records") for mid, rows in _decisions(db, games).groupby("match_id")}
    seats_by_match = {mid: rows for mid, rows in seats.groupby("match_id")}
    out = []
    for match in matches.itertuples():
        params = json.loads(match.params)
        cls = get_game(match.game)
        moves = moves_from_turns(turns.get(match.match_id, []))
        setting = setting_of(match.game, params)
        groups = seats_by_match[match.match_id].groupby(CONDITION, dropna=False, sort=False)
        for key, group in groups:
            if isinstance(match.gama_record, str) and len(groups) == 1:
                value = record_score(match.game, json.loads(match.gama_record))
            elif len(groups) == 1:
                value = cls.score(params, moves)
            else:
                per_seat = [cls.score(params, moves, int(s)) for s in group["seat"]]
                per_seat = [v for v in per_seat if v is not None]
                value = mean(per_seat) if per_seat else None
            if value is None:
                continue
            out.append(dict(zip(CONDITION, key, strict=True)) | {
                "match_id": match.match_id, "run_id": match.run_id, "game": match.game,
                "setting": "vanilla" if not setting else "custom",
                "params": json.dumps(setting, sort_keys=True), "score": value})
    return pd.DataFrame(out)


def _condition_frame(scores: pd.DataFrame) -> pd.DataFrame:
    """Condition columns with bots' empty settings made groupable."""
    frame = scores.copy()
    for col in ("prompt_version", "strategy"):
        frame[col] = frame[col].astype(object).where(frame[col].notna(), "")
    frame["temperature"] = frame["temperature"].astype(float).fillna(-1.0)
    return frame


def _restore_empty(table: pd.DataFrame) -> pd.DataFrame:
    for col in ("prompt_version", "strategy"):
        table[col] = table[col].replace("", None)
    table["temperature"] = table["temperature"].where(table["temperature"] >= 0)
    return table


def leaderboard(db: str | Path) -> pd.DataFrame:
    scores = match_scores(db)
    columns = [*CONDITION, "setting", *GAMES, "overall"]
    if scores.empty:
        return pd.DataFrame(columns=columns)
    frame = _condition_frame(scores)
    keys = [*CONDITION, "setting"]
    table = frame.pivot_table(index=keys, columns="game", values="score", aggfunc="mean").reset_index()
    for game in GAMES:
        if game not in table:
            table[game] = float("nan")
    table["overall"] = table[list(GAMES)].mean(axis=1, skipna=False)
    table = _restore_empty(table)[columns]
    table.columns.name = None
    return table.sort_values(["setting", "overall", "model"], ascending=[False, False, True],
                             na_position="last").reset_index(drop=True)


def settings_scores(db: str | Path) -> pd.DataFrame:
    """Mean score per model, condition, game and parameter setting (`params`: the non-default ones)."""
    scores = match_scores(db)
    if scores.empty:
        return pd.DataFrame(columns=[*CONDITION, "game", "params", "score", "matches"])
    frame = _condition_frame(scores)
    table = frame.groupby([*CONDITION, "game", "params"]).agg(score=("score", "mean"), matches=("score", "size"))
    return _restore_empty(table.reset_index())


def round_figures(db: str | Path, game: str, run_ids: list[str] | None = None) -> pd.DataFrame:
    """Per-step figures of every ok match of `game` (see the module docstring), in play order."""
    db = Path(db)
    matches = _matches(db, (game,), run_ids)
    if matches.empty:
        return pd.DataFrame()
    agents = store.query(db, f"""
        SELECT match_id, string_agg(DISTINCT agent, ', ' ORDER BY agent) AS agents FROM seats
        WHERE match_id IN (SELECT match_id FROM matches WHERE game IN ({_in_list((game,))})) GROUP BY match_id""")
    agents_of = dict(zip(agents["match_id"], agents["agents"], strict=True))
    run_of = dict(zip(matches["match_id"], matches["run_id"], strict=True))
    rows = []
    for match_id, turns in _decisions(db, (game,)).groupby("match_id", sort=False):
        if match_id not in run_of:
            continue
        seen, step = None, 0
        for state in turns["state"]:
            if state == seen:
                continue
            seen, step = state, step + 1
            record = (json.loads(state) or {}).get("last") or {}
            rows.append({"match_id": match_id, "run_id": run_of[match_id], "agents": agents_of.get(match_id),
                         "step": step} | record)
    return pd.DataFrame(rows)
