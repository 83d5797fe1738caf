"""Scripted bots whose order is known by construction, played through the runner in every suite: each headline and
each paper's own table must put them in that order (a headline that counts "won the auction" ranked a truthful
bidder, who earns nothing, first), an agent that played fewer of a suite's games than were counted is shown and
not ranked in every suite (ratings included), and a suite whose protocol is self-play (γ-Bench) ranks the agents
it played that way."""

from __future__ import annotations

import asyncio

import pandas as pd
import pytest

from engine.games import all_games
from engine.games.base import JUDGED_BY, PAYOFF, SCORE, Game, rank_by
from engine.papers import headline
from engine.papers.llmarena.negotiation import bid_table
from engine.papers.registry import get_suite, own_table
from engine.play.runner import run_spec
from engine.play.spec import parse_spec
from engine.present.captions import headline_note
from engine.present.column_help import GLOSSARY
from tests.test_game_conformance import play_random

EQUILIBRIUM, RANDOM, TRUTHFUL = "bot:equilibrium", "bot:random", "bot:truthful"


def play(db, name: str, repeats: int, games: list[dict]) -> None:
    asyncio.run(run_spec(parse_spec({"name": name, "repeats": repeats, "games": games}), db, progress=False))


def head(db, suite: str):
    return headline.headline(db, suite).set_index("agent")


def test_llmarena_judges_bid_by_payoff_and_leaves_a_partial_agent_unranked(tmp_path):
    """A truthful bidder bids its valuation: it wins the item when it wins and earns 0; the equilibrium bidder earns
    v/2 when it wins. By payoff the truthful bidder never beats it. It played 1 of the 2 games counted: shown with
    its rating, not ranked."""
    db = tmp_path / "llmarena.duckdb"
    play(db, "known", 12, [{"game": "bid", "lineups": [[EQUILIBRIUM, TRUTHFUL]]},
                           {"game": "tictactoe", "lineups": [[EQUILIBRIUM, RANDOM]]}])
    table = head(db, "llmarena")
    assert get_suite("llmarena").headline.by == "rating"
    assert table.loc[EQUILIBRIUM, "value"] > table.loc[TRUTHFUL, "value"]
    assert table.loc[EQUILIBRIUM, "win_rate"] > 0.5 > table.loc[TRUTHFUL, "win_rate"]
    assert table.loc[TRUTHFUL, "partial"] and pd_na(table.loc[TRUTHFUL, "rank"])
    assert table.loc[RANDOM, "partial"] and pd_na(table.loc[RANDOM, "rank"])
    assert not table.loc[EQUILIBRIUM, "partial"] and table.loc[TRUTHFUL, "value"] == table.loc[TRUTHFUL, "value"]
    caption = headline_note(get_suite("llmarena"), *headline.coverage(db, "llmarena"))
    assert "bid (by payoff)" in caption  # the caption names the outcome it reads, the glossary says what it means
    assert f"bid, {all_games()['bid'].judged_meaning}" in GLOSSARY["outcome"]
    own = own_table(db, "llmarena").set_index("agent")
    assert own.loc[EQUILIBRIUM, "bid"] > own.loc[TRUTHFUL, "bid"]  # the paper's average reward, normalized
    bid = bid_table(db).set_index("agent")
    assert bid.loc[EQUILIBRIUM, "reward"] > bid.loc[TRUTHFUL, "reward"] == 0
    assert bid.loc[EQUILIBRIUM, "win_rate"] > bid.loc[TRUTHFUL, "win_rate"]


