"""Guess 2/3 of the Average (γ-Bench, seed 002 §2.1): every player picks an integer at once;
the one closest to R times the mean wins the round. Score per SPEC.md, 0-100."""

from __future__ import annotations

from statistics import mean
from typing import Any

from engine.agents.bots import policy
from engine.games import register
from engine.games.base import Game, IntRange, Observation, Param, SeatResult, rank_by


def guessing_score(round_means: list[float], lo: int, hi: int, ratio: float) -> float:
    """γ-Bench's 0-100 score of the mean chosen numbers: 100 is the equilibrium."""
    d = hi - lo
    s = mean(m - lo for m in round_means)
    if ratio < 1:
        return (d - s) / d * 100
    if ratio == 1:
        return (1 - abs(2 * s - d) / d) * 100
    return s / d * 100


@register
class GuessingGame(Game):
    name = "guessing_game"
    title = "Guess 2/3 of the Average"
    paper = "GAMA-Bench"
    params = {
        "players": Param(10, "number of players", lo=2, hi=100),
        "rounds": Param(20, "rounds played", lo=1, hi=200),
        "min": Param(0, "smallest number allowed"),
        "max": Param(100, "largest number allowed"),
        "ratio": Param(2 / 3, "target = ratio x the mean", kind=float, lo=0.0),
    }
    presets = {"default": {}, "ratio_1_2": {"ratio": 0.5}, "ratio_4_3": {"ratio": 4 / 3}}

    @classmethod
    def n_seats(cls, params: dict[str, Any]) -> int:
        return params["players"]

    def setup(self) -> None:
        if self.p["max"] <= self.p["min"]:
            raise ValueError("parameter 'max' must be larger than 'min'")
        self.n = self.p["players"]
        self.records: list[dict[str, Any]] = []
        self.rounds_won = [0] * self.n
        self.round = 1

    def to_act(self) -> list[int]:
        return [] if self.done() else list(range(self.n))

    def observe(self, seat: int) -> Observation:
        mine = [r["choices"][seat] for r in self.records]
        view = {
            "n": self.n, "ratio_text": _ratio_text(self.p["ratio"]), "my_choices": mine,
            "past_means": [r["mean"] for r in self.records],
            "past_targets": [r["target"] for r in self.records],
        }
        return self.make_observation(seat, "choose", view, IntRange(self.p["min"], self.p["max"], key="chosen_number"))

    def step(self, actions: dict[int, Any]) -> None:
        choices = [int(actions[s]) for s in range(self.n)]
        avg = mean(choices)
        target = self.p["ratio"] * avg
        best = min(abs(c - target) for c in choices)
        winners = [s for s, c in enumerate(choices) if abs(c - target) == best]
        for s in winners:
            self.rounds_won[s] += 1
        self.records.append({
            "round": self.round, "choices": choices, "mean": avg, "target": target,
            "winning_number": choices[winners[0]], "winners": winners,
        })
        self.announce(
            f"Results of round {self.round}: the average was {avg:.2f}, the target "
            f"({_ratio_text(self.p['ratio'])} of the average) was {target:.2f}, "
            f"and the winning number was {choices[winners[0]]}."
        )
        for s in range(self.n):
            verdict = "you won this round" if s in winners else "you did not win this round"
            self.announce(f"You chose {choices[s]}; {verdict}.", to={s})
        self.round += 1

    def done(self) -> bool:
        return len(self.records) >= self.p["rounds"]

    def public_state(self) -> dict[str, Any]:
        last = self.records[-1] if self.records else {}
        return {"round": len(self.records), "last": last, "rounds_won": list(self.rounds_won)}

    def _seat_score(self, seat: int) -> float:
        return guessing_score([r["choices"][seat] for r in self.records], self.p["min"], self.p["max"], self.p["ratio"])

    def result(self) -> dict[int, SeatResult]:
        ranks = rank_by(dict(enumerate(self.rounds_won)))
        return {s: SeatResult(self._seat_score(s), ranks[s] == 1, ranks[s]) for s in range(self.n)}

    def metrics(self) -> list[tuple[int | None, str, float]]:
        score = guessing_score([r["mean"] for r in self.records], self.p["min"], self.p["max"], self.p["ratio"])
        rows: list[tuple[int | None, str, float]] = [(None, "gamabench_score", score)]
        for s in range(self.n):
            rows.append((s, "rounds_won", self.rounds_won[s]))
            rows.append((s, "mean_choice", mean(r["choices"][s] for r in self.records)))
        return rows

    def outcome(self) -> dict[str, Any]:
        return {
            "means": [r["mean"] for r in self.records],
            "winning_numbers": [r["winning_number"] for r in self.records],
            "rounds_won": self.rounds_won,
        }


def _ratio_text(ratio: float) -> str:
    for num in range(1, 10):
        for den in range(1, 10):
            if abs(ratio - num / den) < 1e-9:
                return f"{num}/{den}"
    return f"{ratio:g}"


@policy("guessing_game", "equilibrium")
def _equilibrium(obs: Observation, rng, arg) -> int:
    """The unique Nash equilibrium: everyone at the bottom (R<1) or the top (R>1); any common number at R=1."""
    v = obs.view
    if v["ratio"] < 1:
        return v["min"]
    if v["ratio"] > 1:
        return v["max"]
    return v["my_choices"][-1] if v["my_choices"] else rng.randint(v["min"], v["max"])


@policy("guessing_game", "best_response")
def _best_response(obs: Observation, rng, arg) -> int:
    """Aim at the last round's target: the level-1 reasoner of the beauty-contest literature."""
    v = obs.view
    if not v["past_targets"]:
        return round(v["ratio"] * (v["min"] + v["max"]) / 2)
    return max(v["min"], min(v["max"], round(v["ratio"] * v["past_means"][-1])))
