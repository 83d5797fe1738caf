"""Conformance of every registered game to the protocol of docs/CONTRACTS.md (in the spirit of PettingZoo's
api_test): random legal play always ends, the same seed and actions replay the same match, every
seat gets a result, views and states are JSON, each legal label parses back, prompts render."""

from __future__ import annotations

import json
import random

import pytest

from engine.agents.prompting import render, versions
from engine.games import all_games, get_game
from engine.games.base import Choice, Game, ParseError, SeatResult
from engine.play.match_rows import TALLY
from tests.game_play import new_game

GAMES = sorted(all_games())
SEEDS = range(6)


def play_random(cls: type[Game], seed: int, preset: str = "default") -> tuple[Game, list]:
    game = new_game(cls.name, seed, preset)
    rng = random.Random(seed)
    trace = []
    for _ in range(10_000):
        if game.done():
            break
        seats = game.to_act()
        assert seats, f"{cls.name}: not done but nobody to act"
        actions = {s: game.observe(s).space.sample(rng) for s in seats}
        trace.append((tuple(seats), json.dumps(actions, sort_keys=True, default=str),
                      json.dumps(game.public_state(), sort_keys=True, default=str)))
        game.step(actions)
    assert game.done(), f"{cls.name} did not end"
    return game, trace


@pytest.mark.parametrize("name", GAMES)
def test_random_play_ends_with_a_result_for_every_seat(name):
    cls = all_games()[name]
    for preset in cls.presets:
        for seed in SEEDS:
            game, _ = play_random(cls, seed, preset)
            result = game.result()
            n = cls.n_seats(game.p)
            assert sorted(result) == list(range(n))
            assert all(isinstance(r, SeatResult) and 1 <= r.rank <= n for r in result.values())
            json.dumps(game.outcome())
            json.dumps(game.public_state())
            for seat, name_, value in game.metrics():
                assert seat is None or 0 <= seat < n
                assert isinstance(name_, str) and float(value) == float(value)
                assert name_ not in TALLY, f"{name}: '{name_}' is the runner's tally of the turns; one name, one writer"


@pytest.mark.parametrize("name", GAMES)
def test_same_seed_same_actions_same_match(name):
    cls = all_games()[name]
    for seed in SEEDS:
        first, trace_a = play_random(cls, seed)
        second, trace_b = play_random(cls, seed)
        assert trace_a == trace_b
        assert first.result() == second.result()
        assert [m.text for m in first.log] == [m.text for m in second.log]


@pytest.mark.parametrize("name", GAMES)
def test_views_are_json_and_prompts_render_in_every_version(name):
    game = new_game(name, 3)
    rng = random.Random(3)
    phases_seen = set()
    while not game.done():
        seats = game.to_act()
        for s in seats:
            obs = game.observe(s)
            json.dumps(obs.view, default=str)
            if obs.phase not in phases_seen:
                phases_seen.add(obs.phase)
                for version in versions(name):
                    messages = render(obs, version)
                    assert messages[0]["role"] == "system" and messages[-1]["role"] == "user"
                    assert all(m["content"].strip() for m in messages)
        game.step({s: game.observe(s).space.sample(rng) for s in seats})
    assert "v1" in versions(name)


@pytest.mark.parametrize("name", GAMES)
def test_each_legal_choice_label_parses_back_to_itself(name):
    """The arena's lenient reading, where a game has a paper's own (`reading`): a label named in prose."""
    game = new_game(name, 5, **({"reading": "lenient"} if "reading" in get_game(name).params else {}))
    rng = random.Random(5)
    checked = 0
    while not game.done() and checked < 200:
        seats = game.to_act()
        for s in seats:
            obs = game.observe(s)
            if isinstance(obs.space, Choice):
                labels = obs.space.labels or tuple(str(o) for o in obs.space.options)
                for option, label in zip(obs.space.options, labels, strict=True):
                    assert obs.parse(f"My answer: {label}") == option
                    checked += 1
        game.step({s: game.observe(s).space.sample(rng) for s in seats})


