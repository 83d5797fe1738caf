"""The Overview page's matches table at 1400 px, headless: a new user's pass found it 1,258 px wide in a 938 px page
(a link column and an id column, an empty error column, ten-seat lineups written seat by seat)."""

from __future__ import annotations

import asyncio
import json

import duckdb

from engine.play.runner import run_spec
from engine.play.spec import parse_spec
from tests.page_run import run_page
from tests.test_one_definition import PAGE_PX, widths

SPEC = {"name": "overview", "seed": 4, "games": [
    {"game": "guessing_game", "params": {"players": 4, "rounds": 2},
     "lineups": [["bot:equilibrium", "bot:random", "bot:random", "bot:random"]]},
    {"game": "tictactoe", "lineups": [["bot:equilibrium", "bot:random"]]},
]}


def matches_table(at):
    frame = at.dataframe[-1]
    return frame.value, json.loads(frame.proto.columns)


def test_the_matches_table_fits_and_its_id_is_the_link(db_path, monkeypatch):
    asyncio.run(run_spec(parse_spec(SPEC), db_path, progress=False))
    at = run_page("overview", db_path, monkeypatch)
    assert not at.exception
    shown, config = matches_table(at)
    assert sum(widths(at.dataframe[-1]).values()) <= PAGE_PX, widths(at.dataframe[-1])
    assert list(shown.columns)[0] == "transcript" and list(shown.columns)[-1] == "lineup"
    assert config["transcript"]["label"] == "match" and "match_id" not in shown  # the id is the link's text
    assert "error" not in shown  # no match has one: no empty column
    assert set(shown["lineup"]) == {"bot:equilibrium, bot:random ×3", "bot:equilibrium, bot:random"}
    assert all(config[c].get("help") for c in ("transcript", "finished_at", "lineup"))
    said = " ".join(c.value for c in at.caption)  # a reviewer's finding: the table said nothing of what it lists
    assert "The 2 matches of every run, newest first, whatever their status" in said


def test_an_error_gets_its_column_and_the_table_still_fits(db_path, monkeypatch):
    asyncio.run(run_spec(parse_spec(SPEC), db_path, progress=False))
    with duckdb.connect(str(db_path)) as con:  # as a match the provider kept failing is stored
        con.execute("UPDATE matches SET status = 'error', error = ? WHERE game = 'tictactoe'",
                     ["RateLimitError: the provider refused every retry " * 3])
    at = run_page("overview", db_path, monkeypatch)
    assert not at.exception
    shown, _ = matches_table(at)
    assert sum(widths(at.dataframe[-1]).values()) <= PAGE_PX, widths(at.dataframe[-1])
    assert list(shown.columns)[-2:] == ["error", "lineup"]
    assert set(shown["error"]) == {"", "RateLimitError: the provider refused every retry " * 3}  # blank, never None


def test_every_overview_table_fits_and_downloads(db_path, monkeypatch):
    """Issue 29: the runs table and the per-game tables ran past a 1400 px window (a long run name, a long model
    name) and none of Overview's tables downloaded."""
    from streamlit.delta_generator import DeltaGenerator

    long = {**SPEC, "name": "a study of the guessing game at four players with the equilibrium bot, run twice"}
    asyncio.run(run_spec(parse_spec(long), db_path, progress=False))
    with duckdb.connect(str(db_path)) as con:  # an agent whose name is as long as a local model's path
        con.execute("UPDATE seats SET agent = 'local/' || repeat('a-very-long-model-name-', 4) "
                    "WHERE agent = 'bot:equilibrium'")
    files: list[str] = []
    monkeypatch.setattr(DeltaGenerator, "download_button",
                        lambda self, label, data, file_name, *a, **k: files.append(file_name))
    at = run_page("overview", db_path, monkeypatch)
    assert not at.exception and len(at.dataframe) == 4  # runs, two games, matches
    for frame in at.dataframe:
        assert sum(widths(frame).values()) <= PAGE_PX, widths(frame)
    assert {"runs.csv", "matches.csv", "win_rates_guessing_game.csv", "win_rates_tictactoe.csv"} <= set(files), files


def test_the_chosen_run_is_kept_in_the_url(db_path, monkeypatch):
    """A new user's pass: Overview's run picker was the one choice of the dashboard a reload or a link lost."""
    spec = parse_spec(SPEC)
    asyncio.run(run_spec(spec, db_path, progress=False))
    at = run_page("overview", db_path, monkeypatch)
    picker = next(s for s in at.selectbox if s.label == "Run")
    picker.select(spec.run_id).run()
    assert dict(at.query_params)["run"] in (spec.run_id, [spec.run_id]), dict(at.query_params)
    opened = run_page("overview", db_path, monkeypatch, run=spec.run_id)
    assert next(s for s in opened.selectbox if s.label == "Run").value == spec.run_id


def test_a_rule_sets_table_says_its_own_scoring_rule(db_path, monkeypatch):
    """A new user's report: the tables "undercover (magic rules)" and "undercover (wis rules)" both said the scoring
    rules of all three papers, not the one that table's matches were scored by."""
    asyncio.run(run_spec(parse_spec({"name": "two rule sets", "seed": 2, "games": [
        {"game": "undercover", "lineups": [["bot:random", "bot:letters", "bot:obedient"]]},
        {"game": "undercover", "preset": "wis", "params": {"role_seat": 0}, "lineups": [
            ["bot:injector", "bot:obedient", "bot:letters", "bot:obedient", "bot:letters", "bot:obedient"]]},
    ]}), db_path, progress=False))
    at = run_page("overview", db_path, monkeypatch)
    assert not at.exception
    captions = [c.value.replace("\\", "") for c in at.caption]  # markdown's escapes: "undercover \\(wis rules\\)"
    pools = [c for c in captions if c.startswith("The contested matches of ")]
    scores = [json.loads(df.proto.columns)["mean score"]["help"] for df in at.dataframe
              if "mean score" in df.value.columns]  # each table's score defined in its header, beside its caption
    rules = {"magic": "MAgIC's rules", "llmarena": "LLMArena's rules", "wis": "Who is Spy's rules"}
    for rule_set in ("magic", "wis"):
        (score,) = [s for c, s in zip(pools, scores, strict=True)
                    if c.startswith(f"The contested matches of undercover ({rule_set}")]
        assert [name for name, said in rules.items() if said in score] == [rule_set], score
