"""The adaptive study's choices on small cases whose answer is known (engine/study/certainty.py): a pairing already
separated
gets no deal, a study whose adjacent pairs are all separated stops, a budget is never exceeded, a resumed study
continues where it stopped, and agents of a known order come out in that order with separated intervals. The command:
a bot is seated only in games that have it, errored matches count as looks and against the budget, a batch of errors
only stops the study, a budget is refused without the study or below 0, and the lines it prints add up."""

from __future__ import annotations

import numpy as np
import pytest

from engine import store
from engine.cli import main as cli_main
from engine.cli.main import EXIT_ERRORS, main
from engine.play.runner import RunSummary
from engine.play.spec import load_spec
from engine.study import certainty, certainty_reads, certainty_run
from engine.study.certainty_reads import frame_of


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


def test_a_bot_is_paired_only_in_the_games_that_have_it(tmp_path):
    """bot:equilibrium exists in tictactoe only, bot:minimax in connect_four only: the study pairs each only there, so
    no match of the study ends in an error (a bot seated where it does not exist)."""
    spec = tmp_path / "study.yaml"
    spec.write_text("name: study\ngames:\n  - game: tictactoe\n    lineups: [[bot:equilibrium, bot:random]]\n"
                    "  - game: connect_four\n    lineups: [[bot:minimax, bot:random]]\n")
    frame = frame_of(load_spec(spec))
    games = [game for game, _, _ in frame.games]
    seated = {(frame.names[a], games[g]) for a, b, g in frame.playable} | \
        {(frame.names[b], games[g]) for a, b, g in frame.playable}
    assert ("bot:equilibrium", "connect_four") not in seated and ("bot:minimax", "tictactoe") not in seated
    assert ("bot:random", "connect_four") in seated and ("bot:equilibrium", "tictactoe") in seated
    deals = certainty.Deals(len(frame.agents), len(frame.games), playable=frame.playable)
    assert set(deals.pairings()) == set(frame.playable)
    db = tmp_path / "study.duckdb"
    assert main(["run", str(spec), "--db", str(db), "--until-separated", "--budget-matches", "24", "--quiet"]) == 0
    (errors, played), = store.rows(db, "SELECT count(*) FILTER (WHERE status <> 'ok'), count(*) FROM matches")
    assert errors == 0 and 0 < played <= 24


class ErroringRunner:
    """A stand-in for `run_spec` whose matches end in an error (every one, or all but the first of a batch); it
    counts its batches and fails the test past a few more than a study's looks (a study that never ends)."""

    def __init__(self, all_errors: bool):
        self.all_errors, self.batches, self.matches = all_errors, 0, 0

    async def __call__(self, spec, db, progress=True):
        self.batches += 1
        self.matches += len(spec.matches)
        assert self.batches <= certainty.LOOKS + 2, "the study does not end"
        errors = len(spec.matches) - (0 if self.all_errors else 1)
        said = [f"{plan.match_id}: ValueError: no such bot" for plan in spec.matches][:errors]
        return RunSummary(spec.run_id, len(spec.matches), played=len(spec.matches), errors=errors, error_messages=said)


def test_errored_matches_count_as_looks_and_against_the_budget(tmp_path, monkeypatch):
    """Matches that end in an error leave no deal to read back; the study still counts each batch as a look and its
    matches against the match budget, so it ends."""
    spec = tmp_path / "study.yaml"
    spec.write_text("name: study\ngames:\n  - game: tictactoe\n    lineups: [[bot:equilibrium, bot:random]]\n")
    runner = ErroringRunner(all_errors=False)
    monkeypatch.setattr(certainty_run, "run_spec", runner)
    monkeypatch.setattr(cli_main, "_refresh_ratings", lambda db: True)  # the stand-in stores no match to rate
    assert main(["run", str(spec), "--db", str(tmp_path / "s.duckdb"), "--until-separated", "--budget-matches",
                 "100", "--quiet"]) == 0
    assert 1 <= runner.batches <= certainty.LOOKS and 0 < runner.matches <= 100


def test_a_batch_of_errors_only_stops_the_study_with_one_line(tmp_path, monkeypatch, capsys):
    spec = tmp_path / "study.yaml"
    spec.write_text("name: study\ngames:\n  - game: tictactoe\n    lineups: [[bot:equilibrium, bot:random]]\n")
    runner = ErroringRunner(all_errors=True)
    monkeypatch.setattr(certainty_run, "run_spec", runner)
    assert main(["run", str(spec), "--db", str(tmp_path / "s.duckdb"), "--until-separated", "--quiet"]) == EXIT_ERRORS
    assert runner.batches == 1
    said = capsys.readouterr().err.strip().splitlines()
    assert len(said) == 1 and "error" in said[0] and "ValueError: no such bot" in said[0]


def test_the_printed_interval_of_a_share_stays_within_0_and_1():
    deals = deals_of(2, {(0, 1, 0): [1.0] * 40})
    frame = certainty_reads.Frame([], [("tictactoe", "", {})], ["a", "b"], frozenset({(0, 1, 0)}))
    line = certainty_run.report(certainty.Study(deals), frame)[-1]
    assert certainty.pair_interval(deals, 0, 1)[2] > 1  # the normal interval passes 1
    lo, hi = (float(x) for x in line.split("[")[1].split("]")[0].split(", "))
    assert line.startswith("a over b: 1.000") and 0 <= lo <= hi <= 1


def test_a_budget_needs_the_study_and_a_positive_number(tmp_path, capsys):
    """A budget without --until-separated, or a negative one, is refused in one line (exit 2), nothing played; a
    budget too small for one deal plays nothing and says so (exit 0)."""
    spec = tmp_path / "study.yaml"
    spec.write_text("name: study\ngames:\n  - game: tictactoe\n    lineups: [[bot:equilibrium, bot:random]]\n")
    db = tmp_path / "s.duckdb"
    assert main(["run", str(spec), "--db", str(db), "--budget-matches", "10", "--quiet"]) == 2
    assert "--until-separated" in capsys.readouterr().err and not db.exists()
    for budget in (["--budget-matches", "-5"], ["--budget-usd", "-1"]):
        with pytest.raises(SystemExit) as refused:
            main(["run", str(spec), "--db", str(db), "--until-separated", *budget, "--quiet"])
        assert refused.value.code == 2 and not db.exists()
    assert main(["run", str(spec), "--db", str(db), "--until-separated", "--budget-matches", "1", "--quiet"]) == 0
    assert "after 0 looks, 0 matches" in capsys.readouterr().out


def test_an_interrupted_study_counts_its_own_matches(tmp_path, monkeypatch, capsys):
    """The study's matches are not the spec's lineups: the line says how many are saved, not "n of <the spec's>"."""
    spec = tmp_path / "study.yaml"
    spec.write_text("name: study\ngames:\n  - game: tictactoe\n    lineups: [[bot:equilibrium, bot:random]]\n")

    async def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(certainty_run, "until_separated", interrupted)
    assert main(["run", str(spec), "--db", str(tmp_path / "s.duckdb"), "--until-separated", "--quiet"]) == 130
    said = capsys.readouterr().err
    assert "interrupted: 0 matches done and saved" in said and " of " not in said
