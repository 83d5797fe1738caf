"""The papers' own tables as reference rows marked `paper`: in every database, out of `scores`, and beside
our rows for the same models on the leaderboards page."""

from __future__ import annotations

import asyncio

import pytest
from streamlit.testing.v1 import AppTest

from engine import published, queries, store
from engine.__main__ import main
from engine.runner import run_spec
from engine.spec import parse_spec

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
        "paper: LLMArena Table 1": 14 * 8, "paper: MAgIC Table 1": 8 * 8, "paper: MAgIC Table 2": 6 * 6}

    def value(model, name, strategy="vanilla"):
        return store.rows(db_path, "SELECT value FROM published WHERE model = ? AND name = ? AND strategy = ?",
                          [model, name, strategy])[0][0]

    assert value("GPT-3.5-Turbo", "undercover") == 92.59  # LLMArena's normalized scores as printed
    assert value("GPT o1", "Judgement") == 0.9 and value("Llama-2-70B", "win_rate") == 0.265  # % -> fractions
    assert value("GPT-4", "public_good_payback", "pgm") == 144.1 and value("GPT-4", "prisoner_wr", "pgm") == 0.762


def test_scores_keep_them_out_and_the_board_shows_them_beside_the_same_models(db_path, capsys, monkeypatch):
    asyncio.run(run_spec(parse_spec(SPEC), db_path, progress=False))
    for suite in ("llmarena", "magic"):
        assert main(["scores", "--suite", suite, "--db", str(db_path), "--format", "csv"]) == 0
        printed = capsys.readouterr().out
        assert "paper" not in printed and "Llama" not in printed and "GPT o1" not in printed
    from engine.metrics.llmarena import leaderboard

    table = published.beside(leaderboard(db_path), queries.published_rows(db_path, "llmarena"))
    assert list(zip(table["agent"], table["source"], strict=True)) == [
        ("openai/gpt-4", "ours"), ("GPT-4", "paper: LLMArena Table 1"),
        ("Qwen-72B-Chat", "ours"), ("Qwen-72B-Chat", "paper: LLMArena Table 1")]
    monkeypatch.setenv("ARENA_DB", str(db_path))
    at = AppTest.from_file("../pages/leaderboard.py", default_timeout=60).run()
    assert not at.exception
    magic = next(df.value for df in at.dataframe if {"source", "mean role win rate"} <= set(df.value.columns))
    # a bot has no strategy: the papers' vanilla rows of the same model follow ours
    assert list(zip(magic["agent"], magic["source"], strict=True)) == [
        ("gpt-4", "ours"), ("GPT-4", "paper: MAgIC Table 1"), ("GPT-4", "paper: MAgIC Table 2")]
    table_2 = next(df.value for df in at.dataframe if "prisoner_score" in df.value.columns)  # beside, same rows
    assert table_2["prisoner_score"].iloc[2] == "9.95" and table_2["prisoner_score"].iloc[0] != ""  # as shown
