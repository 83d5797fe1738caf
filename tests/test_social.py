"""The social-deduction core: private words, visibility, speaking order, votes and ties, parsers."""

from __future__ import annotations

import pytest

from engine.games.base import ParseError
from engine.games.social import BeliefSpace, TextSpace, WordGuessSpace, read_belief_text
from tests.game_play import new_game, speak_all


def test_words_are_private_and_clues_public():
    game = new_game("undercover", seed=4, preset="wis")
    speak_all(game, "round {r} speech of seat {s}")
    for s in range(6):
        history = "\n".join(game.history(s))
        assert f"Your secret word is: {game.words[s]}." in history
        others = {game.words[o] for o in range(6) if o != s} - {game.words[s]}
        assert not any(f"Your secret word is: {w}." in history for w in others)
        assert all(f"round 1 speech of seat {o}" in history for o in range(6))


def test_probe_answers_are_never_announced():
    game = new_game("undercover", seed=1, preset="magic")
    speak_all(game)
    assert game.stage == "role"
    before = len(game.log)
    game.step({s: "yes" for s in game.to_act()})
    game.step({s: {"suspect": "Player 1", "thinks": {}} for s in game.to_act()})
    assert game.stage == "clue" and len(game.log) == before + 1  # only the call to round 2's clues
    assert [a["seat"] for a in game.role_answers] == [0, 1, 2]
    chameleon = new_game("chameleon", seed=1, setting=0)
    before = len(chameleon.log)
    chameleon.step({s: "yes" for s in chameleon.to_act()})
    assert chameleon.stage == "clue" and len(chameleon.log) == before


def test_speaking_order_starts_at_the_first_speaker_and_skips_the_eliminated():
    game = new_game("undercover", seed=0, preset="wis", first_speaker=4, role_seat=0)
    assert game.pending == [4, 5, 0, 1, 2, 3]
    speak_all(game, "speech {s} in round {r}")
    game.step({s: 2 for s in game.to_act() if s != 2} | {2: 3})  # seat 2 out by 5 votes to 1
    assert game.eliminated[2] == (1, "voted out")
    assert game.pending == [4, 5, 0, 1, 3] and game.round == 2


def test_a_tied_vote_singles_out_no_one():
    game = new_game("undercover", seed=0, preset="wis", role_seat=0, first_speaker=0)
    speak_all(game, "speech {s}")
    game.step({0: 1, 1: 0, 2: 1, 3: 0, 4: None, 5: None})
    assert not game.eliminated and game.round == 2 and game.accused is None
    assert "tied" in game.log[-2].text


def test_text_space_reads_json_or_whole_text_and_cuts():
    space = TextSpace("clue", 400)
    assert space.parse('thinking... {"clue": "It is round"}') == "It is round"
    assert space.parse("  It grows on trees  ") == "It grows on trees"
    assert len(space.parse("a" * 5000)) == 400
    for bad in ("", "   ", "12345", "{}", '{"clue": "42"}'):
        with pytest.raises(ParseError):
            space.parse(bad)


def test_belief_space_needs_every_key():
    space = BeliefSpace(("Player 1", "Player 2", "Player 3"), "Player 1", "chameleon")
    text = '{"suspect": "Player 3", "Player 2 suspects": "player_1", "Player 3 suspects": "Player 2"}'
    assert space.parse(text) == {"suspect": "Player 3", "thinks": {"Player 2": "Player 1", "Player 3": "Player 2"}}
    with pytest.raises(ParseError, match="Player 3 suspects"):
        space.parse('{"suspect": "Player 3", "Player 2 suspects": "Player 1"}')
    with pytest.raises(ParseError):
        space.parse('{"suspect": "Player 9", "Player 2 suspects": "Player 1", "Player 3 suspects": "Player 2"}')


def test_word_guess_space():
    space = WordGuessSpace(("Player 2", "Player 3"))
    assert space.parse('{"Player 2 word": "Pear", "Player 3 word": "Apple"}') == {"Player 2": "Pear",
                                                                                  "Player 3": "Apple"}
    with pytest.raises(ParseError, match="Player 3 word"):
        space.parse('{"Player 2 word": "Pear"}')


def test_free_belief_text_of_the_pgm_style_is_read():
    names = ("Player 1", "Player 2", "Player 3")
    text = ("As Player 1, I think: Player 2 is less suspicious, because the clue fits. Player 3 is more "
            "suspicious, because the clue is vague.\nI think now Player 2 thinks: Player 1 is no change. "
            "Player 3 is more suspicious, because it is generic.\nI think now Player 3 thinks: Player 2 is "
            "more suspicious, because it is too specific.")
    assert read_belief_text(text, names, "Player 1") == {
        "suspect": "Player 3", "thinks": {"Player 2": "Player 3", "Player 3": "Player 2"}}
    assert read_belief_text("nothing useful here", names, "Player 1") is None


def test_wis_vote_that_names_nobody_is_an_abstention_but_magic_vote_is_an_error():
    wis = new_game("undercover", seed=0, preset="wis", role_seat=0, first_speaker=0)
    speak_all(wis, "speech {s}")
    assert wis.parse(1, "I am not sure at all") is None
    assert wis.parse(1, '{"vote": "Player 4"}') == 3
    with pytest.raises(ParseError):
        wis.parse(1, "")
    magic = new_game("undercover", seed=0, probes=False)
    speak_all(magic)
    speak_all(magic)
    with pytest.raises(ParseError):
        magic.parse(1, "I am not sure at all")
    with pytest.raises(ParseError):
        magic.parse(1, "Player 2")  # not yourself


def test_pgm_asks_these_games_a_belief_question_the_reader_understands():
    from engine.agents.strategies import find_probe

    game = new_game("chameleon", seed=0, setting=0)
    probe, _ = find_probe("pgm", "chameleon")
    question = probe.question(game.observe(game.to_act()[0]), None)
    assert "most suspicious" in question and "chameleon" in question
    names = ("Player 1", "Player 2", "Player 3")
    answer = ("As Player 1, I think Player 3 is the most suspicious, because Player 2 said it is red.\n"
              "I think now Player 2 thinks: Player 1 is the most suspicious, because Player 3 agreed.\n"
              "I think now Player 3 thinks: Player 2 is the most suspicious, because of Player 1.")
    assert read_belief_text(answer, names, "Player 1") == {
        "suspect": "Player 3", "thinks": {"Player 2": "Player 1", "Player 3": "Player 2"}}
