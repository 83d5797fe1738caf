"""Reading the social games' answers: clues and speeches (free text), the belief probe, the word-guess
probe and LLMArena's guesses-and-vote answer, a player's name in a vote or a belief, a belief written as
free text (the pgm strategy's analysis), and the word comparisons the judging and the fouls rely on.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from typing import Any

from engine.games.base import ActionSpace, Choice, ParseError
from engine.games.parsing import json_field, require_text


# ---------------------------------------------------------------- text helpers
def normalize(text: str) -> str:
    """Lowercase words only: for repeat checks and word comparisons."""
    return " ".join(re.findall(r"[^\W_]+", text.lower()))


def names_word(text: str, word: str) -> bool:
    """Whether `text` states `word` (whole words, any case)."""
    target = normalize(word)
    return bool(target) and f" {target} " in f" {normalize(text)} "


def same_word(guess: str, word: str) -> bool:
    """A guess names the word: equal after normalizing, or ending with it ("the word is grape")."""
    g, w = normalize(guess), normalize(word)
    return bool(w) and (g == w or g.endswith(" " + w) or g.rstrip("s") == w.rstrip("s"))


# ---------------------------------------------------------------- action spaces
@dataclass(frozen=True)
class TextSpace(ActionSpace):
    """Free text (a clue, a speech, a word guess): the JSON field `key`, else the whole answer, cut to
    `max_chars`. The random/fallback sample is the empty text: no speech."""

    key: str = "clue"
    max_chars: int = 400

    def sample(self, rng: random.Random) -> str:
        return ""

    def describe(self) -> str:
        return f'free text of at most {self.max_chars} characters, as {{"{self.key}": "..."}}'

    def parse(self, text: str) -> str:
        require_text(text)
        value = json_field(text, self.key)
        answer = text if value is None else str(value)
        answer = answer.strip()[: self.max_chars].strip()
        if not any(ch.isalpha() for ch in answer):
            raise ParseError(f'the {self.key} has no words; answer as {{"{self.key}": "..."}}')
        return answer

    def written(self, action: str) -> str:
        """The text as said where it reads back as itself, else as `{"clue": "..."}`; saying nothing (the
        fallback) is an empty answer."""
        if not any(ch.isalpha() for ch in action):
            return ""
        try:
            return action if self.parse(action) == action else json.dumps({self.key: action})
        except ParseError:
            return json.dumps({self.key: action})


@dataclass(frozen=True)
class BeliefSpace(ActionSpace):
    """The two-hop belief probe: whom I suspect, and whom I think each other player suspects."""

    names: tuple[str, ...]
    me: str
    role: str

    def _keys(self) -> list[str]:
        return ["suspect"] + [f"{n} suspects" for n in self.names if n != self.me]

    def sample(self, rng: random.Random) -> dict[str, Any]:
        return {"suspect": rng.choice(self.names),
                "thinks": {n: rng.choice(self.names) for n in self.names if n != self.me}}

    def describe(self) -> str:
        fields = ", ".join(f'"{k}": "<player>"' for k in self._keys())
        return f"a JSON object {{{fields}}}, each value one of: {', '.join(self.names)}"

    def parse(self, text: str) -> dict[str, Any]:
        require_text(text)
        answers = {}
        for key in self._keys():
            value = json_field(text, key)
            name = match_name(str(value), self.names) if value is not None else None
            if name is None:
                raise ParseError(f'"{key}" must name one of: {", ".join(self.names)} ({self.describe()})')
            answers[key] = name
        thinks = {k[: -len(" suspects")]: v for k, v in answers.items() if k != "suspect"}
        return {"suspect": answers["suspect"], "thinks": thinks}

    def written(self, action: dict[str, Any]) -> str:
        """The probe's JSON object, one field per key the prompt names."""
        return json.dumps({"suspect": action["suspect"]} | {f"{n} suspects": v for n, v in action["thinks"].items()})


