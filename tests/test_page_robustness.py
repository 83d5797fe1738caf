"""The robustness page, headless: a stub model whose answers depend on the temperature plays the
guessing game at two temperatures and two prompt versions on the same seeds; the page must find the
temperature effect significant (paired test), the prompt version not, and give the verdicts. On the first run's
database: no verdict below the minimum sample, settings never pooled, intervals inside the score range, one small
chart per game, defined columns and clean cells. The page draws one factor at a time and one game's level table,
both picked in the URL (`factor`, `levels_<factor>`), and judges every factor."""

from __future__ import annotations

import asyncio
import itertools
import json
import re

import pytest
from streamlit.testing.v1 import AppTest

from engine.games.settings import setting_label, setting_labels
from engine.play.runner import run_spec
from engine.play.spec import parse_spec
from engine.present import queries
from engine.testing import StubReply, StubServer
from pages.shared.markdown import plain
from tests.page_run import run_page

# runs/quick.yaml's 3-player guessing games (`retry: feedback`: a small model is asked again when unparsed;
# `reading: lenient`: its answer is found in prose)
FIRST_RUN_THREE_PLAYERS = "custom: players=3, reading=lenient, retry=feedback, rounds=1"

pytestmark = pytest.mark.slow


def first_number(text: str) -> float:
    """The value of a "value [lo to hi]" cell."""
    return float(text.split(" [")[0].replace(",", ""))


def bounds(text: str) -> tuple[float, float] | None:
    """The interval of a "value [lo to hi]" cell; None when it has none."""
    found = re.search(r"\[(-?[\d,.]+) to (-?[\d,.]+)\]", text)
    return (float(found[1].replace(",", "")), float(found[2].replace(",", ""))) if found else None


def comparisons(at: AppTest) -> list:
    """The per-level tables (one per game, setting and factor), as the page shows them."""
    return [df.value for df in at.dataframe if "difference (95% CI)" in df.value.columns]


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
    at = run_page("robustness", db, monkeypatch, factor="temperatures")
    assert not at.exception
    assert {"Temperatures", "Verdicts"} <= {h.value for h in at.header}
    temps = next(f for f in comparisons(at) if set(f["level"]) == {"0.00", "1.00"})  # shown as text
    assert temps["level"].iloc[0] == "1.00" and temps["test"].iloc[0] == "default"  # the paper's default first
    cold = temps.iloc[1]
    assert cold["test"] == "paired t (5)" and cold["significant"] == "yes"
    assert first_number(cold["difference (95% CI)"]) > 30 and float(cold["d"]) > 2
    assert cold["p (Holm)"] == "< 0.01" or float(cold["p (Holm)"]) < 0.05
    versions_page = run_page("robustness", db, monkeypatch, factor="prompt versions")
    versions = next(f for f in comparisons(versions_page) if set(f["level"]) == {"v1", "v2"})
    assert versions["significant"].iloc[1] == "no"  # the same answers under both versions: no difference, no p
    assert versions["p (Holm)"].iloc[1] == "" and versions["difference (95% CI)"].iloc[1] == "0.00 [0.00 to 0.00]"
    verdicts = [df.value for df in at.dataframe][-1].set_index("factor")
    assert verdicts.loc["temperature", "verdict"] == "sensitive"
    assert verdicts.loc["prompt version", "verdict"] == "robust"
    assert verdicts.loc["repeat", "verdict"] == "not enough data"  # one score a repeat at the default condition
    per_game = [df.value for df in at.dataframe][-2].set_index("game")
    assert per_game.loc["guessing_game", "verdict"] == "sensitive"
    assert per_game.loc["guessing_game", "sensitive to"] == "temperature"
    assert per_game.loc["guessing_game", "factors"] == str(verdicts.index.nunique()), per_game
    assert len(at.get("plotly_chart")) == 1


