"""TrueSkill and Bradley-Terry ratings: strong bots above random, BT intervals cover known strengths,
team games update both sides sensibly."""

from __future__ import annotations

import asyncio
import json
from datetime import datetime, timedelta

import numpy as np
import pandas as pd
import pytest

from engine import store
from engine.agents.agent_names import agent_name
from engine.papers.headline import agent_figures
from engine.play.runner import run_spec
from engine.play.spec import parse_spec
from engine.score.ratings import MU, bradley_terry_table, trueskill_table
from engine.store.selection import ALL

pytestmark = pytest.mark.slow

START = datetime(2026, 1, 1)


def write_outcomes(db, game: str, matches: list[list[tuple]], params: dict | None = None, tag: str = "") -> None:
    """Bulk-insert finished matches, each a list of seats (agent, rank, score[, role]), one minute apart
    (`params`: the matches' parameters; `tag` keeps ids apart when one game is written twice)."""
    store.init_db(db)
    rows, seats = [], []
    for i, match in enumerate(matches):
        match_id = f"{game}{tag}-{i}"
        rows.append({"match_id": match_id, "run_id": "synthetic", "game": game, "status": "ok",
                     "params": json.dumps(params) if params is not None else None,
                     "started_at": START + timedelta(minutes=i), "finished_at": START + timedelta(minutes=i)})
        seats += [{"match_id": match_id, "seat": s, "agent": seat[0], "label": seat[0],
                   "agent_name": agent_name(seat[0]), "rank": seat[1], "won": seat[1] == 1, "score": seat[2],
                   "role": seat[3] if len(seat) > 3 else None}
                  for s, seat in enumerate(match)]
    with store.connect(db) as con:
        for name, frame in (("matches", pd.DataFrame(rows)), ("seats", pd.DataFrame(seats))):
            con.register("frame", frame)
            con.execute(f"INSERT INTO {name} BY NAME SELECT * FROM frame")
            con.unregister("frame")


@pytest.fixture(scope="module")
def bot_db(tmp_path_factory):
    db = tmp_path_factory.mktemp("ratings") / "bots.duckdb"
    spec = parse_spec({"name": "ratings-bots", "repeats": 4, "games": [
        {"game": "tictactoe", "lineups": [["bot:equilibrium", "bot:random"], ["bot:random", "bot:equilibrium"]]},
        {"game": "connect_four", "lineups": [["bot:minimax", "bot:random"], ["bot:random", "bot:minimax"]]},
    ]})
    summary = asyncio.run(run_spec(spec, db, progress=False))
    assert summary.errors == 0
    return db


@pytest.mark.parametrize(("game", "strong"), [("tictactoe", "bot:equilibrium"), ("connect_four", "bot:minimax")])
def test_strong_bot_rates_above_random(bot_db, game, strong):
    ts = trueskill_table(bot_db, game).set_index("agent")
    assert list(ts.columns) == ["mu", "sigma", "mu_lo", "mu_hi", "conservative", "component", "note", "matches",
                                "wins"]
    assert np.allclose(ts["mu_hi"] - ts["mu"], 1.96 * ts["sigma"], rtol=1e-3) and (ts["mu_lo"] < ts["mu"]).all()
    assert ts.loc[strong, "mu"] > MU > ts.loc["bot:random", "mu"]
    assert ts.loc[strong, "conservative"] > ts.loc["bot:random", "conservative"]
    assert ts.loc[strong, "sigma"] < MU / 3
    assert ts.loc[strong, "matches"] == 8 and ts.loc["bot:random", "wins"] <= 1
    bt = bradley_terry_table(bot_db, game, n_boot=50).set_index("agent")
    assert list(bt.columns) == ["rating", "lo", "hi", "rank", "component", "matches"]
    assert bt.loc[strong, "rating"] > bt.loc["bot:random", "rating"]
    assert bt.loc[strong, "lo"] > bt.loc["bot:random", "hi"]
    assert (bt.loc[strong, "rank"], bt.loc["bot:random", "rank"]) == (1, 2)


def test_all_games_pool_and_absent_game_is_empty(bot_db):
    pooled = trueskill_table(bot_db).set_index("agent")
    assert set(pooled.index) == {"bot:equilibrium", "bot:minimax", "bot:random"}
    assert pooled.loc["bot:random", "matches"] == 16
    assert trueskill_table(bot_db, "hanabi").empty and bradley_terry_table(bot_db, "hanabi").empty


