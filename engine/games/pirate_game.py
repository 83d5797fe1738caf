"""Pirate Game (γ-Bench paper §2.3): the most senior pirate proposes how to split G golds; all
pirates still aboard vote (the proposer accepts its own plan); with at least half accepting the
plan is paid, else the proposer is thrown overboard and the next one proposes. Score (docs/GAMES.md):
half for proposals close (L1) to the equilibrium plan, half for voters' accuracy; the L1 distance, on the
100-gold scale, is divided by 200 whatever the gold, the authors' constant (`games/pirate_game.py`).

An answer is read as `games/pirate_game.py` `start` reads it (`reading: authors`, the default): back-slashes
dropped, the span from the last `{` before the last `"decision"` (a vote) or `"plan"` (a proposal; the authors'
prompt names it "proposal", an object of golds per pirate) to the last `}` loaded as JSON; a vote containing
"accept" (or "Accept") accepts, else one containing "reject" rejects, else it is asked again; a plan is the list
(or the object's values), each `int()`, asked again unless one per pirate aboard summing to the golds. Numbers in
prose are never a plan. `reading: lenient` is the arena's (the field anywhere, else the last numbers)."""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from typing import Any

from engine.games import register
from engine.games.base import ActionSpace, Choice, Observation, Param, ParseError
from engine.games.extensions import policy
from engine.games.gamabench_common import (
    GamaGame,
    Move,
    gamabench_reading_param,
    gamabench_retry_param,
    players_param,
)
from engine.games.parsing import json_field, python_int, require_text

VOTES = ("accept", "reject")
_WHOLE = re.compile(r"(?<![\w.])\d{1,9}(?![\w.])")
_FLAT_OBJECT = re.compile(r"\{[^{}]*\}")


def equilibrium_plan(size: int, golds: int) -> list[int]:
    """One gold to each pirate at an even offset (2, 4, ...) from the proposer while golds last, the rest kept."""
    plan = [0] * size
    for offset in range(2, size, 2):
        if sum(plan) < golds:
            plan[offset] = 1
    plan[0] = golds - sum(plan)
    return plan


def vote_is_right(vote: str, gold: int, offset: int) -> bool:
    """Accept with >= 2 golds, reject with 0; with 1 gold accept at an even offset (odd: wrong either way)."""
    if gold >= 2:
        return vote == "accept"
    if gold == 0:
        return vote == "reject"
    return vote == "accept" and offset % 2 == 0


def proposal_distance(plan: list[int]) -> float:
    """L1 distance of the plan, scaled to 100 golds, from the 100-gold equilibrium plan."""
    total = sum(plan)
    scaled = [g * 100 / total for g in plan] if total else [0.0] * len(plan)
    return sum(abs(a - b) for a, b in zip(scaled, equilibrium_plan(len(plan), 100), strict=True))


@dataclass(frozen=True)
class Plan(ActionSpace):
    """`size` non-negative integers summing to `total`: golds from the proposer to the most junior pirate."""

    size: int
    total: int
    key: str = "plan"
    json_answer: bool = True  # a bot's answer is written as {"plan": [...]}, the form the reading takes

    def sample(self, rng: random.Random) -> list[int]:
        cuts = sorted(rng.randint(0, self.total) for _ in range(self.size - 1))
        bounds = [0, *cuts, self.total]
        return [b - a for a, b in zip(bounds, bounds[1:], strict=False)]

    def describe(self) -> str:
        return f"{self.size} non-negative whole numbers summing to {self.total}"

    def written(self, action: Any) -> str:
        return json.dumps({self.key: action}) if self.json_answer else super().written(action)

    def parse(self, text: str) -> list[int]:
        require_text(text)
        values = self._candidate(text)
        if len(values) != self.size:
            raise ParseError(f"the plan needs {self.size} numbers, one per pirate aboard, found {len(values)}")
        golds = [_whole(v) for v in values]
        if sum(golds) != self.total:
            raise ParseError(f"the plan gives out {sum(golds)} golds; it must give out exactly {self.total}")
        return golds

    def _candidate(self, text: str) -> list[Any]:
        """The `plan` field (a list or an object), else the last JSON object of numbers, else the last numbers."""
        field = json_field(text, self.key)
        if isinstance(field, list):
            return field
        if isinstance(field, dict):
            return list(field.values())
        for match in reversed(list(_FLAT_OBJECT.finditer(text))):
            values = _json_values(match.group(0))
            if values and len(values) == self.size:
                return values
        return _WHOLE.findall(text)[-self.size:]


def _authors_field(text: str, key: str) -> Any:
    """`key` of the span `games/pirate_game.py` `start` loads: from the last `{` before the last `"key"` to the
    last `}`, back-slashes dropped."""
    text = text.replace("\\", "")
    start = text.rfind("{", 0, text.rfind(f'"{key}"'))
    try:
        obj = json.loads(text[start:start + text[start:].rfind("}") + 1])
    except (ValueError, RecursionError):
        obj = None
    if not isinstance(obj, dict) or key not in obj:
        raise ParseError(f'no JSON object with "{key}"; answer with {{"{key}": ...}}')
    return obj[key]


def _authors_plan(value: Any, space: Plan) -> list[int]:
    """The golds in order (a list, or an object's values), each `int()`: one per pirate aboard, summing to the
    golds, else asked again."""
    golds = [python_int(g) for g in (list(value.values()) if isinstance(value, dict) else
                                     value if isinstance(value, list) else [])]
    if len(golds) != space.size or sum(golds) != space.total:
        raise ParseError(f"the plan must give {space.size} pirates {space.total} golds in all")
    return golds


