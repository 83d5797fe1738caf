"""Bid (LLMArena paper §2, App. A.6): a first-price sealed-bid auction of one item between two
bidders. Each draws a private valuation v ~ U(0, 10) (cents), bids once without seeing the other's bid,
never above its valuation; the higher bid wins (a tie is settled by the seed) and earns v - bid, the
loser 0. With two bidders and uniform values the equilibrium bids v/2; the paper's deviation from it is
(bid - v/2)/(v/2), stored per seat as `bid_deviation`. A match is judged by payoff (`judged_by`), not by who won
the item: a truthful bidder wins the item often and earns nothing.

As LLMArena's code plays it (examples/selfplay/opponent_templates/bid_v1/opponent.py, openrl/envs/bid_env/bid.py):
one ask, no re-ask; an answer without a bid is a bid of 0; a bid above the valuation is outside the env's action
mask and its TerminateIllegalWrapper ends the auction as a loss for the bidder: no sale, the other seat wins
(`retry: authors`; `retry: feedback` asks again up to 3 times, telling the model its error, then bids at random).
"""

from __future__ import annotations

import math
import random
import re
from dataclasses import dataclass
from typing import Any

from engine.games import register
from engine.games.base import (
    FEEDBACK,
    FIXED,
    FORFEIT,
    LLMARENA_SETTINGS,
    PAYOFF,
    ActionSpace,
    Game,
    Observation,
    Param,
    ParseError,
    RetryPolicy,
    SeatResult,
    placed_by,
    retry_param,
)
from engine.games.extensions import policy
from engine.games.parsing import IllegalAction, json_field, require_text

N_SEATS = 2
_MONEY = re.compile(r"(?<![\w.\-])\$?\s{0,2}(\d{1,6}(?:\.\d{1,4})?)(?![\w.])")


@dataclass(frozen=True)
class MoneySpace(ActionSpace):
    """An amount in dollars from 0 to `hi`, to the cent: the JSON field `key`, else the last amount."""

    hi: float
    key: str = "bid"

    def sample(self, rng: random.Random) -> float:
        return round(rng.uniform(0, self.hi), 2)

    def describe(self) -> str:
        return f'an amount from $0 to ${self.hi:.2f}, as {{"{self.key}": <amount>}}'

    def parse(self, text: str) -> float:
        require_text(text)
        value = json_field(text, self.key)
        if value is None:
            amounts = _MONEY.findall(text)
            if not amounts:
                raise ParseError(f"no amount found; answer with {self.describe()}")
            value = amounts[-1]
        if isinstance(value, bool):
            raise ParseError(f"{value!r} is not an amount")
        try:
            amount = float(str(value).strip().lstrip("$"))
        except ValueError:
            raise ParseError(f"{str(value)[:20]!r} is not an amount") from None
        if math.isfinite(amount) and amount > self.hi:
            raise IllegalAction(f"a bid of ${amount:.2f} is above your valuation of ${self.hi:.2f}", round(amount, 2))
        if not 0 <= amount <= self.hi:  # also rejects NaN
            raise ParseError(f"{str(value)[:20]} is outside $0 to ${self.hi:.2f}")
        return round(amount, 2)


def deviation(bid: float, valuation: float) -> float | None:
    """(bid - v/2)/(v/2): 0 at the equilibrium, 1 when bidding the whole valuation; None when v is 0."""
    return (bid - valuation / 2) / (valuation / 2) if valuation > 0 else None