def test_one_factor_and_one_game_at_a_time_picked_in_the_url(first_run_db, monkeypatch):
    """Every factor's charts and every game's level table drawn at once took 13 s at a million matches: the page
    draws the factor and the game the link names (else the first factor compared, the first game with a verdict),
    and still judges every factor, game and setting."""
    at = run_page("robustness", first_run_db, monkeypatch, agent="bot:random")
    assert not at.exception
    assert at.selectbox(key="factor").value == "repeats"  # a bot plays no other factor
    headers = {h.value for h in at.header}
    assert "Repeats" in headers and not {"Prompt versions", "Temperatures", "Strategies"} & headers
    assert len(at.get("plotly_chart")) == 1 and len(comparisons(at)) == 1
    verdicts = [df.value for df in at.dataframe][-1]
    assert len(verdicts) == len(json.loads(at.get("plotly_chart")[0].proto.spec)["data"]) > 1
    three = f"guessing_game ({FIRST_RUN_THREE_PLAYERS})"
    picked = run_page("robustness", first_run_db, monkeypatch, agent="bot:random", levels_repeat=three)
    assert picked.selectbox(key="levels_repeat").value == three
    assert list(comparisons(picked)[0]["level"]) == [str(r) for r in range(6)]
    none = run_page("robustness", first_run_db, monkeypatch, agent="bot:random", factor="temperatures")
    assert not none.exception and not comparisons(none) and not none.get("plotly_chart")
    assert "has not played any game at more than one of its temperatures" in " ".join(c.value for c in none.caption)
    assert [df.value for df in none.dataframe][-1].equals(verdicts)  # judged all the same


def test_below_the_minimum_sample_the_verdict_is_not_enough_data(tmp_path, monkeypatch):
    """Two scores a level, however far apart: no test, no verdict, and the page says why and states the minimum."""
    path = tmp_path / "results.duckdb"
    with StubServer() as server:
        server.responder = lambda req: StubReply(f'{{"chosen_number": {10 if req["temperature"] == 0 else 60}}}')
        raw = spec(server.url) | {"repeats": 2}
        asyncio.run(run_spec(parse_spec(raw), path, progress=False))
    at = run_page("robustness", path, monkeypatch)
    assert not at.exception
    said = " ".join(m.value for m in at.markdown)
    assert "**Minimum sample: 5 scores a level**" in said
    assert "**guessing\\_game**: not enough data (a level or the default has fewer than 5 scores), in setting " \
        "custom\\: players\\=3\\, rounds\\=2" \
        in said
    for table in comparisons(at):
        assert list(table["test"].iloc[1:]) == ["not tested"] * (len(table) - 1)
        assert set(table["significant"]) == {""} and set(table["p (Holm)"]) == {""}  # not "no": nothing was tested
    verdicts = [df.value for df in at.dataframe][-1].set_index("factor")
    assert set(verdicts["verdict"]) == {"not enough data"} and set(verdicts["significant"]) == {""}


def test_first_run_no_significant_difference_is_not_called_robust(first_run_db, monkeypatch):
    """The first run's local model, its fallback scores counted: six scores a level, p well above 0.05, but intervals
    of the difference reaching past the margin: inconclusive, not robust; the rule is on the page; the figure shows
    95% intervals of the mean inside the 0-100 scale, temperatures in numeric order."""
    at = run_page("robustness", first_run_db, monkeypatch, agent="local/smollm2", factor="temperatures",
                  with_fallbacks="1")  # its own scores alone are too few for a verdict
    versions = run_page("robustness", first_run_db, monkeypatch, agent="local/smollm2", factor="prompt versions",
                        with_fallbacks="1")
    assert not at.exception and not versions.exception
    verdicts = [df.value for df in at.dataframe][-1].set_index("factor")
    for factor in ("prompt version", "temperature"):
        assert verdicts.loc[factor, "verdict"] in ("inconclusive", "sensitive"), verdicts
    judged = [f.iloc[1] for f in [*comparisons(at), *comparisons(versions)]
              if set(f["level"]) in ({"v1", "v2"}, {"0.00", "1.00"})]
    assert len(judged) == 2
    for row in judged:
        assert float(row["p (Holm)"]) > 0.05 and int(row["scores"]) >= 5 and row["significant"] == "no"
        low, high = bounds(row["difference (95% CI)"])
        assert low < -5 or high > 5  # reaching past the margin: not shown equivalent
    for table in comparisons(at):  # the tables' intervals of the mean stay on the 0-100 scale (one showed 112.86)
        for cell in table["mean (95% CI)"]:
            assert bounds(cell) is None or 0 <= bounds(cell)[0] <= bounds(cell)[1] <= 100, table
    assert "equivalence test" in " ".join(c.value for c in at.caption)
    figures = [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]
    temperatures = next(f for f in figures if "temperatures" in f["layout"]["title"]["text"])
    trace = temperatures["data"][0]
    assert trace["x"] == sorted(trace["x"], key=float)  # 0.0 before 1.0
    for y, up, down in zip(trace["y"], trace["error_y"]["array"], trace["error_y"]["arrayminus"], strict=True):
        assert 0 <= y - down and y + up <= 100
    assert "95% interval" in temperatures["layout"]["title"]["text"]
    # each small chart names its axes (the level compared, the mean score): a new user read bare numbers
    assert temperatures["layout"]["xaxis"]["title"]["text"] == "temperatures"
    assert temperatures["layout"]["yaxis"]["title"]["text"] == "mean score"


