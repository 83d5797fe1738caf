"""How each paper's code reads an answer (`reading: authors`), against the arena's lenient reading: what the
authors accepted is played as they played it, what they asked again is asked again (docs/GAMES.md)."""

from __future__ import annotations

import json

import pytest

from engine.agents.prompting import render, versions
from engine.games import get_game
from engine.games.base import ParseError
from tests.game_play import new_game as new
from tests.test_playing_retries import asks_per_turn, decisions, play, retry_note


def parse(name: str, text: str, **params):
    game = new(name, **params)
    return game.parse(game.to_act()[0], text)


@pytest.mark.parametrize("name, key", [("guessing_game", "chosen_number"), ("divide_dollar", "bid_amount"),
                                       ("bar_game", "decision"), ("diner_dilemma", "chosen_dish")])
def test_gamabench_loads_the_whole_answer_as_json(name, key):
    """games/<game>.py `start`: json.loads(answer)[key]; prose around the object is asked again."""
    with pytest.raises(ParseError, match="must be one"):
        parse(name, f'I choose: {{"{key}": "go"}}')
    with pytest.raises(ParseError, match="must be one"):
        parse(name, f'```json\n{{"{key}": "go"}}\n```')
    with pytest.raises(ParseError, match=f'no JSON object with "{key}"'):
        parse(name, f'{{"{key.upper()}": 1}}')  # the key spelled exactly


@pytest.mark.parametrize("name, key", [("public_goods", "tokens_contributed"), ("sealed_bid_auction", "bid")])
def test_goods_and_auction_load_the_span_from_the_first_to_the_last_brace(name, key):
    assert parse(name, f'Thinking it over: {{"{key}": 3}} is my answer.') == 3
    with pytest.raises(ParseError, match="must be one"):  # two objects: the span is no JSON
        parse(name, f'{{"{key}": 3}} or {{"{key}": 4}}')


@pytest.mark.parametrize("value, read", [(12.9, 12), ("12", 12), (True, 1), (-5, -5), (150, 150)])
def test_gamabench_numbers_are_int_of_the_value_whatever_the_range(value, read):
    """int(...) of the value, unchecked: a guess of 150 or -5 is played as the authors' records hold such."""
    assert parse("guessing_game", json.dumps({"chosen_number": value})) == read


@pytest.mark.parametrize("value", ["12.5", None, [3], "twelve"])
def test_gamabench_numbers_int_refuses_are_asked_again(value):
    with pytest.raises(ParseError, match="not an integer"):
        parse("guessing_game", json.dumps({"chosen_number": value}))


def test_the_lenient_reading_keeps_the_arenas_bounds_and_prose():
    with pytest.raises(ParseError, match="outside"):
        parse("guessing_game", '{"chosen_number": 150}', reading="lenient")
    assert parse("guessing_game", 'I choose: {"chosen_number": 7}', reading="lenient") == 7


def test_an_auction_bid_above_the_valuation_is_played_and_scored_as_such():
    game = new("sealed_bid_auction", players=2, rounds=1, formula="paper")
    game.valuations = [100, 50]
    bids = {s: game.parse(s, json.dumps({"bid": b})) for s, b in ((0, 120), (1, 40))}
    game.step(bids)
    record = game.records[0]
    assert record["bids"] == [120, 40] and record["winner"] == 0 and record["payoffs"][0] == -20
    score = [v for s, n, v in game.metrics() if s is None and n == "gamabench_score"][0]
    assert score == pytest.approx(((100 - 120) + (50 - 40)) / 2 / 100 * 100)


def test_a_diner_answer_neither_word_is_the_costly_dish():
    assert parse("diner_dilemma", '{"chosen_dish": "costly_or_cheap"}') == "costly"
    assert parse("diner_dilemma", '{"chosen_dish": "CHEAP"}') == "cheap"
    with pytest.raises(ParseError):
        parse("diner_dilemma", '{"chosen_dish": "costly_or_cheap"}', reading="lenient")


def test_bar_decisions_other_than_go_or_stay_are_asked_again():
    assert parse("bar_game", '{"decision": "Go"}') == "go"
    with pytest.raises(ParseError, match='not "go" or "stay"'):
        parse("bar_game", '{"decision": "maybe"}')


def test_out_of_range_dollar_and_goods_answers_are_played():
    record, _ = play("divide_dollar", lambda seat, m: '{"bid_amount": 150}', players=2, rounds=1)
    assert [json.loads(t["action"])["action"] for t in decisions(record)] == [150, 150]
    record, _ = play("public_goods", lambda seat, m: 'Mine: {"tokens_contributed": -3}', players=2, rounds=1)
    assert [json.loads(t["action"])["action"] for t in decisions(record)] == [-3, -3]


def test_auction_ties_are_drawn_among_the_highest_bids():
    """games/sealed_bid_auction.py `compute_result`: randint over the tied players, not the lowest seat."""
    winners = set()
    for seed in range(20):
        game = new("sealed_bid_auction", seed=seed, players=3, rounds=1)
        game.step({0: 10, 1: 10, 2: 5})
        winners.add(game.records[0]["winner"])
    assert winners == {0, 1}


def test_tictactoe_takes_the_first_pair_anywhere_in_the_answer():
    """tictactoe_v3/opponent.py: re.findall(r'\\(\\s*\\d\\s*,\\s*\\d\\s*\\)', answer)[0]."""
    assert parse("tictactoe", "(1,2) is the top left corner; X: (3,3)") == 1
    assert parse("tictactoe", "The empty cells are (1,1), (2,3) and (3,2).") == 0
    with pytest.raises(ParseError, match="off the board"):
        parse("tictactoe", "(0,4) is no cell; X: (2,2)")  # the first pair decides, and is no key of theirs
    with pytest.raises(ParseError):
        parse("tictactoe", '{"position": "2,2"}')


