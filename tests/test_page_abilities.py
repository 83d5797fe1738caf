"""The abilities page, headless: MAgIC's radar, area against win rate, and vanilla against PGM, from
bots' games and a stub LLM playing the prisoner's dilemma with both strategies."""

from __future__ import annotations

import asyncio
import math

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from engine.papers.magic.suite import SHORT_ABILITIES
from engine.play.runner import run_spec
from engine.play.spec import parse_spec
from engine.testing import StubReply
from tests.page_run import run_page

pytestmark = pytest.mark.slow


MODEL = "openai/stub-model (max_tokens=64)"  # its name: its strategies a column of their own


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
    profile = [df.value for df in at.dataframe if "Judg." in df.value.columns][-1]
    assert {"bot:random", "bot:selfish", MODEL} <= set(profile["agent"])
    assert "bot:letters" not in set(profile["agent"])  # it was a challenger only in self-play: out, as on Leaderboards
    assert {"vanilla", "pgm"} <= set(profile[profile["agent"] == MODEL]["strategy"])
    charts = at.get("plotly_chart")
    assert len(charts) == 4  # the radar, the area bars, and the vanilla and pgm radars side by side
    side = [df.value for df in at.dataframe if "Rationality · pgm (0-100)" in df.value.columns]
    assert list(side[0]["agent"]) == [MODEL]


def test_the_url_chooses_the_challengers(db, monkeypatch):
    at = page(db, monkeypatch, agents="bot:selfish")  # a bot is named alone (it has no strategy)
    assert not at.exception
    radar = at.get("plotly_chart")[0].proto.spec
    assert "bot:selfish" in radar and "bot:letters" not in radar


def test_no_magic_games_says_so(tmp_path, monkeypatch):
    at = page(tmp_path / "none.duckdb", monkeypatch)
    assert not at.exception and "No data yet" in at.info[0].value


def test_the_page_opens_on_the_challengers_with_the_most_abilities(db, monkeypatch):
    from engine.papers.magic.abilities import ABILITY_COLUMNS

    at = page(db, monkeypatch)
    profile = [df.value for df in at.dataframe if "Judg." in df.value.columns][-1]
    opening = at.multiselect(key="agents").value
    by_name = {(a if s in ("-", "") else f"{a} · {s}"): sum(v not in ("", None) for v in values)
               for a, s, *values in zip(profile["agent"], profile["strategy"],
                                        *(profile[SHORT_ABILITIES[n]] for n in ABILITY_COLUMNS), strict=True)}
    measured = sorted(by_name.values(), reverse=True)
    assert [by_name[c] for c in opening] == measured[:len(opening)]

def test_the_profile_fits_the_window_and_its_win_rate_is_named_for_what_it_is(db, monkeypatch):
    """MAgIC's profile ran off a 1400 px window (20+ columns), and its "win rate" (the mean of the role win rates)
    differed from the win rate of the other pages under the same name."""
    import json

    from engine.papers.magic.abilities import AREA, ROLE_WIN_RATES

    monkeypatch.setenv("ARENA_DB", str(db))
    at = AppTest.from_file("../pages/abilities.py", default_timeout=60).run()
    assert not at.exception
    profile, roles = [df for df in at.dataframe if {AREA, "cost_sharing_wr (%)"} & set(df.value.columns)]
    assert "mean role win rate (%)" in profile.value.columns and "win_rate (%)" not in profile.value.columns
    shown_rates = {f"{rate} (%)" for rate in ROLE_WIN_RATES}  # in percent, as the downloads and `scores` hold them
    assert not shown_rates & set(profile.value.columns) and shown_rates <= set(roles.value.columns)
    assert json.loads(profile.proto.columns)["agent"]["pinned"] is True
    assert len(profile.value.columns) <= 12  # agent, strategy, 7 abilities, mean role win rate, roles, area
    assert "not the win rate of the other pages" in " ".join(c.value for c in at.caption)


