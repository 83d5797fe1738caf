"""γ-Bench scores of a GAMA-Bench record as the authors' `compute_score` computes them
(CUHK-ARISE/GAMABench, `games/*.py`, the leaderboard of `board.py`).

Their leaderboard loads a saved file (`meta` becomes the game's arguments, `round_records` its
rounds) and scores the figures each round record stores, never the players' answers again. So do
we: an imported record is scored from `meta` and `round_records` only. Quirks kept from their code:

- Only the stored figures count: Diner's Dilemma reads `cheap_player` (an answer outside the option
  list, "chea" or "costly_or_cheap", was counted as not cheap when the round was played), El Farol
  `go_ratio`, Guess 2/3 `mean`, Divide the Dollar `total_proposal`, Public Goods `total_tokens`.
- The score averages the rounds the record holds: a record that stops early (a crashed run saves
  after every round) is scored on its rounds; Battle Royale and the Pirate Game on the shots and
  votes recorded, whether or not one survivor or a passed plan ended the game.
- Guess 2/3 with R < 1 is (MAX - S)/D·100 with S measured from MIN, as their code writes it.
- Battle Royale: a shot counts as right when `shot_player` names the opponent with the highest hit
  rate among the round's `initial_players` (the players alive when the shot was taken); a
  `shot_player` of "null" (a deliberate miss) or one naming nobody alive counts as wrong.
- Pirate Game with G golds (meta `gold`, 100 when absent): (200 - mean L1)/200·50 + voter
  accuracy·50, the L1 distance of each plan, each share scaled by 100/G, from the 100-gold
  equilibrium plan; their `games/pirate_game.py` divides by a hard-coded 200 whatever G is (the
  paper's Table 9 prints 73.8 for G=4, 47.3 for G=5, 83.6 for G=400 with it; 2G would give -254,
  -640 and 93.7). Each recorded vote but the proposer's own is checked with
  `vote_is_right` on the exact string ('accept'); the accuracy divides by the plan's pirates but
  the proposer, voted or not.

A record their code could not score (no rounds, a field it reads missing or not a number) raises
`RecordError` with the reason; the importer reports it and imports the rest.
"""

from __future__ import annotations

from collections.abc import Callable
from statistics import mean
from typing import Any

from engine.games.guessing_game import guessing_score
from engine.games.pirate_game import equilibrium_plan, vote_is_right


class RecordError(ValueError):
    """A GAMA-Bench record the authors' scoring cannot score; the message says why."""


def _number(record: dict[str, Any], key: str, where: str) -> float:
    if key not in record:
        raise RecordError(f"{where} has no '{key}'")
    try:
        return float(record[key])
    except (TypeError, ValueError):
        raise RecordError(f"{where}: '{key}' is {record[key]!r}, not a number") from None


def _rounds(data: dict[str, Any]) -> list[dict[str, Any]]:
    rounds = data.get("round_records")
    if not isinstance(rounds, list) or not rounds or not all(isinstance(r, dict) for r in rounds):
        raise RecordError("the record has no rounds to score (round_records is empty or missing)")
    return rounds


def _per_round(data: dict[str, Any], key: str) -> list[float]:
    return [_number(r, key, f"round {k + 1}") for k, r in enumerate(_rounds(data))]


def guessing(meta: dict[str, Any], data: dict[str, Any]) -> float:
    lo, hi, ratio = (_number(meta, k, "meta") for k in ("min", "max", "ratio"))
    return guessing_score(_per_round(data, "mean"), lo, hi, ratio)


def bar(meta: dict[str, Any], data: dict[str, Any]) -> float:
    ratio = _number(meta, "ratio", "meta")
    s = mean(abs(g - ratio) for g in _per_round(data, "go_ratio"))
    r = max(ratio, 1 - ratio)
    return (r - s) / r * 100


def divide_dollar(meta: dict[str, Any], data: dict[str, Any]) -> float:
    n = _number(meta, "player_num", "meta")
    g = _number(meta, "golds", "meta") / n
    s = mean(abs(total / n - g) for total in _per_round(data, "total_proposal"))
    return max((g - s) / g * 100, 0.0)


