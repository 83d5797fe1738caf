"""The social-deduction core: private words, visibility, speaking order, votes and ties, parsers."""

from __future__ import annotations

import pytest

from engine.games import get_game
from engine.games.base import ParseError
from engine.games.social import BeliefSpace, TextSpace, WordGuessSpace, read_belief_text
from engine.games.social.answers import IdentityStatementSpace, states_identity
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
    assert game.stage == "consistency"
    before = len(game.log)
    game.step({s: f"I am Player {s + 1}, my role is undercover" for s in game.to_act()})
    game.step({s: {"suspect": "Player 1", "thinks": {}} for s in game.to_act()})
    assert game.stage == "clue" and len(game.log) == before + 1  # only the call to round 2's clues
    assert [a["seat"] for a in game.role_answers] == [0, 1, 2]
    chameleon = new_game("chameleon", seed=1, setting=0)
    before = len(chameleon.log)
    chameleon.step({s: f"I am Player {s + 1}, my role is chameleon" for s in chameleon.to_act()})
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
    """A MAgIC vote naming nobody is re-asked; with `vote_reading: last` a vote for oneself is too (with the
    authors' reading it counts: see test_magic_vote_is_the_first_player_in_seat_order_the_answer_names)."""
    wis = new_game("undercover", seed=0, preset="wis", role_seat=0, first_speaker=0)
    speak_all(wis, "speech {s}")
    assert wis.parse(1, "I am not sure at all") is None
    assert wis.parse(1, '{"vote": "Player 4"}') == 3
    with pytest.raises(ParseError):
        wis.parse(1, "")
    magic = new_game("undercover", seed=0, probes=False, vote_reading="last")
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


def test_magic_vote_is_the_first_player_in_seat_order_the_answer_names():
    """MAgIC's `_text2vote` (cathyxl/MAgIC chameleon_competition.py, undercover_competition.py): the first
    player IN SEAT ORDER named anywhere, the voter's own name included; `vote_reading: last` keeps ours."""
    for name in ("chameleon", "undercover"):
        game = new_game(name, seed=0, probes=False)
        while game.stage == "clue":
            speak_all(game)
        assert game.stage == "vote"
        assert game.parse(0, 'Player 2 gave a vague clue. I vote for Player 3. {"vote": "Player 3"}') == 1
        assert game.parse(0, "I vote for Player 3, not Player 2") == 1  # seat order, not text order
        assert game.parse(2, "As Player 1 said, I vote for player_2") == 0  # any spelling, anywhere
        assert game.parse(0, "As Player 1, I vote for Player 3.") == 0  # its own name: a vote for itself
        with pytest.raises(ParseError):
            game.parse(0, "I cannot decide")
        last = new_game(name, seed=0, probes=False, vote_reading="last")
        while last.stage == "clue":
            speak_all(last)
        assert last.parse(0, 'Player 2 gave a vague clue. I vote for Player 3. {"vote": "Player 3"}') == 2
        assert last.parse(0, "I vote for Player 3, not Player 2") == 1
    wis = new_game("undercover", seed=0, preset="wis", role_seat=0, first_speaker=0)
    speak_all(wis, "speech {s}")
    assert wis.parse(1, "Player 3 is suspicious, but I vote for Player 4") == 3  # other rules: unchanged


def test_a_vote_for_oneself_counts_in_the_tally_as_the_authors_count_it():
    game = new_game("chameleon", seed=0, probes=False, setting=0, role_seat=2)
    speak_all(game)
    votes = {s: game.parse(s, text) for s, text in
             [(0, "As Player 1, I vote for Player 3"), (1, "I vote for Player 3"), (2, "I vote for Player 1")]}
    assert votes == {0: 0, 1: 2, 2: 0}
    game.step(votes)
    assert game.accused == 0 and game.outcome()["flag"] == 2  # Player 1 most-voted: a wrong accusation


def test_magic_role_probe_is_the_authors_identity_statement():
    """MAgIC's `parse_consistency`: right only with "I am <own name>" and "my role is <own role>", articles
    dropped, case-sensitive phrases, the role phrase running on over words and spaces."""
    me, role = "Player 2", "non-chameleon"
    assert states_identity("I am Player 2, my role is non-chameleon.", me, role)
    assert states_identity("I am Player 2 and my role is the non-chameleon", me, role)
    assert not states_identity("I am Player 3, my role is non-chameleon", me, role)  # the wrong player
    assert not states_identity("I am Player 2, my role is chameleon", me, role)  # the wrong role
    assert not states_identity("i am player 2, my role is non-chameleon", me, role)  # case-sensitive
    assert not states_identity("I am Player 2, my role is non-chameleon because I know the word", me, role)
    assert not states_identity("yes", me, role)
    space = IdentityStatementSpace(("chameleon", "non-chameleon"))
    assert space.parse("  I am Player 1, my role is chameleon ") == "I am Player 1, my role is chameleon"
    assert "I am Player N, my role is chameleon/non-chameleon" in space.describe()
    with pytest.raises(ParseError):
        space.parse("  ")


def test_magic_role_probe_scores_the_statements_and_yes_no_stays_a_parameter():
    game = new_game("undercover", seed=1, preset="magic", role_seat=1)
    speak_all(game)
    assert game.stage == "consistency" and game.observe(0).phase == "consistency"
    game.step({0: game.parse(0, "I am Player 1, my role is non-undercover, because the clues match mine"),
               1: game.parse(1, "I am Player 2, my role is undercover"),
               2: game.parse(2, "I am Player 3, my role is not sure, because...")})
    assert [a["correct"] for a in game.role_answers] == [True, True, False]
    yes_no = new_game("undercover", seed=1, preset="magic", role_seat=1, role_probe="yes_no")
    speak_all(yes_no)
    assert yes_no.stage == "role"
    yes_no.step({0: yes_no.parse(0, '{"answer": "no"}'), 1: "yes", 2: "yes"})
    assert [a["correct"] for a in yes_no.role_answers] == [True, True, False]
    wis = new_game("undercover", seed=1, preset="wis", probes=True)
    speak_all(wis)
    assert wis.stage == "role"  # other rules: unchanged


def test_a_match_stored_before_the_role_probe_parameter_replays_with_yes_no():
    """Stored params are resolved in full when a match is planned: one without `role_probe` was played with
    the yes/no probe, and `rescore` must read its answers that way."""
    cls = get_game("chameleon")
    stored = {k: v for k, v in cls.resolve_params({"setting": 0}).items() if k != "role_probe"}
    game = cls(stored)
    game.reset(0)
    assert game.stage == "role" and game.p["role_probe"] == "yes_no"
