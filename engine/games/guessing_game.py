"""Guess 2/3 of the Average (γ-Bench paper §2.1): every player picks an integer at once;
the one closest to R times the mean wins the round. Score 0-100 (docs/GAMES.md)."""

from __future__ import annotations

from statistics import mean
from typing import Any

from engine.games import register
from engine.games.base import IntRange, Observation, Param
from engine.games.extensions import policy
from engine.games.gamabench_common import Move, SimultaneousGame


def guessing_score(round_means: list[float], lo: float, hi: float, ratio: float) -> float:
    """γ-Bench's 0-100 score of the mean chosen numbers: 100 is the equilibrium. With R < 1 it is
    (MAX - S)/D·100 with S measured from MIN, as the paper's Eq. 1 and the authors'
    `games/guessing_game.py` write it: the same as (D - S)/D when MIN = 0, above 100 when MIN > 0."""
    d = hi - lo
    s = mean(m - lo for m in round_means)
    if ratio < 1:
        return (hi - s) / d * 100
    if ratio == 1:
        return (1 - abs(2 * s - d) / d) * 100
    return s / d * 100


def ratio_text(ratio: float) -> str:
    for num in range(1, 12):
        for den in range(1, 10):
            if abs(ratio - num / den) < 1e-9:
                return f"{num}/{den}"
    return f"{ratio:g}"


@register
class GuessingGame(SimultaneousGame):
    name = "guessing_game"
    title = "Guess 2/3 of the Average"
    params = SimultaneousGame.params | {
        "min": Param(0, "smallest number allowed"),
        "max": Param(100, "largest number allowed"),
        "ratio": Param(2 / 3, "target = ratio x the mean", kind=float, lo=0.0),
    }
    presets = {"default": {}, "ratio_1_2": {"ratio": 0.5}, "ratio_4_3": {"ratio": 4 / 3}}

    @classmethod
    def check_params(cls, params: dict[str, Any]) -> None:
        if params["max"] <= params["min"]:
            raise ValueError(f"parameter 'max' must be larger than 'min' ({params['min']}), got {params['max']}")

    def space(self, seat: int) -> IntRange:
        return IntRange(self.p["min"], self.p["max"], key="chosen_number", prose=False, json_answer=True)

    def view(self, seat: int) -> dict[str, Any]:
        return {"ratio_text": ratio_text(self.p["ratio"]),
                "past_means": [r["mean"] for r in self.records],
                "past_targets": [r["target"] for r in self.records]}

    @classmethod
    def record(cls, params: dict[str, Any], round_: int, actions: list[Any], context: dict[str, Any]) -> dict[str, Any]:
        choices = [int(a) for a in actions]
        avg = mean(choices)
        target = params["ratio"] * avg
        best = min(abs(c - target) for c in choices)
        winners = [s for s, c in enumerate(choices) if abs(c - target) == best]
        return {"round": round_, "choices": choices, "mean": avg, "target": target,
                "winning_number": choices[winners[0]], "winners": winners,
                "payoffs": [1.0 if s in winners else 0.0 for s in range(len(choices))]}

    def announce_round(self, record: dict[str, Any]) -> None:
        self.announce(
            f"Results of round {record['round']}: the average was {record['mean']:.2f}, the target "
            f"({ratio_text(self.p['ratio'])} of the average) was {record['target']:.2f}, "
            f"and the winning number was {record['winning_number']}.")
        for s, choice in enumerate(record["choices"]):
            verdict = "you won this round" if s in record["winners"] else "you did not win this round"
            self.announce(f"You chose {choice}; {verdict}.", to={s})

    def metrics(self) -> list[tuple[int | None, str, float]]:
        return super().metrics() + [(s, "rounds_won", won) for s, won in enumerate(self.payoff)]

    @classmethod
    def score(cls, params: dict[str, Any], moves: list[Move], seat: int | None = None) -> float | None:
        rounds = cls.by_round(moves, seat)
        if not rounds:
            return None
        # a sum of integers is exact and one division rounds it once: statistics.mean's figure, without its Fractions
        means = [sum(int(m.action) for m in ms) / len(ms) for ms in rounds.values()]
        return guessing_score(means, params["min"], params["max"], params["ratio"])


@policy("guessing_game", "equilibrium")
def _equilibrium(obs: Observation, rng, arg) -> int:
    """The unique Nash equilibrium: everyone at the bottom (R<1) or the top (R>1); any common number at R=1."""
    v = obs.view
    if v["ratio"] < 1:
        return v["min"]
    if v["ratio"] > 1:
        return v["max"]
    return v["my_actions"][-1] if v["my_actions"] else rng.randint(v["min"], v["max"])


@policy("guessing_game", "best_response")
def _best_response(obs: Observation, rng, arg) -> int:
    """Aim at the last round's target: the level-1 reasoner of the beauty-contest literature."""
    v = obs.view
    if not v["past_targets"]:
        return round(v["ratio"] * (v["min"] + v["max"]) / 2)
    return max(v["min"], min(v["max"], round(v["ratio"] * v["past_means"][-1])))
