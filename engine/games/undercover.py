"""Undercover in three rule sets (`rules`), one per paper, on the social-deduction core.

- `magic` (MAgIC paper): 3 players, two clue rounds, one vote. Outcome flags and credits
  (undercover / each civilian): 0 caught 0/3, 1 survives 3/0, 2 tie 2/1 (docs/GAMES.md).
  Settings: engine/data/magic/undercover/<n>.json (two words, the undercover's seat, two scripted
  clues per player for the fixed-clue option).
- `llmarena` (LLMArena paper §2.4, as the authors' undercover env plays it): 5 players, the
  undercover in the last seat (it speaks last: Player 1 speaks first) with the FIRST word of its pair;
  a vote after each clue round eliminates the most-voted, a tie one of the most-voted at random; up to
  2 rounds; the undercover wins by surviving. With `word_guesses` every player also guesses the others'
  words: as the authors' vote prompt asks, in the same answer as the vote, the guesses first
  (examples/selfplay/opponent_templates/undercover_v1/opponent.py; `word_probe: with_vote`); `word_probe:
  separate` asks them apart, a private probe before the vote (MAgIC's and WiS's rules always do).
- `wis` (WiS paper §3, App. A): 6 players, a random first speaker, fouls (empty, own
  word, repeat) eliminate at once, speeches cut at 400 characters, votes with abstention, a tie
  eliminates no one; ends when the spy is out, fewer than 3 remain, or after 3 rounds; WiS scores.
Word pairs for `llmarena` and `wis`: LLMArena's 69 (engine/data/llmarena/undercover_words.txt).
Re-asks: under `llmarena` rules one ask, then a random action, as the authors' code
(examples/selfplay/opponent_templates/undercover_v1/opponent.py); `magic`: 3 tries, told the error; `wis`: one
try, as the paper gives a speaker one chance (App. A: no response within 10 seconds is "not speaking", a foul):
a speech without words is the empty speech, a foul that eliminates at once, and a vote without a name an
abstention ("any other output will be counted as an abstention").
"""

from __future__ import annotations

from typing import Any

from engine.games import register
from engine.games.base import (
    FEEDBACK,
    FIXED,
    LLMARENA_ONE_TRY,
    LLMARENA_SETTINGS,
    AnswerSettings,
    Param,
    RetryPolicy,
    SeatResult,
    rank_by,
)
from engine.games.social.answers import names_word, normalize, same_word
from engine.games.social.parameters import SOCIAL_PARAMS
from engine.games.social.rounds import SocialDeduction
from engine.games.social.word_settings import llmarena_word_pairs, magic_settings

# A match stored before `word_probe` existed was asked its word guesses apart: its replay (rescore) asks the same.
BEFORE_WORD_PROBE_PARAM = {"word_probe": "separate"}

MAGIC_CREDITS = {0: (0, 3), 1: (3, 0), 2: (2, 1)}  # flag -> (undercover, each civilian)
MAGIC_MAX_CREDITS = 3
WIS_POOL = 12.0


WIS_ONE_CHANCE = RetryPolicy("wis", tries=1, feedback=False, exhausted=FIXED,
                             fixed="no speech (a foul: eliminated at once) or no vote (an abstention)")


def wis_base_scores(spy_out_round: int | None) -> tuple[float, float]:
    """(spy, the civilians' shared pool) before vote bonuses: 0/12, 4/8, 8/4 by the round the spy
    went out, 12/0 if it survived."""
    if spy_out_round is None:
        return WIS_POOL, 0.0
    spy = 4.0 * (min(spy_out_round, 3) - 1)
    return spy, WIS_POOL - spy


def describes_own_word(clue: str, own: str, other: str, earlier: list[str]) -> bool:
    """LLMArena's "Description", mechanically: a real clue (words, not a repeat) that names neither
    its own word nor the other side's. The paper judged this by hand; this is a lower bar."""
    normalized = normalize(clue)
    return bool(normalized) and not names_word(clue, own) and not names_word(clue, other) and \
        normalized not in {normalize(e) for e in earlier}


