"""MAgIC's game-theory games: the 21 settings on disk, Cost Sharing's proposals and votes, the Public
Good's end-of-game payout, the Prisoner's Dilemma payoffs from the settings, the bots and the run spec."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from engine.agents.bots import find_policy
from engine.games import get_game
from engine.games.base import ParseError
from engine.games.cost_sharing import SplitSpace, airport, usage_split
from engine.games.magic_common import DATA_DIR, group_count, load_group
from engine.play.spec import load_spec

THEORY = ("cost_sharing", "prisoners_dilemma", "magic_public_good")


def new(name, **params):
    cls = get_game(name)
    game = cls(cls.resolve_params(params))
    game.reset(0)
    return game


def play(game, policies):
    """Play to the end with one bot policy per seat; returns the game."""
    while not game.done():
        seats = game.to_act()
        game.step({s: find_policy(game.name, policies[s])(game.observe(s), random.Random(s), None) for s in seats})
    return game


RELEASED = Path(__file__).parent / "data" / "magic" / "topics_release"  # cathyxl/MAgIC's released settings
AUTHORS_NAME = {"cost_sharing": "airportfee", "prisoners_dilemma": "prisoner", "magic_public_good": "public_good"}


@pytest.mark.parametrize(("name", "groups"), [("cost_sharing", 7), ("prisoners_dilemma", 7), ("magic_public_good", 8)])
def test_settings_are_groups_of_three_test_seats_and_file_0_is_the_authors_byte_for_byte(name, groups):
    files = sorted((DATA_DIR / name).glob("*.json"), key=lambda p: int(p.stem))
    assert [int(p.stem) for p in files] == list(range(3 * groups)) and group_count(name) == groups
    for g in range(groups):
        seats = {json.loads(files[3 * g + k].read_text())["test_player_name"] for k in range(3)}
        assert seats == {"Player 1", "Player 2", "Player 3"}
    assert len({json.dumps(load_group(name, g), sort_keys=True) for g in range(1, groups + 1)}) == groups
    released = RELEASED / AUTHORS_NAME[name] / "settings" / "0.json"
    assert (DATA_DIR / name / "0.json").read_bytes() == released.read_bytes()


def test_group_one_is_the_authors_released_setting_and_multipliers_include_it():
    assert load_group("prisoners_dilemma", 1)["topic_values"] == {"cooperate": 2, "defect": 1, "one_defect": 4,
                                                                  "two_defect": 2}
    assert [load_group("magic_public_good", g)["multiplier"] for g in range(1, 9)] == [
        3.5, 1, 1.2, 1.5, 1.8, 2, 2.5, 3]  # the released 3.5, then the paper's seven (Figure 10)
    sharing = load_group("cost_sharing", 1)
    assert sharing["topic"].startswith("Fixed Airport Fee: $1,000,000")
    assert sharing["proposal"]["Player 1"] == [40, 30, 30]
    fee, airlines = airport(sharing)  # read from the topic text, as the authors' file states them
    assert fee == 1_000_000 and [(a["name"], a["flights"], a["passengers"]) for a in airlines] == [
        ("Airline A", 90, 7000), ("Airline B", 50, 7500), ("Airline C", 50, 7500)]


def test_a_group_whose_files_disagree_is_refused(tmp_path, monkeypatch):
    import engine.games.magic_common as common
    for seat, value in enumerate((2, 2, 3)):
        (tmp_path / "pd").mkdir(exist_ok=True)
        (tmp_path / "pd" / f"{seat}.json").write_text(json.dumps({"test_player_name": f"Player {seat + 1}",
                                                                  "v": value}))
    monkeypatch.setattr(common, "DATA_DIR", tmp_path)
    common._load_group.cache_clear()
    try:
        with pytest.raises(ValueError, match="differ"):
            common.load_group("pd", 1)
    finally:
        common._load_group.cache_clear()


def test_prisoners_dilemma_plays_the_payoffs_of_its_preset_group():
    cls = get_game("prisoners_dilemma")
    game = cls(cls.resolve_params({}, "magic_6"))  # (5, 1, 8, 3)
    game.reset(0)
    game.step({0: "defect", 1: "cooperate", 2: "cooperate"})
    assert game.totals == [8.0, 0.0, 0.0]
    assert game.observe(1).view["one_defect"] == 8.0
    game.step({0: "defect", 1: "defect", 2: "cooperate"})
    assert game.totals == [11.0, 3.0, 0.0]
    rows = {(s, k): v for s, k, v in game.metrics()}
    assert rows[(0, "rational_moves")] == 2 and rows[(1, "rational_moves")] == 1 and rows[(2, "rational_chances")] == 2


def test_split_parser_reads_json_or_the_last_three_percentages_and_checks_the_sum():
    space = SplitSpace()
    assert space.parse('I think {"proposal": [50, 25, 25]}') == [50, 25, 25]
    assert space.parse("A 60%, B 20% and C 20%") == [60, 20, 20]
    assert space.parse("[33.33, 33.33, 33.34]") == [33.33, 33.33, 33.34]
    for bad in ('{"proposal": [50, 50]}', "40 40 40", '{"proposal": [120, -10, -10]}', "no numbers", "-5 55 50"):
        with pytest.raises(ParseError):
            space.parse(bad)


def test_cost_sharing_agreement_needs_three_votes_for_one_split():
    game = new("cost_sharing")
    game.step({0: [40, 30, 30], 1: [50, 25, 25], 2: [50, 25, 25]})
    assert game.to_act() == [0, 1, 2] and game.observe(0).phase == "vote"
    game.step({0: 0, 1: 1, 2: 2})  # 1 and 2 propose the same split, but 0 votes for its own
    assert not game.done() and game.round == 2
    game.step({0: [40, 30, 30], 1: [50, 25, 25], 2: [50, 25, 25]})
    game.step({0: 1, 1: 2, 2: 1})  # different proposers, one split: success
    assert game.done() and game.agreed == [50, 25, 25]
    assert game.proposers() == [1, 2]
    # judged by the share paid (MAgIC's Cost), not by the deal: seats 1 and 2 pay 25% each and tie at the top
    assert [(r.won, r.rank) for r in game.result().values()] == [(False, 3), (False, 1), (False, 1)]
    assert game.result()[0].score == 50
    rows = {(s, k): v for s, k, v in game.metrics()}
    assert rows[(None, "agreement")] == 1 and rows[(None, "negotiation_rounds")] == 2
    assert [rows[(s, "proposal_agreed")] for s in range(3)] == [0, 1, 1]


def test_cost_sharing_fails_after_five_rounds_without_consensus():
    game = play(new("cost_sharing"), ["selfish", "selfish", "fair"])
    assert game.done() and game.agreed is None and len(game.votes) == 5
    assert not any(r.won for r in game.result().values())
    rows = {(s, k): v for s, k, v in game.metrics()}
    assert rows[(0, "agreement")] == 0 and rows[(2, "proposal_agreed")] == 0


def test_cost_sharing_bots_fair_agree_in_round_one_and_follow_first_coordinates_on_player_one():
    game = play(new("cost_sharing", group=4), ["fair", "fair", "fair"])
    assert game.agreed == usage_split(airport(load_group("cost_sharing", 4))[1]) and len(game.votes) == 1
    assert sum(game.agreed) == 100
    game = play(new("cost_sharing"), ["selfish", "follow_first", "follow_first"])
    assert game.agreed == [10, 45, 45] and game.proposers() == [0]


def test_magic_public_good_pays_the_multiplied_pool_at_the_end():
    game = new("magic_public_good", group=6)  # multiplier 2
    for _ in range(5):
        game.step({0: 0, 1: 10, 2: 20})
    assert game.pool() == 150 and game.share() == 100
    assert game.finals() == [200, 150, 100]
    result = game.result()
    assert result[0].won and result[0].rank == 1 and result[2].rank == 3
    rows = {(s, k): v for s, k, v in game.metrics()}
    assert rows[(0, "rational_moves")] == 5 and rows[(1, "rational_moves")] == 0 and rows[(1, "invested")] == 50


def test_magic_public_good_caps_contributions_at_the_points_left_and_defaults_to_three_and_a_half():
    game = new("magic_public_good", endowment=30, rounds=2)
    assert game.multiplier == 3.5
    game.step({0: 30, 1: 0, 2: 0})
    assert game.observe(0).space.hi == 0
    game.step({0: 5, 1: 0, 2: 1})
    assert game.contributions[-1] == [0, 0, 1] and game.remaining == [0, 30, 29]
    assert game.finals() == [pytest.approx(36.1667, abs=1e-3), pytest.approx(66.1667, abs=1e-3),
                             pytest.approx(65.1667, abs=1e-3)]


def test_magic_game_theory_spec_plays_the_papers_21_competitions_per_game():
    """7 groups x 3 seats of the challenger, as metrics_release.py counts them (num_of_game=21): the Public
    Good's group 1 (the released multiplier 3.5) is not one of the paper's seven multipliers."""
    spec = load_spec("runs/magic_game_theory.yaml")
    for name in THEORY:
        plans = [m for m in spec.matches if m.game == name]
        first = 2 if name == "magic_public_good" else 1
        assert len(plans) == 21 and group_count(name) - first + 1 == 7
        assert {(m.preset, next(s for s, a in enumerate(m.seats) if a.label == "challenger-bot"))
                for m in plans} == {(f"magic_{g}", s) for g in range(first, first + 7) for s in range(3)}
    multipliers = {load_group("magic_public_good", int(m.preset.split("_")[1]))["multiplier"]
                   for m in spec.matches if m.game == "magic_public_good"}
    assert multipliers == {1, 1.2, 1.5, 1.8, 2, 2.5, 3}


@pytest.mark.parametrize("path", ["runs/magic_game_theory.yaml", "runs/magic_social.yaml",
                                  "runs/magic_social_fixed_clues.yaml"])
def test_magic_specs_seat_every_model_at_temperature_0_as_the_authors_configs(path):
    """cathyxl/MAgIC config_release/*.json: "temperature": 0 for every player's backend. The specs set it
    through each game's protocol, and the model lines offered in their comments leave it to that default."""
    spec = load_spec(path)  # the seats' models play at their game's protocol: the authors' temperature 0
    assert {get_game(m.game).protocol_settings(m.params).temperature for m in spec.matches} == {0.0}
    assert {a.temperature for m in spec.matches for a in m.seats if not a.is_bot} <= {0.0}
    assert "temperature" not in "".join(line for line in Path(path).read_text().splitlines(True)
                                        if line.lstrip().startswith("#") and "agent:" in line)


def test_prisoners_dilemma_reads_any_answer_without_cooperate_as_a_defect_as_the_authors():
    """MAgIC's prisoner.py `_scoring` / metrics_release.py `norm_decision`: "cooperate" anywhere cooperates,
    anything else defects, never re-asked; `decision_reading: strict` keeps our reading."""
    game = new("prisoners_dilemma")
    assert game.parse(0, "I choose to Cooperate.") == "cooperate"
    assert game.parse(0, '{"action": "defect"}') == "defect"
    assert game.parse(0, "I will not cooperate with them") == "cooperate"  # the quirk: the word is there
    assert game.parse(0, "Hmm, hard to say") == "defect"
    with pytest.raises(ParseError):
        game.parse(0, "  ")  # no answer at all is still re-asked
    strict = new("prisoners_dilemma", decision_reading="strict")
    assert strict.parse(0, "I will not cooperate, I defect") == "defect"
    with pytest.raises(ParseError):
        strict.parse(0, "Hmm, hard to say")


def test_cost_sharing_vote_is_the_first_i_vote_for_player_n_as_the_authors():
    """MAgIC's airportfee.py `_text2vote`: the first "I vote for Player N" wins, even over a later JSON
    answer; without the phrase the answer is read as any choice (theirs asks gpt-3.5-turbo instead)."""
    game = new("cost_sharing")
    game.step({0: [40, 30, 30], 1: [50, 25, 25], 2: [50, 25, 25]})
    assert game.parse(0, 'I vote for Player 2\'s proposal. {"vote": "Player 3"}') == 1
    assert game.parse(0, "Player 1 asks too much. I vote for Player 3. Not Player 2.") == 2
    assert game.parse(0, 'Player 2 is fine, {"vote": "Player 3"}') == 2
    assert game.parse(0, "I vote for Player 7, no: Player 1") == 0  # no such player: read as any choice
    last = new("cost_sharing", vote_reading="last")
    last.step({0: [40, 30, 30], 1: [50, 25, 25], 2: [50, 25, 25]})
    assert last.parse(0, 'I vote for Player 2\'s proposal. {"vote": "Player 3"}') == 2
