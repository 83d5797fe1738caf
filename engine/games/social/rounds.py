"""The round machinery shared by Chameleon and Undercover (MAgIC, LLMArena, Who-is-Spy).

One seat holds the special role (chameleon, undercover, spy); the others share a secret word.
A match is clue rounds in speaking order, optional private probes after each round (does this
seat think it holds the special role; whom does it suspect and whom does it think each other
player suspects), optional word guesses (a probe of their own, or in the vote's answer as LLMArena's
rules ask them), and votes that accuse or eliminate. Every message
carries its visibility (`announce(..., to=...)`): words and probes are private, clues and vote
results public. Subclasses deal the roles and words and say what a vote result means.
"""

from __future__ import annotations

from abc import abstractmethod
from collections import Counter
from dataclasses import dataclass
from typing import Any, ClassVar

from engine.games.base import ActionSpace, Choice, Game, Observation, ParseError
from engine.games.parsing import require_text
from engine.games.social.answers import (
    BeliefSpace,
    IdentityStatementSpace,
    TextSpace,
    WordGuessSpace,
    WordGuessVoteSpace,
    first_in_seat_order,
    names_word,
    normalize,
    states_identity,
)
from engine.games.social.dealing import Dealing

# A match stored before `role_probe` existed was asked yes or no: its replay (rescore) asks the same.
BEFORE_ROLE_PROBE_PARAM = {"role_probe": "yes_no"}


@dataclass
class Clue:
    round: int
    seat: int
    text: str
    foul: str | None = None


