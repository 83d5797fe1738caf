"""Divide the Dollar (γ-Bench paper §2.1): every player bids for a share of G golds at once;
all bids are paid if their sum is at most G, else nobody gets anything. Score (docs/GAMES.md):
100 when the bids average G/N."""

from __future__ import annotations

from typing import Any

from engine.games import register
from engine.games.base import IntRange, Observation, Param
from engine.games.extensions import policy
from engine.games.gamabench_common import Move, SimultaneousGame


def dollar_score(gaps: list[float], fair: float) -> float:
    """max((g - mean gap) / g * 100, 0), the gap being |mean bid - g| per round (or per bid for one seat)."""
    return max((fair - sum(gaps) / len(gaps)) / fair * 100, 0.0)


@register
class DivideDollar(SimultaneousGame):
    name = "divide_dollar"
    title = "Divide the Dollar"
    params = SimultaneousGame.params | {
        "golds": Param(100, "golds to divide", lo=1),
    }

    def space(self, seat: int) -> IntRange:
        return IntRange(0, self.p["golds"], key="bid_amount", prose=False, json_answer=True)

    def view(self, seat: int) -> dict[str, Any]:
        return {"past_totals": [r["total"] for r in self.records]}

    @classmethod
    def record(cls, params: dict[str, Any], round_: int, actions: list[Any], context: dict[str, Any]) -> dict[str, Any]:
        bids = [int(a) for a in actions]
        total = sum(bids)
        paid = total <= params["golds"]
        return {"round": round_, "bids": bids, "total": total, "paid": paid,
                "payoffs": [float(b if paid else 0) for b in bids]}

    def announce_round(self, record: dict[str, Any]) -> None:
        verdict = "does not exceed" if record["paid"] else "exceeds"
        self.announce(f"Results of round {record['round']}: the bids summed to {record['total']}, which "
                      f"{verdict} {self.p['golds']} golds.")
        for s, bid in enumerate(record["bids"]):
            self.announce(f"You bid {bid} and received {record['payoffs'][s]:g} golds.", to={s})

    @classmethod
    def score(cls, params: dict[str, Any], moves: list[Move], seat: int | None = None) -> float | None:
        rounds = cls.by_round(moves, seat)
        if not rounds:
            return None
        fair = params["golds"] / params["players"]
        gaps = [abs(sum(int(m.action) for m in ms) / len(ms) - fair) for ms in rounds.values()]
        return dollar_score(gaps, fair)


@policy("divide_dollar", "equilibrium")
def _fair_share(obs: Observation, rng, arg) -> int:
    """The symmetric equilibrium: bid G/N (rounded down, so the sum never exceeds G)."""
    return obs.view["golds"] // obs.view["n"]
