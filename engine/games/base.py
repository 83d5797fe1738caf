"""The shape every game has: a seeded state machine with seats.

A match calls `reset`, then loops `to_act` -> `observe` -> (agents answer, the game's
`parse` turns text into actions) -> `step` until `done`, then reads `result`,
`metrics` and `outcome`. Sequential games return one seat from `to_act`,
simultaneous games several. Everything a seat may see comes from `observe`;
what everyone may see after a step comes from `public_state`.

Messages carry their own visibility (ChatArena's model): the moderator announces
to everyone or to a set of seats, and each seat's history holds only what it saw.
"""

from __future__ import annotations

import json
import random
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from engine.games.parsing import IllegalAction, ParseError, parse_choice, parse_int


# ---------------------------------------------------------------- action spaces
class ActionSpace(ABC):
    """What a legal answer is. Bots and the fallback sample it; parsers check it."""

    @abstractmethod
    def sample(self, rng: random.Random) -> Any: ...

    @abstractmethod
    def describe(self) -> str:
        """A short phrase for prompts and error messages."""

    @abstractmethod
    def parse(self, text: str) -> Any:
        """Text -> a legal action, or ParseError with the reason."""

    def written(self, action: Any) -> str:
        """`action` as an answer states it, so that a bot's recorded answer reads as a model's would (and parses
        back to it): its JSON where the space has no words of its own."""
        return json.dumps(action, default=str)


@dataclass(frozen=True)
class IntRange(ActionSpace):
    lo: int
    hi: int
    key: str = "number"  # the JSON key a structured answer may use
    prose: bool = True  # whether the last number of a free-text answer counts (else only JSON or the bare number)
    json_answer: bool = False  # a bot's answer is written as {key: value}, the form a paper's code reads

    def sample(self, rng: random.Random) -> int:
        return rng.randint(self.lo, self.hi)

    def describe(self) -> str:
        return f"an integer from {self.lo} to {self.hi}"

    def parse(self, text: str) -> int:
        return parse_int(text, self.lo, self.hi, key=self.key, prose=self.prose)

    def written(self, action: Any) -> str:
        return json.dumps({self.key: action}) if self.json_answer else super().written(action)


@dataclass(frozen=True)
class Choice(ActionSpace):
    """One of a list of named options; `labels` are what the model writes."""

    options: tuple[Any, ...]
    labels: tuple[str, ...] = ()
    key: str = "action"
    json_answer: bool = False  # a bot's answer is written as {key: label}, the form a paper's code reads
    form: str = "{}"  # else the label in this text: "X: {}", "Action: {}"

    def _labels(self) -> tuple[str, ...]:
        return self.labels or tuple(str(o) for o in self.options)

    def sample(self, rng: random.Random) -> Any:
        return rng.choice(self.options)

    def describe(self) -> str:
        return "one of: " + ", ".join(self._labels())

    def parse(self, text: str) -> Any:
        return self.options[parse_choice(text, self._labels(), key=self.key)]

    def written(self, action: Any) -> str:
        """The option's label, as the prompt asks for it (TicTacToe's "(2,1)" with row and column from 1, not the
        cell index 3 the game keeps), in the game's answer form."""
        if action not in self.options:
            return super().written(action)
        label = self._labels()[self.options.index(action)]
        return json.dumps({self.key: label}) if self.json_answer else self.form.format(label)


# ---------------------------------------------------------------- what a match says about who played better
WIN, PAYOFF, SCORE, COOPERATIVE = "win", "payoff", "score", None  # `Game.judged_by`
JUDGED_BY = (WIN, PAYOFF, SCORE, COOPERATIVE)


# ---------------------------------------------------------------- retry policies
RANDOM, FIXED, FORFEIT, ERROR, REASK = "random", "fixed", "forfeit", "error", "reask"


