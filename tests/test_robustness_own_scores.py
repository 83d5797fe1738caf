"""Robustness judges the model's own moves (issue 40): SmolLM2's v2 level held 5 fallback scores of 6, the engine's
random moves, and the page printed a verdict on them. Every level shows its own (non-fallback) scores and its
valid-move rate; the verdict reads only the own scores unless `with_fallbacks` asks for every one; the page opens
on a model, never on a labelled bot."""

from __future__ import annotations

import asyncio

import pytest

from engine.play.runner import run_spec
from engine.play.spec import parse_spec
from engine.present import queries
from engine.testing import StubReply, StubServer
from tests.page_run import run_page

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    """A stub model answers at temperature 0 and never at 1.0 (every move there a fallback: `retry: feedback`, as the
    first run plays it), 6 matches each, beside
    a bot labelled "alpha-bot" that sat in more seats and sorts first."""
    path = tmp_path_factory.mktemp("own") / "results.duckdb"

    def model(temperature: float) -> dict:
        return {"agent": "openai/stub-model", "api_base": server.url, "temperature": temperature, "max_tokens": 16,
                "label": "zeta-model"}

    with StubServer() as server:
        server.responder = lambda req: StubReply('{"chosen_number": 20}' if req["temperature"] == 0 else "pass")
        raw = {"name": "own", "seed": 0, "repeats": 6, "concurrency": 1, "games": [
            {"game": "guessing_game", "params": {"players": 3, "rounds": 1, "retry": "feedback"},
             "lineups": [[model(1.0), "bot:random", {"agent": "bot:random", "label": "alpha-bot"}],
                         [model(0.0), {"agent": "bot:random", "label": "alpha-bot"},
                          {"agent": "bot:random", "label": "alpha-bot"}]]}]}
        asyncio.run(run_spec(parse_spec(raw), path, progress=False))
    return path


MODEL = "zeta-model · openai/stub-model"  # its label beside its agent string


def levels(figures: queries.Robustness):
    return figures.tables[figures.tables["factor"] == "temperature"].set_index("level")


def test_a_level_counts_only_the_models_own_scores_unless_asked(db):
    own = levels(queries.robustness(db, MODEL))
    assert own.loc[1.0, ["n", "own"]].tolist() == [0, 0] and own.loc[0.0, ["n", "own"]].tolist() == [6, 6]
    assert own.loc[1.0, "valid_rate"] == 0 and own.loc[0.0, "valid_rate"] == 1
    assert own.loc[0.0, "test"] == "not tested"  # the default has no own score: nothing to compare with
    every = levels(queries.robustness(db, MODEL, own_only=False))
    assert every.loc[1.0, ["n", "own"]].tolist() == [6, 0]  # the fallback scores counted, and said to be fallbacks
    assert every.loc[0.0, "test"] in ("paired t", "Welch t")


def test_the_page_opens_on_the_model_shows_own_scores_and_valid_moves_and_judges_own_moves(db, monkeypatch):
    at = run_page("robustness", db, monkeypatch, factor="temperatures")
    assert not at.exception
    assert at.selectbox(key="agent").value == MODEL  # not alpha-bot, a bot under a label
    table = next(df.value for df in at.dataframe if "difference (95% CI)" in df.value.columns).set_index("level")
    assert table.loc["1.00", ["scores", "own", "valid"]].tolist() == ["0", "0", "0.0%"]
    assert table.loc["0.00", ["scores", "own", "valid"]].tolist() == ["6", "6", "100.0%"]
    said = " ".join(m.value for m in at.markdown)
    assert "**guessing\\_game**: not enough data" in said
    played = next(df.value for df in at.dataframe if "own" in df.value.columns and "params" in df.value.columns)
    assert sorted(played["valid"]) == ["0.0%", "100.0%"]


def test_the_toggle_counts_the_fallback_scores_in_the_verdict(db, monkeypatch):
    at = run_page("robustness", db, monkeypatch, factor="temperatures", with_fallbacks="1")
    assert not at.exception
    table = next(df.value for df in at.dataframe if "difference (95% CI)" in df.value.columns).set_index("level")
    assert table.loc["1.00", ["scores", "own"]].tolist() == ["6", "0"]
    said = " ".join(m.value for m in at.markdown)
    assert "**guessing\\_game**: not enough data" not in said
