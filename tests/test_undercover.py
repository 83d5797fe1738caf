"""Undercover: MAgIC's flags and credits, LLMArena's study figures, Who-is-Spy's fouls and scores."""

from __future__ import annotations

import json
import random

import pytest

from engine.agents.prompting import render, versions
from engine.games import get_game
from engine.games.base import ParseError
from engine.games.social import llmarena_word_pairs, magic_settings
from engine.games.social.bots import letters_player
from engine.games.undercover import describes_own_word, wis_base_scores
from tests.game_play import new_game
from tests.game_play import speak_all as speak_clues


def new(preset="default", seed=0, **params):
    return new_game("undercover", seed, preset, **params)


def speak_all(game, text="round {r}, seat {s} speaks"):
    speak_clues(game, text)


def test_word_data_is_there():
    assert len(magic_settings("undercover")) == 20
    # the authors' file, said to hold 69 pairs, has 70 lines (the last one unterminated)
    assert len(llmarena_word_pairs()) == 70 and llmarena_word_pairs()[0] == ("Apple", "Pear")


def magic_game(votes):
    game = new(setting=0, role_seat=1, probes=False)
    speak_all(game)
    assert game.round == 1 and game.stage == "clue" or game.round == 2
    speak_all(game)
    assert game.stage == "vote" and game.round == 2
    game.step(votes)
    assert game.done()
    return game, [r.score for _, r in sorted(game.result().items())]


def test_magic_two_clue_rounds_then_one_vote_and_credits():
    caught, c = magic_game({0: 1, 1: 0, 2: 1})
    assert caught.outcome()["flag"] == 0 and c == [3, 0, 3] and len(caught.clues) == 6
    survives, c = magic_game({0: 2, 1: 2, 2: 0})
    assert survives.outcome()["flag"] == 1 and c == [0, 3, 0] and survives.result()[1].won
    tie, c = magic_game({0: 1, 1: 2, 2: 0})
    assert tie.outcome()["flag"] == 2 and c == [1, 2, 1] and not any(r.won for r in tie.result().values())


def test_magic_roles_are_not_told():
    game = new(setting=0)
    assert game.observe(0).view["known_role"] is None
    assert all("undercover" not in line.lower() for line in game.history(0) if "secret word" in line)


def guess_all(odd, common, seats, wrong=()):
    """Each seat's guesses: the right word for every other player, except `wrong` seats guess "nothing"."""
    return {s: {f"Player {o + 1}": "nothing" if s in wrong else (odd if o == 4 else common)
                for o in range(5) if o != s} for s in seats}


def test_llmarena_undercover_survives_two_rounds_and_word_guesses_are_scored_from_the_vote_answer():
    game = new("llmarena", seed=3)
    # as the authors' env: the undercover is the last player, speaks last, and holds the pair's first word
    assert game.special == 4 and len(game.alive) == 5 and game.pending == [0, 1, 2, 3, 4]
    assert (game.odd_word, game.common_word) == llmarena_word_pairs()[3]
    speak_all(game)
    # the authors' vote prompt: the guesses first, then the vote, in ONE answer (undercover_v1/opponent.py)
    assert game.stage == "words_vote" and game.to_act() == [0, 1, 2, 3, 4]
    assert '"vote"' in game.observe(0).view["format"] and '"Player 2 word"' in game.observe(0).view["format"]
    odd, common = game.odd_word, game.common_word
    votes = {0: 1, 1: 2, 2: 1, 3: 1, 4: 1}  # a civilian goes out
    game.step({s: game.parse(s, json.dumps({**{f"{n} word": w for n, w in words.items()},
                                            "vote": f"Player {votes[s] + 1}"}))
               for s, words in guess_all(odd, common, range(5)).items()})
    assert game.eliminated == {1: (1, "voted out")} and game.round == 2 and len(game.guesses) == 5
    speak_all(game)
    assert game.stage == "words_vote"
    game.step({s: {"words": w, "vote": v} for (s, w), v in
               zip(guess_all(odd, common, game.alive_seats(), wrong=(2,)).items(), (2, 3, 0, 0), strict=True)})
    assert game.done() and game.result()[4].won and game.outcome()["winner"] == "undercover"
    m = {(s, n): v for s, n, v in game.metrics()}
    assert m[(2, "word_guess_any")] == 1 and m[(2, "word_guess_all")] == 1 and m[(2, "word_guess_probes")] == 2
    assert m[(0, "word_guess_all")] == 2 and m[(4, "clues_given")] == 2