@register
class Undercover(SocialDeduction):
    name = "undercover"
    title = "Undercover / Who is Spy"
    paper = "MAgIC, LLMArena, Who-is-Spy"
    score_meanings = {"magic": "MAgIC's rules: credits for the outcome (3, the most, is a win)",
                      "llmarena": "LLMArena's rules: 1 if the seat's side won",
                      "wis": "Who is Spy's rules: the paper's base score plus 1 per vote on the spy (the spy loses 1 "
                             "each)"}
    score_meaning = "; ".join(score_meanings.values())
    special_role = "undercover"
    common_role = "civilian"
    params = {
        "rules": Param("magic", "whose rules: magic, llmarena or wis", kind=str, choices=("magic", "llmarena", "wis")),
        "players": Param(3, "number of players", lo=3, hi=10),
        "rounds": Param(2, "clue rounds (magic: then one vote; llmarena/wis: at most, a vote after each)",
                        lo=1, hi=10),
        "words": Param("magic", "word source: the MAgIC settings or LLMArena's word pairs", kind=str,
                       choices=("magic", "llmarena")),
        "word_guesses": Param(False, "at each vote ask every player the others' words (LLMArena)", kind=bool),
        "word_probe": Param("with_vote", "how LLMArena's rules ask the word guesses: 'with_vote' = in the vote's "
                            "answer, the guesses first (the authors' undercover_v1/opponent.py); 'separate' = a "
                            "private probe before the vote (MAgIC's and WiS's rules always ask apart)", kind=str,
                            choices=("with_vote", "separate"), added_later=True),
    } | SOCIAL_PARAMS
    variants = {rules: {"rules": rules} for rules in ("magic", "llmarena", "wis")}
    # MAgIC: cathyxl/MAgIC competition_as_*undercover.json; LLMArena: its other games'; Who is Spy: the arena's own
    variant_answer_settings = {"magic": AnswerSettings(temperature=0.0, max_tokens=256), "llmarena": LLMARENA_SETTINGS}
    presets = {
        "default": {},
        "magic": {},
        "llmarena": {"rules": "llmarena", "players": 5, "rounds": 2, "words": "llmarena", "probes": False,
                     "first_speaker": 0, "word_guesses": True},
        "wis": {"rules": "wis", "players": 6, "rounds": 3, "words": "llmarena", "probes": False,
                "first_speaker": -1},
    }

    rules_version = 4  # 2: LLMArena's rules ask once; 3: the word guesses in the vote's answer; 4: WiS's one chance

    def __init__(self, params: dict[str, Any]):
        super().__init__(BEFORE_WORD_PROBE_PARAM | params)

    def retry_policy(self) -> RetryPolicy:
        return {"llmarena": LLMARENA_ONE_TRY, "wis": WIS_ONE_CHANCE}.get(self.p["rules"], FEEDBACK)

    def fixed_action(self, seat: int) -> Any:
        """Who-is-Spy's seat without a usable answer: no speech (a foul, `foul_of`), no vote (an abstention); a probe
        the paper does not ask (`probes`) the space's fallback."""
        if self.stage == "clue":
            return ""
        if self.stage == "vote":
            return None
        return self.space(seat).sample(self.rng)

    @classmethod
    def check_params(cls, params: dict[str, Any]) -> None:
        super().check_params(params)
        if params["fixed_clues"] and params["words"] != "magic":
            raise ValueError("parameter 'fixed_clues' needs scripted clues: use words 'magic'")

    @classmethod
    def setting_count(cls, params: dict[str, Any]) -> int:
        return len(magic_settings("undercover") if params["words"] == "magic" else llmarena_word_pairs())

    @classmethod
    def named_seat(cls, params: dict[str, Any], seed: int) -> int | None:
        if params["rules"] == "llmarena":
            return params["players"] - 1  # the authors' env: the undercover is the last player
        if params["words"] != "magic":
            return None
        settings = magic_settings("undercover")
        setting = settings[cls.setting_for(params, seed, len(settings))]
        return int(setting["game_setting"]["undercover_name"].split()[-1]) - 1

    def deal(self) -> None:
        rules = self.p["rules"]
        self.clue_rounds = self.p["rounds"]
        self.fouls = self.abstain = rules == "wis"
        self.random_tie_break = rules == "llmarena"
        self.word_guesses = self.p["word_guesses"]
        self.guesses_with_vote = rules == "llmarena" and self.p["word_probe"] == "with_vote"
        self.special_role = "spy" if rules == "wis" else "undercover"
        if self.p["words"] == "magic":
            settings = magic_settings("undercover")
            setting = settings[self.setting_index(len(settings))]
            game = setting["game_setting"]
            odd, common = game["undercover_code"], game["non_undercover_code"]
            named = self.named_seat(self.p, self.seed)
            self.special = self.pick_special(named)
            self.script = self.scripted(setting["clues"], named)
        else:
            pairs = llmarena_word_pairs()
            first, second = pairs[self.setting_index(len(pairs))]
            if rules == "llmarena":  # the authors' env gives the undercover the pair's first word
                odd, common = first, second
            else:
                odd, common = (first, second) if self.rng.random() < 0.5 else (second, first)
            self.special = self.pick_special(self.named_seat(self.p, self.seed))
        self.odd_word, self.common_word = odd, common
        self.words = [odd if s == self.special else common for s in range(len(self.alive))]
        self.flag: int | None = None

    def briefing(self, seat: int) -> str:
        return f"Your secret word is: {self.words[seat]}."

    def rule_notes(self) -> str:
        n, rounds, role = len(self.alive), self.clue_rounds, self.special_role
        if self.p["rules"] == "magic":
            return (f"There are {n} players and {rounds} clue rounds; after the last one everyone votes once. "
                    f"If the most-voted player is the {role}, the civilians win; if not, the {role} wins; "
                    "a tied vote is a draw.")
        notes = (f"There are {n} players and at most {rounds} rounds. After each clue round everyone votes and "
                 "the most-voted player is eliminated")
        if self.p["rules"] == "llmarena":
            return notes + (f" (on a tie, one of the most-voted at random). The civilians win as soon as the {role} "
                            f"is eliminated; the {role} wins by surviving all {rounds} rounds.")
        return notes + (" (a tie eliminates no one). "
            "A speech is a foul, and the speaker is eliminated at once, if it is empty, states the speaker's own "
            f"word, or repeats any earlier speech. Speeches are cut at {self.p['max_chars']} characters. You may "
            "vote for a listed player or abstain; anything else counts as an abstention. The game ends when the "
            f"spy is out, fewer than 3 players remain, or after {rounds} rounds; the spy wins if still in. Scores: "
            "spy out in round 1: spy 0, the surviving civilians share 12; in round 2: 4 and 8; in round 3: 8 and 4; "
            "spy survives: 12 and 0. Each civilian vote for the spy gives that civilian +1 and the spy -1.")

    def magic_rules(self) -> bool:
        return self.p["rules"] == "magic"

    def vote_due(self) -> bool:
        return self.p["rules"] != "magic" or self.round >= self.clue_rounds

    def vote_call(self) -> str:
        if self.abstain:
            return f"Now vote: who is the spy? Name one of {self.alive_names()} or abstain."
        return f"Now vote which of the other players (not yourself) is the {self.special_role}."

    def alive_names(self) -> str:
        return ", ".join(self.player_name(s) for s in self.alive_seats())

    def after_vote(self, accused: int | None) -> None:
        if self.p["rules"] == "magic":
            self.flag = 2 if accused is None else 0 if accused == self.special else 1
            self.finish()
            return
        if accused is not None:
            self.eliminate(accused, "voted out")
        if self.should_end():
            self.finish()
        else:
            self.start_round(self.round + 1)

    def special_won(self) -> bool | None:
        """True/False who won; None for MAgIC's tie."""
        if self.p["rules"] == "magic":
            return None if self.flag == 2 else self.flag == 1
        return self.alive[self.special]

    def verdict(self) -> str:
        won = self.special_won()
        who = f"{self.player_name(self.special)} was the {self.special_role} (word: {self.odd_word}; " \
              f"the others had: {self.common_word})."
        if won is None:
            return "The vote is tied: a draw. " + who
        return ("The " + self.special_role + " wins. " if won else "The civilians win. ") + who

    def scores(self) -> dict[int, float]:
        n = len(self.alive)
        rules = self.p["rules"]
        if rules == "magic":
            odd, common = MAGIC_CREDITS[self.flag]
            return {s: float(odd if s == self.special else common) for s in range(n)}
        won = self.special_won()
        if rules == "llmarena":
            return {s: float(won == (s == self.special)) for s in range(n)}
        out_round = self.eliminated[self.special][0] if self.special in self.eliminated else None
        spy, pool = wis_base_scores(out_round)
        survivors = [s for s in self.alive_seats() if s != self.special]
        scores = {s: (spy if s == self.special else pool / len(survivors) if s in survivors else 0.0)
                  for s in range(n)}
        for v in self.votes:
            if v["target"] == self.special and v["voter"] != self.special:
                scores[v["voter"]] += 1
                scores[self.special] -= 1
        return scores

    def result(self) -> dict[int, SeatResult]:
        scores = self.scores()
        ranks = rank_by(scores)
        won = self.special_won()
        out = {}
        for s, score in scores.items():
            if self.p["rules"] == "magic":
                seat_won = score == MAGIC_MAX_CREDITS
            else:
                seat_won = won == (s == self.special)
            out[s] = SeatResult(score, seat_won, ranks[s], self.role_of(s))
        return out

    def metrics(self) -> list[tuple[int | None, str, float]]:
        rows = super().metrics()
        scores = self.scores()
        for s in range(len(self.alive)):
            if self.p["rules"] == "magic":
                rows += [(s, "credits", scores[s]), (s, "max_credits", MAGIC_MAX_CREDITS)]
            own = self.words[s]
            other = self.common_word if s == self.special else self.odd_word
            mine = [(i, c) for i, c in enumerate(self.clues) if c.seat == s]
            described = sum(describes_own_word(c.text, own, other, [e.text for e in self.clues[:i]]) for i, c in mine)
            rows += [(s, "clues_given", len(mine)), (s, "clues_describing_own_word", described)]
            probes = [g for g in self.guesses if g["seat"] == s]
            right = [[same_word(guess, self.words[int(name.split()[-1]) - 1]) for name, guess in g["words"].items()]
                     for g in probes]
            rows += [(s, "word_guess_probes", len(probes)),
                     (s, "word_guess_any", sum(any(r) for r in right)),
                     (s, "word_guess_all", sum(bool(r) and all(r) for r in right))]
        return rows

    def outcome(self) -> dict[str, Any]:
        won = self.special_won()
        return self.base_outcome() | {
            "rules": self.p["rules"], "flag": self.flag, "undercover_word": self.odd_word,
            "civilian_word": self.common_word,
            "winner": "tie" if won is None else self.special_role if won else "civilians",
            "scores": {str(s): v for s, v in self.scores().items()},
        }
