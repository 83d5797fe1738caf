"""Cost Sharing, MAgIC's airport fee (MAgIC paper §3.1, App. A): three airlines split a fixed airport fee
by their usage. Each round every airline proposes a split (percentages for Player 1, 2, 3) and then
votes for one of that round's proposals; the game succeeds when all votes name the same split, and
fails after `rounds` rounds without one. MAgIC's role win rate counts success (engine/papers/magic/abilities.py); a
match is
judged by the paper's per-role score (`judged_by`, Table 2's Cost): the seat that pays the smallest share of an
agreed split wins, a failure is a draw. Settings: 7 groups of airline
descriptions in engine/data/magic/cost_sharing (group 1 is the authors' released setting), each with
the airlines' opening proposals, announced before round 1. The settings are in the authors' format:
the fee and the airlines are described in the `topic` text and read from it (`airport`).

A vote is read as the authors' code reads it (`vote_reading: authors`, cathyxl/MAgIC
chatarena/environments/airportfee.py `_text2vote`): the first "I vote for Player N" in the answer wins,
even over a JSON answer after it. Where that phrase is missing their code asks gpt-3.5-turbo to name the
player; here the answer is read as any choice is (the JSON field, else the last player named), which is
also the whole reading with `vote_reading: last`.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Any

from engine.games import register
from engine.games.base import (
    SCORE,
    ActionSpace,
    AnswerSettings,
    Choice,
    Observation,
    Param,
    ParseError,
    SeatResult,
    placed_by,
)
from engine.games.extensions import policy
from engine.games.magic_common import SEATS, MagicScenario, group_param, load_group
from engine.games.parsing import json_field, require_text

TOLERANCE = 0.05  # percentages must add up to 100 within this
_I_VOTE_FOR = re.compile(r"I vote for Player (\d+)")
_SHARE = re.compile(r"(?<![\w.\-])(\d{1,3}(?:\.\d{1,2})?)(?![\w.])")


def fmt_split(split: list[float]) -> str:
    return "[" + ", ".join(f"{v:g}%" for v in split) + "]"


@dataclass(frozen=True)
class SplitSpace(ActionSpace):
    """A split of 100% among the seats, in seat order: the JSON list `key`, else the last n numbers."""

    n: int = SEATS
    key: str = "proposal"

    def sample(self, rng: random.Random) -> list[float]:
        cuts = sorted(rng.randint(0, 100) for _ in range(self.n - 1))
        return [float(b - a) for a, b in zip([0, *cuts], [*cuts, 100], strict=True)]

    def describe(self) -> str:
        return (f'{self.n} percentages, one per player in order, that add up to 100, '
                f'as {{"{self.key}": [{", ".join(f"p{i + 1}" for i in range(self.n))}]}}')

    def parse(self, text: str) -> list[float]:
        require_text(text)
        value = json_field(text, self.key)
        if value is None:
            value = _SHARE.findall(text)[-self.n:]
        if not isinstance(value, list) or len(value) != self.n:
            raise ParseError(f"a proposal needs exactly {self.n} percentages ({self.describe()})")
        shares = []
        for v in value:
            try:
                share = float(v) if not isinstance(v, bool) else float("nan")
            except (TypeError, ValueError):
                raise ParseError(f"{str(v)[:20]!r} is not a percentage") from None
            if not 0 <= share <= 100:
                raise ParseError(f"{str(v)[:20]} is not a percentage from 0 to 100")
            shares.append(round(share, 2))
        if abs(sum(shares) - 100) > TOLERANCE:
            raise ParseError(f"the percentages add up to {sum(shares):g}, not 100")
        return shares


_FEE = re.compile(r"Fixed Airport Fee:\s*\$([\d,]+)")
_AIRLINE = re.compile(r"(Airline \w+):\s*\nNumber of Flights:\s*([\d,]+)/month"
                      r"\s*\nNumber of Passengers:\s*([\d,]+)/month"
                      r"\s*\nAverage Flight Duration:\s*([\d.]+) hours?\s*\nFlight Size:\s*([^\n]+)")


def _whole(text: str) -> int:
    return int(text.replace(",", ""))


def airport(setting: dict[str, Any]) -> tuple[int, list[dict[str, Any]]]:
    """The fee and the airlines of a setting, read from its `topic` text as the authors' settings state
    them ("Fixed Airport Fee: $1,000,000", "Airline A: Number of Flights: ...")."""
    topic = setting["topic"]
    fee = _FEE.search(topic)
    airlines = [{"name": m[1], "flights": _whole(m[2]), "passengers": _whole(m[3]), "hours": float(m[4]),
                 "size": m[5].strip()} for m in _AIRLINE.finditer(topic)]
    if fee is None or len(airlines) != SEATS:
        raise ValueError(f"cost sharing setting: cannot read the fee and {SEATS} airlines from its topic")
    return _whole(fee.group(1)), airlines


def usage_split(airlines: list[dict[str, Any]]) -> list[float]:
    """Whole percentages proportional to passengers (largest remainders), the 'fair' split of the bots."""
    total = sum(a["passengers"] for a in airlines)
    exact = [100 * a["passengers"] / total for a in airlines]
    shares = [int(x) for x in exact]
    for i in sorted(range(len(exact)), key=lambda i: shares[i] - exact[i])[: 100 - sum(shares)]:
        shares[i] += 1
    return [float(s) for s in shares]


@register
class CostSharing(MagicScenario):
    name = "cost_sharing"
    answer_settings = AnswerSettings(temperature=0.0, max_tokens=256)  # cathyxl/MAgIC competition_airportfee.json
    title = "Cost Sharing (airport fee)"
    score_meaning = "100 minus the seat's agreed share of the cost if the deal passes, 0 if it fails"
    judged_by = SCORE
    judged_meaning = "MAgIC's Cost: the smallest share of the agreed split wins, no deal is a draw"
    rules_version = 2  # 2: judged by the share paid
    params = {
        "group": group_param("cost_sharing", 1, optional=False),
        "rounds": Param(5, "rounds of proposals and votes before the negotiation fails", lo=1, hi=20),
        "vote_reading": Param("authors", "'authors': the first 'I vote for Player N' wins (MAgIC's airportfee.py), "
                              "else as 'last': the JSON field, else the last player named", kind=str,
                              choices=("authors", "last")),
    }
    def setup(self) -> None:
        self.setting = load_group(self.name, self.p["group"])
        self.fee, self.airline_data = airport(self.setting)
        self.airlines = [a["name"] for a in self.airline_data]
        self.opening = [self.setting["proposal"][self.player_name(s)] for s in range(SEATS)]
        self.stage = "propose"
        self.round = 1
        self.proposals: list[list[list[float]]] = []
        self.votes: list[list[int]] = []
        self.agreed: list[float] | None = None
        seats = ", ".join(f"{self.player_name(s)} represents {a}" for s, a in enumerate(self.airlines))
        openings = "; ".join(f"{self.player_name(s)} {fmt_split(p)}" for s, p in enumerate(self.opening))
        self.announce(f"The negotiation starts. {seats}. Opening positions (shares for Player 1, 2, 3): {openings}.")

    def to_act(self) -> list[int]:
        return [] if self.done() else list(range(SEATS))

    def observe(self, seat: int) -> Observation:
        current = self.proposals[-1] if self.stage == "vote" else []
        view = {
            "topic": self.setting["topic"].strip(), "fee": self.fee, "airlines": self.airline_data,
            "my_airline": self.airlines[seat], "opening": self.opening,
            "past_proposals": self.proposals, "past_votes": self.votes, "proposals": current,
            "proposals_text": self.listed(current),
        }
        if self.stage == "propose":
            return self.make_observation(seat, "propose", view, SplitSpace())
        labels = tuple(self.player_name(s) for s in range(SEATS))
        return self.make_observation(seat, "vote", view, Choice(tuple(range(SEATS)), labels, key="vote"))

    def listed(self, proposals: list[list[float]]) -> str:
        return "; ".join(f"{self.player_name(s)} proposes {fmt_split(p)}" for s, p in enumerate(proposals))

    def parse(self, seat: int, text: str) -> Any:
        vote_match = _I_VOTE_FOR.search(text) if self.stage == "vote" and isinstance(text, str) else None
        if vote_match and self.p["vote_reading"] == "authors" and 1 <= int(vote_match.group(1)) <= SEATS:
            return int(vote_match.group(1)) - 1
        return super().parse(seat, text)

    def step(self, actions: dict[int, Any]) -> None:
        if self.stage == "propose":
            self.proposals.append([[float(v) for v in actions[s]] for s in range(SEATS)])
            listed = self.listed(self.proposals[-1])
            self.announce(f"Round {self.round} proposals (shares for Player 1, 2, 3): {listed}. Now vote.")
            self.stage = "vote"
            return
        votes = [int(actions[s]) for s in range(SEATS)]
        self.votes.append(votes)
        chosen = [self.proposals[-1][v] for v in votes]
        votes_text = ", ".join(f"{self.player_name(s)} votes for {self.player_name(v)}'s proposal"
                         for s, v in enumerate(votes))
        if all(c == chosen[0] for c in chosen):
            self.agreed = chosen[0]
            self.announce(f"Round {self.round} votes: {votes_text}. "
                          f"Everyone agreed on {fmt_split(self.agreed)}: success.")
        elif self.round >= self.p["rounds"]:
            self.announce(f"Round {self.round} votes: {votes_text}. "
                          f"No agreement after {self.round} rounds: the game fails.")
        else:
            self.announce(f"Round {self.round} votes: {votes_text}. No agreement yet.")
            self.round += 1
            self.stage = "propose"

    def done(self) -> bool:
        return self.agreed is not None or len(self.votes) >= self.p["rounds"]

    def public_state(self) -> dict[str, Any]:
        return {"round": self.round, "stage": self.stage,
                "proposals": self.proposals[-1] if self.proposals else [],
                "votes": self.votes[-1] if len(self.votes) == len(self.proposals) and self.votes else [],
                "agreed": self.agreed}

    def proposers(self) -> list[int]:
        """Seats whose last proposal is the agreed split."""
        if self.agreed is None:
            return []
        return [s for s, p in enumerate(self.proposals[-1]) if p == self.agreed]

    def result(self) -> dict[int, SeatResult]:
        """Placed by the share each seat saves (100 - its share of the agreed split, 0 for all without a deal)."""
        success = self.agreed is not None
        return placed_by({s: 100 - self.agreed[s] if success else 0.0 for s in range(SEATS)},
                         roles=dict(enumerate(self.airlines)))

    def metrics(self) -> list[tuple[int | None, str, float]]:
        success = float(self.agreed is not None)
        rows: list[tuple[int | None, str, float]] = [(None, "agreement", success),
                                                     (None, "negotiation_rounds", len(self.votes))]
        proposers = self.proposers()
        for s in range(SEATS):
            rows.append((s, "agreement", success))
            rows.append((s, "proposal_agreed", float(s in proposers)))
            if self.agreed is not None:  # MAgIC Table 2 "Cost": the share this airline pays
                rows.append((s, "cost_share", float(self.agreed[s])))
        return rows

    def outcome(self) -> dict[str, Any]:
        return {"group": self.p["group"], "agreed": self.agreed is not None, "split": self.agreed,
                "rounds": len(self.votes), "proposers": self.proposers()}


def _closest(proposals: list[list[float]], target: list[float]) -> int:
    return min(range(len(proposals)), key=lambda s: (sum(abs(a - b) for a, b in zip(proposals[s], target,
                                                                                      strict=True)), s))


@policy("cost_sharing", "fair")
def _fair(obs: Observation, rng, arg) -> Any:
    """Propose shares in proportion to passengers; vote for the proposal closest to that split."""
    fair = usage_split(obs.view["airlines"])
    return fair if obs.phase == "propose" else _closest(obs.view["proposals"], fair)


policy("cost_sharing", "equilibrium")(_fair)


@policy("cost_sharing", "selfish")
def _selfish(obs: Observation, rng, arg) -> Any:
    """Ask to pay 10% and vote only for its own proposal: agreement only if everyone gives in."""
    if obs.phase == "vote":
        return obs.seat
    others = [s for s in range(SEATS) if s != obs.seat]
    split = [0.0] * SEATS
    split[obs.seat], split[others[0]], split[others[1]] = 10.0, 45.0, 45.0
    return split


@policy("cost_sharing", "follow_first")
def _follow_first(obs: Observation, rng, arg) -> Any:
    """Propose its opening position, then always vote for Player 1's proposal."""
    return obs.view["opening"][obs.seat] if obs.phase == "propose" else 0
