"""Bargain (LLMArena paper §2, App. A.5; Deal or No Deal, Lewis et al. 2017): two players split a
pool of hats, balls and apples; each values the items privately. They speak in turn, Player A first,
for at most `rounds` rounds of two messages (A's, then B's; 10 as LLMArena's env): a message is a plan
(the items the speaker takes, the rest going to the other) with an optional remark, or "Deal",
accepting the other's last plan. A deal pays each player the value of its items; no deal within the
rounds pays 0 to both. After a deal, the higher value wins. Quirk kept from the authors' env
(bargain.py `step`): the last round closes when B's message arrives, before it is read, so B's final
message can neither deal nor propose.
Instances (`counts values_A values_B`) are the authors', engine/data/llmarena/bargain_instances.txt: 1000
lines (`wc -l` counts 999: the last has no newline).
As LLMArena's code plays it (examples/selfplay/opponent_templates/bargain_v1/opponent.py): one ask, no re-ask;
an answer that does not parse is a random action (`retry: authors`; `retry: feedback` asks up to 3 times,
telling the model its error).
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from engine.games import register
from engine.games.base import (
    FEEDBACK,
    LLMARENA_ONE_TRY,
    LLMARENA_SETTINGS,
    ActionSpace,
    Game,
    Observation,
    Param,
    ParseError,
    SeatResult,
    rank_by,
    retry_param,
)
from engine.games.extensions import policy
from engine.games.parsing import json_field, require_text

ITEMS = ("hats", "balls", "apples")
INSTANCES = Path(__file__).resolve().parent.parent / "data" / "llmarena" / "bargain_instances.txt"
MAX_REMARK = 300
_PLAN_WORDS = re.compile(r"(\d{1,3})\s{0,3}hats?\b\W{0,8}(\d{1,3})\s{0,3}balls?\b\W{0,8}(?:and\s{1,3})?"
                         r"(\d{1,3})\s{0,3}apples?\b")
_PLAN_LIST = re.compile(r"\[\s{0,3}(\d{1,3})\s{0,3},\s{0,3}(\d{1,3})\s{0,3},\s{0,3}(\d{1,3})\s{0,3}\]")
_DEAL = re.compile(r"(?<![\w])deal(?![\w])")
_NO_DEAL = re.compile(r"(?<![\w])no\s{1,3}$")


@lru_cache(maxsize=1)
def instances() -> list[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]]:
    """(counts, values of A, values of B) per line."""
    rows = []
    for line in INSTANCES.read_text(encoding="utf-8").splitlines():
        if line.strip():
            counts, a, b = (tuple(int(x) for x in part.split(",")) for part in line.split())
            rows.append((counts, a, b))
    return rows


def value_of(take: list[int], values: tuple[int, ...]) -> int:
    return sum(n * v for n, v in zip(take, values, strict=True))


def describe_take(take: list[int]) -> str:
    return ", ".join(f"{n} {item if n != 1 else item[:-1]}" for n, item in zip(take, ITEMS, strict=True))


@dataclass(frozen=True)
class BargainSpace(ActionSpace):
    """A plan {"plan": [hats, balls, apples] the speaker takes, "message": remark} or {"deal": True}."""

    counts: tuple[int, ...]
    can_deal: bool

    def sample(self, rng: random.Random) -> dict[str, Any]:
        if self.can_deal and rng.random() < 0.3:
            return {"deal": True}
        return {"plan": [rng.randint(0, c) for c in self.counts], "message": ""}

    def describe(self) -> str:
        plan = '{"message": "<a short remark>", "plan": [hats, balls, apples you take]}'
        return f'{plan} or {{"action": "deal"}}' if self.can_deal else plan

    def parse(self, text: str) -> dict[str, Any]:
        """The JSON fields when present ("action": "deal", else "plan"); otherwise whichever comes last
        in the text: a plan written out ("1 hat 2 balls 0 apples", or [1, 2, 0]) or the word Deal."""
        require_text(text)
        action = json_field(text, "action")
        if action is not None and str(action).strip().lower() == "deal":
            return self._deal()
        value = json_field(text, "plan")
        if value is not None:
            remark = json_field(text, "message")
            return self._plan(value, "" if remark is None else str(remark))
        low = text.lower()
        found = None
        for pattern in (_PLAN_WORDS, _PLAN_LIST):
            for m in pattern.finditer(low):
                if found is None or m.end() > found.end():
                    found = m
        deals = [m.end() for m in _DEAL.finditer(low) if not _NO_DEAL.search(low[max(0, m.start() - 6):m.start()])]
        if deals and (found is None or deals[-1] > found.end()):
            return self._deal()
        if found is None:
            raise ParseError(f"no plan found; answer as {self.describe()}")
        return self._plan([int(g) for g in found.groups()], text[:found.start()])

    def _deal(self) -> dict[str, Any]:
        if not self.can_deal:
            raise ParseError("there is no plan to accept yet: make a plan first")
        return {"deal": True}

    def _plan(self, value: Any, remark: str) -> dict[str, Any]:
        if not isinstance(value, list) or len(value) != len(ITEMS) or not all(
                isinstance(v, int) and not isinstance(v, bool) for v in value):
            raise ParseError('"plan" must be a list of three whole numbers: hats, balls, apples')
        for n, c, item in zip(value, self.counts, ITEMS, strict=True):
            if not 0 <= n <= c:
                raise ParseError(f"you can take 0 to {c} {item}, not {n}")
        return {"plan": list(value), "message": remark.strip()[-MAX_REMARK:]}


@register
class Bargain(Game):
    name = "bargain"
    title = "Bargain"
    paper = "LLMArena"
    answer_settings = LLMARENA_SETTINGS
    score_meaning = "reward: what the items the seat takes are worth to it if a deal is struck, 0 without a deal"
    retry_policies = {"authors": LLMARENA_ONE_TRY, "feedback": FEEDBACK}
    params = {
        "instance": Param(-1, "line of the instances file (0-999); -1 = drawn by the seed", lo=-1),
        "rounds": Param(10, "rounds of two messages (A, then B) before the negotiation fails", lo=1, hi=50),
        "retry": retry_param(retry_policies),
    }
    rules_version = 2  # LLMArena's: one ask, then a random action

    @classmethod
    def n_seats(cls, params: dict[str, Any]) -> int:
        return 2

    def player_name(self, seat: int) -> str:
        return f"Player {'AB'[seat]}"

    @classmethod
    def check_params(cls, params: dict[str, Any]) -> None:
        if params["instance"] >= len(instances()):
            raise ValueError(f"parameter 'instance' must be below {len(instances())} (the instances file's lines), "
                             f"got {params['instance']}")

    def setup(self) -> None:
        rows = instances()
        index = self.p["instance"] if self.p["instance"] >= 0 else self.rng.randrange(len(rows))
        self.index = index
        self.counts, *values = rows[index]
        self.values = list(values)
        self.offers: list[tuple[int, list[int]]] = []  # (speaker, items the speaker takes)
        self.messages = 0
        self.deal_by: int | None = None
        self.round = 1
        pool = describe_take(list(self.counts))
        self.announce(f"The negotiation starts. The pool holds {pool}. Player A makes the first plan.")
        for s in range(2):
            worth = ", ".join(f"{item[:-1]} {v}" for item, v in zip(ITEMS, self.values[s], strict=True))
            self.announce(f"Your private values per item: {worth}.", to={s})

    def speaker(self) -> int:
        return self.messages % 2

    def to_act(self) -> list[int]:
        return [] if self.done() else [self.speaker()]

    def last_offer(self) -> tuple[int, list[int]] | None:
        return self.offers[-1] if self.offers else None

    def observe(self, seat: int) -> Observation:
        offer = self.last_offer()
        they_take = offer[1] if offer else None
        i_get = [c - t for c, t in zip(self.counts, they_take, strict=True)] if they_take else None
        view = {"counts": list(self.counts), "values": list(self.values[seat]),
                "counts_text": describe_take(list(self.counts)),
                "values_text": ", ".join(f"{v} per {item[:-1]}" for item, v in zip(ITEMS, self.values[seat],
                                                                                    strict=True)),
                "offer": they_take, "offer_to_me": i_get,
                "offer_text": (f"the other player takes {describe_take(they_take)} and you get {describe_take(i_get)}, "
                               f"worth {value_of(i_get, self.values[seat])} to you") if offer else "no plan yet",
                "messages_left": self.max_messages() - self.messages}
        return self.make_observation(seat, "bargain", view, BargainSpace(tuple(self.counts), offer is not None))

    def max_messages(self) -> int:
        return 2 * self.p["rounds"]

    def step(self, actions: dict[int, Any]) -> None:
        seat = self.speaker()
        action = actions[seat]
        self.messages += 1
        if self.messages >= self.max_messages():
            self.announce(f"Round {self.p['rounds']} is over before {self.player_name(seat)}'s message is read: "
                          "no deal, both players get 0.")
        elif action.get("deal") and self.offers:
            self.deal_by = seat
            self.announce(f"{self.player_name(seat)}: Deal.")
        else:
            take = [int(n) for n in action["plan"]]
            self.offers.append((seat, take))
            rest = [c - t for c, t in zip(self.counts, take, strict=True)]
            remark = f'"{action["message"]}" ' if action.get("message") else ""
            self.announce(f"{self.player_name(seat)}: {remark}Plan: {self.player_name(seat)} takes "
                          f"{describe_take(take)}; {self.player_name(1 - seat)} gets {describe_take(rest)}.")
        self.round = self.messages // 2 + 1

    def done(self) -> bool:
        return self.deal_by is not None or self.messages >= self.max_messages()

    def allocation(self) -> list[list[int]] | None:
        """Items per seat after a deal, else None."""
        if self.deal_by is None:
            return None
        proposer, take = self.offers[-1]
        rest = [c - t for c, t in zip(self.counts, take, strict=True)]
        return [take, rest] if proposer == 0 else [rest, take]

    def rewards(self) -> list[int]:
        items = self.allocation()
        return [value_of(items[s], self.values[s]) for s in range(2)] if items else [0, 0]

    def public_state(self) -> dict[str, Any]:
        offer = self.last_offer()
        return {"round": self.messages, "offer": {"by": offer[0], "takes": offer[1]} if offer else None,
                "deal": self.deal_by is not None}

    def result(self) -> dict[int, SeatResult]:
        rewards = self.rewards()
        ranks = rank_by(dict(enumerate(rewards)))
        agreed = self.deal_by is not None
        return {s: SeatResult(float(rewards[s]), agreed and ranks[s] == 1, ranks[s]) for s in range(2)}

    def metrics(self) -> list[tuple[int | None, str, float]]:
        agreed = float(self.deal_by is not None)
        rows: list[tuple[int | None, str, float]] = [(None, "agreement", agreed), (None, "messages", self.messages)]
        for s, reward in enumerate(self.rewards()):
            rows += [(s, "reward", reward), (s, "agreement", agreed),
                     (s, "max_reward", value_of(list(self.counts), self.values[s]))]
        return rows

    def outcome(self) -> dict[str, Any]:
        return {"instance": self.index, "counts": list(self.counts), "values": self.values,
                "deal": self.deal_by is not None, "allocation": self.allocation(), "rewards": self.rewards(),
                "messages": self.messages}


def _fair_take(obs: Observation) -> list[int]:
    """Half of each item; of an odd count it keeps the extra one if it values the item."""
    return [(c + (v > 0)) // 2 for c, v in zip(obs.view["counts"], obs.view["values"], strict=True)]


@policy("bargain", "fair")
def _fair(obs: Observation, rng, arg) -> dict[str, Any]:
    """Accept a plan worth at least half of its total value to it; otherwise ask for half of each item."""
    total = value_of(obs.view["counts"], tuple(obs.view["values"]))
    offered = obs.view["offer_to_me"]
    if offered is not None and 2 * value_of(offered, tuple(obs.view["values"])) >= total:
        return {"deal": True}
    return {"plan": _fair_take(obs), "message": "Let us split everything evenly."}


policy("bargain", "equilibrium")(_fair)


@policy("bargain", "always_accept")
def _always_accept(obs: Observation, rng, arg) -> dict[str, Any]:
    """Accept any plan; with none on the table, ask for half of each item."""
    if obs.view["offer"] is not None:
        return {"deal": True}
    return {"plan": _fair_take(obs), "message": ""}


@policy("bargain", "greedy")
def _greedy(obs: Observation, rng, arg) -> dict[str, Any]:
    """Ask for every item it values and never accept."""
    return {"plan": [c if v > 0 else 0 for c, v in zip(obs.view["counts"], obs.view["values"], strict=True)],
            "message": "I need these items."}
