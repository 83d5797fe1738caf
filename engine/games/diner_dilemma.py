"""Diner's Dilemma (γ-Bench paper §2.2): each round every diner orders the cheap or the costly
dish at once and the bill is split evenly. Ordering the costly dish is the equilibrium; score
(docs/GAMES.md): the share of costly orders * 100."""

from __future__ import annotations

from typing import Any

from engine.games import register
from engine.games.base import Choice, Observation, Param
from engine.games.extensions import policy
from engine.games.gamabench_common import Move, SimultaneousGame
from engine.games.parsing import ParseError

DISHES = ("costly", "cheap")


@register
class DinerDilemma(SimultaneousGame):
    name = "diner_dilemma"
    title = "Diner's Dilemma"
    params = SimultaneousGame.params | {
        "cheap_price": Param(10, "price of the cheap dish", lo=0),
        "cheap_utility": Param(15, "utility of the cheap dish", lo=0),
        "costly_price": Param(20, "price of the costly dish", lo=0),
        "costly_utility": Param(20, "utility of the costly dish", lo=0),
    }

    def space(self, seat: int) -> Choice:
        return Choice(DISHES, key="chosen_dish", json_answer=True)

    def authors_value(self, value: Any) -> str:
        """`games/diner_dilemma.py` `start` keeps any text lower-cased and `compute_result` counts only "cheap":
        any other dish ("costly_or_cheap", "chea") is played and scored as the costly one."""
        if not isinstance(value, str):
            raise ParseError(f'{str(value)[:40]!r} is not a dish; answer "costly" or "cheap"')
        return "cheap" if value.lower() == "cheap" else "costly"

    def view(self, seat: int) -> dict[str, Any]:
        return {"past_costly_counts": [r["costly_count"] for r in self.records]}

    @classmethod
    def record(cls, params: dict[str, Any], round_: int, actions: list[Any], context: dict[str, Any]) -> dict[str, Any]:
        dishes = [str(a) for a in actions]
        costly = dishes.count("costly")
        bill = costly * params["costly_price"] + (len(dishes) - costly) * params["cheap_price"]
        share = bill / len(dishes)
        utility = {"costly": params["costly_utility"], "cheap": params["cheap_utility"]}
        return {"round": round_, "dishes": dishes, "costly_count": costly, "bill": bill, "share": share,
                "payoffs": [utility[d] - share for d in dishes]}

    def announce_round(self, record: dict[str, Any]) -> None:
        n = len(record["dishes"])
        self.announce(f"Results of round {record['round']}: {record['costly_count']} diners ordered the costly dish "
                      f"and {n - record['costly_count']} the cheap one. The bill was {record['bill']:g}, so everyone "
                      f"pays {record['share']:g}.")
        for s, dish in enumerate(record["dishes"]):
            self.announce(f"You ordered the {dish} dish; your utility this round is {record['payoffs'][s]:g}.", to={s})

    @classmethod
    def score(cls, params: dict[str, Any], moves: list[Move], seat: int | None = None) -> float | None:
        dishes = [m.action for m in moves if seat is None or m.seat == seat]
        if not dishes:
            return None
        return sum(d == "costly" for d in dishes) / len(dishes) * 100


@policy("diner_dilemma", "equilibrium")
def _costly(obs: Observation, rng, arg) -> str:
    """With the bill shared, the costly dish is the better deal for each diner: the equilibrium."""
    return "costly"


@policy("diner_dilemma", "cooperator")
def _cheap(obs: Observation, rng, arg) -> str:
    """Always the cheap dish: the choice that maximizes the group's welfare."""
    return "cheap"