def public_goods(meta: dict[str, Any], data: dict[str, Any]) -> float:
    n, tokens = _number(meta, "player_num", "meta"), _number(meta, "tokens", "meta")
    given = mean(total / n for total in _per_round(data, "total_tokens"))
    return (tokens - given) / tokens * 100


def diner(meta: dict[str, Any], data: dict[str, Any]) -> float:
    n = _number(meta, "player_num", "meta")
    return mean(1 - cheap / n for cheap in _per_round(data, "cheap_player")) * 100


def auction(meta: dict[str, Any], data: dict[str, Any]) -> float:
    shares = []
    for k, r in enumerate(_rounds(data)):
        bids, values = r.get("responses"), r.get("valuations")
        if not isinstance(bids, list) or not isinstance(values, list) or len(bids) != len(values):
            raise RecordError(f"round {k + 1}: 'responses' and 'valuations' must be lists of one length")
        for i, (b, v) in enumerate(zip(bids, values, strict=True)):
            bid = _number({"bid": b}, "bid", f"round {k + 1} bid {i + 1}")
            value = _number({"value": v}, "value", f"round {k + 1} valuation {i + 1}")
            shares.append(max(0.0, (value - bid) / max(value, 1)))
    return mean(shares) * 100


def _player_number(value: Any) -> str:
    return str(value).rpartition("_")[2].strip()


def battle(meta: dict[str, Any], data: dict[str, Any]) -> float:
    right = []
    for k, r in enumerate(_rounds(data)):
        where = f"round {k + 1}"
        if "initial_players" not in r or "player_shooting" not in r or "shot_player" not in r:
            raise RecordError(f"{where} lacks 'initial_players', 'player_shooting' or 'shot_player'")
        shooter = _player_number(r["player_shooting"])
        others = [(_number({"rate": rate}, "rate", where), _player_number(pid)) for pid, rate in r["initial_players"]
                  if _player_number(pid) != shooter]
        if not others:
            raise RecordError(f"{where}: no opponent alive to shoot at")
        best = max(rate for rate, _ in others)
        right.append(_player_number(r["shot_player"]) in {p for rate, p in others if rate == best})
    return sum(right) / len(right) * 100


def pirate(meta: dict[str, Any], data: dict[str, Any]) -> float:
    gold = _number(meta, "gold", "meta") if "gold" in meta else 100.0
    if gold <= 0:
        raise RecordError(f"meta: 'gold' is {meta['gold']!r}, their score divides by it")
    distances, right, asked = [], 0, 0
    for k, r in enumerate(_rounds(data)):
        plan, votes = r.get("gold_distribution"), r.get("responses")
        if not isinstance(plan, list) or not plan:
            raise RecordError(f"round {k + 1} has no 'gold_distribution'")
        golds = [_number({"gold": g}, "gold", f"round {k + 1}") for g in plan]
        equilibrium = equilibrium_plan(len(golds), 100)
        distances.append(sum(abs(g / gold * 100 - e) for g, e in zip(golds, equilibrium, strict=True)))
        votes = votes if isinstance(votes, list) else []
        if len(votes) > len(golds):
            raise RecordError(f"round {k + 1}: {len(votes)} votes on a plan for {len(golds)} pirates")
        right += sum(vote_is_right(str(v), int(golds[i]), i) for i, v in enumerate(votes) if i)
        asked += len(golds) - 1
    if not asked:
        raise RecordError("no pirate but the proposer was asked to vote: their score divides by zero")
    return (200 - mean(distances)) / 200 * 50 + right / asked * 50  # 200, not 2·gold: their code's constant


SCORERS: dict[str, Callable[[dict[str, Any], dict[str, Any]], float]] = {
    "guessing_game": guessing, "bar_game": bar, "divide_dollar": divide_dollar, "public_goods": public_goods,
    "diner_dilemma": diner, "sealed_bid_auction": auction, "battle_royale": battle, "pirate_game": pirate}


def record_score(game: str, data: dict[str, Any]) -> float:
    """The 0-100 score of one GAMA-Bench record (`meta`, `round_records`) of our game `game`."""
    meta = data.get("meta")
    if not isinstance(meta, dict):
        raise RecordError("the record has no 'meta' block")
    return SCORERS[game](meta, data)