TRUTH = {"a": 1150.0, "b": 1050.0, "c": 1050.0, "d": 900.0}


def duels(seed: int, n: int = 1200) -> list[list[tuple]]:
    """Matches between two of TRUTH's agents, won with the Elo probability of their true ratings."""
    rng = np.random.default_rng(seed)
    names = list(TRUTH)
    matches = []
    for _ in range(n):
        x, y = rng.choice(names, 2, replace=False)
        x_wins = rng.random() < 1 / (1 + 10 ** ((TRUTH[y] - TRUTH[x]) / 400))
        matches.append([(x, 1 if x_wins else 2, 0.0), (y, 2 if x_wins else 1, 0.0)])
    return matches


def test_bradley_terry_intervals_cover_the_truth(tmp_path):
    """95% intervals: over 10 independent tournaments (40 intervals) nearly all cover the true rating
    (one tournament alone misses an agent about one time in five, by design of a 95% interval)."""
    covered, checked = 0, 0
    for seed in range(10):
        db = tmp_path / f"bt{seed}.duckdb"
        write_outcomes(db, "duel", duels(seed))
        bt = bradley_terry_table(db, "duel", n_boot=200, seed=0).set_index("agent")
        truth = (pd.Series(TRUTH) - np.mean(list(TRUTH.values())) + 1000).reindex(bt.index)  # centred on 1000
        covered += int(((bt["lo"] <= truth) & (truth <= bt["hi"])).sum())
        checked += len(bt)
        assert (bt["hi"] - bt["lo"]).max() < 80  # informative, not trivially wide
        assert abs(bt["rating"] - truth).max() < 40
        # b and c are equally strong: their intervals overlap and they share a rank; a and d are apart
        assert bt.loc["b", "rank"] == bt.loc["c", "rank"] == 2
        assert (bt.loc["a", "rank"], bt.loc["d", "rank"]) == (1, 4)
    assert covered >= 0.85 * checked, f"{covered} of {checked} intervals cover the truth"


def test_a_rarely_seen_agent_is_judged_on_the_resamples_it_is_in(tmp_path):
    """c played once (and beat a): about a third of the bootstrap resamples hold no match of c. Those say
    nothing of c, so its interval comes from the others, where it always beat a: wholly above a's rating."""
    rng = np.random.default_rng(1)
    duels = [[("a", 1, 0.0), ("b", 2, 0.0)] if rng.random() < 0.7 else [("b", 1, 0.0), ("a", 2, 0.0)]
             for _ in range(200)]
    db = tmp_path / "rare.duckdb"
    write_outcomes(db, "duel", duels + [[("c", 1, 0.0), ("a", 2, 0.0)]])
    bt = bradley_terry_table(db, "duel").set_index("agent")
    assert bt.loc["c", "lo"] > bt.loc["a", "rating"] > bt.loc["b", "hi"]
    assert bt["lo"].notna().all() and (bt["lo"] <= bt["rating"]).all() and (bt["rating"] <= bt["hi"]).all()


def test_one_duel_gives_the_trueskill_papers_first_update(tmp_path):
    """Two new players (mu 25, sigma 25/3, draw probability 10%, the package's defaults and LLMArena's) after one
    win: the winner 29.396 ± 7.171, the loser 20.604 ± 7.171, as trueskill's documentation prints them."""
    db = tmp_path / "duel.duckdb"
    write_outcomes(db, "duel", [[("winner", 1, 1.0), ("loser", 2, 0.0)]])
    ts = trueskill_table(db, "duel").set_index("agent")
    assert ts.loc["winner", ["mu", "sigma"]].tolist() == pytest.approx([29.396, 7.171], abs=1e-3)
    assert ts.loc["loser", ["mu", "sigma"]].tolist() == pytest.approx([20.604, 7.171], abs=1e-3)


