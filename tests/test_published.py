"""The papers' own tables as reference rows marked `paper`: in every database, out of `scores`' numbers (CSV,
JSON), and beside our rows for the same models on the leaderboards page and in `scores`' table."""

from __future__ import annotations

import asyncio

import pytest
from streamlit.testing.v1 import AppTest

from engine import store
from engine.cli.main import main
from engine.papers import published
from engine.papers.magic.abilities import AREA, PAPER_AREA, ability_profile
from engine.play.runner import run_spec
from engine.play.spec import parse_spec
from engine.present import queries

pytestmark = pytest.mark.slow

# bots labelled as two of the papers' models (and one no paper played)
SPEC = {"name": "paper", "seed": 1, "games": [
    {"game": "tictactoe", "lineups": [[{"agent": "bot:equilibrium", "label": "openai/gpt-4"},
                                       {"agent": "bot:random", "label": "Qwen-72B-Chat"}]]},
    {"game": "prisoners_dilemma", "preset": "magic_1",
     "lineups": [{"challenger": {"agent": "bot:always_defect", "label": "gpt-4"},
                  "others": {"agent": "bot:tit_for_tat", "label": "mine"}}]},
]}


def test_the_papers_tables_enter_every_database_marked_paper(db_path):
    store.init_db(db_path)
    counts = store.query(db_path, "SELECT source, count(*) AS n FROM published GROUP BY source ORDER BY source")
    assert dict(zip(counts["source"], counts["n"], strict=True)) == {
        "paper: LLMArena Table 1": 14 * 8, "paper: MAgIC Table 1": 8 * (8 + 2), "paper: MAgIC Table 2": 6 * 6}

    def value(model, name, strategy="vanilla"):
        return store.rows(db_path, "SELECT value FROM published WHERE model = ? AND name = ? AND strategy = ?",
                          [model, name, strategy])[0][0]

    assert value("GPT-3.5-Turbo", "undercover") == 92.59  # LLMArena's normalized scores as printed
    # MAgIC's abilities as printed, under our profile's names (0-100); win rates in % -> fractions
    assert value("GPT o1", "Judgement (0-100)") == 90.0 and value("Llama-2-70B", "win_rate") == 0.265
    assert value("GPT-4", "public_good_payback", "pgm") == 144.1 and value("GPT-4", "prisoner_wr", "pgm") == 0.762
    # the radar's area from Table 1's abilities: Figure 1's bars (GPT-4-turbo about 9.3 thousand) and ours
    assert 9_250 < value("GPT-4-turbo", PAPER_AREA) < 9_350 and 30 < value("GPT-4-turbo", AREA) < 40
    # Table 2's "GPT-3.5-T" and "Llama-2" under Table 1's names
    assert value("GPT-3.5-turbo", "prisoner_score", "pgm") == 11.6 and value("Llama-2-70B", "prisoner_score") == 6.05
    assert not store.rows(db_path, "SELECT model FROM published WHERE model IN ('GPT-3.5-T', 'Llama-2')")


def test_scores_keep_them_out_and_the_board_shows_them_beside_the_same_models(db_path, capsys, monkeypatch):
    asyncio.run(run_spec(parse_spec(SPEC), db_path, progress=False))
    for suite in ("llmarena", "magic"):
        assert main(["scores", "--suite", suite, "--db", str(db_path), "--format", "csv"]) == 0
        printed = capsys.readouterr().out  # the numbers: ours alone
        assert "paper" not in printed and "Llama" not in printed and "GPT o1" not in printed
    # the table a user reads: as the page shows it, the paper's rows of the models played right under ours
    assert main(["scores", "--suite", "llmarena", "--db", str(db_path)]) == 0
    rows = capsys.readouterr().out.splitlines()[1:]
    assert [(row.split()[0], "paper" if "paper: LLMArena Table 1" in row else "ours" * ("ours" in row.split()))
            for row in rows] == [
        ("openai/gpt-4", "ours"), ("GPT-4", "paper"), ("Qwen-72B-Chat", "ours"), ("Qwen-72B-Chat", "paper")]
    from engine.papers.llmarena.leaderboard import leaderboard

    table = published.interleave_published(leaderboard(db_path), queries.published_rows(db_path, "llmarena"))
    assert list(zip(table["agent"], table["source"], strict=True)) == [
        ("openai/gpt-4 · bot:equilibrium", "ours"), ("GPT-4", "paper: LLMArena Table 1"),
        ("Qwen-72B-Chat · bot:random", "ours"), ("Qwen-72B-Chat", "paper: LLMArena Table 1")]
    monkeypatch.setenv("ARENA_DB", str(db_path))
    at = AppTest.from_file("../pages/leaderboard.py", default_timeout=60).run()
    assert not at.exception
    magic = next(df.value for df in at.dataframe if {"source", "mean role win rate (%)"} <= set(df.value.columns))
    # a bot has no strategy: the papers' vanilla rows of the same model follow ours
    assert list(zip(magic["agent"], magic["source"], strict=True)) == [
        ("gpt-4 · bot:always_defect", "ours"), ("GPT-4", "paper: MAgIC Table 1"), ("GPT-4", "paper: MAgIC Table 2")]
    # an average over part of the games goes below the complete rows, its paper's row still right under it
    llmarena = next(df.value for df in at.dataframe if {"source", "average"} <= set(df.value.columns))
    assert list(zip(llmarena["agent"], llmarena["source"], strict=True)) == [
        ("openai/gpt-4 · bot:equilibrium", "ours"), ("GPT-4", "paper: LLMArena Table 1"),
        ("Qwen-72B-Chat · bot:random", "ours"), ("Qwen-72B-Chat", "paper: LLMArena Table 1")]
    table_2 = next(df.value for df in at.dataframe if "prisoner_score (points)" in df.value.columns)  # same rows
    assert table_2["prisoner_score (points)"].iloc[2] == "9.95" and table_2["prisoner_score (points)"].iloc[0] != ""


def test_every_published_magic_row_sits_beside_ours_for_the_same_model(db_path):
    """Table 2 abbreviates GPT-3.5-turbo and Llama-2-70B: their rows of both tables follow ours, in our columns
    (the abilities 0-100, the radar's area in both units)."""
    lineup = [{"challenger": {"agent": "bot:always_defect", "label": label},
               "others": {"agent": "bot:tit_for_tat", "label": "mine"}}
              for label in ("GPT-3.5-Turbo", "together_ai/Llama-2-70B")]
    spec = {"name": "names", "seed": 1,
            "games": [{"game": "prisoners_dilemma", "preset": "magic_1", "lineups": lineup}]}
    asyncio.run(run_spec(parse_spec(spec), db_path, progress=False))
    table = published.interleave_published(ability_profile(db_path), queries.published_rows(db_path, "magic"))
    assert list(zip(table["agent"], table["source"], strict=True)) == [
        ("GPT-3.5-Turbo · bot:always_defect", "ours"), ("GPT-3.5-turbo", "paper: MAgIC Table 1"),
        ("GPT-3.5-turbo", "paper: MAgIC Table 2"),
        ("together_ai/Llama-2-70B · bot:always_defect", "ours"), ("Llama-2-70B", "paper: MAgIC Table 1"),
        ("Llama-2-70B", "paper: MAgIC Table 2")]
    paper = table[table["source"] == "paper: MAgIC Table 1"].set_index("agent")
    assert paper.loc["GPT-3.5-turbo", "Judgement (0-100)"] == 52.5 and paper.loc["Llama-2-70B", PAPER_AREA] > 1_000
    assert table[table["source"] == "paper: MAgIC Table 2"]["prisoner_score"].tolist() == [9.57, 6.05]
