"""MAgIC's social abilities and LLMArena's Undercover figures, on hand-made matches whose answers
are worked out below, and on a bot run."""

from __future__ import annotations

import asyncio
import json

import pytest

from engine import store
from engine.papers import seat_summary
from engine.papers.magic.belief_reasoning import REASONING_ITEMS
from engine.papers.magic.social import llmarena_undercover_figures, social_abilities
from engine.papers.seat_summary import summed_seat_rows
from engine.play.runner import run_spec
from engine.play.spec import parse_spec
from engine.store.selection import ALL, Selection

pytestmark = pytest.mark.slow


def _turn(match_id, turn, seat, phase, action, fallback=False):
    return {"match_id": match_id, "turn": turn, "round": 1, "phase": phase, "seat": seat, "prompt": None,
            "response": "", "action": json.dumps(action), "legal": not fallback, "fallback": fallback,
            "retries": 0, "error": None, "state": None, "reward": None, "tokens_in": 0, "tokens_out": 0,
            "cost_usd": 0.0, "latency_ms": 0.0, "cached": False}


def _write(db, match_id, game, rules, special, hero_seat, hero_role, won, metrics, outcome, turns=()):
    now = store.now()
    match = {"match_id": match_id, "run_id": "hand", "game": game, "preset": rules, "params":
             json.dumps({"rules": rules}), "seed": 0, "repeat": 0, "status": "ok", "error": None,
             "started_at": now, "finished_at": now,
             "outcome": json.dumps({"special_seat": special, "words": ["w"] * 3} | outcome)}
    seats = []
    for s in range(3):
        role = hero_role if s == hero_seat else ("chameleon" if game == "chameleon" else "undercover") \
            if s == special else ("non-chameleon" if game == "chameleon" else "civilian")
        seats.append({"match_id": match_id, "seat": s, "player": f"Player {s + 1}", "agent": "bot:x",
                      "role": role, "prompt_version": None, "strategy": None, "temperature": None, "score": 0.0,
                      "won": won if s == hero_seat else not won, "rank": 1, "label": "X" if s == hero_seat else "D"})
    rows = [{"match_id": match_id, "seat": hero_seat, "name": k, "value": float(v)} for k, v in metrics.items()]
    store.write_match(db, match, seats, [_turn(match_id, i, *t) for i, t in enumerate(turns)], rows)


def belief(suspect, **thinks):
    return {"action": {"suspect": suspect, "thinks": {k.replace("_", " "): v for k, v in thinks.items()}}}