def test_one_scale_the_fullest_challengers_first_and_legends_beside(first_run_db, monkeypatch):
    """The paper's Figure 1 on one 0-100 scale: the radar's abilities and the win rate in percent, the area of that
    radar as a percentage of the full one (seven abilities at 100); the radar's numbers off the abilities' labels,
    legends beside the plots; the page opens on the challengers with the most abilities measured."""
    import json

    from engine.papers.magic.abilities import ABILITIES
    from engine.papers.magic.radar import area_percent

    at = page(first_run_db, monkeypatch)
    assert not at.exception
    profile = [df.value for df in at.dataframe if "Judg." in df.value.columns][-1]
    measured = (profile[list(SHORT_ABILITIES.values())] != "").sum(axis=1)
    opening = at.multiselect[0].value  # one complete challenger on the first run: it, then the fullest partial ones
    assert opening[0] in set(profile[measured == measured.max()]["agent"]) and len(opening) >= 2
    radar, bars = (json.loads(chart.proto.spec) for chart in at.get("plotly_chart")[:2])
    polar = radar["layout"]["polar"]
    assert polar["radialaxis"]["range"] == [0, 100]
    assert max(r for trace in radar["data"] for r in trace["r"] if r is not None) > 1  # percent, not fractions
    step = 360 / len(ABILITIES)  # the abilities' axes, from the top
    offset = (polar["radialaxis"]["angle"] - polar["angularaxis"]["rotation"]) % step
    assert min(offset, step - offset) > step / 4  # the radial numbers sit between two abilities' axes
    area, win = bars["data"]
    assert area_percent([100.0] * len(ABILITIES)) == 100 and bars["layout"]["yaxis"]["range"] == [0, 100]
    areas = [(a, raw) for a, raw in zip(area["y"], area["customdata"], strict=True) if a is not None]  # complete
    assert areas and all(0 < a <= 100 for a, _ in areas)  # win rate and area share the one 0-100 axis
    # the paper's unit in the hover: the same polygon's raw area on 0-100 axes (the full radar's 27,364 = 100%)
    full = 100 * 100 * 7 / 2 * math.sin(2 * math.pi / 7)
    assert [raw for _, raw in areas] == pytest.approx([a * full / 100 for a, _ in areas])
    assert "on 0-100 axes" in area["hovertemplate"]
    assert all(0 <= w <= 100 for w in win["y"]) and max(win["y"]) > 1
    # unrelated agents: points, each labelled with its agent and figure, never a line suggesting a trend
    assert "lines" not in win["mode"] and "markers" in win["mode"]
    assert win["text"] == [f"{agent}: {w:.1f}%" for agent, w in zip(area_names(win), win["y"], strict=True)]
    for figure in (radar, bars):
        assert figure["layout"]["legend"]["x"] > 1  # right of the plot, not over or under it


def area_names(win) -> list[str]:
    """The challenger of each point of the win-rate trace (its tick without the partial note)."""
    return [tick.split(" (partial")[0] for tick in win["x"]]


def test_partial_challengers_come_last_every_ability_fits_and_one_scale(first_run_db, monkeypatch):
    """A new user's pass at 1400 px on the first run: bot:equilibrium's "100.0% (partial)" (1 of 7 roles) sat above
    bot:scripted's complete 71.4%; Cooperation, Coordination and Rationality were off-screen; the table showed
    abilities as 0.75 beside a 0-100 radar; the area chart did not mark a partial mean."""
    import json

    from engine.papers.magic.abilities import ABILITIES, ABILITY_COLUMNS
    from tests.test_one_definition import PAGE_PX, widths

    at = page(first_run_db, monkeypatch, agents=["bot:random", "bot:equilibrium"])
    assert not at.exception
    frame = [df for df in at.dataframe if "Judg." in df.value.columns][-1]
    profile = frame.value
    partial = profile["mean role win rate (%)"].str.endswith("(partial)")
    assert partial.any() and not partial.iloc[:(~partial).sum()].any()  # the complete rows first, then the partial
    assert profile["agent"].iloc[0] == "bot:random"  # the one complete challenger (bot:scripted was two bots)
    assert set(SHORT_ABILITIES.values()) <= set(profile.columns) and sum(widths(frame).values()) <= PAGE_PX
    helps = json.loads(frame.proto.columns)
    assert all(helps[SHORT_ABILITIES[c]]["help"].startswith(f"{a}: 0-100")
               for a, c in zip(ABILITIES, ABILITY_COLUMNS, strict=True))
    complete = profile.set_index("agent").loc["bot:random"]
    assert complete["Judg."] == "75.00" and complete["roles"] == "7 of 7"  # 0-100 as the radar
    bars = json.loads(at.get("plotly_chart")[1].proto.spec)
    ticks = bars["data"][0]["x"]
    assert "bot:equilibrium (partial: 3 of 7 roles)" in ticks and "bot:random" in ticks
    assert "circle-open" in bars["data"][1]["marker"]["symbol"]
    assert "Partial (an open marker" in " ".join(c.value for c in at.caption)