def test_team_members_weigh_one_as_trueskill_rate_defaults(tmp_path):
    from engine.score.trueskill_replay import ENV

    db = tmp_path / "team.duckdb"
    civilians = ["c1", "c2", "c3", "c4"]
    write_outcomes(db, "undercover", [[("spy", 1, 1.0, "undercover")] + [(c, 2, 0.0, "civilian") for c in civilians]])
    ts = trueskill_table(db, "undercover").set_index("agent")
    # LLMArena rates teams with trueskill.rate's defaults: every member weighs 1
    (spy,), team = ENV.rate([(ENV.create_rating(),), tuple(ENV.create_rating() for _ in civilians)], ranks=[1, 2])
    assert ts.loc["spy", "mu"] == pytest.approx(spy.mu) and ts.loc["spy", "sigma"] == pytest.approx(spy.sigma)
    assert np.allclose(ts.loc[civilians, "mu"], [r.mu for r in team])
    # beating four players of full weight moves the spy more than beating one
    duel = tmp_path / "duel.duckdb"
    write_outcomes(duel, "undercover", [[("spy", 1, 1.0, "undercover"), ("c1", 2, 0.0, "civilian")]])
    one = trueskill_table(duel, "undercover").set_index("agent").loc["spy", "mu"] - MU
    assert ts.loc["spy", "mu"] - MU > 1.2 * one
    # one agent in all four civilian seats: four members of weight 1, its update the sum of theirs
    same = tmp_path / "same.duckdb"
    write_outcomes(same, "undercover", [[("spy", 1, 1.0, "undercover")] + [("civ", 2, 0.0, "civilian")] * 4])
    alone = trueskill_table(same, "undercover").set_index("agent")
    assert alone.loc["spy", "mu"] == pytest.approx(spy.mu)
    assert alone.loc["civ", "mu"] == pytest.approx(MU + sum(r.mu - MU for r in team))
    bt = bradley_terry_table(db, "undercover", n_boot=20).set_index("agent")
    assert (bt.loc["spy", "rating"] > bt.loc[civilians, "rating"]).all()


def test_teammates_ranked_apart_by_their_own_scores_are_one_team_for_trueskill(tmp_path):
    """Who is Spy's civilians who won together are ranked apart by their own scores: TrueSkill rated the better one
    above the other, as if they had played each other (Bradley-Terry never pairs teammates)."""
    from engine.score.trueskill_replay import ENV

    db = tmp_path / "wis.duckdb"
    write_outcomes(db, "wis", [[("a", 1, 3.0, "civilian"), ("b", 2, 2.0, "civilian"), ("spy", 3, 0.0, "spy")]])
    ts = trueskill_table(db, "wis").set_index("agent")
    (ra, rb), (spy,) = ENV.rate([(ENV.create_rating(), ENV.create_rating()), (ENV.create_rating(),)], ranks=[1, 2])
    assert ts.loc["a", "mu"] == pytest.approx(ra.mu) and ts.loc["b", "mu"] == pytest.approx(rb.mu)
    assert ts.loc["a", "mu"] == pytest.approx(ts.loc["b", "mu"]) and ts.loc["spy", "mu"] == pytest.approx(spy.mu)


def test_self_play_teaches_nothing_and_order_matters_only_for_trueskill(tmp_path):
    db = tmp_path / "order.duckdb"
    write_outcomes(db, "duel", [[("x", 1, 1.0), ("x", 2, 0.0)]] + [[("x", 1, 1.0), ("y", 2, 0.0)]] * 3
                   + [[("y", 1, 1.0), ("x", 2, 0.0)]] * 3)
    ts = trueskill_table(db, "duel").set_index("agent")
    # the self-play match is out of the rating and of its counts too: 6 contested matches, 3 seats won in them,
    # the counts of the win-rate table (engine.papers.headline.agent_figures) beside it
    assert ts.loc["x", "matches"] == 6 and ts.loc["x", "wins"] == 3
    figures = agent_figures(db, ALL.of_game("duel")).set_index("agent")
    assert (ts[["matches", "wins"]] == figures.loc[ts.index, ["matches", "wins"]]).all().all()
    assert ts.loc["y", "mu"] > ts.loc["x", "mu"]  # y won the later matches: TrueSkill follows recent form
    bt = bradley_terry_table(db, "duel", n_boot=20).set_index("agent")
    assert bt.loc["x", "rating"] == pytest.approx(bt.loc["y", "rating"], abs=1e-3)  # BT is order-free