@dataclass(frozen=True)
class WordGuessSpace(ActionSpace):
    """LLMArena's word-guess probe: the secret word each other player holds."""

    others: tuple[str, ...]

    def sample(self, rng: random.Random) -> dict[str, str]:
        return {n: "" for n in self.others}

    def describe(self) -> str:
        fields = ", ".join(f'"{n} word": "<word>"' for n in self.others)
        return f"a JSON object {{{fields}}}"

    def parse(self, text: str) -> dict[str, str]:
        require_text(text)
        guesses = {}
        for n in self.others:
            value = json_field(text, f"{n} word")
            if value is None or not str(value).strip():
                raise ParseError(f'missing the guess "{n} word" ({self.describe()})')
            guesses[n] = str(value).strip()[:60]
        return guesses

    def written(self, action: dict[str, str]) -> str:
        """The probe's JSON object; no guess at all (the fallback) is an empty answer."""
        return json.dumps({f"{n} word": w for n, w in action.items()}) if any(action.values()) else ""


_NAME = re.compile(r"player[ _]?(\d{1,2})(?!\d)", re.IGNORECASE)


def match_name(text: str, names: tuple[str, ...]) -> str | None:
    """The player name a short answer gives ("Player 2", "player_2", "2"), or None."""
    found = _NAME.findall(text[:200])
    if not found and text.strip().isdigit():
        found = [text.strip()]
    if not found:
        return None
    name = f"Player {int(found[-1])}"
    return name if name in names else None


_VOTE_LINE = re.compile(r"vote:\s*(.*)", re.IGNORECASE)


@dataclass(frozen=True)
class WordGuessVoteSpace(ActionSpace):
    """LLMArena's accusation answer (THU-BPM/LLMArena, examples/selfplay/opponent_templates/undercover_v1/
    opponent.py): the other players' words first, then the vote, in one answer. As there, only the vote must
    be readable: the JSON field "vote", else the first player named on the line after "vote:" (as their
    regular expression reads it); a word guess left out is recorded empty, a wrong guess, and never costs the vote."""

    words: WordGuessSpace
    vote: Choice

    def sample(self, rng: random.Random) -> dict[str, Any]:
        return {"words": self.words.sample(rng), "vote": self.vote.sample(rng)}

    def describe(self) -> str:
        fields = ", ".join(f'"{n} word": "<word>"' for n in self.words.others)
        return f'a JSON object {{{fields}, "vote": "<player>"}}, the vote {self.vote.describe()}'

    def parse(self, text: str) -> dict[str, Any]:
        require_text(text)
        if json_field(text, self.vote.key) is not None:
            vote = self.vote.parse(text)
        else:
            line = _VOTE_LINE.search(text)
            if line is None:
                raise ParseError(f'no vote found; answer with {self.describe()}')
            first = _NAME.search(line.group(1))  # theirs: the first digit after "vote:"
            vote = self.vote.parse(f"Player {int(first.group(1))}" if first else line.group(1))
        guesses = {n: str(json_field(text, f"{n} word") or "").strip()[:60] for n in self.words.others}
        return {"words": guesses, "vote": vote}

    def written(self, action: dict[str, Any]) -> str:
        """The guesses and the vote in one JSON object, the vote as its option's label."""
        words = {f"{n} word": w for n, w in action["words"].items()}
        return json.dumps(words | {self.vote.key: self.vote.written(action["vote"])})


# ---------------------------------------------------------------- MAgIC's own readings (cathyxl/MAgIC)
def first_in_seat_order(text: str, names: tuple[str, ...]) -> str | None:
    """MAgIC's vote reading, `_text2vote` of chatarena/environments/chameleon_competition.py and
    undercover_competition.py: the first player IN SEAT ORDER whose name ("player 2", "player2" or
    "player_2", any case, as a plain substring) appears anywhere in the answer. Quirks kept: it is not
    the first name in the text ("I vote for Player 3, not Player 1" reads Player 1), and the voter's own
    name counts ("As Player 1, I vote
    for Player 3" is Player 1's vote for itself)."""
    low = text.lower()
    for name in names:
        n = name.lower()
        if any(candidate in low for candidate in (n, n.replace(" ", ""), n.replace(" ", "_"))):
            return name
    return None