@pytest.fixture
def hand_db(db_path):
    store.init_db(db_path)
    # A: X is the chameleon and wins (flag 2, 2/2); its belief is right on both items (gold and inter)
    _write(db_path, "A", "chameleon", None, 0, 0, "chameleon", True,
           {"credits": 2, "max_credits": 2, "role_probes": 1, "role_probes_correct": 1}, {"flag": 2},
           [(0, "belief", belief("Player 1", Player_2="Player 3", Player_3="Player 1")),
            (1, "belief", belief("Player 3", Player_1="Player 2", Player_3="Player 1")),
            (2, "belief", belief("Player 1", Player_1="Player 2", Player_2="Player 1"))])
    # B: X is a non-chameleon, votes right, the chameleon guesses wrong (flag 0: X gets 2/2); no beliefs
    _write(db_path, "B", "chameleon", None, 0, 1, "non-chameleon", True,
           {"credits": 2, "max_credits": 2, "votes_cast": 1, "votes_correct": 1, "role_probes": 1,
            "role_probes_correct": 1}, {"guess_correct": False, "flag": 0})
    # C: X is a civilian, votes wrong, the undercover survives (flag 1, 0/3); its pgm belief text is read
    # first: suspect Player 1 (wrong: Player 2 is); Player 1 thinks Player 2 and Player 2 thinks Player 3,
    # both as they said: the inter item is right
    pgm = ("As Player 3, I think: Player 1 is more suspicious. I think now Player 1 thinks: Player 2 is more "
           "suspicious. I think now Player 2 thinks: Player 3 is more suspicious.")
    _write(db_path, "C", "undercover", "magic", 1, 2, "civilian", False,
           {"credits": 0, "max_credits": 3, "votes_cast": 1, "votes_correct": 0, "role_probes": 2,
            "role_probes_correct": 1}, {"flag": 1},
           [(0, "belief", belief("Player 2", Player_2="Player 1", Player_3="Player 1")),
            (1, "belief", belief("Player 3", Player_1="Player 1", Player_3="Player 1")),
            (2, "belief", belief("Player 2", Player_1="Player 3", Player_2="Player 1") | {"extra": {"belief": pgm}})])
    # D: X is the undercover (Player 1) and is caught (flag 0, 0/3); its first belief probe fell back: read as the
    # authors' zero row, its suspect is Player 1, the special player (gold right), and whom it thinks the others
    # suspect Player 1, where Player 2 said Player 3 (inter wrong)
    _write(db_path, "D", "undercover", "magic", 0, 0, "undercover", False,
           {"credits": 0, "max_credits": 3, "role_probes": 2, "role_probes_correct": 0}, {"flag": 0},
           [(0, "belief", belief("Player 1", Player_2="Player 3", Player_3="Player 2"), True),
            (1, "belief", belief("Player 3", Player_1="Player 2", Player_3="Player 1"))])
    # F: X is the chameleon, caught, and guesses the word (flag 1: 1/2, not `won`, yet a Deception win)
    _write(db_path, "F", "chameleon", None, 2, 2, "chameleon", False,
           {"credits": 1, "max_credits": 2, "role_probes": 1, "role_probes_correct": 1}, {"flag": 1})
    # G: X is a non-chameleon whose vote could not be read: the random fallback hit the chameleon, still
    # a wrong vote; the chameleon guessed right (flag 1)
    _write(db_path, "G", "chameleon", None, 0, 1, "non-chameleon", False,
           {"credits": 1, "max_credits": 2, "votes_cast": 1, "votes_correct": 1, "role_probes": 1,
            "role_probes_correct": 0}, {"guess_correct": True, "flag": 1},
           [(1, "vote", {"action": 0}, True)])
    # a WiS match must not count
    _write(db_path, "E", "undercover", "wis", 0, 0, "undercover", True, {"credits": 3, "max_credits": 3}, {})
    return db_path


def test_social_abilities_follow_metrics_release(hand_db):
    table = social_abilities(hand_db)
    assert list(table.agent) == ["X · bot:x"] and list(table.strategy) == ["-"]
    row = table.iloc[0]
    assert row.chameleon_wr == pytest.approx(3 / 4) and row.non_chameleon_wr == pytest.approx(3 / 4)
    assert row.undercover_wr == 0.0 and row.civilian_wr == 0.0
    assert row.judgement == pytest.approx(1 / 3)  # B right; C wrong; G's fallback vote counts as wrong
    # flags A 2, F 1 count as wins, D 0 not: 2/3; as a non-chameleon flags {0, 1} were seen: 1/2
    assert row.deception == pytest.approx(2 / 3 + 0.25 * 1 / 2)
    assert row.self_awareness == pytest.approx(4 / 8)  # pooled, unweighted
    assert row.reasoning == pytest.approx((2 + 1 + 1) / (2 + 2 + 2))  # A gold+inter, C inter, D gold (Player 1)
    cleaner = social_abilities(hand_db, missing_suspicion="unmatched").iloc[0]
    assert cleaner.reasoning == pytest.approx((2 + 1 + 0) / (2 + 2 + 2))  # D's failed probe: never right
    assert cleaner.judgement == row.judgement and cleaner.deception == row.deception