def test_draws_between_roles_count_and_one_team_matches_do_not(tmp_path):
    db = tmp_path / "draw.duckdb"
    win = [("x", 1, 1.0, "X"), ("y", 2, 0.0, "O")]
    draw = [("x", 1, 0.5, "X"), ("y", 1, 0.5, "O")]
    write_outcomes(db, "tictactoe", [win, draw])
    write_outcomes(db, "hanabi", [[("x", 1, 5.0), ("y", 1, 5.0)]])
    write_outcomes(tmp_path / "win.duckdb", "tictactoe", [win])
    after_win = trueskill_table(tmp_path / "win.duckdb", "tictactoe").set_index("agent")
    ts = trueskill_table(db, "tictactoe").set_index("agent")
    assert ts.loc["y", "mu"] > after_win.loc["y", "mu"]  # drawing with the winner raises y ...
    assert ts.loc["x", "mu"] < after_win.loc["x", "mu"]  # ... and lowers x
    assert ts.loc["x", "sigma"] < after_win.loc["x", "sigma"]
    hanabi = trueskill_table(db, "hanabi")
    assert hanabi["mu"].isna().all() and hanabi["sigma"].isna().all()  # cooperative: no update, and not the prior
    assert (hanabi["note"] == "no rating: never played against another agent").all()
    assert bradley_terry_table(db, "hanabi").empty
    pairs = bradley_terry_table(db, "tictactoe", n_boot=10).set_index("agent")
    assert pairs.loc["x", "rating"] > pairs.loc["y", "rating"]  # one win and one draw


def test_a_tie_between_roleless_opponents_is_a_draw(tmp_path):
    """Bargain without a deal: both seats 0, tied at rank 1, no roles. Opponents who drew, not one team: the
    agent that only ever drew is rated (it was missing), and the draws widen the interval of its opponent."""
    db = tmp_path / "bargain.duckdb"
    no_deal = [("fair", 1, 0.0), ("greedy", 1, 0.0)]
    write_outcomes(db, "bargain", [no_deal] * 3 + [[("accept", 2, 3.0), ("fair", 1, 7.0)]] * 2
                   + [[("accept", 1, 5.0), ("fair", 1, 5.0)]])
    bt = bradley_terry_table(db, "bargain", n_boot=50).set_index("agent")
    assert set(bt.index) == {"fair", "greedy", "accept"}
    assert bt.loc["fair", "hi"] > bt.loc["fair", "lo"]  # was one kind of outcome: a zero-width interval
    ts = trueskill_table(db, "bargain").set_index("agent")
    assert ts.loc["greedy", "sigma"] < MU / 3  # its draws taught something


def forget_replays(db) -> None:
    """As a new process on a database whose saved replays were never written."""
    from engine.score import saved_replays, trueskill_replay

    trueskill_replay._REPLAYED.clear()
    saved_replays.saved_replays_path(db).unlink(missing_ok=True)


def test_replay_after_new_matches_equals_a_full_replay(tmp_path):
    """The kept replay only plays matches that finished later; an older match arriving restarts it."""

    db = tmp_path / "grow.duckdb"
    rng = np.random.default_rng(3)
    games = [[("a", 1 + int(w), 0), ("b", 2 - int(w), 0), ("c", 1 + int(rng.random() < 0.5), 0)]
             for w in rng.random(60) < 0.7]
    write_outcomes(db, "duel", games[:40])
    trueskill_table(db, "duel")
    with store.connect(db) as con:  # the same 40 matches and 20 that finished later
        con.execute("DELETE FROM seats; DELETE FROM matches")
    write_outcomes(db, "duel", games)
    grown = trueskill_table(db, "duel").set_index("agent")
    forget_replays(db)
    assert np.allclose(grown[["mu", "sigma"]], trueskill_table(db, "duel").set_index("agent")[["mu", "sigma"]])
    with store.connect(db) as con:  # the last match now finished before all the others
        con.execute("UPDATE matches SET finished_at = finished_at - INTERVAL 1 DAY WHERE match_id = 'duel-59'")
    reordered = trueskill_table(db, "duel").set_index("agent")
    forget_replays(db)
    assert np.allclose(reordered[["mu", "sigma"]], trueskill_table(db, "duel").set_index("agent")[["mu", "sigma"]])
    assert not np.allclose(reordered[["mu", "sigma"]], grown[["mu", "sigma"]])


