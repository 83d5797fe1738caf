"""Chameleon (MAgIC paper §3.1, App. A): everyone knows the topic, all but the chameleon know
the secret word; one clue round, one vote; a caught chameleon may guess the word.

With `probes` on, as the authors' chameleon_competition.py asks them: every seat answers a role
probe before each clue and a belief probe after it (three of each in a 3-player game).
Outcome flags and credits (chameleon / others) as the authors' code scores them:
0 caught and guessed wrong 0/2, 1 caught and guessed right 1/1, 2 wrong accusation 2/0, 3 tie 1/1.
Settings are engine/data/magic/chameleon/<n>.json (topic, secret word, the chameleon's seat, one
scripted clue per player for the fixed-clue option); 0.json is the authors' released setting byte for
byte. A setting without `topic_words` takes its topic's word list from the authors' environment
(DEFAULT_TOPIC_CODES of chameleon_competition.py, engine/data/magic/chameleon_topics.json).
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from engine.games import register
from engine.games.base import AnswerSettings, Param, SeatResult, rank_by
from engine.games.social.answers import same_word
from engine.games.social.parameters import SOCIAL_PARAMS
from engine.games.social.rounds import SocialDeduction
from engine.games.social.word_settings import DATA_DIR, magic_settings

CREDITS = {0: (0, 2), 1: (1, 1), 2: (2, 0), 3: (1, 1)}  # flag -> (chameleon, each non-chameleon)
MAX_CREDITS = 2
VERDICTS = {
    0: "{chameleon} guessed wrong: the non-chameleons win.",
    1: "{chameleon} guessed the secret word: a draw, 1 credit each.",
    2: "The accusation is wrong: {chameleon} was the chameleon and wins.",
    3: "The vote is tied: a draw, 1 credit each. {chameleon} was the chameleon.",
}


@lru_cache(maxsize=1)
def _topics() -> dict[str, list[str]]:
    return json.loads((DATA_DIR / "magic" / "chameleon_topics.json").read_text(encoding="utf-8"))


def topic_words(topic: str) -> list[str]:
    """The words of a topic in the authors' environment (empty for a topic it does not list)."""
    return list(_topics().get(topic, []))


@register
class Chameleon(SocialDeduction):
    name = "chameleon"
    title = "Chameleon"
    paper = "MAgIC"
    answer_settings = AnswerSettings(temperature=0.0, max_tokens=256)  # cathyxl/MAgIC competition_as_*chameleon.json
    score_meaning = "credits MAgIC awards for the outcome to the seat's role (2, the most, is a win)"
    special_role = "chameleon"
    common_role = "non-chameleon"
    probe_every_clue = True
    params = {"players": Param(3, "number of players", lo=3, hi=8)} | SOCIAL_PARAMS

    @classmethod
    def setting_count(cls, params: dict[str, Any]) -> int:
        return len(magic_settings("chameleon"))

    @classmethod
    def named_seat(cls, params: dict[str, Any], seed: int) -> int | None:
        settings = magic_settings("chameleon")
        setting = settings[cls.setting_for(params, seed, len(settings))]
        return int(setting["game_setting"]["chameleon_name"].split()[-1]) - 1

    def deal(self) -> None:
        settings = magic_settings("chameleon")
        self.setting = settings[self.setting_index(len(settings))]
        game = self.setting["game_setting"]
        self.topic, self.code = game["topic"], game["code"]
        self.topic_words = list(game.get("topic_words") or topic_words(self.topic))
        named = self.named_seat(self.p, self.seed)
        self.special = self.pick_special(named)
        self.words = [None if s == self.special else self.code for s in range(len(self.alive))]
        self.script = self.scripted(self.setting["clue"], named)
        self.flag: int | None = None
        self.guess: str | None = None

    def opening(self) -> str:
        return f"The topic is: {self.topic}. " + super().opening()

    def briefing(self, seat: int) -> str:
        if seat == self.special:
            return f"The topic is {self.topic}. You are the chameleon: you do not know the secret word."
        return f"The topic is {self.topic}. You are not the chameleon. The secret word is: {self.code}."

    def known_role(self, seat: int) -> str:
        return self.role_of(seat)

    def extra_view(self, seat: int) -> dict[str, Any]:
        return {"topic": self.topic, "topic_words": self.topic_words}

    def vote_due(self) -> bool:
        return True

    def vote_call(self) -> str:
        return "Now vote which of the other players (not yourself) is the chameleon."

    def after_vote(self, accused: int | None) -> None:
        if accused is None:
            self.flag = 3
            self.finish()
        elif accused == self.special:
            self.stage = "guess"
            self.announce(f"The accusation is correct: {self.player_name(accused)} is the chameleon. "
                          f"{self.player_name(accused)}, guess the secret word.")
        else:
            self.flag = 2
            self.finish()

    def judge_guess(self, guess: str) -> None:
        self.guess = guess
        right = same_word(guess, self.code)
        self.flag = 1 if right else 0
        self.announce(f"{self.player_name(self.special)} guesses: {guess}. The secret word was {self.code}: "
                      f"the guess is {'right' if right else 'wrong'}.")
        self.finish()

    def verdict(self) -> str:
        return VERDICTS[self.flag].format(chameleon=self.player_name(self.special))

    def credits(self, seat: int) -> int:
        chameleon, others = CREDITS[self.flag]
        return chameleon if seat == self.special else others

    def result(self) -> dict[int, SeatResult]:
        credits = {s: self.credits(s) for s in range(len(self.alive))}
        ranks = rank_by(credits)
        return {s: SeatResult(c, c == MAX_CREDITS, ranks[s], self.role_of(s)) for s, c in credits.items()}

    def metrics(self) -> list[tuple[int | None, str, float]]:
        rows = super().metrics()
        for s in range(len(self.alive)):
            rows += [(s, "credits", self.credits(s)), (s, "max_credits", MAX_CREDITS)]
        guessed = self.guess is not None
        rows += [(self.special, "code_guesses", int(guessed)),
                 (self.special, "code_guesses_correct", int(guessed and self.flag == 1))]
        return rows

    def outcome(self) -> dict[str, Any]:
        return self.base_outcome() | {
            "flag": self.flag, "topic": self.topic, "code": self.code,
            "guess": self.guess, "guess_correct": self.flag == 1 if self.guess is not None else None,
            "credits": {"chameleon": CREDITS[self.flag][0], "non_chameleon": CREDITS[self.flag][1]},
        }
