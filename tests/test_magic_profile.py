"""MAgIC's ability profile: Cooperation, Coordination, Rationality and the game-theory win rates worked
out by hand for scripted challengers; NaN (never 0) for abilities whose games were not played; the
seven abilities, win rate and radar area once the social games are in; the `scores --suite magic` CLI; one scale
per figure (the abilities 0-100, named so) on every output path."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import math

import pytest

from engine import store
from engine.cli.main import main
from engine.papers.magic.abilities import ABILITY_COLUMNS, AREA, PAPER_AREA, PROFILE_COLUMNS, ability_profile
from engine.papers.magic.radar import area_paper, area_percent
from engine.papers.magic.social import social_abilities
from engine.play.runner import run_spec
from engine.play.spec import parse_spec

# the challengers worked out by hand: each a scripted bot against defenders of its game (one agent, one name each:
# a label naming them all would show four bots as one row, issue 40)
SELFISH, FOLLOWER, DEFECTOR, STEADY = "bot:selfish", "bot:follow_first", "bot:always_defect", "bot:steady"
HERO = "hero · bot:letters"  # the social games' challenger among bot:letters defenders: a label tells it apart

THEORY_GAMES = [
    # selfish in seat 0: everyone votes Player 1, agreement on its split; in seats 1, 2 it votes itself: fails
    {"game": "cost_sharing", "preset": "magic_1", "lineups": [{"challenger": SELFISH, "others": "bot:follow_first"}]},
    # the follower among fair defenders: in seat 0 it backs its own opening, the fair ones their split (fails); in
    # seats 1, 2 all back Player 1's fair split (agreement, but not the follower's proposal)
    {"game": "cost_sharing", "preset": "magic_1", "lineups": [{"challenger": FOLLOWER, "others": "bot:fair"}]},
    # always defects (5 of 5 rational) and wins every match against tit-for-tat
    {"game": "prisoners_dilemma", "preset": "magic_2",
     "lineups": [{"challenger": DEFECTOR, "others": "bot:tit_for_tat"}]},
    # invests 20 a round against free riders: never the least (0 of 5), never wins
    {"game": "magic_public_good", "preset": "magic_4",
     "lineups": [{"challenger": STEADY, "others": "bot:never_invest"}]},
]
SOCIAL_GAMES = [
    {"game": "chameleon", "lineups": [{"challenger": {"agent": "bot:letters", "label": "hero"},
                                       "others": "bot:letters"}]},
    {"game": "undercover", "preset": "magic",
     "lineups": [{"challenger": {"agent": "bot:letters", "label": "hero"}, "others": "bot:letters"}]},
]
# bot:random challenges in all five games: every role, so all seven abilities
EVERY_ROLE = [{"game": game, **preset, "lineups": [{"challenger": "bot:random", "others": others}]}
              for game, preset, others in (("cost_sharing", {"preset": "magic_1"}, "bot:fair"),
                                           ("prisoners_dilemma", {"preset": "magic_2"}, "bot:tit_for_tat"),
                                           ("magic_public_good", {"preset": "magic_4"}, "bot:never_invest"),
                                           ("chameleon", {}, "bot:letters"),
                                           ("undercover", {"preset": "magic"}, "bot:letters"))]


def run(db, games, name):
    asyncio.run(run_spec(parse_spec({"name": name, "seed": 0, "games": games}), db, progress=False))


def test_radar_area_in_our_unit_and_the_papers_and_nan_when_an_axis_is_missing():
    full = 100 * 100 * 7 / 2 * math.sin(2 * math.pi / 7)  # the regular heptagon of radius 100: 27,364 square points
    assert area_paper([100.0] * 7) == pytest.approx(full) and area_percent([100.0] * 7) == 100
    values = [90, 40, 70, 100, 20, 50, 80]
    wedge = math.sin(2 * math.pi / 7) / 2
    polygon = wedge * sum(a * b for a, b in zip(values, values[1:] + values[:1], strict=True))
    assert area_paper(values) == pytest.approx(polygon)
    assert area_percent(values) == pytest.approx(100 * polygon / full)
    assert area_percent([100, 0, 100, 0, 100, 0, 0]) == 0
    assert area_percent([50, 100, 100, 100, 100, 100, 100]) == pytest.approx(100 * 6 / 7)
    assert math.isnan(area_percent([1, 1, float("nan"), 1, 1, 1, 1]))
    assert math.isnan(area_paper([1, 1, float("nan"), 1, 1, 1, 1]))
    # the paper's unit is Figure 1's bars: GPT-4-turbo's Table 1 abilities draw "about 9.3 thousand", and its area
    # is a little over three times Llama-2-70B's (§5: "more than threefold", read off the bars)
    gpt_4_turbo, llama_2 = [81.2, 37.0, 65.0, 55.0, 66.7, 33.4, 78.1], [45.0, 37.0, 40.0, 53.2, 42.9, 4.8, 5.2]
    assert 9_250 < area_paper(gpt_4_turbo) < 9_350
    assert area_paper(gpt_4_turbo) / area_paper(llama_2) == pytest.approx(3, abs=0.1)


def test_empty_database_gives_an_empty_profile_with_its_columns(db_path):
    run(db_path, [{"game": "bid", "lineups": [["bot:random", "bot:random"]]}], "other")
    profile = ability_profile(db_path)
    assert profile.empty and list(profile.columns) == PROFILE_COLUMNS


def test_game_theory_abilities_by_hand_and_missing_social_abilities_are_nan(db_path):
    run(db_path, THEORY_GAMES, "theory")
    profile = ability_profile(db_path).set_index("agent")
    assert sorted(profile.index) == sorted([SELFISH, FOLLOWER, DEFECTOR, STEADY])  # defenders are not challengers
    # the abilities on Table 1's 0-100 scale, named so; the win rates fractions
    for agent, cooperation, coordination in ((SELFISH, 100 / 3, 100.0), (FOLLOWER, 200 / 3, 0.0)):
        row = profile.loc[agent]
        assert row["Cooperation (0-100)"] == pytest.approx(cooperation)
        assert row["cost_sharing_wr"] == pytest.approx(cooperation / 100)
        assert row["Coordination (0-100)"] == pytest.approx(coordination)
    assert profile.loc[DEFECTOR, "Rationality (0-100)"] == 100 and profile.loc[STEADY, "Rationality (0-100)"] == 0
    assert profile.loc[DEFECTOR, "prisoner_wr"] == 1.0 and profile.loc[STEADY, "public_good_wr"] == 0.0
    for name in ("Judgement (0-100)", "Reasoning (0-100)", "Deception (0-100)", "Self-awareness (0-100)",
                 "chameleon_wr", "civilian_wr"):
        assert profile[name].isna().all(), name
    assert (profile["roles"] == 1).all()
    assert profile["win_rate"].to_dict() == pytest.approx({SELFISH: 1 / 3, FOLLOWER: 2 / 3, DEFECTOR: 1, STEADY: 0})
    assert profile[AREA].isna().all() and profile[PAPER_AREA].isna().all()


def test_full_profile_joins_the_social_abilities_and_every_cli_format_prints_one_scale(db_path, capsys):
    run(db_path, THEORY_GAMES + SOCIAL_GAMES + EVERY_ROLE, "full")
    profile = ability_profile(db_path).set_index("agent")
    social = social_abilities(db_path).set_index("agent")
    assert profile.loc[HERO, "roles"] == 4 and profile.loc[SELFISH, "roles"] == 1  # each its own row
    row = profile.loc["bot:random"]
    assert row["roles"] == 7 and not row[ABILITY_COLUMNS].isna().any()
    assert row["Judgement (0-100)"] == pytest.approx(100 * social.loc["bot:random", "judgement"])
    assert row["Self-awareness (0-100)"] == pytest.approx(100 * social.loc["bot:random", "self_awareness"])
    rates = [row[c] for c in ("chameleon_wr", "non_chameleon_wr", "undercover_wr", "civilian_wr",
                              "cost_sharing_wr", "prisoner_wr", "public_good_wr")]
    assert row["win_rate"] == pytest.approx(sum(rates) / 7)
    abilities = [row[c] for c in ABILITY_COLUMNS]
    assert row[AREA] == pytest.approx(area_percent(abilities)) and row[PAPER_AREA] == pytest.approx(
        area_paper(abilities))
    # the CLI's csv, json and table carry the scorer's scale under its name: Cooperation 33.33 of 100, not 0.33
    assert main(["scores", "--suite", "magic", "--db", str(db_path), "--format", "csv"]) == 0
    rows = {r["agent"]: r for r in csv.DictReader(io.StringIO(capsys.readouterr().out))}
    assert float(rows[SELFISH]["Cooperation (0-100)"]) == pytest.approx(100 / 3, abs=0.01)
    assert float(rows["bot:random"][AREA]) == pytest.approx(row[AREA], abs=0.01)
    assert main(["scores", "--suite", "magic", "--db", str(db_path), "--format", "json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert next(r for r in printed if r["agent"] == SELFISH)["Cooperation (0-100)"] == pytest.approx(100 / 3,
                                                                                                      abs=0.01)
    assert main(["scores", "--suite", "magic", "--db", str(db_path)]) == 0
    table = capsys.readouterr().out
    assert "Coop." in table and "33.33" in table and SELFISH in table  # the page's header (its tooltip: 0-100)


def test_table_2_figures_are_the_challengers_mean_cost_score_and_payback(db_path):
    run(db_path, THEORY_GAMES, "table2")
    profile = ability_profile(db_path).set_index("agent")
    seats = store.query(db_path, """  -- the challengers' seats: the one seat of its agent in its match
        SELECT s.agent, m.game, s.seat, m.outcome FROM seats s JOIN matches m USING (match_id)
        WHERE s.agent IN (SELECT unnest(?))
          AND (SELECT count(*) FROM seats o WHERE o.match_id = s.match_id AND o.agent = s.agent) = 1""",
                        [[SELFISH, FOLLOWER, DEFECTOR, STEADY]])
    figures: dict[tuple[str, str], list[float]] = {}
    for agent, game, seat, outcome in seats.itertuples(index=False):
        outcome = json.loads(outcome)
        if game == "cost_sharing" and outcome["agreed"]:  # the share of the agreed split the challenger pays
            figures.setdefault((agent, "cost_sharing_cost"), []).append(outcome["split"][seat])
        elif game == "prisoners_dilemma":
            figures.setdefault((agent, "prisoner_score"), []).append(outcome["totals"][seat])
        elif game == "magic_public_good":
            figures.setdefault((agent, "public_good_payback"), []).append(
                sum(map(sum, outcome["contributions"])) * outcome["multiplier"] / 3)
    assert {key: len(values) for key, values in figures.items()} == {
        (SELFISH, "cost_sharing_cost"): 1, (FOLLOWER, "cost_sharing_cost"): 2, (DEFECTOR, "prisoner_score"): 3,
        (STEADY, "public_good_payback"): 3}
    for (agent, column), values in figures.items():
        assert profile.loc[agent, column] == pytest.approx(sum(values) / len(values)), (agent, column)
    assert profile.loc[STEADY, "public_good_payback"] > 0


def test_the_scorers_read_the_suites_game_lists_not_their_own():
    """MAgIC's games are declared once, in engine/papers/magic/suite.py: the scorers' selections are built from its
    SOCIAL
    and THEORY variants (a rule set added there is scored here), and no SQL of theirs names a game itself."""
    import inspect
    import re

    from engine.papers.magic import abilities as magic
    from engine.papers.magic import social as magic_social
    from engine.papers.magic.games import SOCIAL, THEORY
    from engine.papers.magic.suite import SUITE
    from engine.store.selection import variants_sql

    assert SUITE.variants == SOCIAL + THEORY
    assert magic_social.SOCIAL_GAMES == variants_sql(SOCIAL) and magic.THEORY_SELECTION == variants_sql(THEORY)
    per_game = " ".join(magic.THEORY_SUMS.values())
    assert {variant.game for variant in THEORY} == set(re.findall(r"game = '(\w+)'", per_game))
    for module in (magic, magic_social):
        assert not re.search(r"game\s*(=|IN)\s*\(?'", inspect.getsource(module)), module.__name__