def test_each_ability_has_its_n_and_wilson_interval_from_the_profiles_counts(db):
    """Abilities came without a sample size or an interval: each now has n (the challenger's matches behind it) and
    the 95% Wilson interval of its share (statsmodels' proportion_confint), the very ability the profile shows."""
    from dataclasses import replace

    from statsmodels.stats.proportion import proportion_confint

    from engine import store
    from engine.papers.magic.abilities import ABILITIES, ABILITY_COLUMNS
    from engine.papers.magic.intervals import ability_intervals
    from engine.papers.registry import get_suite, own_table
    from engine.store.selection import Selection

    suite = get_suite("magic")
    rows = ability_intervals(db, replace(Selection(), contested=True).within(suite.variants))
    profile = own_table(db, "magic").assign(strategy=lambda t: t["strategy"].fillna(""))
    rows = rows.assign(strategy=rows["strategy"].fillna("")).set_index(["agent", "strategy", "ability"])
    for record in profile.itertuples(index=False):
        for ability, column in zip(ABILITIES, ABILITY_COLUMNS, strict=True):
            row = rows.loc[(record.agent, record.strategy, ability)]
            value = profile.loc[(profile["agent"] == record.agent) & (profile["strategy"] == record.strategy),
                                column].item()
            assert (math.isnan(value) and math.isnan(row.value)) or row.value == pytest.approx(value)
            if row.trials and ability != "Deception":  # Deception adds its fixed guess term to the share
                low, high = proportion_confint(round(row.value / 100 * row.trials), row.trials, method="wilson")
                assert (row.low, row.high) == (pytest.approx(100 * low), pytest.approx(100 * high))
    seats = store.query(db, """SELECT label, count(*) AS n FROM seats JOIN matches USING (match_id)
                               WHERE game = 'cost_sharing' AND label = 'bot:selfish' GROUP BY label""")
    assert rows.loc[("bot:selfish", "", "Cooperation"), "n"] == seats["n"].item()  # one seat a match: its matches
    assert rows.loc[("bot:selfish", "", "Judgement"), "n"] == 0  # played no social game: no n, no interval
    assert math.isnan(rows.loc[("bot:selfish", "", "Judgement"), "low"])


def test_the_page_shows_each_abilitys_n_and_interval_in_a_table_and_the_radars_hover(db, monkeypatch):
    import json

    at = page(db, monkeypatch)
    assert not at.exception
    table = next(df.value for df in at.dataframe if {"interval", "n"} <= set(df.value.columns))
    assert set(table["ability"]) == {f"{a} (0-100)" for a in
                                     ("Judgement", "Reasoning", "Deception", "Self-awareness", "Cooperation",
                                      "Coordination", "Rationality")}
    played = table[table["n"] > 0]
    assert not played.empty and played["interval"].str.contains(r" \[.* to .*\]").all()
    radar = json.loads(at.get("plotly_chart")[0].proto.spec)
    hovers = [text for trace in radar["data"] for text in trace["customdata"]]
    assert any(" to " in text and ", n = " in text for text in hovers)


def test_an_abilitys_interval_stays_on_the_0_100_scale():
    """Deception adds its fixed 0.25 x guess term to the Wilson bounds: 2 games won of 3 with the full guess term
    read 91.67 [55.00 to 115.32], past the scale's 100. The bounds are clipped to it, the value untouched."""
    from engine.papers.magic.intervals import share_interval
    from engine.score import stats

    right, chances, shift = np.array([2.0, 0.0]), np.array([3.0, 3.0]), np.array([0.25, 0.0])
    low, high = share_interval(right, chances, shift)
    wilson_low, wilson_high = stats.wilson_interval(right, chances)
    assert wilson_high[0] + shift[0] > 1  # the case that passed 100
    assert high[0] == 1 and low[0] == pytest.approx(wilson_low[0] + shift[0])
    assert low[1] == 0 and high[1] == pytest.approx(wilson_high[1])
