"""The social-deduction core shared by Chameleon and Undercover (MAgIC, LLMArena, Who-is-Spy), one job
per module:

- `rounds`: the round machinery (`SocialDeduction`: clue rounds, probes, votes, eliminations, figures);
- `parameters`: the parameters both games share;
- `dealing`: the word setting, the special seat and the scripted clues of a match;
- `answers`: reading clues, votes and probes (and MAgIC's own readings), and comparing words;
- `word_settings`: the word settings and word pairs read from engine/data;
- `bots`: the scripted players of both games;
- `overlays`: Who-is-Spy's strategies (attack, defense, reasoning) and the pgm belief question.

The names below are the package's public ones, for the tests and the scorers.
"""

import engine.games.social.bots  # noqa: F401 - the registry imports this package only: it declares the bots
from engine.games.social.answers import BeliefSpace, TextSpace, WordGuessSpace, read_belief_text
from engine.games.social.overlays import ATTACK_TEXT, DEFENSE_TEXT, REASONING_TEXT
from engine.games.social.parameters import SOCIAL_PARAMS
from engine.games.social.rounds import SocialDeduction
from engine.games.social.word_settings import DATA_DIR, llmarena_word_pairs, magic_settings

__all__ = [
    "ATTACK_TEXT", "DATA_DIR", "DEFENSE_TEXT", "REASONING_TEXT", "SOCIAL_PARAMS", "BeliefSpace", "SocialDeduction",
    "TextSpace", "WordGuessSpace", "llmarena_word_pairs", "magic_settings", "read_belief_text",
]