def test_a_new_process_replays_only_what_finished_after_the_saved_replay(tmp_path, monkeypatch):
    """The unfiltered replays are saved next to the database: a new process (memo empty) plays only the
    matches that finished since; a damaged or stale file costs a full replay, never a wrong rating."""
    from engine.score import ratings, trueskill_replay

    db = tmp_path / "saved.duckdb"
    rng = np.random.default_rng(5)
    games = [[("a", 1 + int(w), 0), ("b", 2 - int(w), 0)] for w in rng.random(50) < 0.6]
    write_outcomes(db, "duel", games[:30])
    trueskill_table(db, "duel")
    assert "duel" in ratings.saved_replays_path(db).read_text()
    with store.connect(db) as con:  # the same 30 matches and 20 that finished later
        con.execute("DELETE FROM seats; DELETE FROM matches")
    write_outcomes(db, "duel", games)
    replayed = []
    real_replay = trueskill_replay._replay

    def counted_replay(matches, *args):
        replayed.append(len(matches))
        real_replay(matches, *args)

    monkeypatch.setattr(trueskill_replay, "_replay", counted_replay)
    trueskill_replay._REPLAYED.clear()
    resumed = trueskill_table(db, "duel").set_index("agent")[["mu", "sigma"]]
    assert replayed == [20]
    forget_replays(db)
    full = trueskill_table(db, "duel").set_index("agent")[["mu", "sigma"]]
    assert replayed == [20, 50] and np.allclose(resumed, full)
    for damaged in ("{not json", '{"duel": {"ratings": {"a": [99, 1], "b": [1, 1]}, "last": null, "count": 7, '
                                 '"checksum": "1"}}'):
        trueskill_replay._REPLAYED.clear()
        ratings.saved_replays_path(db).write_text(damaged)
        assert np.allclose(trueskill_table(db, "duel").set_index("agent")[["mu", "sigma"]], full)
    assert replayed == [20, 50, 50, 50]
    filtered = ratings.Selection(run_ids=("synthetic",))
    trueskill_table(db, "duel", filtered)
    assert set(json.loads(ratings.saved_replays_path(db).read_text())) == {"duel"}  # filtered views stay in memory


def test_agents_that_never_met_are_rated_apart_and_self_play_alone_is_no_rating(tmp_path):
    """Two groups that never played each other (a, b) and (c, d), and e that only met itself: each group is a
    component of its own, fitted apart (its average 1000) and ranked within itself; e has no rating at all,
    neither a Bradley-Terry row nor TrueSkill's prior, only a note saying why."""
    db = tmp_path / "apart.duckdb"
    rng = np.random.default_rng(3)
    first = [[("a", 1, 0.0), ("b", 2, 0.0)] if rng.random() < 0.75 else [("b", 1, 0.0), ("a", 2, 0.0)]
             for _ in range(80)]
    second = [[("c", 1, 0.0), ("d", 2, 0.0)] if rng.random() < 0.6 else [("d", 1, 0.0), ("c", 2, 0.0)]
              for _ in range(40)]
    write_outcomes(db, "duel", first + second + [[("e", 1, 0.0), ("e", 2, 0.0)]] * 3)
    bt = bradley_terry_table(db, "duel", n_boot=50).set_index("agent")
    assert "e" not in bt.index
    assert bt.loc[["a", "b"], "component"].tolist() == [1, 1] and bt.loc[["c", "d"], "component"].tolist() == [2, 2]
    for group in (["a", "b"], ["c", "d"]):
        assert bt.loc[group, "rating"].mean() == pytest.approx(1000, abs=1)  # each group is its own scale
    assert (bt.loc["a", "rank"], bt.loc["c", "rank"]) == (1, 1)  # ranked within its group only
    ts = trueskill_table(db, "duel").set_index("agent")
    assert np.isnan(ts.loc["e", "mu"]) and ts.loc["e", "note"] == "no rating: never played against another agent"
    assert ts.loc[["a", "b", "c", "d"], "note"].eq("").all() and pd.isna(ts.loc["e", "component"])
    assert ts.loc[["a", "b"], "component"].tolist() == [1, 1] and ts.loc[["c", "d"], "component"].tolist() == [2, 2]