def test_first_run_bot_repeats_are_not_judged_on_three_scores(first_run_db, monkeypatch):
    """bot:random on the first run, the new user's defects: repeats 3-5 of the 3-player guessing game have 3 scores
    each (once tested, marked significant and the game called sensitive); the 10-player and 3-player games were
    pooled; intervals ran outside the scores' range; one chart held every game; p_holm showed 0.05 beside
    'significant'; columns were undefined; cells showed None."""
    three_players = f"guessing_game ({FIRST_RUN_THREE_PLAYERS})"
    at = run_page("robustness", first_run_db, monkeypatch, agent="bot:random", levels_repeat=three_players)
    assert not at.exception
    said = " ".join(m.value for m in at.markdown)
    for setting in ("vanilla", re.sub(r"([:=,])", r"\\\1", FIRST_RUN_THREE_PLAYERS)):  # apart, as γ-Bench names them
        assert f"**guessing\\_game**: not enough data (a level or the default has fewer than 5 scores), in setting " \
               f"{setting}" in said, said
    played = [df.value for df in at.dataframe][0]
    three_players = "players=3, rounds=1, retry=feedback, reading=lenient, min=0, max=100, ratio=0.67"
    assert three_players in set(played["params"]), set(played["params"])  # each setting in full
    from tests.test_one_definition import PAGE_PX, widths

    # "What it played" ran to 991 px: a bot's three blank condition columns are one, the params take what is left
    assert sum(widths(at.dataframe[0]).values()) <= PAGE_PX and list(played.columns)[-1] == "params"
    assert set(played["condition"]) == {""}
    three_player = next(f for f in comparisons(at) if list(f["level"]) == [str(r) for r in range(6)])
    assert list(three_player["scores"]) == ["3"] * 6
    assert list(three_player["test"]) == ["default"] + ["not tested"] * 5 and set(three_player["significant"]) == {""}
    verdicts = [df.value for df in at.dataframe][-1]
    assert "sensitive" not in set(verdicts["verdict"])
    assert set(verdicts[verdicts["game"] == "guessing_game"]["setting"]) == {
        "vanilla", FIRST_RUN_THREE_PLAYERS}
    # every interval of a mean inside the range its game's scores can take in that setting: γ-Bench's 0-100, else
    # the scores' own (Hold'em's chips: -18 to 100): on the page for the game shown, in the figures for every game
    rows = queries.robustness_scores(first_run_db, "bot:random")
    ranges = rows.assign(setting=setting_labels(rows)).groupby(["game", "setting"])["score"]
    lo, hi = queries.score_range("guessing_game", ranges.get_group(("guessing_game", FIRST_RUN_THREE_PLAYERS)))
    assert [bounds(cell) for cell in three_player["mean (95% CI)"]] == [None] * 6 or all(
        lo <= bounds(cell)[0] <= bounds(cell)[1] <= hi for cell in three_player["mean (95% CI)"])
    tables = queries.robustness(first_run_db, "bot:random").tables.dropna(subset=["low"])
    assert len(tables) > 0
    for (game, setting), table in tables.groupby(["game", "setting"]):
        lo, hi = queries.score_range(game, ranges.get_group((game, setting)))
        assert ((lo <= table["low"]) & (table["low"] <= table["high"]) & (table["high"] <= hi)).all(), table
    # one small chart per game and setting, one colour
    repeats = next(json.loads(c.proto.spec) for c in at.get("plotly_chart")
                   if "repeats" in json.loads(c.proto.spec)["layout"]["title"]["text"])
    assert len(repeats["data"]) == len(verdicts[verdicts["factor"] == "repeat"]) > 1
    assert len({t.get("xaxis", "x") for t in repeats["data"]}) == len(repeats["data"])  # each its own axes
    assert len({t["line"]["color"] for t in repeats["data"]}) == 1
    # every column defined under its table (folded); no None, nan or long decimals in any cell
    defined = " ".join(m.value for m in at.markdown)
    for column in [*three_player.columns, *verdicts.columns]:
        assert f"**{plain(column)}**" in defined or column in ("game", "setting", "factor", "verdict"), column
    for df in at.dataframe:
        frame = df.value
        for column in frame.columns:
            for value in map(str, frame[column]):
                assert value not in ("None", "nan", "NaN", "<NA>"), (column, frame)
                assert not re.search(r"\d\.\d{3,}", value), (column, value)  # 2 decimals, p-values too