def test_a_missing_suspicion_row_reads_as_player_1_as_the_authors_argmax_of_zeros(db_path):
    """compute_pgm_metric (chameleon_competition_pgm.py) takes np.argmax of each suspicion row; a row nobody filled
    is all zeros and names Player 1. X (Player 2) names no suspect of its own and guesses only that Player 3
    suspects Player 2; Player 3 says so, Player 1 states nothing. The chameleon is Player 1."""
    store.init_db(db_path)
    _write(db_path, "Q", "chameleon", None, 0, 1, "non-chameleon", True, {"credits": 2, "max_credits": 2}, {},
           [(1, "belief", belief(None, Player_3="Player 2")), (2, "belief", belief("Player 2"))])
    # authors: gold Player 1 = the chameleon (right); inter: Player 1's missing row and X's missing guess of it
    # both read Player 1 (a match), Player 3's as X guessed -> 2 / 2
    assert social_abilities(db_path).reasoning[0] == 1.0
    # the cleaner reading: no suspect is never right, and an unstated belief matches nothing -> 0 / 2
    assert social_abilities(db_path, missing_suspicion="unmatched").reasoning[0] == 0.0
    with pytest.raises(ValueError, match="missing_suspicion"):
        social_abilities(db_path, missing_suspicion="zeros")


def test_empty_database_gives_empty_tables(db_path):
    assert social_abilities(db_path).empty and llmarena_undercover_figures(db_path).empty


def test_llmarena_figures_on_a_bot_run(db_path):
    spec = parse_spec({"name": "lla", "repeats": 8, "games": [{"game": "undercover", "preset": "llmarena",
                       "lineups": [["bot:letters"] * 4 + [{"agent": "bot:letters", "label": "tested"}]]}]})
    asyncio.run(run_spec(spec, db_path, progress=False))
    table = llmarena_undercover_figures(db_path)
    assert list(table.agent) == ["tested · bot:letters"] and table.games[0] == 8
    won = store.query(db_path, "SELECT avg(won::INT) AS w FROM seats WHERE label = 'tested'").w[0]
    assert table.undercover_win_rate[0] == pytest.approx(won)
    assert table.description_rate[0] == 1.0  # spelling clues never name a word and never repeat
    assert table.guess_rate[0] == 0.0  # it guesses its own word for everyone: always wrong


def _seat_sums(db, condition, keys, selection=ALL):
    """`keys` (columns of the seat summary rows `summed_seat_rows` gives) -> the seats and the sum of the rows of
    the selection that `condition` picks, as the scorers read them."""
    with store.reading(db):
        rows, params = summed_seat_rows(db, selection, condition)
        grouped = store.rows(db, f"SELECT {', '.join(keys)}, sum(seats), sum(total) FROM ({rows}) GROUP BY ALL",
                             params)
    return {tuple(row[:-2]): (int(row[-2]), row[-1]) for row in grouped}


def _lineup(db, match_id, labels, strategies=None):
    """A finished undercover match of its own run (`match_id`) whose seats carry `labels` (and `strategies`), no
    metrics."""
    now = store.now()
    match = {"match_id": match_id, "run_id": match_id, "game": "undercover", "preset": None, "params": "{}",
             "seed": 0, "repeat": 0, "status": "ok", "error": None, "started_at": now, "finished_at": now,
             "outcome": json.dumps({"special_seat": 0, "words": ["w"] * len(labels)})}
    seats = [{"match_id": match_id, "seat": s, "player": f"Player {s + 1}", "agent": "bot:x", "role": "civilian",
              "prompt_version": None, "strategy": (strategies or [None] * len(labels))[s], "temperature": None,
              "score": 0.0, "won": False, "rank": 1, "label": label} for s, label in enumerate(labels)]
    store.write_match(db, match, seats, [], [])


