"""Undercover: MAgIC's flags and credits, LLMArena's study figures, Who-is-Spy's fouls and scores."""

from __future__ import annotations

from engine.games.social import llmarena_word_pairs, magic_settings
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


def test_llmarena_undercover_survives_two_rounds_and_word_guesses_are_scored():
    game = new("llmarena", seed=3)
    # as the authors' env: the undercover is the last player, speaks last, and holds the pair's first word
    assert game.special == 4 and len(game.alive) == 5 and game.pending == [0, 1, 2, 3, 4]
    assert (game.odd_word, game.common_word) == llmarena_word_pairs()[3]
    speak_all(game)
    assert game.stage == "words"
    odd, common = game.odd_word, game.common_word
    game.step({s: {f"Player {o + 1}": (odd if o == 4 else common) for o in range(5) if o != s} for s in range(5)})
    game.step({0: 1, 1: 2, 2: 1, 3: 1, 4: 1})  # a civilian goes out
    assert game.eliminated == {1: (1, "voted out")} and game.round == 2
    speak_all(game)
    game.step({s: {f"Player {o + 1}": "nothing" for o in range(5) if o != s} for s in game.alive_seats()})
    game.step({0: 2, 2: 3, 3: 0, 4: 0})  # Player 1 out: the undercover survives both rounds
    assert game.done() and game.result()[4].won and game.outcome()["winner"] == "undercover"
    m = {(s, n): v for s, n, v in game.metrics()}
    assert m[(2, "word_guess_any")] == 1 and m[(2, "word_guess_all")] == 1 and m[(2, "word_guess_probes")] == 2
    assert m[(4, "clues_given")] == 2


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