@pytest.mark.parametrize("name", GAMES)
def test_a_bots_answer_reads_in_the_games_move_format_and_parses_back_to_its_move(name):
    """A TicTacToe bot answered `3` (the cell index) while the prompts and the moderator say (row, column) from 1,
    and the board showed its X at (2,1): a bot's recorded answer is written as the game asks a model to write it."""
    import asyncio

    from engine.agents.base import AgentSpec, TurnContext
    from engine.agents.bots import BotAgent

    game = new_game(name, 4)
    bot = BotAgent(AgentSpec("bot:random"))
    rng = random.Random(4)
    checked = 0
    while not game.done() and checked < 60:
        seats = game.to_act()
        actions = {}
        for s in seats:
            obs = game.observe(s)
            decision = asyncio.run(bot.act(obs, TurnContext("m", 4, s, checked, rng)))
            if isinstance(obs.space, Choice):
                labels = obs.space.labels or tuple(str(o) for o in obs.space.options)
                assert labels[obs.space.options.index(decision.action)] in decision.response
            if decision.response.strip():  # a bot saying nothing (no speech) has nothing to read back
                assert obs.parse(decision.response) == decision.action  # as a model's answer would parse
            actions[s] = decision.action
            checked += 1
        game.step(actions)


def test_a_grid_bots_answer_is_the_cell_the_board_shows():
    """The example of the issue: TicTacToe's cell 3 is written (2,1), ConnectFour's column 0 is written 1, after the
    mark as LLMArena's prompts ask ("X: (1, 3)", "X: 1")."""
    assert new_game("tictactoe", 0).observe(0).space.written(3) == "X: (2,1)"
    assert new_game("connect_four", 0).observe(0).space.written(0) == "X: 1"


@pytest.mark.parametrize("name", GAMES)
def test_unknown_parameter_and_preset_are_clear_errors(name):
    cls = all_games()[name]
    with pytest.raises(ValueError, match="no parameter"):
        cls.resolve_params({"no_such_parameter": 1})
    with pytest.raises(ValueError, match="no preset"):
        cls.resolve_params({}, "no_such_preset")


@pytest.mark.parametrize("name", GAMES)
def test_parser_rejects_empty_answers_with_parse_error(name):
    cls = all_games()[name]
    game = cls(cls.resolve_params({}))
    game.reset(0)
    seat = game.to_act()[0]
    for text in ("", "   ", "\n"):
        with pytest.raises(ParseError):
            game.parse(seat, text)


@pytest.mark.parametrize(("name", "preset", "params"), [
    ("chameleon", "default", {}), ("undercover", "default", {}), ("undercover", "llmarena", {}),
    ("undercover", "llmarena", {"word_probe": "separate"}), ("undercover", "wis", {})])
@pytest.mark.parametrize("bot", ["bot:letters", "bot:injector", "bot:obedient"])
def test_a_word_game_bots_every_answer_parses_back_to_what_it_played(name, preset, params, bot):
    """The word games' bots recorded their belief probes and word guesses as `{"suspect": ..., "thinks": {...}}`,
    a shape their own parser could not read back: a transcript showed answers no model could have given. Every
    answer a bot records (clues, statements, beliefs, guesses, votes), as a model's would, parses to its move."""
    import asyncio

    from engine.agents.base import AgentSpec, TurnContext
    from engine.agents.bots import BotAgent

    game = new_game(name, 3, preset, **params)
    player = BotAgent(AgentSpec(bot))
    rng = random.Random(3)
    spaces, turn = set(), 0
    while not game.done():
        actions = {}
        for s in game.to_act():
            obs = game.observe(s)
            decision = asyncio.run(player.act(obs, TurnContext("m", 3, s, turn, rng)))
            if decision.response.strip():  # saying nothing (no speech, no guess) has nothing to read back
                assert obs.parse(decision.response) == decision.action, (type(obs.space).__name__, decision.response)
                spaces.add(type(obs.space).__name__)
            actions[s] = decision.action
            turn += 1
        game.step(actions)
    assert spaces  # the match asked something worth reading back
