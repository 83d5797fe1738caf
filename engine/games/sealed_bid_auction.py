"""Sealed-Bid Auction (γ-Bench paper §2.2): each round every player learns a private valuation
and bids at once; the highest bid wins and pays its own bid (first price, the default) or the
second-highest bid (second price). Round r draws its valuations with seed `valuation_seed + r - 1`
(round 1: Random(42)), as the authors' `games/sealed_bid_auction.py` does (`random.seed(self.seed)`
then `self.seed += 1` after each round; the seed their files save is the one after the last round),
so they are the same for every model and every repeat, as in the paper. Tied highest bids: the winner is drawn
among them (`compute_result` of the same file: `randint` over the tied players), with the match's seeded draw.
Score (docs/GAMES.md): `current` is the mean
of max(0, (v - b) / max(v, 1)) * 100; `paper` is the older mean(v - b) / max(v) * 100."""

from __future__ import annotations

import random
from typing import Any

from engine.games import register
from engine.games.base import IntRange, Observation, Param
from engine.games.extensions import policy
from engine.games.gamabench_common import Move, SimultaneousGame

MAX_VALUATIONS = 100_000  # the grid a round draws from is listed whole

def draw_valuations(params: dict[str, Any], round_: int) -> list[int]:
    """Distinct values from the grid min, min+step, ..., max while the grid is large enough, else repeats."""
    grid = list(range(params["valuation_min"], params["valuation_max"] + 1, params["valuation_step"]))
    rng = random.Random(params["valuation_seed"] + round_ - 1)
    n = params["players"]
    return rng.sample(grid, n) if len(grid) >= n else [rng.choice(grid) for _ in range(n)]


@register
class SealedBidAuction(SimultaneousGame):
    name = "sealed_bid_auction"
    title = "Sealed-Bid Auction"
    phase = "bid"
    params = SimultaneousGame.params | {
        "valuation_min": Param(0, "lowest valuation", lo=0),
        "valuation_max": Param(200, "highest valuation", lo=0),
        "valuation_step": Param(10, "valuations are multiples of this step above the minimum", lo=1),
        "valuation_seed": Param(42, "round r draws valuations with seed valuation_seed + r - 1"),
        "pricing": Param("first", "first: the winner pays its bid; second: the second-highest bid", kind=str,
                         choices=("first", "second")),
        "formula": Param("current", "score formula: current (per bid, clipped at 0) or paper (older table)",
                         kind=str, choices=("current", "paper")),
    }
    presets = {"default": {}, "first_price": {"pricing": "first"}, "second_price": {"pricing": "second"}}
    braces = True  # games/sealed_bid_auction.py `start` loads the span from the first { to the last }
    rules_version = 4  # 4: a tie among the highest bids is drawn (was: the lowest seat won)

    @classmethod
    def check_params(cls, params: dict[str, Any]) -> None:
        low, high, step = params["valuation_min"], params["valuation_max"], params["valuation_step"]
        if high < low:
            raise ValueError(f"parameter 'valuation_max' must be at least 'valuation_min' ({low}), got {high}")
        if (high - low) // step >= MAX_VALUATIONS:  # every round lists the grid to draw from
            raise ValueError(f"parameters 'valuation_min' to 'valuation_max' by 'valuation_step' make "
                             f"{(high - low) // step + 1:,} valuations; at most {MAX_VALUATIONS:,}")

    def start(self) -> None:
        super().start()
        self.valuations = draw_valuations(self.p, self.round)

    def round_context(self) -> dict[str, Any]:
        return {"valuations": self.valuations, "tie_draw": self.rng.random()}

    def step(self, actions: dict[int, Any]) -> None:
        super().step(actions)
        self.valuations = draw_valuations(self.p, self.round)

    def force(self, facts: dict[str, Any]) -> None:
        """An imported record's valuations for the next round."""
        self.valuations = [int(v) for v in facts["valuations"]]

    def space(self, seat: int) -> IntRange:
        return IntRange(0, self.valuations[seat], key="bid", prose=False, json_answer=True)

    def view(self, seat: int) -> dict[str, Any]:
        return {"valuation": self.valuations[seat], "price_rule": _price_rule(self.p["pricing"]),
                "past_winning_bids": [r["winning_bid"] for r in self.records]}

    @classmethod
    def record(cls, params: dict[str, Any], round_: int, actions: list[Any], context: dict[str, Any]) -> dict[str, Any]:
        bids = [int(a) for a in actions]
        values = [int(v) for v in context["valuations"]]
        ordered = sorted(bids, reverse=True)
        tied = [s for s, b in enumerate(bids) if b == ordered[0]]
        winner = tied[int(context["tie_draw"] * len(tied))]
        price = ordered[0] if params["pricing"] == "first" or len(bids) < 2 else ordered[1]
        payoffs = [float(values[s] - price) if s == winner else 0.0 for s in range(len(bids))]
        return {"round": round_, "bids": bids, "valuations": values, "winner": winner, "winning_bid": ordered[0],
                "price": price, "payoffs": payoffs}

    def announce_round(self, record: dict[str, Any]) -> None:
        self.announce(f"Results of round {record['round']}: the winning bid was {record['winning_bid']} and the "
                      f"price paid was {record['price']}.")
        for s, bid in enumerate(record["bids"]):
            outcome = f"you won, utility {record['payoffs'][s]:g}" if s == record["winner"] else "you lost, utility 0"
            self.announce(f"Your valuation was {record['valuations'][s]} and you bid {bid}: {outcome}.", to={s})

    @classmethod
    def score(cls, params: dict[str, Any], moves: list[Move], seat: int | None = None) -> float | None:
        pairs = [(m.context["valuations"][m.seat], int(m.action)) for m in moves if seat is None or m.seat == seat]
        if not pairs:
            return None
        if params["formula"] == "paper":
            top = max(m.context["valuations"][m.seat] for m in moves)
            return sum(v - b for v, b in pairs) / len(pairs) / max(top, 1) * 100
        return sum(max(0.0, (v - b) / max(v, 1)) for v, b in pairs) / len(pairs) * 100


def _price_rule(pricing: str) -> str:
    return "the highest bid" if pricing == "first" else "the second-highest bid"


@policy("sealed_bid_auction", "equilibrium")
def _equilibrium_bid(obs: Observation, rng, arg) -> int:
    """Second price: bid the valuation. First price: the uniform-valuation equilibrium v * (N - 1) / N."""
    v = obs.view
    if v["pricing"] == "second":
        return v["valuation"]
    return v["valuation"] * (v["n"] - 1) // v["n"]


@policy("sealed_bid_auction", "truthful")
def _truthful(obs: Observation, rng, arg) -> int:
    """Bid exactly the valuation."""
    return obs.view["valuation"]