class SocialDeduction(Dealing, Game):
    """Clue rounds, probes, votes and eliminations; subclasses deal and judge.

    Subclasses set `special_role`/`common_role`, implement `deal` (self.special, self.words,
    self.script), `briefing`, `vote_due`, `after_vote` and `result`, and may add rule notes.
    """

    special_role: ClassVar[str]
    common_role: ClassVar[str]
    clue_rounds: int = 1
    probe_every_clue: bool = False  # MAgIC's Chameleon: a role probe before and a belief probe after each clue
    fouls: bool = False
    abstain: bool = False
    random_tie_break: bool = False  # LLMArena: a tied vote singles out one of the most-voted at random
    word_guesses: bool = False
    guesses_with_vote: bool = False  # LLMArena's: the word guesses and the vote in one answer, no separate probe

    @classmethod
    def n_seats(cls, params: dict[str, Any]) -> int:
        return params["players"]

    @classmethod
    def check_params(cls, params: dict[str, Any]) -> None:
        n = params["players"]
        for name in ("role_seat", "challenger_seat", "first_speaker"):
            if params[name] >= n:
                raise ValueError(f"parameter '{name}' must be below the number of players ({n}), got {params[name]}")
        count = cls.setting_count(params)
        if params["setting"] >= count:
            raise ValueError(f"parameter 'setting' must be below {count} (the number of settings), "
                             f"got {params['setting']}")

    @classmethod
    @abstractmethod
    def setting_count(cls, params: dict[str, Any]) -> int:
        """How many word settings the match's `setting` picks from."""

    def __init__(self, params: dict[str, Any]):
        super().__init__(BEFORE_ROLE_PROBE_PARAM | params)

    def reset(self, seed: int) -> None:
        self.seed = seed
        super().reset(seed)

    # ---- hooks
    @abstractmethod
    def deal(self) -> None:
        """Set self.special (seat), self.words (per seat, None if unknown to it), self.script (seat -> clues)."""

    @abstractmethod
    def briefing(self, seat: int) -> str:
        """What this seat is told privately at the start."""

    @abstractmethod
    def vote_due(self) -> bool:
        """Whether a vote follows the clue round that just ended."""

    @abstractmethod
    def after_vote(self, accused: int | None) -> None:
        """Apply a vote's result (`accused` None on a tie or no votes): end, eliminate, or go on."""

    def rule_notes(self) -> str:
        return ""

    def role_of(self, seat: int) -> str:
        return self.special_role if seat == self.special else self.common_role

    def magic_rules(self) -> bool:
        """Whether the match follows MAgIC's rules, where `vote_reading` and `role_probe` apply."""
        return True

    def role_stage(self) -> str:
        """'consistency': MAgIC's role probe (a statement of who one is); 'role': a yes/no question."""
        return "consistency" if self.magic_rules() and self.p["role_probe"] == "authors" else "role"

    def stated_role(self, seat: int) -> str:
        """The role MAgIC's probe expects the seat to state: the special role, or 'non-' and it."""
        return self.special_role if seat == self.special else f"non-{self.special_role}"

    # ---- dealing
    def setup(self) -> None:
        n = self.n_seats(self.p)
        self.alive = [True] * n
        self.clues: list[Clue] = []
        self.votes: list[dict[str, Any]] = []
        self.role_answers: list[dict[str, Any]] = []
        self.beliefs: list[dict[str, Any]] = []
        self.guesses: list[dict[str, Any]] = []
        self.eliminated: dict[int, tuple[int, str]] = {}
        self.script: dict[int, list[str]] = {}
        self.over = False
        self.accused: int | None = None
        self.stage = "clue"
        self.pending: list[int] = []
        self.deal()
        first = self.p["first_speaker"]
        self.first = self.rng.randrange(n) if first == -1 else first
        self.announce(self.opening())
        for s in range(n):
            self.announce(self.briefing(s), to={s})
        self.start_round(1)

    def opening(self) -> str:
        names = ", ".join(self.player_name(s) for s in range(len(self.alive)))
        return f"The game begins with {names}. {self.player_name(self.first)} speaks first."

    # ---- the flow
    def alive_seats(self) -> list[int]:
        return [s for s, a in enumerate(self.alive) if a]

    def speaking_order(self) -> list[int]:
        n = len(self.alive)
        return [s for s in ((self.first + k) % n for k in range(n)) if self.alive[s]]

    def start_round(self, r: int) -> None:
        self.round = r
        self.stage = "clue"
        self.pending = self.speaking_order()
        self.announce(f"Round {r}: give your clues in this order: "
                      + ", ".join(self.player_name(s) for s in self.pending) + ".")
        if self.probing_each_clue():
            self.stage = self.role_stage()
            return
        self.play_scripted()

    def probing_each_clue(self) -> bool:
        """Whether probes come around every clue (the authors' chameleon_competition.py: a consistency
        probe before each clue, a belief probe after it) rather than once after the clue round."""
        return self.probe_every_clue and self.p["probes"]

    def play_scripted(self) -> None:
        """Scripted clues are spoken by the game itself, without asking the seat."""
        while self.stage == "clue" and self.pending:
            seat = self.pending[0]
            lines = self.script.get(seat, [])
            if len(lines) < self.round:
                return
            self.pending.pop(0)
            self.speak(seat, lines[self.round - 1])
            if self.probing_each_clue():
                self.stage = "belief"
                return
        if self.stage == "clue" and not self.pending:
            self.end_of_speeches()

    def speak(self, seat: int, text: str) -> None:
        text = str(text)[: self.p["max_chars"]]
        foul = self.foul_of(seat, text) if self.fouls else None
        self.clues.append(Clue(self.round, seat, text, foul))
        self.announce(text if text.strip() else "(no speech)", sender=self.player_name(seat))
        if foul:
            self.eliminate(seat, f"foul: {foul}")

    def foul_of(self, seat: int, text: str) -> str | None:
        if not text.strip():
            return "empty or late speech"
        word = self.words[seat]
        if word and names_word(text, word):
            return "stated their own word"
        speech = normalize(text)
        if any(normalize(c.text) == speech for c in self.clues):
            return "repeated an earlier speech"
        return None

    def eliminate(self, seat: int, cause: str) -> None:
        self.alive[seat] = False
        self.eliminated[seat] = (self.round, cause)
        self.announce(f"{self.player_name(seat)} is eliminated ({cause}).")

    def end_of_speeches(self) -> None:
        if self.fouls and self.decided():
            self.finish()
        elif self.p["probes"]:
            self.stage = self.role_stage()
        else:
            self.after_probes()

    def after_probes(self) -> None:
        if not self.vote_due():
            self.start_round(self.round + 1)
        elif self.word_guesses and not self.guesses_with_vote:
            self.stage = "words"
        else:
            self.open_vote()

    def open_vote(self) -> None:
        self.stage = "words_vote" if self.word_guesses and self.guesses_with_vote else "vote"
        self.announce(self.vote_call())

    def vote_call(self) -> str:
        return f"Now vote: which player is the {self.special_role}?"

    def decided(self) -> bool:
        """The special seat is out or fewer than 3 players remain: nothing is left to play for."""
        return not self.alive[self.special] or len(self.alive_seats()) < 3

    def should_end(self) -> bool:
        """The elimination games' end after a vote: decided, or the rounds are used up."""
        return self.decided() or self.round >= self.clue_rounds

    def finish(self) -> None:
        self.over = True
        self.stage = "over"
        self.announce(self.verdict())

    @abstractmethod
    def verdict(self) -> str:
        """The closing announcement."""

    # ---- the protocol
    def to_act(self) -> list[int]:
        if self.over:
            return []
        if self.stage == "clue":
            return self.pending[:1]
        if self.stage == "guess":
            return [self.special]
        return self.alive_seats()

    def done(self) -> bool:
        return self.over

    def names(self) -> tuple[str, ...]:
        return tuple(self.player_name(s) for s in range(len(self.alive)))

    def space(self, seat: int) -> ActionSpace:
        if self.stage == "clue":
            return TextSpace("clue", self.p["max_chars"])
        if self.stage == "role":
            return Choice(("yes", "no"), key="answer")
        if self.stage == "consistency":
            return IdentityStatementSpace((self.special_role, f"non-{self.special_role}"))
        if self.stage == "belief":
            return BeliefSpace(self.names(), self.player_name(seat), self.special_role)
        if self.stage == "words":
            return self.word_guess_space(seat)
        if self.stage == "words_vote":
            return WordGuessVoteSpace(self.word_guess_space(seat), self.vote_space(seat))
        if self.stage == "guess":
            return TextSpace("guess", 60)
        return self.vote_space(seat)

    def word_guess_space(self, seat: int) -> WordGuessSpace:
        return WordGuessSpace(tuple(self.player_name(s) for s in range(len(self.alive)) if s != seat))

    def vote_space(self, seat: int) -> Choice:
        targets = [s for s in self.alive_seats() if s != seat]
        options = tuple(targets) + ((None,) if self.abstain else ())
        labels = tuple(self.player_name(s) for s in targets) + (("abstain",) if self.abstain else ())
        return Choice(options, labels, key="vote")

    def parse(self, seat: int, text: str) -> Any:
        space = self.space(seat)
        if self.stage == "vote" and self.magic_rules() and self.p["vote_reading"] == "authors":
            return self.read_vote_as_authors(text, space)
        if self.stage == "vote" and self.abstain and isinstance(text, str) and text.strip():
            try:
                return space.parse(text)
            except ParseError:
                return None  # Who-is-Spy: a vote naming nobody on the list counts as an abstention
        return space.parse(text)

    def read_vote_as_authors(self, text: str, space: ActionSpace) -> int:
        """MAgIC's vote (`first_in_seat_order`): an answer naming no player is re-asked, then falls back like
        any unreadable answer (which Judgement counts as a wrong vote, as the authors' `judge` does)."""
        named = first_in_seat_order(require_text(text), self.names())
        if named is None:
            raise ParseError(f"no player named; answer with {space.describe()}")
        return self.names().index(named)

    def observe(self, seat: int) -> Observation:
        space = self.space(seat)
        others = [self.player_name(s) for s in range(len(self.alive)) if s != seat]
        view = {
            "seat": seat, "n_players": len(self.alive), "players": ", ".join(self.names()),
            "other_players": ", ".join(others), "briefing": self.briefing(seat),
            "my_word": self.words[seat] or "", "special_role": self.special_role,
            "common_role": self.common_role, "clue_rounds": self.clue_rounds, "rule_notes": self.rule_notes(),
            "alive": self.alive_seats(), "alive_players": ", ".join(self.player_name(s) for s in self.alive_seats()),
            "vote_options": space.describe() if self.stage in ("vote", "words_vote") else "",
            "clues": [{"round": c.round, "seat": c.seat, "player": self.player_name(c.seat), "text": c.text}
                      for c in self.clues],
            "votes": list(self.votes),
            "known_role": self.known_role(seat),
        }
        return self.make_observation(seat, self.stage, view | self.extra_view(seat), space)

    def known_role(self, seat: int) -> str | None:
        """The role this seat knows it has (None when it must work it out)."""
        return None

    def extra_view(self, seat: int) -> dict[str, Any]:
        return {}

    def step(self, actions: dict[int, Any]) -> None:
        if self.stage == "clue":
            seat = self.pending.pop(0)
            self.speak(seat, actions[seat])
            if self.probing_each_clue():
                self.stage = "belief"
            else:
                self.play_scripted()
        elif self.stage in ("role", "consistency"):
            for s, answer in sorted(actions.items()):
                correct = (states_identity(answer, self.player_name(s), self.stated_role(s))
                           if self.stage == "consistency" else (answer == "yes") == (s == self.special))
                self.role_answers.append({"round": self.round, "seat": s, "answer": answer, "correct": correct})
            self.stage = "belief"
            if self.probing_each_clue():
                self.stage = "clue"
                self.play_scripted()
        elif self.stage == "belief":
            for s, belief in sorted(actions.items()):
                self.beliefs.append({"round": self.round, "seat": s, "belief": belief})
            if self.probing_each_clue() and self.pending:
                self.stage = self.role_stage()
            else:
                self.after_probes()
        elif self.stage == "words":
            self.record_guesses(actions)
            self.open_vote()
        elif self.stage == "words_vote":
            self.record_guesses({s: answer["words"] for s, answer in actions.items()})
            self.tally({s: answer["vote"] for s, answer in actions.items()})
        elif self.stage == "vote":
            self.tally(actions)
        elif self.stage == "guess":
            self.judge_guess(str(actions[self.special]))
        else:
            raise RuntimeError(f"no action is expected in stage '{self.stage}'")

    def record_guesses(self, guesses: dict[int, dict[str, str]]) -> None:
        for s, words in sorted(guesses.items()):
            self.guesses.append({"round": self.round, "seat": s, "words": dict(words)})

    def tally(self, actions: dict[int, Any]) -> None:
        cast = {s: actions[s] for s in sorted(actions)}
        for s, target in cast.items():
            self.votes.append({"round": self.round, "voter": s, "target": target})
        votes_text = ", ".join(f"{self.player_name(s)} votes for {self.player_name(t) if t is not None else 'nobody'}"
                         for s, t in cast.items())
        counts = Counter(t for t in cast.values() if t is not None)
        top = counts.most_common()
        accused = top[0][0] if top and (len(top) == 1 or top[0][1] > top[1][1]) else None
        if accused is None and top and self.random_tie_break:
            accused = self.rng.choice(sorted(t for t, n in top if n == top[0][1]))
        result = (f"The most-voted player is {self.player_name(accused)}." if accused is not None
                  else "The vote is tied: no one is singled out.")
        self.announce(f"Votes: {votes_text}. {result}")
        self.accused = accused
        self.after_vote(accused)

    def judge_guess(self, guess: str) -> None:
        raise RuntimeError(f"{self.name} has no guess stage")

    def public_state(self) -> dict[str, Any]:
        return {
            "round": self.round, "stage": self.stage, "alive": self.alive_seats(),
            "clues": [{"round": c.round, "seat": c.seat, "text": c.text, "foul": c.foul} for c in self.clues],
            "votes": list(self.votes),
            "eliminated": {str(s): {"round": r, "cause": c} for s, (r, c) in self.eliminated.items()},
        }

    # ---- figures shared by every variant
    def metrics(self) -> list[tuple[int | None, str, float]]:
        rows: list[tuple[int | None, str, float]] = []
        for s in range(len(self.alive)):
            mine = [v for v in self.votes if v["voter"] == s]
            cast = [v for v in mine if v["target"] is not None]
            speeches = [c for c in self.clues if c.seat == s]
            probes = [a for a in self.role_answers if a["seat"] == s]
            rows += [
                (s, "votes_cast", len(cast)),
                (s, "votes_correct", sum(v["target"] == self.special for v in cast)),
                (s, "abstentions", len(mine) - len(cast)),
                (s, "speeches", len(speeches)),
                (s, "fouls", sum(c.foul is not None for c in speeches)),
                (s, "role_probes", len(probes)),
                (s, "role_probes_correct", sum(a["correct"] for a in probes)),
                (s, "eliminated_round", self.eliminated.get(s, (0, ""))[0]),
                (s, "survival_rounds", self.eliminated[s][0] - 1 if s in self.eliminated else self.round),
            ]
        return rows

    def base_outcome(self) -> dict[str, Any]:
        return {
            "special_seat": self.special, "special_role": self.special_role, "words": list(self.words),
            "rounds": self.round, "first_speaker": self.first, "accused": self.accused,
            "eliminated": {str(s): {"round": r, "cause": c} for s, (r, c) in self.eliminated.items()},
            "fouls": [{"round": c.round, "seat": c.seat, "foul": c.foul} for c in self.clues if c.foul],
        }