@dataclass(frozen=True)
class RetryPolicy:
    """How a seat is asked again when its answer is unusable, and what happens when it never gives a usable one.

    Each paper's code does this its own way (LLMArena per game, γ-Bench until it parses), and the choice moves
    published numbers: a model that never answers wins by random moves under one rule and loses under another.
    So the game declares it (`Game.retry_policies`), the LLM agent asks `tries` times, and the match loop
    (engine.play.playing) applies `exhausted` and `illegal`; a turn where the policy acted records which and what it did
    (its `action.extra.retry`), and the Transcripts page names the policy on every turn."""

    name: str
    tries: int = 3  # asks in all, the first one included
    feedback: bool = True  # a re-ask tells the model what was wrong; else the same question again
    exhausted: str = RANDOM  # out of tries: RANDOM legal action, FIXED action (`Game.fixed_action`), FORFEIT, ERROR
    illegal: str = REASK  # a well-formed but forbidden action (IllegalAction): REASK like any unusable answer, FORFEIT
    fixed: str = "a fixed action"  # what the FIXED action is, in words

    def describe(self) -> str:
        """One line for captions and the transcripts: '3 tries, told its error, then a random legal action'."""
        told = "told its error" if self.feedback else "asked the same again"
        tries = f"{self.tries} tries, {told}" if self.tries > 1 else "1 try"
        then = {RANDOM: "a random legal action", FIXED: self.fixed, FORFEIT: "the seat loses",
                ERROR: "the match ends as an error"}[self.exhausted]
        illegal = "; an illegal action loses" if self.illegal == FORFEIT else ""
        return f"{tries}, then {then}{illegal}"


# ---------------------------------------------------------------- answer settings
@dataclass(frozen=True)
class AnswerSettings:
    """How a model is asked to answer: its temperature and its answer cap (`max_tokens`). The defaults are the
    arena's own, for a game whose paper's code says nothing else."""

    temperature: float = 1.0
    max_tokens: int = 256


ARENA_SETTINGS = AnswerSettings()
LLMARENA_SETTINGS = AnswerSettings(temperature=0.3)  # THU-BPM/LLMArena opponent_templates/*/info.json; no cap there


FEEDBACK = RetryPolicy("feedback")  # the arena's own: 3 tries, told the error, then a random legal action
LLMARENA_ONE_TRY = RetryPolicy("authors", tries=1, feedback=False)  # LLMArena's Hanabi, Bargain, Undercover


def retry_param(policies: dict[str, RetryPolicy]) -> Param:
    """The `retry` parameter of a game with several policies; the first one is the default."""
    names = tuple(policies)
    return Param(names[0], "what happens to an unusable answer: " + "; ".join(
        f"{n}: {p.describe()}" for n, p in policies.items()), kind=str, choices=names, added_later=True)


def history_param() -> Param:
    """The `history` parameter of a game whose paper's prompts carry no history (LLMArena's configs say
    `need_history: false`): each prompt is the current state alone unless a researcher turns it on."""
    return Param(False, "put every message of the match so far in each prompt (LLMArena's code: no history)",
                 kind=bool, added_later=True)


def reading_param(described: str = "'authors' = as the paper's code reads it; 'lenient' = the arena's own "
                                     "reading") -> Param:
    """The `reading` parameter: how an answer is read, as the paper's code reads it (the default) or as the arena's
    lenient reading does (docs/GAMES.md)."""
    return Param("authors", f"how an answer is read: {described}", kind=str, choices=("authors", "lenient"),
                 added_later=True)


# ---------------------------------------------------------------- messages and views
@dataclass(frozen=True)
class Message:
    """A line of the match's conversation; `to` is None for everyone, else the seats that see it."""

    text: str
    sender: str = "Moderator"
    to: frozenset[int] | None = None
    round: int = 0

    def visible_to(self, seat: int) -> bool:
        return self.to is None or seat in self.to