@register
class Bid(Game):
    name = "bid"
    title = "Bid (first-price sealed-bid auction)"
    paper = "LLMArena"
    answer_settings = LLMARENA_SETTINGS
    score_meaning = "reward: the winner's valuation minus its bid, 0 for the other seat"
    retry_policies = {"authors": RetryPolicy("authors", tries=1, feedback=False, exhausted=FIXED,
                                             illegal=FORFEIT, fixed="a bid of $0"),
                      "feedback": FEEDBACK}
    params = {"max_value": Param(10.0, "valuations are drawn uniformly from 0 to this", kind=float, lo=0.01, hi=1e6),
              "retry": retry_param(retry_policies)}
    # 2: LLMArena's: no re-ask, an unparsed bid is 0, a bid above the valuation loses; 3: judged by payoff (the
    # auction's winner was the match's: a truthful bidder won most auctions and earned nothing)
    rules_version = 3
    judged_by = PAYOFF
    judged_meaning = ("payoff: the higher reward wins (a truthful winner's 0 ties the loser's 0), a bid above the "
                      "valuation loses")

    @classmethod
    def n_seats(cls, params: dict[str, Any]) -> int:
        return N_SEATS

    def setup(self) -> None:
        self.valuations = [round(self.rng.uniform(0, self.p["max_value"]), 2) for _ in range(N_SEATS)]
        self.tiebreak = self.rng.randrange(N_SEATS)
        self.bids: list[float] | None = None
        self.forfeited: set[int] = set()  # seats that bid above their valuation (a FORFEIT policy)
        self.round = 1
        for s, v in enumerate(self.valuations):
            self.announce(f"Your valuation of the item is ${v:.2f}.", to={s})

    def to_act(self) -> list[int]:
        return [] if self.done() else list(range(N_SEATS))

    def observe(self, seat: int) -> Observation:
        v = self.valuations[seat]
        view = {"valuation": v, "valuation_text": f"{v:.2f}"}
        return self.make_observation(seat, "bid", view, MoneySpace(v))

    def step(self, actions: dict[int, Any]) -> None:
        self.bids = [float(actions[s]) for s in range(N_SEATS)]
        listed = ", ".join(f"{self.player_name(s)} bid ${b:.2f}" for s, b in enumerate(self.bids))
        winner = self.winner()
        self.announce(f"The bids: {listed}. {self.player_name(winner)} wins and earns "
                      f"${self.rewards()[winner]:.2f}.")

    def fixed_action(self, seat: int) -> float:
        return 0.0  # LLMArena's code bids 0 when it finds no bid in the answer

    def forfeit(self, seat: int, reason: str, action: Any = None) -> None:
        self.forfeited.add(seat)
        self.announce(f"{self.player_name(seat)} loses the auction: {reason}. The item is not sold.")

    def winner(self) -> int | None:
        """The seat that won the item, or (after a forfeit) the seat that did not forfeit; None if both did."""
        if self.forfeited:
            others = [s for s in range(N_SEATS) if s not in self.forfeited]
            return others[0] if others else None
        a, b = self.bids
        return 0 if a > b else 1 if b > a else self.tiebreak

    def rewards(self) -> list[float]:
        if self.bids is None:
            return [0.0] * N_SEATS
        w = self.winner()
        return [round(self.valuations[s] - self.bids[s], 2) if s == w else 0.0 for s in range(N_SEATS)]

    def done(self) -> bool:
        return self.bids is not None or bool(self.forfeited)

    def public_state(self) -> dict[str, Any]:
        return {"round": 1 if self.done() else 0, "bids": self.bids, "winner": self.winner() if self.done() else None,
                "forfeited": sorted(self.forfeited)}

    def result(self) -> dict[int, SeatResult]:
        """Placed by payoff (`judged_by`); a seat that bid above its valuation ranks below the other, as LLMArena's
        TerminateIllegalWrapper gives it -1 and the other 0."""
        rewards = self.rewards()
        payoffs = {s: rewards[s] - (1.0 if s in self.forfeited else 0.0) for s in range(N_SEATS)}
        return placed_by(payoffs, dict(enumerate(rewards)))

    def metrics(self) -> list[tuple[int | None, str, float]]:
        rows: list[tuple[int | None, str, float]] = []
        for s, reward in enumerate(self.rewards()):
            rows += [(s, "valuation", self.valuations[s]), (s, "reward", reward)]
            if self.bids is None:
                continue  # a forfeited auction: no bid was made
            rows.append((s, "bid", self.bids[s]))
            dev = deviation(self.bids[s], self.valuations[s])
            if dev is not None:
                rows.append((s, "bid_deviation", dev))
        return rows

    def outcome(self) -> dict[str, Any]:
        return {"valuations": self.valuations, "bids": self.bids, "winner": self.winner(), "rewards": self.rewards(),
                "illegal_bid_by": sorted(self.forfeited)}


@policy("bid", "equilibrium")
def _half(obs: Observation, rng, arg) -> float:
    """Two bidders with U(0, 10) valuations: the symmetric equilibrium bids half the valuation."""
    return round(obs.view["valuation"] / 2, 2)


@policy("bid", "truthful")
def _truthful(obs: Observation, rng, arg) -> float:
    """Bid the whole valuation: wins often, earns nothing."""
    return obs.view["valuation"]