def test_llmarena_word_probe_separate_asks_the_guesses_before_the_vote():
    game = new("llmarena", seed=3, word_probe="separate")
    speak_all(game)
    assert game.stage == "words"
    game.step(guess_all(game.odd_word, game.common_word, range(5)))
    assert game.stage == "vote" and len(game.guesses) == 5
    game.step({0: 4, 1: 4, 2: 4, 3: 4, 4: 0})
    assert game.done() and game.outcome()["winner"] == "civilians"
    assert {(s, n): v for s, n, v in game.metrics()}[(3, "word_guess_all")] == 1


def test_a_match_stored_before_word_probe_replays_its_separate_probe():
    cls = get_game("undercover")
    stored = cls.resolve_params({}, "llmarena")
    del stored["word_probe"]
    game = cls(stored)
    game.reset(3)
    speak_all(game)
    assert game.stage == "words"


def test_the_vote_answer_reads_as_the_authors_and_a_missing_guess_costs_nothing():
    game = new("llmarena", seed=3)
    speak_all(game)
    # the authors' format: free guesses, then "vote: <player>"; the guesses there are not JSON: recorded empty
    said = game.parse(0, "Player 2 has Pear, Player 5 maybe Apple.\nvote: Player 5.")
    assert said == {"words": {f"Player {o}": "" for o in (2, 3, 4, 5)}, "vote": 4}
    assert game.parse(0, "Vote: Player 3, not Player 2")["vote"] == 2  # theirs: the first one after "vote:"
    said = game.parse(1, '{"Player 1 word": "Pear", "Player 5 word": "apple", "vote": "Player 5"}')
    assert said["vote"] == 4 and said["words"]["Player 1"] == "Pear" and said["words"]["Player 3"] == ""
    for unreadable in ("Player 2 has Pear, I suspect Player 5", '{"vote": "Player 2"}', "vote: nobody"):
        with pytest.raises(ParseError):
            game.parse(1, unreadable)  # no vote, or a vote for oneself / nobody listed


def test_magic_and_wis_rules_keep_the_separate_word_probe():
    for preset, players in (("magic", 3), ("wis", 6)):
        game = new(preset, seed=0, probes=False, word_guesses=True, role_seat=0, first_speaker=0)
        speak_all(game)
        if preset == "magic":
            speak_all(game)
        assert game.stage == "words" and len(game.to_act()) == players


def test_llmarena_tied_vote_eliminates_one_of_the_most_voted_at_random():
    out = set()
    for seed in range(12):
        game = new("llmarena", seed=seed, word_guesses=False)
        speak_all(game)
        game.step({0: 1, 1: 0, 2: 1, 3: 0, 4: 2})  # Players 2 and 1 tie on two votes
        assert len(game.eliminated) == 1
        out |= set(game.eliminated)
    assert out == {0, 1}  # either of the tied, drawn by the match's seed


def test_description_judge():
    assert describes_own_word("It is red and crunchy", "Apple", "Pear", [])
    assert not describes_own_word("An apple a day", "Apple", "Pear", [])
    assert not describes_own_word("Like a pear", "Apple", "Pear", [])
    assert not describes_own_word("It is red", "Apple", "Pear", ["it is RED!"])


def test_wis_fouls_eliminate_at_once_and_speech_is_cut():
    game = new("wis", seed=2, role_seat=0, first_speaker=0)
    civ = game.common_word
    game.step({0: "x" * 1000})
    assert len(game.clues[0].text) == 400 and game.clues[0].foul is None
    game.step({1: f"I would say {civ.upper()} obviously"})
    game.step({2: "X" * 400 + "!"})  # the same speech after the cut: a repeat
    game.step({3: ""})
    assert [c.foul for c in game.clues[1:]] == ["stated their own word", "repeated an earlier speech",
                                                "empty or late speech"]
    assert not any(game.alive[s] for s in (1, 2, 3)) and game.to_act() == [4]
    game.step({4: "fine"})
    assert game.stage == "clue" and game.to_act() == [5]
    game.step({5: "fine"})  # a repeat: only the spy and one civilian are left
    assert game.done() and game.outcome()["winner"] == "spy" and game.alive_seats() == [0, 4]
    assert not game.votes  # nobody votes once fewer than 3 remain