def test_p_values_agree_with_significance(db, first_run_db, monkeypatch):
    """A p (Holm) shown beside "significant: yes" reads below 0.05, beside "no" at or above it (2 decimals showed
    0.049 as 0.05)."""
    for (path, agent), factor in itertools.product(((db, "openai/stub-model"), (first_run_db, "local/smollm2")),
                                                   ("prompt versions", "temperatures")):
        at = run_page("robustness", path, monkeypatch, agent=agent, factor=factor)
        for table in comparisons(at):
            for p, significant in zip(table["p (Holm)"], table["significant"], strict=True):
                if significant and p:  # (identical paired scores: tested, no difference, no p)
                    assert (p == "< 0.01" or float(p) < 0.05) == (significant == "yes"), table


def test_level_tables_fit_the_window_and_settings_are_named_as_gamma_bench_names_them(first_run_db, monkeypatch):
    """A new user's pass at 1400 px: the level tables scrolled ("significant" off-screen), and the 3-player guessing
    games were "default" here but "custom" in γ-Bench's own table."""
    from engine.papers.gamabench.scores import leaderboard
    from tests.test_one_definition import PAGE_PX, widths

    at = run_page("robustness", first_run_db, monkeypatch, agent="local/smollm2")
    assert not at.exception
    levels = [df for df in at.dataframe if "significant" in df.value.columns and "level" in df.value.columns]
    inside = PAGE_PX - 34  # an expander's table area (904 px measured in Chromium)
    assert levels and all(sum(widths(df).values()) <= inside for df in levels), [widths(df) for df in levels]
    played = at.dataframe[0].value
    assert set(played["setting"]) == {FIRST_RUN_THREE_PLAYERS}
    assert set(played["condition"]) == {"v1 · 0.00 · vanilla", "v1 · 1.00 · vanilla", "v2 · 1.00 · vanilla"}
    assert sum(widths(at.dataframe[0]).values()) <= PAGE_PX
    gama = leaderboard(first_run_db)
    assert set(gama[gama["model"].str.startswith("local/smollm2 (")]["setting"]) == {FIRST_RUN_THREE_PLAYERS}
    assert setting_label("guessing_game", "default", "{}") == "vanilla"


def test_past_a_hundred_conditions_what_it_played_shows_one_game_at_a_time(tmp_path, monkeypatch):
    """A million matches' model played 1,080 conditions: drawn, formatted and put in the report, 0.7 s of the page's
    load. Past `PLAYED_AT_ONCE` rows, one game's conditions (picked in the URL, `played_game`), the count said."""
    from engine import store

    path = tmp_path / "results.duckdb"
    store.init_db(path)
    with store.connect(path) as con:
        con.execute("INSERT INTO runs (run_id, name, source, status) VALUES ('r', 'r', 'engine', 'done')")
        games = [("guessing_game", t / 100, seed) for t in range(101) for seed in range(2)]
        games += [("tictactoe", t, seed) for t in (0.0, 1.0) for seed in range(5)]
        for i, (game, temperature, seed) in enumerate(games):
            con.execute("""INSERT INTO matches (match_id, run_id, game, preset, params, seed, "repeat", status,
                           finished_at) VALUES (?, 'r', ?, 'default', '{}', ?, 0, 'ok', '2026-01-02')""",
                        [f"m{i}", game, seed])
            con.execute("""INSERT INTO seats (match_id, seat, agent, label, temperature, prompt_version, strategy,
                           max_tokens, score) VALUES (?, 0, 'A', 'A', ?, 'v1', 'vanilla', 256, ?)""",
                        [f"m{i}", temperature, float(seed)])
    store.rebuild_summaries(path)
    at = run_page("robustness", path, monkeypatch)
    assert not at.exception
    assert at.selectbox(key="played_game").value == "guessing_game"
    assert "103 conditions in 2 games: those of guessing\\_game shown" in " ".join(c.value for c in at.caption)
    assert len(at.dataframe[0].value) == 101
    other = run_page("robustness", path, monkeypatch, played_game="tictactoe")
    assert list(other.dataframe[0].value["game"]) == ["tictactoe"] * 2