def test_winners_come_first_and_a_draw_ties(tmp_path):
    """The one outcome (ratings.OUTCOME): a seat the game declares a winner beats a loser whatever their ranks
    (Who-is-Spy ranks civilians by points, and a winning civilian may rank below the losing spy), and a match
    nobody won whose best place two seats share is a draw: a tie."""
    db = tmp_path / "outcome.duckdb"
    store.init_db(db)
    seats = ([{"match_id": f"w{i}", "seat": 0, "agent": "civ", "label": "civ", "rank": 2, "won": True, "score": 1.0},
              {"match_id": f"w{i}", "seat": 1, "agent": "spy", "label": "spy", "rank": 1, "won": False,
               "score": 2.0}] for i in range(4))
    draws = ([{"match_id": f"d{i}", "seat": s, "agent": a, "label": a, "rank": 1, "won": False, "score": 0.0}
              for s, a in enumerate(("x", "y"))] for i in range(4))
    rows = [r | {"agent_name": agent_name(r["agent"])} for match in (*seats, *draws) for r in match]
    matches = pd.DataFrame([{"match_id": m, "run_id": "r", "game": "duel", "status": "ok", "finished_at": START}
                            for m in sorted({r["match_id"] for r in rows})])
    with store.connect(db) as con:
        for name, frame in (("matches", matches), ("seats", pd.DataFrame(rows))):
            con.register("frame", frame)
            con.execute(f"INSERT INTO {name} BY NAME SELECT * FROM frame")
            con.unregister("frame")
    bt = bradley_terry_table(db, "duel", n_boot=20).set_index("agent")
    assert bt.loc["civ", "rating"] > bt.loc["spy", "rating"]
    assert bt.loc["x", "rating"] == pytest.approx(bt.loc["y", "rating"], abs=1e-6)
    ts = trueskill_table(db, "duel").set_index("agent")
    assert ts.loc["civ", "mu"] > MU > ts.loc["spy", "mu"]


def test_an_update_floats_cannot_hold_is_made_in_arbitrary_precision():
    """Four seats of one agent rated far above the fifth, who wins: the normal cdf underflows in floats and trueskill
    raises FloatingPointError ("set backend to mpmath"). `rate` makes that update on trueskill's mpmath backend (the
    package's own answer): finite floats, the upset moving both sides."""
    from engine.score.trueskill_replay import ENV, rate

    teams, ranks = [[(95.0, 1.2)] * 4, [(5.0, 1.2)]], [2, 1]
    with pytest.raises(FloatingPointError):
        ENV.rate([[ENV.create_rating(mu, sigma) for mu, sigma in team] for team in teams], ranks=ranks)
    got = rate(teams, ranks)
    assert all(isinstance(mu, float) and np.isfinite([mu, sigma]).all() for team in got for mu, sigma in team)
    assert got[1][0][0] > 5.0 > got[0][0][0] - 90  # the upset moves both sides
    assert all(sigma < 1.2 for team in got for _, sigma in team)


def test_llmarenas_undercover_with_one_agent_in_four_seats_rates_without_breaking(tmp_path):
    """LLMArena's Undercover study: one civilian agent in four seats, the tested agent the undercover. Each of the
    four seats moves the civilians' agent, so after the undercover's wins its rating sinks far below; the
    civilians' next win was an update floats cannot hold, and the replay (after a run, on Leaderboards) raised
    FloatingPointError. The order is runs/llmarena_undercover.yaml's first 20 matches (C: the civilians won)."""
    db = tmp_path / "undercover.duckdb"
    write_outcomes(db, "undercover", undercover_matches("CTTTTTTTCCCTCTTTCTTC"), params={"rules": "llmarena"})
    table = trueskill_table(db, "undercover").set_index("agent")
    assert np.isfinite(table[["mu", "sigma"]].to_numpy()).all()
    assert (table["matches"] == 20).all() and (table["sigma"] < MU / 3).all()


