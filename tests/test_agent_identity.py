"""An agent's stable identity (engine/agent_names.py, issue 40): its name is its label (a display name only), its
agent string and every setting that changes its play, fixed when its match is written (`seats.agent_name`), so
adding a run never renames an earlier agent on any table, list or link; two runs that give one label to different
agents (the two shipped MAgIC studies) show them apart; a spec giving one label to two agents is refused in one
line (exit 2); a database of the schema before the names gets them, and its summaries keyed on them."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from engine import headline, queries, store, transcripts
from engine.__main__ import main
from engine.metrics import gamabench
from engine.runner import run_spec
from engine.selection import Selection
from engine.spec import load_spec, parse_spec
from engine.store import summaries
from engine.suites import get_suite
from engine.testing import StubReply, StubServer
from tests.summary_rows import assert_upgrade_builds_them

pytestmark = pytest.mark.slow  # a stub model's runs, two studies

ROOT = Path(__file__).resolve().parent.parent
SMALL = "openai/small-model"


def guess(request: dict) -> StubReply:
    return StubReply('{"chosen_number": 10}')


def model_run(name: str, url: str, max_tokens: int) -> dict:
    """A model at one max_tokens against two bots, as the README's first runs play local/smollm2."""
    seat = {"agent": SMALL, "api_base": url, "temperature": 1.0, "max_tokens": max_tokens}
    return {"name": name, "seed": 3, "repeats": 3, "games": [
        {"game": "guessing_game", "params": {"players": 3, "rounds": 1},
         "lineups": [[seat, "bot:random", "bot:equilibrium"]]}]}


def everything_named(db: Path, run_id: str) -> dict[str, object]:
    """What the pages, CSVs and links name the first run's agents by."""
    mine = Selection(run_ids=(run_id,))
    figures = headline.agent_figures(db, mine)
    model = next(agent for agent in figures["agent"] if agent.startswith(SMALL))
    return {
        "figures": sorted(figures["agent"]),
        "agents": sorted(queries.agents(db, mine, settings=True)["agent"]),
        "lineups": sorted(queries.recent_matches(db, run_id)["lineup"]),
        "γ-Bench table": sorted(gamabench.leaderboard(db, mine)["model"]),
        "a link's matches": len(transcripts.find_matches(db, transcripts.MatchSearch(agents=(model,)))),
        "model": model,
    }


def test_an_agents_name_is_the_same_after_a_run_at_another_max_tokens(tmp_path):
    """Issue 40: one more run of the model at another max_tokens renamed every earlier row "..., max_tokens=24" on
    every page, CSV and link, and a Transcripts link copied before listed 21 matches instead of 6."""
    db = tmp_path / "results.duckdb"
    with StubServer(guess) as stub:
        first = parse_spec(model_run("first", stub.url, 24))
        assert asyncio.run(run_spec(first, db, progress=False)).errors == 0
        before = everything_named(db, first.run_id)
        assert asyncio.run(run_spec(parse_spec(model_run("second", stub.url, 32)), db, progress=False)).errors == 0
    assert everything_named(db, first.run_id) == before
    assert before["model"] == f"{SMALL} (max_tokens=24)" and before["a link's matches"] == 3  # default t and prompt
    every = set(transcripts.agents(db))
    assert {before["model"], f"{SMALL} (max_tokens=32)"} <= every
    assert set(headline.agent_figures(db)["agent"]) == every  # the CLI's table and the pages name them alike


