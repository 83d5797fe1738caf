"""The robustness page, headless: a stub model whose answers depend on the temperature plays the
guessing game at two temperatures and two prompt versions on the same seeds; the page must find the
temperature effect significant (paired test), the prompt version not, and give the verdicts."""

from __future__ import annotations

import asyncio
import itertools

import pytest
from streamlit.testing.v1 import AppTest

from engine.runner import run_spec
from engine.spec import parse_spec
from engine.testing import StubReply, StubServer


def spec(url: str) -> dict:
    def seat(temperature: float, version: str = "v1") -> dict:
        return {"all": {"agent": "openai/stub-model", "api_base": url, "temperature": temperature,
                        "prompt_version": version, "max_tokens": 16}}
    # one match at a time: the stub's wobble follows the calls' order, the same on every run (a round's
    # simultaneous calls may swap, which leaves a match's mean score as it is)
    return {"name": "robustness", "seed": 0, "repeats": 5, "concurrency": 1, "games": [  # 5 a level: a verdict
        {"game": "guessing_game", "params": {"players": 3, "rounds": 2},
         "lineups": [seat(1.0), seat(0.0), seat(1.0, "v2")]}]}


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("robustness") / "results.duckdb"
    wobble = itertools.count()
    with StubServer() as server:
        # temperature 0 answers near 10 (score near 90), temperature 1 near 50 (score near 50)
        server.responder = lambda req: StubReply(
            f'{{"chosen_number": {(10 if req["temperature"] == 0 else 50) + next(wobble) % 5}}}')
        asyncio.run(run_spec(parse_spec(spec(server.url)), path, progress=False))
    return path


def test_temperature_matters_and_the_prompt_version_does_not(db, monkeypatch):
    monkeypatch.setenv("ARENA_DB", str(db))
    at = AppTest.from_file("../pages/robustness.py", default_timeout=60).run()
    assert not at.exception
    tables = {h.value: None for h in at.header}
    assert {"Prompt versions", "Temperatures", "Verdicts"} <= set(tables)
    frames = [df.value for df in at.dataframe]
    temps = next(f for f in frames if "level" in f.columns and set(f["level"]) == {"0.00", "1.00"})  # shown as text
    assert temps["level"].iloc[0] == "1.00" and temps["test"].iloc[0] == "default"  # the paper's default first
    cold = temps.iloc[1]
    assert cold["test"] == "paired t" and cold["pairs"] == "5" and cold["significant"] == "yes"
    assert float(cold["diff"]) > 30 and float(cold["cohens_d"]) > 2
    versions = next(f for f in frames if "level" in f.columns and set(f["level"]) == {"v1", "v2"})
    assert versions["significant"].iloc[1] == "no"
    verdicts = frames[-1].set_index("factor")
    assert verdicts.loc["temperature", "verdict"] == "sensitive"
    assert verdicts.loc["prompt_version", "verdict"] == "robust"
    per_game = frames[-2].set_index("game")
    assert per_game.loc["guessing_game", "verdict"] == "sensitive"
    assert per_game.loc["guessing_game", "factors"] == str(verdicts.index.nunique()), per_game
    assert len(at.get("plotly_chart")) >= 2


def test_below_the_minimum_sample_the_verdict_is_not_enough_data(tmp_path, monkeypatch):
    """Two scores a level, however far apart: no verdict, and the page says why."""
    path = tmp_path / "results.duckdb"
    with StubServer() as server:
        server.responder = lambda req: StubReply(f'{{"chosen_number": {10 if req["temperature"] == 0 else 60}}}')
        raw = spec(server.url) | {"repeats": 2}
        asyncio.run(run_spec(parse_spec(raw), path, progress=False))
    monkeypatch.setenv("ARENA_DB", str(path))
    at = AppTest.from_file("../pages/robustness.py", default_timeout=60).run()
    assert not at.exception
    said = " ".join(m.value for m in at.markdown)
    assert "**guessing\\_game**: not enough data (fewer than 5 scores" in said
    verdicts = [df.value for df in at.dataframe][-1].set_index("factor")
    assert set(verdicts["verdict"]) == {"not enough data"}


def test_first_run_no_significant_difference_is_not_called_robust(first_run_db, monkeypatch):
    """The first run's local model: six scores a level, p well above 0.05, but intervals of the difference
    spanning tens of points: inconclusive, not robust; the rule is on the page; the figure shows 95% intervals
    of the mean inside the 0-100 scale, temperatures in numeric order."""
    import json

    monkeypatch.setenv("ARENA_DB", str(first_run_db))
    at = AppTest.from_file("../pages/robustness.py", default_timeout=60).run()
    assert not at.exception
    verdicts = [df.value for df in at.dataframe][-1].set_index("factor")
    for factor in ("prompt_version", "temperature"):
        assert verdicts.loc[factor, "verdict"] in ("inconclusive", "sensitive"), verdicts
    frames = [df.value for df in at.dataframe]
    pairs = ({"v1", "v2"}, {"0.00", "1.00"})
    judged = [f.iloc[1] for f in frames if "diff_low" in f.columns and set(f["level"]) in pairs]
    assert len(judged) == 2
    for row in judged:
        assert float(row["p_holm"]) > 0.05 and int(row["n"]) >= 5
    for f in frames:  # the tables' intervals of the mean stay on the 0-100 scale too (one showed 112.86)
        if {"low", "high"} <= set(f.columns) and set(f["level"]) in pairs:
            assert all(0 <= float(v) <= 100 for v in [*f["low"], *f["high"]] if v != ""), f
        assert float(row["diff_high"]) - float(row["diff_low"]) > 2 * 5  # wider than the margin both ways
    assert "equivalence test" in " ".join(c.value for c in at.caption)
    figures = [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]
    temperatures = next(f for f in figures if "temperatures" in f["layout"]["title"]["text"])
    trace = temperatures["data"][0]
    assert trace["x"] == sorted(trace["x"], key=float)  # 0.0 before 1.0
    for y, up, down in zip(trace["y"], trace["error_y"]["array"], trace["error_y"]["arrayminus"], strict=True):
        assert 0 <= y - down and y + up <= 100
    assert "95% interval" in temperatures["layout"]["title"]["text"]