def undercover_matches(winners: str) -> list[list[tuple]]:
    """LLMArena Undercover matches of agent `civ` in four civilian seats and `tested` as the undercover, one per
    letter of `winners` (C: the civilians won, T: the undercover)."""
    civilians_win = [("civ", 1, 1.0, "civilian")] * 4 + [("tested", 2, 0.0, "undercover")]
    undercover_wins = [("civ", 2, 0.0, "civilian")] * 4 + [("tested", 1, 1.0, "undercover")]
    return [civilians_win if w == "C" else undercover_wins for w in winners]


def test_ratings_failing_after_a_run_are_one_line_with_their_exit_code_and_the_matches_stay(tmp_path, capsys,
                                                                                            monkeypatch):
    """Whatever fails once the matches are stored (here the ratings' refresh) is said in one line, with the exit
    code that names it (3: a score could not be computed), never a traceback; the matches are kept, and `rescore`
    says the same."""
    from engine.cli.main import EXIT_CODES, EXIT_SCORING, main
    from engine.score import ratings

    spec = tmp_path / "spec.yaml"
    spec.write_text("name: refresh\nrepeats: 3\ngames:\n"
                    "  - {game: tictactoe, lineups: [[bot:random, bot:equilibrium]]}\n")
    db = tmp_path / "results.duckdb"

    def broken(db):
        raise FloatingPointError("Cannot calculate correctly, set backend to \"mpmath\"\nand more")

    monkeypatch.setattr(ratings, "refresh_saved", broken)
    assert main(["run", str(spec), "--db", str(db), "--quiet"]) == EXIT_SCORING == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "ratings could not be brought up to date (FloatingPointError: Cannot calculate correctly" in err
    assert store.rows(db, "SELECT count(*) FROM matches WHERE status = 'ok'")[0][0] == 3
    assert main(["rescore", "--db", str(db)]) == EXIT_SCORING
    assert capsys.readouterr().err.count("\n") == 1
    assert "score could not be computed" in EXIT_CODES[EXIT_SCORING]


def test_the_ranked_group_is_the_one_with_the_most_comparisons_not_the_most_agents():
    """Three bots of a 3-match first run outnumbered two agents with 384 matches between them, and the study's own
    agents were shown as 'not compared'. The group with the most comparisons is the ranked one (component 1)."""
    from engine.score.ratings import components

    pairs = pd.DataFrame({"a": ["x", "y", "alpha"], "b": ["y", "z", "beta"], "matches": [2, 1, 384]})
    numbered = components(pairs)
    assert numbered["alpha"] == numbered["beta"] == 1
    assert numbered["x"] == numbered["y"] == numbered["z"] == 2


@pytest.mark.parametrize("shape", ["random graphs", "long chains"])
def test_the_components_are_scipys_connected_components(shape):
    """`component_numbers` finds components in numpy (scipy's csgraph cost a page's first call 60 ms to import): the
    same groups as `scipy.sparse.csgraph.connected_components` on random graphs of every density, self-pairs and
    repeats included, and on chains numbered in shuffled order (the longest way for labels to travel)."""
    from scipy import sparse
    from scipy.sparse import csgraph

    from engine.score.outcomes import component_numbers

    rng = np.random.default_rng(7)
    for _ in range(300 if shape == "random graphs" else 10):
        if shape == "random graphs":
            agents = int(rng.integers(1, 200))
            a, b = rng.integers(0, agents, (2, int(rng.integers(0, 3 * agents))))
        else:
            agents = int(rng.integers(2, 5000))
            order = rng.permutation(agents)
            a, b = order[:-1], order[1:]
        numbers = component_numbers(a, b, rng.integers(1, 9, len(a)), agents)
        count, label = csgraph.connected_components(
            sparse.coo_matrix((np.ones(len(a)), (a, b)), shape=(agents, agents)), directed=False)
        assert numbers.max() == count
        same_group = label[:, None] == label[None, :]
        assert np.array_equal(numbers[:, None] == numbers[None, :], same_group)