@dataclass
class Observation:
    """What one seat may know when it must act.

    `view` is structured (bots read it, prompt templates are filled from it);
    `history` is the text of every message this seat has seen; `parse` is the
    game's parser for this seat and this decision.
    """

    game: str
    seat: int
    player: str
    phase: str
    round: int
    view: dict[str, Any]
    space: ActionSpace
    history: list[str]
    parse: Callable[[str], Any]
    retry: RetryPolicy = FEEDBACK


@dataclass(frozen=True)
class SeatResult:
    score: float
    won: bool
    rank: int
    role: str | None = None


# ---------------------------------------------------------------- parameters
MAX_PARAM = 1e9  # no game needs more; a bigger number is a typo that would build huge boards or ranges


@dataclass(frozen=True)
class Param:
    """A game parameter with its default; `validate` explains a bad value in words."""

    default: Any
    help: str
    kind: type = int
    lo: float | None = None
    hi: float | None = None
    choices: tuple[Any, ...] | None = None
    # Added after matches were played (`retry`, `history`): at its default it is left out of a match's id, so a
    # database's earlier matches keep theirs and their run resumes (engine.play.spec); the match's params still hold it.
    added_later: bool = False

    def validate(self, name: str, value: Any) -> Any:
        if self.kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if self.kind is not Any and not isinstance(value, self.kind) or (
            self.kind is int and isinstance(value, bool)
        ):
            raise ValueError(f"parameter '{name}' must be {self.kind.__name__}, got {value!r}")
        if isinstance(value, (int, float)) and not isinstance(value, bool) and not abs(value) <= MAX_PARAM:
            raise ValueError(f"parameter '{name}' must be a finite number within +-{MAX_PARAM:.0e}, got {value!r}")
        if self.choices is not None and value not in self.choices:
            raise ValueError(f"parameter '{name}' must be one of {list(self.choices)}, got {value!r}")
        if self.lo is not None and value < self.lo:
            raise ValueError(f"parameter '{name}' must be >= {self.lo}, got {value!r}")
        if self.hi is not None and value > self.hi:
            raise ValueError(f"parameter '{name}' must be <= {self.hi}, got {value!r}")
        return value


