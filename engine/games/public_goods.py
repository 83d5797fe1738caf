"""Public Goods (γ-Bench paper §2.2): each round every player gets T tokens and secretly puts
some in a pot; the pot times R is shared equally and kept tokens stay private. Contributing
nothing is the equilibrium; score (docs/GAMES.md): (T - mean contribution) / T * 100.
(MAgIC's public good game is another game, `magic_public_good`.)"""

from __future__ import annotations

from statistics import mean
from typing import Any

from engine.games import register
from engine.games.base import IntRange, Observation, Param
from engine.games.extensions import policy
from engine.games.gamabench_common import Move, SimultaneousGame


@register
class PublicGoods(SimultaneousGame):
    name = "public_goods"
    title = "Public Goods Game"
    params = SimultaneousGame.params | {
        "tokens": Param(20, "tokens each player receives every round", lo=1),
        "ratio": Param(2.0, "the pot is multiplied by this factor, then shared equally", kind=float, lo=0.0),
    }

    braces = True  # games/public_goods.py `start` loads the span from the first { to the last }

    def space(self, seat: int) -> IntRange:
        return IntRange(0, self.p["tokens"], key="tokens_contributed", prose=False, json_answer=True)

    def view(self, seat: int) -> dict[str, Any]:
        return {"ratio_text": f"{self.p['ratio']:g}",
                "past_mean_contributions": [mean(r["contributions"]) for r in self.records]}

    @classmethod
    def record(cls, params: dict[str, Any], round_: int, actions: list[Any], context: dict[str, Any]) -> dict[str, Any]:
        given = [int(a) for a in actions]
        pot = sum(given)
        share = pot * params["ratio"] / len(given)
        return {"round": round_, "contributions": given, "pot": pot, "share": share,
                "payoffs": [params["tokens"] - c + share for c in given]}

    def announce_round(self, record: dict[str, Any]) -> None:
        listed = ", ".join(str(c) for c in record["contributions"])
        self.announce(f"Results of round {record['round']}: contributions {listed}; the pot held {record['pot']} "
                      f"tokens and each player received {record['share']:g} from it.")
        for s, gain in enumerate(record["payoffs"]):
            self.announce(f"You contributed {record['contributions'][s]} and ended the round with {gain:g} tokens.",
                          to={s})

    @classmethod
    def score(cls, params: dict[str, Any], moves: list[Move], seat: int | None = None) -> float | None:
        given = [int(m.action) for m in moves if seat is None or m.seat == seat]
        if not given:
            return None
        return (params["tokens"] - mean(given)) / params["tokens"] * 100


@policy("public_goods", "equilibrium")
def _free_rider(obs: Observation, rng, arg) -> int:
    """Each token given returns R/N < 1 to the giver: the equilibrium gives nothing."""
    return 0


policy("public_goods", "free_rider")(_free_rider)


@policy("public_goods", "conditional")
def _conditional(obs: Observation, rng, arg) -> int:
    """A conditional cooperator: all tokens at first, then the group's last mean contribution."""
    past = obs.view["past_mean_contributions"]
    return obs.view["tokens"] if not past else round(past[-1])
