"""The abilities page, headless: MAgIC's radar, area against win rate, and vanilla against PGM, from
bots' games and a stub LLM playing the prisoner's dilemma with both strategies."""

from __future__ import annotations

import asyncio

import pytest
from streamlit.testing.v1 import AppTest

from engine.runner import run_spec
from engine.spec import parse_spec
from engine.testing import StubReply
from tests.page_run import run_page


def llm(url: str, strategy: str) -> dict:
    return {"agent": "openai/stub-model", "api_base": url, "strategy": strategy, "max_tokens": 64}


def spec(url: str) -> dict:
    return {"name": "abilities", "seed": 5, "repeats": 1, "games": [
        {"game": "chameleon", "lineups": [{"challenger": "bot:random", "others": "bot:letters"}]},
        {"game": "undercover", "preset": "magic", "lineups": [{"all": "bot:letters"}]},
        {"game": "cost_sharing", "lineups": [{"challenger": "bot:selfish", "others": "bot:fair"}]},
        {"game": "prisoners_dilemma", "lineups": [{"challenger": llm(url, s), "others": "bot:tit_for_tat"}
                                                  for s in ("vanilla", "pgm")]},
    ]}


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    from engine.testing import StubServer

    path = tmp_path_factory.mktemp("abilities") / "results.duckdb"
    with StubServer() as server:
        server.responder = lambda req: StubReply('{"action": "defect"}')
        asyncio.run(run_spec(parse_spec(spec(server.url)), path, progress=False))
    return path


def page(db, monkeypatch, **params) -> AppTest:
    return run_page("abilities", db, monkeypatch, **params)


def test_radar_area_and_vanilla_against_pgm(db, monkeypatch):
    at = page(db, monkeypatch)
    assert not at.exception
    profile = [df.value for df in at.dataframe if "Judgement" in df.value.columns][-1]
    assert {"bot:random", "bot:letters", "bot:selfish", "openai/stub-model"} <= set(profile["agent"])
    assert {"vanilla", "pgm"} <= set(profile[profile["agent"] == "openai/stub-model"]["strategy"])
    charts = at.get("plotly_chart")
    assert len(charts) == 4  # the radar, the area bars, and the vanilla and pgm radars side by side
    side = [df.value for df in at.dataframe if "Rationality (pgm)" in df.value.columns]
    assert list(side[0]["agent"]) == ["openai/stub-model"]


def test_the_url_chooses_the_challengers(db, monkeypatch):
    at = page(db, monkeypatch, agents="bot:selfish")  # a bot is named alone (it has no strategy)
    assert not at.exception
    radar = at.get("plotly_chart")[0].proto.spec
    assert "bot:selfish" in radar and "bot:letters" not in radar


def test_no_magic_games_says_so(tmp_path, monkeypatch):
    at = page(tmp_path / "none.duckdb", monkeypatch)
    assert not at.exception and "No data yet" in at.info[0].value


def test_the_page_opens_on_the_challengers_with_the_most_abilities(db, monkeypatch):
    at = page(db, monkeypatch)
    profile = [df.value for df in at.dataframe if "Judgement" in df.value.columns][-1]
    most = profile["roles"].astype(int).max()
    opening = at.multiselect(key="agents").value
    by_name = {(a if s in ("-", "") else f"{a} · {s}"): int(r)
               for a, s, r in zip(profile["agent"], profile["strategy"], profile["roles"], strict=True)}
    measured = sorted(by_name.values(), reverse=True)
    assert [by_name[c] for c in opening] == measured[:len(opening)] and by_name[opening[0]] == most
    radar = at.get("plotly_chart")[0].proto.spec
    assert '"orientation":"h"' in radar.replace(" ", "")  # the legend lies below the radar, not over it