def test_wis_scores_sum_to_twelve_and_follow_the_table():
    assert wis_base_scores(1) == (0, 12) and wis_base_scores(2) == (4, 8) and wis_base_scores(3) == (8, 4)
    assert wis_base_scores(None) == (12, 0)
    game = new("wis", seed=5, role_seat=3, first_speaker=0)
    speak_all(game)
    game.step({0: 3, 1: 3, 2: 4, 3: 4, 4: 3, 5: None})  # 3 civilian votes put the spy out
    assert game.done() and game.eliminated == {3: (1, "voted out")}
    scores = {s: r.score for s, r in game.result().items()}
    assert scores[3] == 0 - 3
    assert scores[0] == scores[1] == scores[4] == 12 / 5 + 1 and scores[2] == scores[5] == 12 / 5
    assert abs(sum(scores.values()) - 12) < 1e-9
    assert game.result()[0].won and not game.result()[3].won


def test_wis_spy_out_in_round_two_and_survival_rounds():
    game = new("wis", seed=5, role_seat=3, first_speaker=0)
    speak_all(game)
    game.step({0: 1, 1: 0, 2: 1, 3: 1, 4: 1, 5: 3})  # civilian 1 out; one civilian vote on the spy
    speak_all(game)
    game.step({0: 3, 2: 3, 3: 0, 4: 3, 5: 3})
    scores = {s: r.score for s, r in game.result().items()}
    assert scores[3] == 4 - 1 - 4 and scores[1] == 0 and scores[5] == 8 / 4 + 2
    m = {(s, n): v for s, n, v in game.metrics()}
    assert m[(1, "survival_rounds")] == 0 and m[(0, "survival_rounds")] == 2 and m[(3, "eliminated_round")] == 2


def test_the_combined_ask_renders_in_every_prompt_version():
    game = new("llmarena", seed=3)
    speak_all(game)
    obs = game.observe(0)
    for version in versions("undercover"):
        ask = render(obs, version)[-1]["content"]
        assert '"Player 5 word"' in ask and '"vote"' in ask and "undercover" in ask


def test_llm_seats_answer_guesses_and_vote_in_one_turn_through_the_stub(stub):
    import asyncio

    from engine.agents import AgentSpec
    from engine.play.playing import play_match
    from engine.play.spec import MatchPlan
    from engine.testing import StubReply

    def answer(request):
        ask = request["messages"][-1]["content"]
        me = request["messages"][0]["content"].split("You are ", 1)[1].split(" in a game", 1)[0]
        if '"clue"' in ask:
            return StubReply(f'{{"clue": "{me} says it grows on trees"}}')
        guesses = ", ".join(f'"Player {o} word": "Pear"' for o in range(1, 6) if f"Player {o}" != me)
        return StubReply(f"{{{guesses}}}\nvote: {'Player 1' if me == 'Player 5' else 'Player 5'}")

    stub.responder = answer
    llm = AgentSpec(agent="openai/stub-model", api_base=stub.url)
    cls = get_game("undercover")
    plan = MatchPlan(match_id="uc-llm", run_id="t", game="undercover", preset="llmarena",
                     params=cls.resolve_params({}, "llmarena"), seed=0, repeat=0, lineup=0, seats=[llm] * 5)
    record = asyncio.run(play_match(plan))
    assert record.match["status"] == "ok", record.match["error"]
    phases = [t["phase"] for t in record.turns if t["seat"] is not None]
    assert phases == ["clue"] * 5 + ["words_vote"] * 5  # one decision per player at the vote, no probe turn
    assert not any(t["fallback"] for t in record.turns if t["seat"] is not None)
    assert json.loads(record.match["outcome"])["winner"] == "civilians"
    figures = {(m["seat"], m["name"]): m["value"] for m in record.metrics}
    assert [figures[(s, "word_guess_probes")] for s in range(5)] == [1] * 5
    # the pair's second word is the civilians' (Apple/Pear): a civilian is right on the 3 other civilians only
    assert figures[(0, "word_guess_any")] == 1 and figures[(0, "word_guess_all")] == 0
    assert figures[(4, "word_guess_all")] == 1  # the undercover: all four hold Pear


def test_letters_bots_answer_the_combined_ask():
    game = new("llmarena", seed=3)
    rng = random.Random(0)
    while not game.done():
        game.step({s: letters_player(game.observe(s), rng, None) for s in game.to_act()})
    assert game.guesses and all(len(g["words"]) == 4 for g in game.guesses) and game.votes
    assert all(isinstance(v["target"], int) and v["target"] != v["voter"] for v in game.votes)
