"""The adaptive study's choices on small cases whose answer is known (engine/study/certainty.py): a pairing already
separated
gets no deal, a study whose adjacent pairs are all separated stops, a budget is never exceeded, a resumed study
continues where it stopped, and agents of a known order come out in that order with separated intervals."""

from __future__ import annotations

import numpy as np

from engine import store
from engine.cli.main import main
from engine.study import certainty


def deals_of(agents: int, shares: dict[tuple[int, int, int], list[float]]) -> certainty.Deals:
    return certainty.Deals(agents, 1, {k: list(v) for k, v in shares.items()})


def known_order(rng: np.random.Generator, pairing: certainty.Pairing) -> float:
    """a's share of a deal against b when agent i is stronger than i + 1 (a beats b with 0.5 + 0.15 (b - a))."""
    a, b, _ = pairing
    return float(np.mean(rng.random(2) < 0.5 + 0.15 * (b - a)))


def test_a_pairing_already_separated_gets_no_deal():
    deals = deals_of(3, {(0, 1, 0): [1.0] * 40, (0, 2, 0): [1.0] * 40, (1, 2, 0): [1.0, 0.0, 0.5, 1.0, 0.0, 1.0]})
    assert certainty.order(deals) == [0, 1, 2]
    assert certainty.pair_interval(deals, 0, 1)[1] > 0.5  # separated
    assert certainty.unseparated(deals, [0, 1, 2]) == [(1, 2)]
    chosen = certainty.choose_batch(deals, 20, np.ones(1))
    assert len(chosen) == 20 and set(chosen) == {(1, 2, 0)}


def test_a_study_whose_adjacent_pairs_are_separated_stops():
    deals = deals_of(3, {(0, 1, 0): [1.0] * 40, (1, 2, 0): [1.0] * 40, (0, 2, 0): [1.0] * 40})
    assert certainty.choose_batch(deals, 10, np.ones(1)) == []
    assert certainty.Study(deals, looks=1).next_batch(np.ones(1)) == []


def test_a_budget_is_never_exceeded():
    rng = np.random.default_rng(0)
    for budget_usd, budget_matches in ((3.7, None), (None, 50), (12.0, 31)):
        study = certainty.Study(certainty.Deals(4, 2))
        cost = np.array([0.25, 1.0])
        while batch := study.next_batch(cost, budget_usd, budget_matches):
            study.record([(p, known_order(rng, p)) for p in batch], cost)
            assert budget_usd is None or study.spent_usd <= budget_usd + 1e-9
            assert budget_matches is None or study.matches <= budget_matches
        assert study.looks >= 1


def test_a_resumed_study_continues_where_it_stopped():
    """A study stopped after two looks and rebuilt from what it stored (its deals, looks and spending) chooses the
    same next batch as the one that kept going, and goes on to finish."""
    rng = np.random.default_rng(1)
    cost = np.ones(1)
    study = certainty.Study(certainty.Deals(4, 1))
    for _ in range(2):
        study.record([(p, known_order(rng, p)) for p in study.next_batch(cost)], cost)
    resumed = certainty.Study(certainty.Deals(4, 1, {k: list(v) for k, v in study.deals.shares.items()}),
                              looks=study.looks, spent_usd=study.spent_usd, matches=study.matches)
    batch = study.next_batch(cost)
    assert batch and resumed.next_batch(cost) == batch
    while batch := resumed.next_batch(cost):
        resumed.record([(p, known_order(rng, p)) for p in batch], cost)
    assert resumed.looks > study.looks and resumed.matches > study.matches


def test_agents_of_a_known_order_rank_in_it_with_separated_intervals():
    rng = np.random.default_rng(2)
    cost = np.ones(1)
    study = certainty.Study(certainty.Deals(4, 1))
    while batch := study.next_batch(cost):
        study.record([(p, known_order(rng, p)) for p in batch], cost)
    assert study.separated() and certainty.order(study.deals) == [0, 1, 2, 3]
    assert study.looks <= certainty.LOOKS and study.history[-1]["open"] == 0


def test_the_command_keeps_its_budget_and_a_second_call_resumes_the_study(tmp_path, capsys):
    """`run --until-separated`: the first call stops at its match budget; the same command with a larger budget reads
    the study back from the database and goes on from there, never past its budget; each deal is a match and its
    mirror on one seed. bot:fixed:0 and bot:random are never separated (each deal a win each), so the budget ends it."""
    spec = tmp_path / "study.yaml"
    spec.write_text("name: study\ngames:\n  - game: tictactoe\n"
                    "    lineups: [[bot:equilibrium, bot:random], [bot:fixed:0, bot:random]]\n")
    db = tmp_path / "study.duckdb"
    assert main(["run", str(spec), "--db", str(db), "--until-separated", "--budget-matches", "40", "--quiet"]) == 0
    first = store.rows(db, "SELECT count(*), count(DISTINCT repeat) FROM matches")[0]
    assert first[0] <= 40 and first[1] >= 1
    assert main(["run", str(spec), "--db", str(db), "--until-separated", "--budget-matches", "200", "--quiet"]) == 0
    second = store.rows(db, "SELECT count(*), count(DISTINCT repeat) FROM matches")[0]
    assert first[0] < second[0] <= 200 and second[1] > first[1]
    pairs = store.rows(db, """SELECT count(*) FROM (SELECT deal FROM matches GROUP BY deal
                              HAVING count(*) = 2 AND count(DISTINCT mirror) = 2 AND count(DISTINCT seed) = 1)""")
    assert pairs[0][0] * 2 == second[0]
    printed = capsys.readouterr().out
    assert "look  matches" in printed and "study study-" in printed