_I_AM = re.compile(r"I am (Player \d+)")
_MY_ROLE = re.compile(r"my role is ([ \w|-]+)")
_ARTICLES = re.compile(r"\b(?:the|a|an)\b", re.IGNORECASE)


def states_identity(text: str, player: str, role: str) -> bool:
    """MAgIC's role probe (Self-awareness), `parse_consistency` of chameleon_competition.py and
    undercover_competition.py: right only if the answer says "I am <its own player name>" and "my role is
    <its role>" (case-sensitive phrases; articles dropped, the role compared lower-cased, so
    "my role is the chameleon." is right and "my role is chameleon because ..." is not: the role phrase
    runs on over words and spaces up to the first other character)."""
    who, role_claim = _I_AM.search(text), _MY_ROLE.search(text)
    return bool(who and who.group(1) == player and role_claim
                and _ARTICLES.sub("", role_claim.group(1)).strip().lower() == role)


@dataclass(frozen=True)
class IdentityStatementSpace(ActionSpace):
    """MAgIC's role probe: the statement "I am Player N, my role is <role>", kept as said and judged by
    `states_identity`. Any non-empty answer is a statement (a wrong one scores 0, never re-asked); the
    fallback is no statement."""

    roles: tuple[str, ...]

    def sample(self, rng: random.Random) -> str:
        return ""

    def describe(self) -> str:
        return f'the sentence "I am Player N, my role is {"/".join(self.roles)}"'

    def parse(self, text: str) -> str:
        return require_text(text).strip()

    def written(self, action: str) -> str:
        """The statement as said."""
        return action


# ---------------------------------------------------------------- reading free belief text (pgm)
_THINKER = re.compile(r"(?:i think (?:now )?)?(player[ _]?\d{1,2})\s+thinks", re.IGNORECASE)
_SUSPICION = re.compile(
    r"(?:more|most) suspicious|is (?:the |likely the |probably the |an? )?(?:chameleon|undercover|spy)"
    r"|suspect", re.IGNORECASE)
_DOUBT = re.compile(r"\b(?:less|not|no change|unlikely)\b", re.IGNORECASE)


def read_belief_text(text: str, names: tuple[str, ...], me: str) -> dict[str, Any] | None:
    """A belief in free text (the pgm strategy's analysis) -> {"suspect", "thinks"}, best effort.

    The JSON form of the belief probe is read first; otherwise the text is cut at each
    "<Player> thinks" into my own part and each other player's part, and in each part the
    player named in the last clause that calls someone suspicious (and does not hedge with
    less/not) is the suspect. Parts where nobody is called suspicious are left out.
    """
    if not isinstance(text, str) or not text.strip():
        return None
    try:
        return BeliefSpace(names, me, "").parse(text)
    except ParseError:
        pass
    text = text[:20_000]
    parts: list[tuple[str, str]] = []
    owner, start = me, 0
    for m in _THINKER.finditer(text):
        parts.append((owner, text[start:m.start()]))
        owner, start = match_name(m.group(1), names) or "", m.end()
    parts.append((owner, text[start:]))
    suspects: dict[str, str] = {}
    for who, part in parts:
        if not who:
            continue
        for clause in re.split(r"[.;\n]", part):
            hit = _SUSPICION.search(clause)
            if hit and not _DOUBT.search(clause[: hit.end()]):
                found = match_name(clause[: hit.start()], names) or match_name(clause[hit.end():], names)
                if found:
                    suspects[who] = found
    if me not in suspects and not any(n in suspects for n in names if n != me):
        return None
    return {"suspect": suspects.get(me), "thinks": {n: suspects[n] for n in names if n != me and n in suspects}}