def test_the_two_magic_studies_in_one_database_are_distinct_rows(tmp_path):
    """Issue 40: magic_game_theory.yaml calls bot:random "challenger-bot", magic_social.yaml bot:letters; the profile
    showed one row with 7 of 7 abilities and one radar area built from two bots."""
    db = tmp_path / "magic.duckdb"
    for study in ("magic_game_theory", "magic_social"):
        assert asyncio.run(run_spec(load_spec(ROOT / "runs" / f"{study}.yaml"), db, progress=False)).errors == 0
    random, letters = "challenger-bot · bot:random", "challenger-bot · bot:letters"
    profile = get_suite("magic").leaderboard(db).set_index("agent")
    assert {random, letters} <= set(profile.index) and "challenger-bot" not in profile.index
    assert profile.loc[random, "roles"] != "7 of 7" and profile.loc[letters, "roles"] != "7 of 7"
    figures = headline.agent_figures(db).set_index("agent")
    assert figures.loc[random, "matches"] == 63 and figures.loc[letters, "matches"] == 80
    assert len(figures) == len(set(figures.index)) == 6  # every defender apart too


def test_a_spec_giving_one_label_to_two_agents_exits_2_with_one_line(tmp_path, capsys):
    spec = tmp_path / "one_label.yaml"
    spec.write_text("name: one-label\nagents:\n  a: {agent: bot:random, label: defender-bot}\n"
                    "  b: {agent: bot:minimax, label: defender-bot}\ngames:\n"
                    "  - {game: tictactoe, lineups: [[a, bot:random]]}\n"
                    "  - {game: connect_four, lineups: [[b, bot:random]]}\n")
    db = tmp_path / "never.duckdb"
    assert main(["run", str(spec), "--quiet", "--db", str(db)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "the label 'defender-bot' names two different agents" in err, err
    assert not db.exists()


def test_a_database_from_before_the_names_gets_them_and_its_summaries_keyed_on_them(tmp_path):
    """A copy of a played database set back to schema 15 (no `agent_name` anywhere), opened: its seats are named as
    the writer named them, and every summary is the writer's again."""
    db = tmp_path / "results.duckdb"
    with StubServer(guess) as stub:
        for name, max_tokens in (("first", 24), ("second", 32)):
            asyncio.run(run_spec(parse_spec(model_run(name, stub.url, max_tokens)), db, progress=False))
    with store.connect(db) as con:
        named = con.execute("SELECT match_id, seat, agent_name FROM seats ORDER BY 1, 2").fetchall()
        holding = [table for (table,) in con.execute(
            "SELECT DISTINCT table_name FROM information_schema.columns WHERE column_name LIKE '%agent_name'"
        ).fetchall()]
    undo = [f"ALTER TABLE {table} DROP COLUMN {column}" for table in holding
            for column in (("a_agent_name", "b_agent_name") if table.startswith("pairwise") else ("agent_name",))]
    assert "seats" in holding and len(holding) > 8
    old = assert_upgrade_builds_them(db, tmp_path, 15, tuple(undo), (*summaries.SUMMARIES, "match_scores"))
    assert store.rows(old, "SELECT match_id, seat, agent_name FROM seats ORDER BY 1, 2") == named
    assert store.rows(old, "SELECT max(version) FROM schema_version") == [(store.SCHEMA_VERSION,)]


def test_one_label_given_to_two_models_by_two_runs_is_two_models_on_robustness(tmp_path):
    """Robustness compares one model's settings, so it names a model without them: its label stays beside its agent
    string, and a label two runs gave to different models never pools their scores or their answer flags."""
    db = tmp_path / "results.duckdb"
    with StubServer(guess) as stub:
        for name, agent in (("first", SMALL), ("second", "openai/other-model")):
            run = model_run(name, stub.url, 24)
            run["games"][0]["lineups"][0][0] |= {"agent": agent, "label": "my-model"}
            assert asyncio.run(run_spec(parse_spec(run), db, progress=False)).errors == 0
    models = {f"my-model · {SMALL}", "my-model · openai/other-model"}
    assert queries.model_labels(db) == models
    assert models <= set(queries.agents(db)["agent"])
    for model in models:
        assert len(queries.robustness_scores(db, model)) == 3  # its own run's matches, not the other's
    assert queries.robustness_scores(db, "my-model").empty