def test_the_challenger_is_the_one_seat_unlike_the_others_else_every_seat(db_path):
    store.init_db(db_path)
    lineups = {"lone": (["D", "X", "D"], None), "mixed": (["X", "Y", "X", "Y"], None), "pair": (["X", "D"], None),
               "self": (["X", "X", "X"], None), "three": (["X", "Y", "Z"], None),
               "strategy": (["X", "X", "X"], [None, "pgm", None])}
    for match_id, (labels, strategies) in lineups.items():
        _lineup(db_path, match_id, labels, strategies)
    # per match (its own run): each agent and strategy -> its seats as the challenger, and those not
    got = {match_id: _seat_sums(db_path, f"k.name = '{seat_summary.SEAT}'", ["agent", "strategy", "challenger"],
                                Selection(run_ids=(match_id,)))
           for match_id in lineups}
    seated = {match_id: {key: seats for key, (seats, _) in rows.items()} for match_id, rows in got.items()}
    x, y, z, d = "X · bot:x", "Y · bot:x", "Z · bot:x", "D · bot:x"
    assert seated == {"lone": {(x, "-", True): 1, (d, "-", False): 2},
                      "mixed": {(x, "-", True): 2, (y, "-", True): 2},
                      "pair": {(x, "-", True): 1, (d, "-", True): 1},
                      "self": {(x, "-", True): 3},
                      "three": {(x, "-", True): 1, (y, "-", True): 1, (z, "-", True): 1},
                      "strategy": {(x, "pgm", True): 1, (x, "-", False): 2}}


def test_a_pgm_belief_text_outside_the_probe_is_read(db_path):
    store.init_db(db_path)
    # X (Player 2) plays a non-chameleon without belief probes; its clue carries the pgm belief text:
    # it suspects Player 1, the chameleon (right); nobody else stated a belief, so the inter item
    # cannot match -> 1 / 2
    text = ("As Player 2, I think: Player 1 is more suspicious. "
            "I think now Player 3 thinks: Player 2 is more suspicious.")
    _write(db_path, "P", "chameleon", None, 0, 1, "non-chameleon", True, {"credits": 2, "max_credits": 2}, {},
           [(1, "clue", {"action": "a clue", "extra": {"belief": text}}), (2, "clue", {"action": "another"})])
    table = social_abilities(db_path)
    assert list(table.agent) == ["X · bot:x"] and table.reasoning[0] == 0.5


def test_reasoning_reads_the_three_belief_probes_of_a_chameleon_game(db_path):
    seats = [{"agent": "bot:letters", "label": f"S{s}"} for s in range(3)]
    spec = parse_spec({"name": "probes", "games": [{"game": "chameleon", "lineups": [seats]}]})
    asyncio.run(run_spec(spec, db_path, progress=False))
    asked = _seat_sums(db_path, f"k.game = 'chameleon' AND k.name = '{REASONING_ITEMS}'", ["agent"])
    # each seat (its own agent): gold + inter, after each of 3 clues
    assert asked == {(f"S{s} · bot:letters",): (1, 6.0) for s in range(3)}


def test_the_challenger_holding_both_common_seats_is_scored_there_not_the_defender(db_path):
    lineup = {"challenger": {"agent": "bot:letters", "label": "hero"},
              "others": {"agent": "bot:random", "label": "def"}}
    spec = parse_spec({"name": "both", "seed": 3, "games": [{"game": "undercover", "preset": "magic",
                                                             "lineups": [lineup]}]})
    asyncio.run(run_spec(spec, db_path, progress=False))
    seated = {key: seats for key, (seats, _) in _seat_sums(
        db_path, f"k.game = 'undercover' AND k.name = '{seat_summary.SEAT}'", ["agent", "role", "challenger"]).items()}
    hero, defender = "hero · bot:letters", "def · bot:random"
    # two matches: the hero is tested as the special seat (the undercover), then holds both common seats (civilians);
    # the defender holds the other seats and is never the challenger
    assert seated == {(hero, "undercover", True): 1, (hero, "civilian", True): 2,
                      (defender, "civilian", False): 2, (defender, "undercover", False): 1}
    table = social_abilities(db_path)
    assert list(table.agent) == ["hero · bot:letters"]
