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
from engine.__main__ import main
from engine.magic_radar import area_paper, area_percent
from engine.metrics.magic import ABILITY_COLUMNS, AREA, PAPER_AREA, PROFILE_COLUMNS, ability_profile
from engine.metrics.magic_social import social_abilities
from engine.runner import run_spec
from engine.spec import parse_spec

HERO = "hero"


def hero(bot: str) -> dict:
    return {"agent": bot, "label": HERO}


THEORY_GAMES = [
    # hero in seat 0: everyone votes Player 1, agreement on hero's split; in seats 1, 2 it votes itself: fails
    {"game": "cost_sharing", "preset": "magic_1",
     "lineups": [{"challenger": hero("bot:selfish"), "others": {"agent": "bot:follow_first", "label": "def"}}]},
    # hero follows Player 1 among fair defenders: in seat 0 it backs its own opening, the fair ones their split
    # (fails); in seats 1, 2 all back Player 1's fair split (agreement, but not hero's proposal)
    {"game": "cost_sharing", "preset": "magic_1",
     "lineups": [{"challenger": hero("bot:follow_first"), "others": {"agent": "bot:fair", "label": "def"}}]},
    # always defects (5 of 5 rational) and wins every match against tit-for-tat
    {"game": "prisoners_dilemma", "preset": "magic_2",
     "lineups": [{"challenger": hero("bot:always_defect"), "others": {"agent": "bot:tit_for_tat", "label": "def"}}]},
    # invests 20 a round against free riders: never the least (0 of 5), never wins
    {"game": "magic_public_good", "preset": "magic_4",
     "lineups": [{"challenger": hero("bot:steady"), "others": {"agent": "bot:never_invest", "label": "def"}}]},
]
SOCIAL_GAMES = [
    {"game": "chameleon", "lineups": [{"challenger": hero("bot:letters"), "others": "bot:letters"}]},
    {"game": "undercover", "preset": "magic",
     "lineups": [{"challenger": hero("bot:letters"), "others": "bot:letters"}]},
]


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
    profile = ability_profile(db_path)
    assert list(profile.agent) == [HERO]  # defenders are not challengers
    row = profile.iloc[0]
    # the abilities on Table 1's 0-100 scale, named so; the win rates fractions
    assert row["Cooperation (0-100)"] == pytest.approx(100 * 3 / 6) and row["cost_sharing_wr"] == pytest.approx(3 / 6)
    assert row["Coordination (0-100)"] == pytest.approx(100 / 3)
    assert row["Rationality (0-100)"] == pytest.approx(100 * 15 / 30)
    assert row["prisoner_wr"] == 1.0 and row["public_good_wr"] == 0.0
    for name in ("Judgement (0-100)", "Reasoning (0-100)", "Deception (0-100)", "Self-awareness (0-100)",
                 "chameleon_wr", "civilian_wr"):
        assert math.isnan(row[name]), name
    assert row["roles"] == 3 and row["win_rate"] == pytest.approx((1 / 2 + 1 + 0) / 3)
    assert math.isnan(row[AREA]) and math.isnan(row[PAPER_AREA])


def test_full_profile_joins_the_social_abilities_and_every_cli_format_prints_one_scale(db_path, capsys):
    run(db_path, THEORY_GAMES + SOCIAL_GAMES, "full")
    profile = ability_profile(db_path).set_index("agent")
    social = social_abilities(db_path).set_index("agent")
    row = profile.loc[HERO]
    assert row["roles"] == 7 and not row[ABILITY_COLUMNS].isna().any()
    assert row["Judgement (0-100)"] == pytest.approx(100 * social.loc[HERO, "judgement"])
    assert row["Self-awareness (0-100)"] == pytest.approx(100 * social.loc[HERO, "self_awareness"])
    rates = [row[c] for c in ("chameleon_wr", "non_chameleon_wr", "undercover_wr", "civilian_wr",
                              "cost_sharing_wr", "prisoner_wr", "public_good_wr")]
    assert row["win_rate"] == pytest.approx(sum(rates) / 7)
    abilities = [row[c] for c in ABILITY_COLUMNS]
    assert row[AREA] == pytest.approx(area_percent(abilities)) and row[PAPER_AREA] == pytest.approx(
        area_paper(abilities))
    # the CLI's csv, json and table carry the scorer's scale under its name: Cooperation 50 of 100, not 0.5
    assert main(["scores", "--suite", "magic", "--db", str(db_path), "--format", "csv"]) == 0
    csv_row = next(r for r in csv.DictReader(io.StringIO(capsys.readouterr().out)) if r["agent"] == HERO)
    assert float(csv_row["Cooperation (0-100)"]) == pytest.approx(50)
    assert float(csv_row[AREA]) == pytest.approx(row[AREA], abs=0.01)
    assert main(["scores", "--suite", "magic", "--db", str(db_path), "--format", "json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert next(r for r in printed if r["agent"] == HERO)["Cooperation (0-100)"] == pytest.approx(50)
    assert main(["scores", "--suite", "magic", "--db", str(db_path)]) == 0
    table = capsys.readouterr().out
    assert "Coop." in table and "50.00" in table and HERO in table  # the page's header (its tooltip: 0-100)


def test_table_2_figures_are_the_challengers_mean_cost_score_and_payback(db_path):
    run(db_path, THEORY_GAMES, "table2")
    row = ability_profile(db_path).set_index("agent").loc[HERO]
    hero_games = store.query(db_path, """SELECT m.game, s.seat, m.outcome FROM seats s JOIN matches m USING (match_id)
                                         WHERE s.label = 'hero'""")
    costs, scores, paybacks = [], [], []
    for game, seat, outcome in hero_games.itertuples(index=False):
        outcome = json.loads(outcome)
        if game == "cost_sharing" and outcome["agreed"]:
            costs.append(outcome["split"][seat])  # the share of the agreed split the challenger pays
        elif game == "prisoners_dilemma":
            scores.append(outcome["totals"][seat])
        elif game == "magic_public_good":
            paybacks.append(sum(map(sum, outcome["contributions"])) * outcome["multiplier"] / 3)
    assert len(costs) == 3 and len(scores) == 3 and len(paybacks) == 3
    assert row["cost_sharing_cost"] == pytest.approx(sum(costs) / 3)
    assert row["prisoner_score"] == pytest.approx(sum(scores) / 3)
    assert row["public_good_payback"] == pytest.approx(sum(paybacks) / 3) and row["public_good_payback"] > 0


def test_the_scorers_read_the_suites_game_lists_not_their_own():
    """MAgIC's games are declared once, in engine/suites/magic.py: the scorers' selections are built from its SOCIAL
    and THEORY variants (a rule set added there is scored here), and no SQL of theirs names a game itself."""
    import inspect
    import re

    from engine.metrics import magic, magic_social
    from engine.selection import variants_sql
    from engine.suites.magic import SOCIAL, SUITE, THEORY

    assert SUITE.variants == SOCIAL + THEORY
    assert magic_social.SOCIAL_GAMES == variants_sql(SOCIAL) and magic.THEORY_SELECTION == variants_sql(THEORY)
    per_game = " ".join(magic.THEORY_SUMS.values())
    assert {variant.game for variant in THEORY} == set(re.findall(r"game = '(\w+)'", per_game))
    for module in (magic, magic_social):
        assert not re.search(r"game\s*(=|IN)\s*\(?'", inspect.getsource(module)), module.__name__