# ---------------------------------------------------------------- the game
class Game(ABC):
    """Base of every game. Subclasses set the class attributes and the abstract methods."""

    name: ClassVar[str]
    title: ClassVar[str]
    paper: ClassVar[str]
    params: ClassVar[dict[str, Param]]
    presets: ClassVar[dict[str, dict[str, Any]]] = {"default": {}}
    # Named rule sets: the parameter values that make a match one paper's version of the game. Unlike a
    # preset (a starting point a spec may override), a variant is read back from the match's params.
    variants: ClassVar[dict[str, dict[str, Any]]] = {}
    # What one match says about who played better, the outcome ratings and win rates read (engine/score/outcomes.py):
    # WIN, the seats the rules declare winners; PAYOFF or SCORE, the seats ordered by their payoff or by the paper's
    # per-role score (`placed_by`: the best alone wins, a tie at the top is a draw); COOPERATIVE (None), nothing: the
    # seats share one score. `result` places the seats as it says; `judged_meaning` says it in words for captions.
    judged_by: ClassVar[str | None] = "win"
    judged_meaning: ClassVar[str] = "the rules' winner"
    # Derived from `judged_by`: every seat shares one outcome (Hanabi), seats tied at one rank are one team.
    # Otherwise, seats without a role tied at one rank are opponents who drew (Bargain without a deal): draws.
    cooperative: ClassVar[bool] = False
    # What a seat's `SeatResult.score` counts, for pages that show it (a mean score is unreadable without it).
    score_meaning: ClassVar[str] = "the seat's score as the game counts it"
    # The same, per rule set (`variants`) where the sets count a score differently: a table of one rule set's matches
    # says that set's meaning alone (`score_meaning_of`).
    score_meanings: ClassVar[dict[str, str]] = {}
    # The version of the rules and scorer each match records (`matches.rules_version`). Bump it when a change of a
    # rule or of a figure the game computes would score a stored match differently: `rescore` then names the
    # matches played under older rules (and rescores them with the current ones), and the pages can tell them apart.
    rules_version: ClassVar[int] = 1
    # How unusable answers are handled; several: the `retry` parameter picks one (the first is the default).
    retry_policies: ClassVar[dict[str, RetryPolicy]] = {"feedback": FEEDBACK}
    # The answer settings of the game's protocol, as its paper's code asks the model (docs/STUDIES.md cites the files):
    # a model seat that sets none plays with them (engine/play/spec.py), and its name shows only the settings that
    # differ from them (engine/agents/agent_names.py). A rule set (`variants`) with settings of its own is in
    # `variant_answer_settings`.
    answer_settings: ClassVar[AnswerSettings] = ARENA_SETTINGS
    variant_answer_settings: ClassVar[dict[str, AnswerSettings]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        name = getattr(cls, "name", cls.__name__)
        if cls.judged_by not in JUDGED_BY:
            raise ValueError(f"game '{name}': judged_by must be one of {JUDGED_BY}")
        if cls.__dict__.get("cooperative") and cls.judged_by is not COOPERATIVE:
            raise ValueError(f"game '{name}': a cooperative game declares judged_by = None")
        cls.cooperative = cls.judged_by is COOPERATIVE

    @classmethod
    def score_meaning_of(cls, rule_set: str) -> str:
        """What a seat's score counts in the matches of `rule_set` ('' for a game with one)."""
        return cls.score_meanings.get(rule_set, cls.score_meaning)

    @classmethod
    def protocol_settings(cls, params: dict[str, Any]) -> AnswerSettings:
        """The answer settings of the protocol a match with `params` plays: its rule set's, else the game's."""
        for rule_set, settings in cls.variant_answer_settings.items():
            if all(params.get(key) == value for key, value in cls.variants[rule_set].items()):
                return settings
        return cls.answer_settings

    def __init__(self, params: dict[str, Any]):
        self.p = self.resolve_params(params)
        self.log: list[Message] = []
        self.rng = random.Random(0)
        self.round = 0

    # ---- parameters
    @classmethod
    def resolve_params(cls, params: dict[str, Any], preset: str = "default") -> dict[str, Any]:
        """Defaults, then the preset, then the given values; unknown names are an error."""
        if preset not in cls.presets:
            raise ValueError(f"game '{cls.name}' has no preset '{preset}' (has: {sorted(cls.presets)})")
        merged = {k: p.default for k, p in cls.params.items()} | cls.presets[preset] | dict(params)
        unknown = sorted(set(merged) - set(cls.params))
        if unknown:
            raise ValueError(f"game '{cls.name}' has no parameter {unknown} (has: {sorted(cls.params)})")
        resolved = {k: cls.params[k].validate(k, v) for k, v in merged.items()}
        cls.check_params(resolved)
        return resolved

    @classmethod
    def check_params(cls, params: dict[str, Any]) -> None:
        """Raise ValueError if parameters each within bounds do not fit together (a minimum above its maximum, a
        seat past the players): a spec is refused before anything is played, not every match as it starts."""
        return None  # most games' parameters are independent

    @classmethod
    @abstractmethod
    def n_seats(cls, params: dict[str, Any]) -> int: ...

    # ---- the protocol
    def reset(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.log = []
        self.round = 0
        self.setup()

    @abstractmethod
    def setup(self) -> None:
        """Deal, draw and announce the start; `self.rng` is seeded."""

    @abstractmethod
    def to_act(self) -> list[int]: ...

    @abstractmethod
    def observe(self, seat: int) -> Observation: ...

    @abstractmethod
    def step(self, actions: dict[int, Any]) -> None: ...

    @abstractmethod
    def done(self) -> bool: ...

    @abstractmethod
    def result(self) -> dict[int, SeatResult]: ...

    @abstractmethod
    def public_state(self) -> dict[str, Any]: ...

    def parse(self, seat: int, text: str) -> Any:
        """Default parser: the seat's current action space reads the text."""
        return self.observe(seat).space.parse(text)

    def retry_policy(self) -> RetryPolicy:
        """The policy this match plays by: the `retry` parameter's, else the game's only one."""
        return self.retry_policies[self.p.get("retry", next(iter(self.retry_policies)))]

    def fixed_action(self, seat: int) -> Any:
        """The action a seat takes when its tries run out under a FIXED policy (Bid: a bid of 0)."""
        raise NotImplementedError(f"game '{self.name}' has no fixed action")

    def forfeit(self, seat: int, reason: str, action: Any = None) -> None:
        """End the game as a loss for `seat` (a FORFEIT policy: its illegal `action`, or no usable answer)."""
        raise NotImplementedError(f"game '{self.name}' cannot be forfeited")

    def metrics(self) -> list[tuple[int | None, str, float]]:
        """Per-match figures for scorers: (seat or None for the match, name, value)."""
        return []

    def outcome(self) -> dict[str, Any]:
        return {}

    def step_rewards(self) -> dict[int, float]:
        """The reward each seat that acted earned by the last step, for games that define one per step
        (ConnectFour's V(s') - V(s), Hold'em's chips); stored in `turns.reward`."""
        return {}

    # ---- replaying a stored match (engine/play/replay.py)
    def force(self, facts: dict[str, Any]) -> None:
        """Make chance say what a recorded match says (an imported record's draws) before the next step."""
        raise ValueError(f"game '{self.name}' cannot replay forced facts {sorted(facts)}")

    # ---- helpers for subclasses
    def player_name(self, seat: int) -> str:
        return f"Player {seat + 1}"

    def announce(self, text: str, to: set[int] | None = None, sender: str = "Moderator") -> None:
        self.log.append(Message(text, sender, frozenset(to) if to is not None else None, self.round))

    def history(self, seat: int) -> list[str]:
        return [f"{m.sender}: {m.text}" for m in self.log if m.visible_to(seat)]

    def make_observation(self, seat: int, phase: str, view: dict[str, Any], space: ActionSpace) -> Observation:
        base = {"player": self.player_name(seat), "round": self.round, "format": space.describe()}
        return Observation(
            game=self.name, seat=seat, player=self.player_name(seat), phase=phase, round=self.round,
            view=base | self.p | view, space=space,
            history=self.history(seat) if self.p.get("history", True) else [],  # LLMArena's need_history: false
            parse=lambda text: self.parse(seat, text), retry=self.retry_policy(),
        )


def rank_by(values: dict[int, float], higher_is_better: bool = True) -> dict[int, int]:
    """Competition ranking (1, 2, 2, 4): equal values share a rank."""
    ordered = sorted(values.values(), reverse=higher_is_better)
    return {s: 1 + ordered.index(v) for s, v in values.items()}


def placed_by(values: dict[int, float], scores: dict[int, float] | None = None,
              roles: dict[int, str] | None = None) -> dict[int, SeatResult]:
    """The seats of a game judged by PAYOFF or SCORE (`Game.judged_by`): ranked by `values` (higher is better), the
    best alone wins, seats tied at the top win nobody (the outcome reads them as a draw); each seat's
    `SeatResult.score` is its `scores` value (its value where not given)."""
    ranks = rank_by(values)
    alone = list(ranks.values()).count(1) == 1
    scores = values if scores is None else scores
    return {s: SeatResult(scores[s], alone and ranks[s] == 1, ranks[s], (roles or {}).get(s)) for s in values}


__all__ = [
    "ActionSpace", "IntRange", "Choice", "Message", "Observation", "SeatResult", "Param",
    "Game", "ParseError", "IllegalAction", "RetryPolicy", "AnswerSettings", "ARENA_SETTINGS", "LLMARENA_SETTINGS",
    "FEEDBACK", "LLMARENA_ONE_TRY", "retry_param",
    "history_param", "reading_param", "rank_by", "placed_by", "WIN", "PAYOFF", "SCORE", "COOPERATIVE", "JUDGED_BY",
]
