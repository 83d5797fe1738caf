"""Counted nouns agree with their number, on the pages and in the CLI alike; titles keep their spelling."""

from engine.wording import count, plural_of, sentence_start


def test_one_is_singular_and_the_rest_plural():
    assert count(1, "match") == "1 match" and count(0, "match") == "0 matches" and count(2, "match") == "2 matches"
    assert count(1204, "turn") == "1,204 turns" and count(1, "turn") == "1 turn"
    assert count(3, "selection") == "3 selections" and count(2, "strategy") == "2 strategies"
    assert count(2, "day") == "2 days" and count(2, "box") == "2 boxes" and count(2, "re-ask") == "2 re-asks"
    assert count(2, "person", "people") == "2 people" and plural_of("error") == "errors"



def test_a_title_opening_a_sentence_keeps_its_spelling():
    """The leaderboard's rank caption used str.capitalize: "γ-Bench score 0-100" read "Γ-bench score 0-100"."""
    assert sentence_start("γ-Bench score 0-100") == "γ-Bench score 0-100"
    assert sentence_start("win rate") == "Win rate" and sentence_start("TrueSkill") == "TrueSkill"
    assert sentence_start("") == ""
