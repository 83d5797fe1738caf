"""Public Good, MAgIC's version (MAgIC paper §3.1, App. A): three players start with 100 points each and
for 5 rounds secretly put some of their remaining points in a communal pool; after the last round the
pool is multiplied and shared equally. Final points = points kept + the share; the highest wins, so
investing the least is the rational move: alone, for the outcome ratings and win rates read (`judged_by`, a tie at
the top is a draw); tied or alone, for MAgIC's role win rate (`top_total`). Settings: 7 multipliers (1, 1.2, 1.5,
1.8, 2, 2.5, 3) in engine/data/magic/magic_public_good; with `group: 0` the `multiplier` parameter is played
(default 3.5, the authors' released setting). γ-Bench's per-round game is the other one, `public_goods`.
"""

from __future__ import annotations

from typing import Any

from engine.games import register
from engine.games.base import SCORE, AnswerSettings, IntRange, Observation, Param, SeatResult, placed_by
from engine.games.extensions import policy
from engine.games.magic_common import SEATS, MagicScenario, group_param, load_group


@register
class MagicPublicGood(MagicScenario):
    name = "magic_public_good"
    answer_settings = AnswerSettings(temperature=0.0, max_tokens=40)  # cathyxl/MAgIC competition_public_good.json
    title = "Public Good (pool paid out at the end)"
    score_meaning = "the seat's final points after the rounds"
    judged_by = SCORE
    judged_meaning = "the final points: the highest alone wins, a tie at the top draws"
    rules_version = 2  # 2: judged by the final points alone at the top; `top_total` keeps MAgIC's win
    params = {
        "group": group_param("magic_public_good", 0, optional=True),
        "multiplier": Param(3.5, "the pool is multiplied by this at the end, then shared equally", kind=float,
                            lo=0.0, hi=100.0),
        "rounds": Param(5, "rounds of contributions", lo=1, hi=50),
        "endowment": Param(100, "points each player starts with", lo=1, hi=100_000),
    }
    def setup(self) -> None:
        group = self.p["group"]
        self.multiplier = float(load_group(self.name, group)["multiplier"]) if group else self.p["multiplier"]
        self.remaining = [float(self.p["endowment"])] * SEATS
        self.contributions: list[list[int]] = []
        self.round = 1

    def pool(self) -> int:
        return sum(sum(r) for r in self.contributions)

    def to_act(self) -> list[int]:
        return [] if self.done() else list(range(SEATS))

    def observe(self, seat: int) -> Observation:
        view = {"multiplier": self.multiplier, "multiplier_text": f"{self.multiplier:g}",
                "my_points": self.remaining[seat], "pool": self.pool(),
                "my_invested": sum(r[seat] for r in self.contributions),
                "past_contributions": [list(r) for r in self.contributions]}
        return self.make_observation(seat, "contribute", view,
                                     IntRange(0, int(self.remaining[seat]), key="contribution"))

    def step(self, actions: dict[int, Any]) -> None:
        given = [min(int(actions[s]), int(self.remaining[s])) for s in range(SEATS)]
        self.contributions.append(given)
        self.remaining = [r - g for r, g in zip(self.remaining, given, strict=True)]
        listed = ", ".join(f"{self.player_name(s)} contributed {g}" for s, g in enumerate(given))
        self.announce(f"Round {self.round}: {listed}. The communal pool now holds {self.pool()} points.")
        if self.done():
            share = self.share()
            finals = ", ".join(f"{self.player_name(s)} {f:g}" for s, f in enumerate(self.finals()))
            self.announce(f"The pool of {self.pool()} is multiplied by {self.multiplier:g}; each player receives "
                          f"{share:g}. Final points: {finals}.")
        self.round += 1

    def done(self) -> bool:
        return len(self.contributions) >= self.p["rounds"]

    def share(self) -> float:
        return self.pool() * self.multiplier / SEATS

    def finals(self) -> list[float]:
        share = self.share() if self.done() else 0.0
        return [round(r + share, 6) for r in self.remaining]

    def public_state(self) -> dict[str, Any]:
        last = self.contributions[-1] if self.contributions else []
        return {"round": len(self.contributions), "contributions": last, "pool": self.pool(),
                "remaining": list(self.remaining)}

    def result(self) -> dict[int, SeatResult]:
        return placed_by(dict(enumerate(self.finals())))

    def metrics(self) -> list[tuple[int | None, str, float]]:
        rows: list[tuple[int | None, str, float]] = []
        finals = self.finals()
        for s in range(SEATS):
            least = sum(r[s] == min(r) for r in self.contributions)
            rows.append((s, "invested", sum(r[s] for r in self.contributions)))
            # MAgIC Rationality: investing the least of the round (ties included) is the rational move
            rows.append((s, "rational_moves", least))
            rows.append((s, "rational_chances", len(self.contributions)))
            rows.append((s, "payback", self.share()))  # MAgIC Table 2 "Payback": its share of the multiplied pool
            rows.append((s, "top_total", float(finals[s] == max(finals))))  # MAgIC's win: ties too
        return rows

    def outcome(self) -> dict[str, Any]:
        return {"group": self.p["group"], "multiplier": self.multiplier, "contributions": self.contributions,
                "finals": self.finals()}


@policy("magic_public_good", "equilibrium")
def _never_invest(obs: Observation, rng, arg) -> int:
    """A point invested lowers the investor's final by one and raises every final by the same share, so
    whoever invests least ranks first: in the game of winning, investing nothing is dominant."""
    return 0


policy("magic_public_good", "never_invest")(_never_invest)


@policy("magic_public_good", "steady")
def _steady(obs: Observation, rng, arg) -> int:
    """A cooperator: puts an equal part of its endowment in every round (20 of 100 over 5 rounds)."""
    return min(obs.view["endowment"] // obs.view["rounds"], int(obs.view["my_points"]))