def _json_values(fragment: str) -> list[Any] | None:
    try:
        obj = json.loads(fragment)
    except ValueError:
        return None
    return list(obj.values()) if isinstance(obj, dict) else None


def _whole(value: Any) -> int:
    if isinstance(value, bool):
        raise ParseError(f"{value!r} is not a number of golds")
    text = str(value).strip()
    if not (isinstance(value, int) or text.isdigit() and text.isascii()) or len(text) > 9:
        raise ParseError(f"{text[:20]!r} is not a non-negative whole number of golds")
    return int(text)


@register
class PirateGame(GamaGame):
    name = "pirate_game"
    title = "Pirate Game"
    params = {
        "players": players_param(), "retry": gamabench_retry_param(),
        "golds": Param(100, "golds to divide", lo=1), "reading": gamabench_reading_param(),
    }
    rules_version = 3  # 3: answers read as the authors' code reads them (`reading: authors`)

    def parse(self, seat: int, text: str) -> Any:
        space = self.observe(seat).space
        if self.p["reading"] == "lenient":
            return space.parse(text)
        value = _authors_field(require_text(text), space.key)
        if isinstance(space, Plan):
            return _authors_plan(value, space)
        try:  # `in` on what the JSON holds, as their code tests it
            votes_named = {vote for vote in VOTES if vote in value or vote.capitalize() in value}
        except TypeError:
            votes_named = set()
        if not votes_named:
            raise ParseError(f'{str(value)[:40]!r} says neither accept nor reject')
        return "accept" if "accept" in votes_named else "reject"

    def start(self) -> None:
        self.proposer = 0
        self.plan: list[int] | None = None
        self.dead: set[int] = set()
        self.finished = False
        self.round = 1

    def to_act(self) -> list[int]:
        if self.finished:
            return []
        return [self.proposer] if self.plan is None else list(range(self.proposer + 1, self.n))

    def observe(self, seat: int) -> Observation:
        view = {"n": self.n, "rank": seat + 1, "proposer_rank": self.proposer + 1, "aboard": self.n - self.proposer,
                "proposer": self.player_name(self.proposer)}
        if self.plan is None:
            return self.make_observation(seat, "propose", view, Plan(self.n - self.proposer, self.p["golds"]))
        view |= {"plan": list(self.plan), "plan_text": self.plan_text(self.plan),
                 "my_gold": self.plan[seat - self.proposer], "offset": seat - self.proposer}
        return self.make_observation(seat, "vote", view, Choice(VOTES, key="decision", json_answer=True))

    def plan_text(self, plan: list[int]) -> str:
        return ", ".join(f"{self.player_name(self.proposer + i)}: {g}" for i, g in enumerate(plan))

    def step(self, actions: dict[int, Any]) -> None:
        if self.plan is None:
            self.plan = list(actions[self.proposer])
            record = {"round": self.round, "proposer": self.proposer, "plan": self.plan}
            self.close_step(record, actions, "propose")
            self.announce(f"{self.player_name(self.proposer)} proposes: {self.plan_text(self.plan)}.")
            if self.proposer == self.n - 1:
                self.settle({})
            return
        self.settle(actions)

    def settle(self, votes: dict[int, Any]) -> None:
        record = self.vote_record(self.round, self.proposer, self.plan, [votes[s] for s in sorted(votes)], self.n)
        self.close_step(record, votes, "vote")
        verdict = "passes: the golds are paid as proposed" if record["passed"] else (
            f"fails: {self.player_name(self.proposer)} is thrown overboard")
        self.announce(f"{record['accepts']} of {record['aboard']} pirates accepted. The plan {verdict}.")
        if record["passed"]:
            self.finished = True
            return
        self.dead.add(self.proposer)
        self.proposer += 1
        self.plan = None
        self.round += 1

    @staticmethod
    def vote_record(round_: int, proposer: int, plan: list[int], votes: list[str], n: int) -> dict[str, Any]:
        """The outcome of a vote; the proposer's own vote is an accept; `votes` are the others' in seat order."""
        accepts = 1 + sum(v == "accept" for v in votes)
        aboard = len(votes) + 1
        passed = 2 * accepts >= aboard
        payoffs = [0.0] * proposer + [float(g) for g in plan] if passed else [0.0] * n
        return {"round": round_, "proposer": proposer, "plan": list(plan), "votes": ["accept", *votes],
                "accepts": accepts, "aboard": aboard, "passed": passed, "payoffs": payoffs}

    def done(self) -> bool:
        return self.finished

    def standing(self) -> dict[int, float]:
        return {s: -1.0 if s in self.dead else self.payoff[s] for s in range(self.n)}

    @classmethod
    def score(cls, params: dict[str, Any], moves: list[Move], seat: int | None = None) -> float | None:
        mine = [m for m in moves if seat is None or m.seat == seat]
        distances = [proposal_distance(list(m.action)) for m in mine if m.phase == "propose"]
        checks = [vote_is_right(m.action, m.context["plan"][m.seat - m.context["proposer"]],
                                m.seat - m.context["proposer"]) for m in mine if m.phase == "vote"]
        proposing = (200 - sum(distances) / len(distances)) / 200 * 100 if distances else None
        voting = sum(checks) / len(checks) * 100 if checks else None
        parts = [p for p in (proposing, voting) if p is not None]
        return sum(parts) / len(parts) if parts else None


@policy("pirate_game", "equilibrium")
def _equilibrium(obs: Observation, rng, arg) -> Any:
    """Stewart's solution: propose the equilibrium plan; vote as `vote_is_right` says is right."""
    v = obs.view
    if obs.phase == "propose":
        return equilibrium_plan(v["aboard"], v["golds"])
    return "accept" if vote_is_right("accept", v["my_gold"], v["offset"]) else "reject"
