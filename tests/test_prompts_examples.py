"""No shipped prompt shows a legal answer as its example (issue 40): SmolLM2 answered v1's "42" every time and v2's
"17", so comparing prompt versions compared their anchors. Every version of every game's prompt is rendered at
every phase a random match reaches; each example it shows (`prompting.examples`) must fail the game's own parser."""

from __future__ import annotations

import itertools
import json
import random
import re

import pytest

from engine.agents.prompting import examples, load_template, render, versions
from engine.games import all_games
from engine.games.base import ParseError
from tests.game_play import new_game

GAMES = sorted(all_games())
SEEDS = range(4)
# parameters under which a game asks what its presets do not: the yes/no role probe, LLMArena's word guesses
ASKED_ALSO = {"chameleon": ({"role_probe": "yes_no"},),
              "undercover": ({"role_probe": "yes_no"}, {"word_guesses": True})}
# γ-Bench's Diner read as its authors did takes any text as a dish (costly but "cheap"), its own placeholder
# "costly_or_cheap" included, and the Pirate vote any text holding "accept" ("accept_or_reject"), as their code read
# their own placeholders (docs/GAMES.md): the examples are checked against the arena's reading
READ_AS = {"diner_dilemma": {"reading": "lenient"}, "pirate_game": {"reading": "lenient"}}


def legal_examples(name: str) -> tuple[dict[tuple[str, str], list[str]], set[str]]:
    """Per (version, phase) reached: the examples of its rendered prompt that the game parses as a legal action;
    and the phases reached. Random play over every preset and a few seeds, each (version, phase) rendered at the
    first decision of each match that reaches it. A parser that reads any text as an action (MAgIC's dilemma read
    as its authors did: "cooperate" anywhere, else defect) makes an example legal only where it reads it otherwise
    than a text without an answer; a free-text field (a clue, a word guess) takes its placeholder as its text ("<word>",
    "..."), which no player means as an answer."""
    legal: dict[tuple[str, str], list[str]] = {}
    reached: set[str] = set()
    for preset, params, seed in itertools.product(all_games()[name].presets, ({}, *ASKED_ALSO.get(name, ())), SEEDS):
        game, rng, seen = new_game(name, seed, preset, **READ_AS.get(name, {}), **params), random.Random(seed), set()
        while not game.done():
            seats = game.to_act()
            for seat in seats:
                obs = game.observe(seat)
                if obs.phase in seen:
                    continue
                seen.add(obs.phase)
                reached.add(obs.phase)
                for version in versions(name):
                    text = "\n".join(m["content"] for m in render(obs, version))
                    for example in examples(text):
                        read = parsed(game, seat, example)
                        if read is not NOTHING and not PLACEHOLDER.search(json.dumps(read, default=str)) \
                                and read != parsed(game, seat, "(no answer here)"):
                            legal.setdefault((version, obs.phase), []).append(example)
            game.step({s: game.observe(s).space.sample(rng) for s in seats})
    return legal, reached


NOTHING = object()
PLACEHOLDER = re.compile(r"<[^<>]*>|\.\.\.")  # "<word>", "<integer>", "..." as a free-text field reads them


def parsed(game, seat: int, text: str):
    """The action `text` parses to, else NOTHING."""
    try:
        return game.parse(seat, text)
    except ParseError:
        return NOTHING


@pytest.mark.parametrize("name", GAMES)
def test_no_prompt_version_shows_a_legal_answer_as_its_example(name):
    legal, reached = legal_examples(name)
    assert legal == {}, f"{name}: examples that are legal answers: {legal}"
    for version in versions(name):  # every phase a template words was checked
        assert set(load_template(name, version)) - {"system"} <= reached, (name, version, reached)


def test_the_examples_are_read_from_json_objects_and_quoted_examples():
    text = ('Answer with a JSON object on the last line, for example: {"chosen_number": 42}\n'
            'Reply with your mark, e.g. "X: (1,3)", or like "Action: Check and Call"; options "go" or "stay".\n'
            'Answer like this: "O: 4", or as in "X: 5"')
    assert examples(text) == ['{"chosen_number": 42}', "X: (1,3)", "Action: Check and Call", "O: 4", "X: 5"]


def test_the_old_anchored_prompts_would_fail():
    """The check has teeth: v1's old example parses as a legal guess, a placeholder does not."""
    game = new_game("guessing_game")
    assert game.parse(0, examples('for example: {"chosen_number": 42}')[0]) == 42
    with pytest.raises(ParseError):
        game.parse(0, examples('Answer: {"chosen_number": <your integer>}')[0])