def test_magic_judges_the_dilemmas_by_the_papers_score(tmp_path):
    """Defecting in the Prisoner's Dilemma and investing nothing in the Public Good never score below a random
    player in the same match (the paper's Score and final points), and two seats tied at the top win nobody: an
    always-cooperating bot among cooperators no longer wins every match. Tit-for-tat played one of the games: shown,
    not ranked."""
    db = tmp_path / "magic.duckdb"
    play(db, "known", 6, [
        {"game": "prisoners_dilemma", "lineups": [[EQUILIBRIUM, RANDOM, RANDOM], [RANDOM, EQUILIBRIUM, EQUILIBRIUM],
                                                  ["bot:fixed:cooperate", "bot:tit_for_tat", "bot:tit_for_tat"]]},
        {"game": "magic_public_good", "lineups": [[EQUILIBRIUM, RANDOM, RANDOM],
                                                  [RANDOM, EQUILIBRIUM, EQUILIBRIUM]]}])
    table = head(db, "magic")
    assert table.loc[EQUILIBRIUM, "value"] > table.loc[RANDOM, "value"]
    assert table.loc[EQUILIBRIUM, "rank"] < table.loc[RANDOM, "rank"]
    assert table.loc["bot:fixed:cooperate", "wins"] == 0  # all cooperate: tied at the top, a draw, never a win
    assert table.loc["bot:tit_for_tat", "partial"] and pd_na(table.loc["bot:tit_for_tat", "rank"])
    own = own_table(db, "magic").set_index("agent")
    for figure in ("prisoner_wr", "prisoner_score", "public_good_wr", "win_rate", "Rationality (0-100)"):
        assert own.loc[EQUILIBRIUM, figure] > own.loc[RANDOM, figure], figure
    assert own.loc[EQUILIBRIUM, "prisoner_wr"] == 1  # MAgIC's own win counts the top total with ties, as theirs


def test_gamabench_ranks_self_play_by_its_score(tmp_path):
    """γ-Bench plays one agent in every seat (the README's `{all: model}`): its headline counts those matches and
    ranks by the 0-100 score, as its own table does. In the Guessing Game the equilibrium bot's number beats a
    random one's."""
    db = tmp_path / "gamabench.duckdb"
    games = [{"game": "guessing_game", "params": {"rounds": 3}, "lineups": [{"all": bot}]}
             for bot in ("bot:best_response", RANDOM)]
    play(db, "known", headline.MIN_MATCHES, games)
    table = head(db, "gamabench")
    assert set(table.index) == {"bot:best_response", RANDOM}
    assert (table["matches"] == headline.MIN_MATCHES).all() and not table["provisional"].any()
    assert table.loc["bot:best_response", "value"] > table.loc[RANDOM, "value"]
    assert table.loc["bot:best_response", "rank"] < table.loc[RANDOM, "rank"]
    assert table["win_rate"].isna().all()  # a win rate compares agents: self-play holds no comparison
    assert headline.coverage(db, "gamabench") == (["guessing_game"], [])
    own = own_table(db, "gamabench").set_index("model")
    assert own.loc["bot:best_response", "guessing_game"] > own.loc[RANDOM, "guessing_game"]


def test_wis_puts_the_letters_player_above_a_random_one(tmp_path):
    """Who is Spy: the letters bot votes for the player whose first letter differs and, as the spy, blends in; a
    random player does neither. Both the rating and WiS's own ranking put it first."""
    db = tmp_path / "wis.duckdb"
    play(db, "known", 12, [{"game": "undercover", "preset": "wis",
                            "lineups": [["bot:letters", RANDOM] * 3, [RANDOM, "bot:letters"] * 3]}])
    table = head(db, "wis")
    assert table.loc["bot:letters", "value"] > table.loc[RANDOM, "value"]
    own = own_table(db, "wis").set_index("agent")
    assert own.loc["bot:letters", "ranking"] > own.loc[RANDOM, "ranking"]


def pd_na(value) -> bool:
    return bool(pd.isna(value))


@pytest.mark.parametrize("name", sorted(all_games()))
def test_each_game_places_its_seats_as_it_declares(name):
    """`Game.judged_by` is what `result` does: a game judged by payoff or score ranks its seats by it and lets the
    best alone win (seats tied at the top draw); a cooperative one (None) has one team."""
    cls = all_games()[name]
    assert cls.judged_by in JUDGED_BY and cls.judged_meaning and cls.cooperative == (cls.judged_by is None)
    for seed in range(4):
        result = play_random(cls, seed)[0].result()
        ranks = [r.rank for r in result.values()]
        if cls.judged_by in (PAYOFF, SCORE):
            assert [r.won for r in result.values()] == [r == 1 and ranks.count(1) == 1 for r in ranks]
        if cls.judged_by == SCORE:
            assert ranks == list(rank_by({s: r.score for s, r in result.items()}).values())


def test_a_cooperative_game_declares_that_no_match_judges_its_seats():
    with pytest.raises(ValueError, match="judged_by = None"):
        type("Shared", (Game,), {"name": "shared", "cooperative": True})
