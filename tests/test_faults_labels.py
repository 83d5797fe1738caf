"""A label (or an imported model's name) holding markup is drawn as its text on every chart: plotly reads <a href>
(a live link), <b> and <br> in trace names, ticks, text and hover text."""

from __future__ import annotations

import asyncio
import json

import pytest

from engine.play.runner import run_spec
from engine.play.spec import parse_spec
from tests.page_run import run_page

pytestmark = pytest.mark.slow

LINK = '<a href="https://evil.example">prize</a>'


def _strings(value, path: str = ""):
    """Every string of a plotly figure's JSON, with where it is."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(item, f"{path}.{key}")
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item, f"{path}[]")


@pytest.fixture(scope="module")
def hostile_db(tmp_path_factory):
    """One agent string under the hostile label in both games: a label names one agent (engine/play/spec.py)."""
    db = tmp_path_factory.mktemp("labels") / "r.duckdb"
    asyncio.run(run_spec(parse_spec({"name": "labels", "seed": 3, "repeats": 2, "games": [
        {"game": "prisoners_dilemma", "preset": "magic_1",
         "lineups": [{"challenger": {"agent": "bot:equilibrium", "label": LINK}, "others": "bot:tit_for_tat"}]},
        {"game": "tictactoe", "lineups": [[{"agent": "bot:equilibrium", "label": LINK}, "bot:random"]]}]}),
        db, progress=False))
    return db


@pytest.mark.parametrize("page, params", [("abilities", {}), ("leaderboard", {"game": "tictactoe"}),
                                          ("games", {"game": "tictactoe"})])
def test_a_label_with_a_link_is_text_on_every_chart(hostile_db, monkeypatch, page, params):
    at = run_page(page, hostile_db, monkeypatch, **params)
    assert not at.exception
    charts = at.get("plotly_chart")
    assert charts
    drawn = [(where, text) for chart in charts for where, text in _strings(json.loads(chart.proto.spec))]
    assert any("&lt;a href" in text for _, text in drawn)  # the label is on a chart, as its text
    assert not [(where, text) for where, text in drawn if "<a " in text]