def _pairs_of_components(sizes: list[int], seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """`rated_pairs`' columns for components of `sizes` agents, each a ring of pairs over a few kinds of match."""
    rng = np.random.default_rng(seed)
    rows, kind = [], 0
    for number, n in enumerate(sizes):
        names = [f"c{number}-{i:02d}" for i in range(n)]
        for _ in range(3):
            matches = int(rng.integers(1, 30))
            for i in range(n):
                a, b = sorted([names[i], names[(i + 1) % n]])
                rows.append({"kind": kind, "matches": matches, "a": a, "b": b, "weight": 1.0,
                             "score": float(rng.choice([0.0, 0.5, 1.0, rng.random()]))})
            kind += 1
    pairs = pd.DataFrame(rows)
    agents = sorted(set(pairs["a"]) | set(pairs["b"]))
    return pairs, pd.DataFrame({"agent": agents, "matches": 3, "wins": 1})


def test_three_wins_in_four_are_400_log10_3_elo_apart():
    """Bradley-Terry's textbook case: a beat b in 3 of 4 matches, so the odds are 3 and the ratings 400·log10(3)
    = 190.8 Elo apart (less a little for the ridge), around 1000."""
    from engine.score.bradley_terry import fit_bradley_terry

    pairs = pd.DataFrame({"kind": [0, 1], "matches": [3, 1], "a": ["a", "a"], "b": ["b", "b"], "weight": [1.0, 1.0],
                          "score": [1.0, 0.0]})
    rated = fit_bradley_terry(pairs, pd.DataFrame({"agent": ["a", "b"], "matches": 4, "wins": [3, 1]}))
    rated = rated.set_index("agent")
    assert rated.loc["a", "rating"] - rated.loc["b", "rating"] == pytest.approx(400 * np.log10(3), abs=2)
    assert rated["rating"].mean() == pytest.approx(1000)
    assert rated.loc["a", "lo"] <= rated.loc["a", "rating"] <= rated.loc["a", "hi"]


def test_the_fit_is_the_penalised_likelihoods_maximum():
    """The Newton fit against scipy's general minimiser on the objective it maximises (pairs weighted by
    their matches; the ridge): the same ratings, a ring of agents and every pair of them alike."""
    from scipy.optimize import minimize

    from engine.score.bradley_terry import ELO_BASE, ELO_SCALE, RIDGE, fit_bradley_terry

    for sizes in ([7], [3, 9]):
        pairs, played = _pairs_of_components(sizes, seed=11)
        rated = fit_bradley_terry(pairs, played, n_boot=0).set_index("agent")
        for _, own in pairs.groupby(pairs["a"].str.split("-").str[0]):
            agents = sorted(set(own["a"]) | set(own["b"]))
            a, b = (own[side].map({name: i for i, name in enumerate(agents)}).to_numpy() for side in ("a", "b"))
            won = (own["matches"] * own["weight"] * own["score"]).to_numpy()
            lost = (own["matches"] * own["weight"] * (1 - own["score"])).to_numpy()

            def loss(theta, a=a, b=b, won=won, lost=lost):
                d = theta[a] - theta[b]
                return (won * np.logaddexp(0, -d) + lost * np.logaddexp(0, d)).sum() + 0.5 * RIDGE * theta @ theta

            best = minimize(loss, np.zeros(len(agents)), method="BFGS", options={"gtol": 1e-10}).x
            expected = ELO_BASE + ELO_SCALE * (best - best.mean())
            assert np.allclose(rated.loc[agents, "rating"], expected, atol=1e-3)


def test_the_headline_gives_an_interval_to_the_ranked_component_alone():
    """The headline ranks only the first component: its bootstrap is that of a fit of it alone, and the agents of
    the other components (never ranked against it) get their ratings without an interval."""
    from engine.score.bradley_terry import fit_bradley_terry

    pairs, played = _pairs_of_components([6, 4, 3], seed=5)
    rated = fit_bradley_terry(pairs, played, first_only=True).set_index("agent")
    alone = fit_bradley_terry(pairs, played).set_index("agent")
    first = alone.index[alone["component"] == 1]
    assert len(first) == 6 and set(rated.index) == set(alone.index)
    pd.testing.assert_frame_equal(rated.loc[first, ["rating", "lo", "hi"]], alone.loc[first, ["rating", "lo", "hi"]],
                                  rtol=0, atol=1e-9)
    others = rated.index.difference(first)
    assert rated.loc[others, ["lo", "hi"]].isna().all().all()
    assert np.allclose(rated.loc[others, "rating"], alone.loc[others, "rating"], atol=1e-9)
    assert (rated.loc[others, "component"] == alone.loc[others, "component"]).all()