def test_connect_four_needs_a_mark_a_colon_and_a_column():
    """connect_four_v3/opponent.py: re.findall(r'[XO]\\s*:\\s*[1-7]', answer)[0], its last character."""
    assert parse("connect_four", "O: 2 blocks, then X: 5") == 1
    assert parse("connect_four", "X: 12") == 0
    for answer in ("4", "I will drop my piece in column 3.", '{"column": 7}', "x: 3"):
        with pytest.raises(ParseError, match='no "X: <column>"'):
            parse("connect_four", answer)


def test_holdem_accepts_only_the_five_action_phrases_after_action():
    """texas_no_limit_v6/opponent.py: the first 'action:' and one of its five phrases, in the lower-cased answer."""
    assert parse("texas_holdem", "ACTION: check and call. Action: Fold") == "call"
    assert parse("texas_holdem", "Action:   All in") == "all_in"
    for answer in ("Action: Call", "Action: Check", "Check and Call", '{"action": "fold"}', "Action: Raise Pot"):
        with pytest.raises(ParseError, match='no "Action: <action>"'):
            parse("texas_holdem", answer)
    assert parse("texas_holdem", "Action: Call", reading="lenient") == "call"


def test_holdem_an_illegal_action_scores_minus_one_and_zero():
    """PettingZoo's TerminateIllegalWrapper: -1 to the offender, 0 to the other (not a fold's chips)."""
    script = {0: "Action: All in", 1: "Action: Raise Full Pot"}
    record, _ = play("texas_holdem", lambda seat, messages: script[seat])
    assert {s["seat"]: (s["score"], s["won"]) for s in record.seats} == {0: (0.0, True), 1: (-1.0, False)}


WIS = get_game("undercover").presets["wis"]


def test_wis_a_speaker_without_a_usable_answer_commits_the_foul_at_once():
    """WiS paper App. A: a speaker gets one chance; not speaking is a foul that eliminates at once (no re-ask)."""
    record, calls = play("undercover", lambda seat, messages: "...", **WIS)
    assert set(asks_per_turn(calls)) == {1}
    fouls = json.loads(record.match["outcome"])["fouls"]
    assert len(fouls) == len(decisions(record)) and {f["foul"] for f in fouls} == {"empty or late speech"}
    assert all(retry_note(t)["outcome"] == "fixed action" for t in decisions(record))


def test_wis_a_vote_without_a_name_is_an_abstention_asked_once():
    said = iter(range(10_000))

    def script(seat, messages):
        if "vote" in messages[-1]["content"].lower():
            return ""
        return f"My thing is somewhat zq{next(said)}x, you see"

    record, calls = play("undercover", script, **WIS)
    votes = [t for t in decisions(record) if t["phase"] == "vote"]
    assert votes and all(json.loads(t["action"])["action"] is None for t in votes)
    assert set(asks_per_turn(calls)) == {1}


@pytest.mark.parametrize("name", ["texas_holdem", "sealed_bid_auction", "public_goods", "diner_dilemma"])
def test_a_prompt_echoed_back_is_no_move_under_the_authors_reading(name):
    """Hold'em read 'All-in' from its own rules echoed back; the authors' reading takes no echo of any version."""
    game = new(name)
    seat = game.to_act()[0]
    obs = game.observe(seat)
    for version in versions(name):
        with pytest.raises(ParseError):
            game.parse(seat, "\n".join(m["content"] for m in render(obs, version)))


def test_tictactoe_reads_an_echoed_hint_line_as_the_authors_regex_would():
    game = new("tictactoe")
    echoed = "\n".join(m["content"] for m in render(game.observe(0), "v1"))
    assert game.parse(0, echoed) == 0  # "[(1,1), (1,2), ...]": their first pair


def test_a_number_no_score_could_hold_is_asked_again():
    with pytest.raises(ParseError, match="too large"):
        parse("guessing_game", '{"chosen_number": 1' + "0" * 400 + "}")


def test_a_pirate_plan_is_never_read_from_numbers_in_prose():
    """games/pirate_game.py `start`: the JSON span around the last key, its golds int() each, checked."""
    game = new("pirate_game", players=3)
    assert game.parse(0, 'So: {"plan": [99, 0, 1]} and done') == [99, 0, 1]
    assert game.parse(0, '{"plan": {"1-th": "97", "2-th": 1, "3-th": 2}}') == [97, 1, 2]
    for answer in ("I keep 99, give 0 and 1 golds", '{"plan": [99, 0, 2]}', "99 0 1"):
        with pytest.raises(ParseError):
            game.parse(0, answer)
    lenient = new("pirate_game", players=3, reading="lenient")
    assert lenient.parse(0, "I keep 99, give 0 and 1 golds") == [99, 0, 1]


def test_a_pirate_vote_is_accept_or_reject_found_in_the_decision():
    game = new("pirate_game", players=3)
    game.step({0: [99, 0, 1]})
    assert game.parse(1, '{"decision": "I Accept it"}') == "accept"
    assert game.parse(1, '{"decision": "accept_or_reject"}') == "accept"  # "accept" tested first, as there
    assert game.parse(1, '{"decision": "Reject"}') == "reject"
    with pytest.raises(ParseError):
        game.parse(1, '{"decision": "maybe"}')
    with pytest.raises(ParseError):
        game.parse(1, "I accept")
