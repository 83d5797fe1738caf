"""Issue 29 point 2: each figure has one scale wherever it appears, its unit in its header. A share or rate is in
percent (0-100) on the page, in its CSV download and in `python -m engine scores` (table, CSV, JSON), named "(%)";
a figure in a unit of its own names it ("bid_reward ($)"), or the suite's caption does where the headers have no
room (Who is Spy's points, γ-Bench's 0-100). A new user read Hold'em's "share 0.57" beside Hanabi's "20.7%", a role
win rate in % on the page and 0-1 in the CSV, and fractions in the CLI to one decimal."""

from __future__ import annotations

import asyncio
import io
import json
import subprocess
import sys

import pandas as pd
import pytest
from streamlit.delta_generator import DeltaGenerator

from engine import store
from engine.papers.registry import get_suite
from engine.play.runner import run_spec
from engine.play.spec import parse_spec
from engine.present.numbers import cell, is_rate, on_one_scale, readable
from engine.present.suite_tables import own_table_view
from engine.store.selection import Selection
from tests.page_run import run_page

SPEC = {"name": "scales", "seed": 3, "repeats": 2, "games": [
    {"game": "tictactoe", "lineups": [["bot:equilibrium", "bot:random"]]},
    {"game": "texas_holdem", "lineups": [["bot:random", "bot:hand_strength"]]},
    {"game": "hanabi", "lineups": [{"all": "bot:random"}]},
    {"game": "bid", "lineups": [["bot:random", "bot:equilibrium"]]},
    {"game": "undercover", "preset": "wis", "params": {"role_seat": 0}, "lineups": [
        ["bot:injector", "bot:obedient", "bot:letters", "bot:obedient", "bot:letters", "bot:obedient"]]},
    {"game": "bar_game", "params": {"players": 3, "rounds": 2}, "lineups": [{"all": "bot:random"}]},
    {"game": "prisoners_dilemma", "lineups": [["bot:random", "bot:equilibrium", "bot:random"]]},
]}


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("scales") / "results.duckdb"
    asyncio.run(run_spec(parse_spec(SPEC), path, progress=False))
    return path


def scores(db, suite: str, form: str) -> str:
    """What `python -m engine scores` prints, run as a user runs it."""
    done = subprocess.run([sys.executable, "-m", "engine", "scores", "--suite", suite, "--db", str(db), "--format",
                           form], cwd=store.ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def cli_tables(db, suite: str) -> dict[str, pd.DataFrame]:
    """The suite's table as `scores` prints it in each format, indexed by its first column (the table format's
    cells as the text it prints)."""
    csv = pd.read_csv(io.StringIO(scores(db, suite, "csv")))
    as_json = pd.DataFrame(json.loads(scores(db, suite, "json")))
    header, *lines = scores(db, suite, "table").splitlines()
    layout = get_suite(suite).layout  # the headers to cut the lines at: the view's, compared with the page's below
    columns = list(own_table_view(get_suite(suite).leaderboard(db, Selection()), layout).columns)
    ends, at = [], 0
    for column in columns:  # every column right-aligned: its cells end where its header ends
        at = header.index(column, at) + len(column)
        ends.append(at)
    rows = [[line[start:end].strip() for start, end in zip([0, *ends[:-1]], ends, strict=True)] for line in lines]
    return {"csv": csv.set_index(csv.columns[0]), "json": as_json.set_index(csv.columns[0]),
            "table": pd.DataFrame(rows, columns=columns).set_index(columns[0])}


@pytest.fixture(scope="module")
def pages(db):
    """The Leaderboards page and the Games page of Hold'em, Hanabi and the El Farol bar, run on `db`, with every
    CSV their download buttons hold."""
    downloads: dict[str, pd.DataFrame] = {}

    def keep(self, label, data, file_name, *args, **kwargs):
        if file_name.endswith(".csv"):  # the file a click makes
            downloads[file_name] = pd.read_csv(io.BytesIO(data() if callable(data) else data))

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(DeltaGenerator, "download_button", keep)
        shown = {"leaderboard": run_page("leaderboard", db, patch)}
        for game in ("texas_holdem", "hanabi", "bar_game"):
            shown[game] = run_page("games", db, patch, game=game)
    for at in shown.values():
        assert not at.exception
    return shown, downloads


def frame_with(at, column: str) -> pd.DataFrame:
    return next(df.value for df in at.dataframe if column in df.value.columns)


def shown_number(text: str) -> float:
    """A number as a page shows it ("62.5%", "1,146", "100.0% (partial)")."""
    return float(text.split("%")[0].split(" ")[0].replace(",", ""))


def test_a_share_is_in_percent_and_named_so_in_every_output():
    """`on_one_scale` is what every output writes: shares and rates x 100 under "(%)", a declared unit in its
    header; what is already on the scale passes unchanged; the page shows both as the same percentage."""
    board = pd.DataFrame({"agent": ["a"], "share": [0.57], "play_share": [0.207], "win_rate": [2 / 3],
                          "vote_accuracy": [0.75], "mean_win_prob": [0.5], "ranking": [119.0], "games": [4],
                          "area (%)": [45.5]})
    out = on_one_scale(board, {"ranking": "points"})
    assert list(out.columns) == ["agent", "share (%)", "play_share (%)", "win_rate (%)", "vote_accuracy (%)",
                                 "mean_win_prob (%)", "ranking (points)", "games", "area (%)"]
    assert out.iloc[0, 1:6].tolist() == pytest.approx([57, 20.7, 200 / 3, 75, 50])
    assert out["ranking (points)"][0] == 119.0 and out["area (%)"][0] == 45.5
    pd.testing.assert_frame_equal(on_one_scale(out, {"ranking": "points"}), out)  # once on the scale, it stays
    assert readable(out).iloc[0].tolist() == readable(board.rename(columns={"ranking": "ranking (points)"})).iloc[
        0].tolist()  # the page shows a fraction and its percentage alike: "57.0%", ...
    assert cell(57.0, 2, "share (%)") == "57.0%" and cell(0.57, 2, "share") == "57.0%"
    assert not is_rate("share (%)") and is_rate("crowded") and not is_rate("win_prob_bin")


@pytest.mark.slow
def test_each_suites_table_has_one_scale_on_the_page_in_its_download_and_in_scores(db, pages):
    """Per suite, one figure (a rate where the table has one) read from the page, its CSV download and `scores` as
    CSV, JSON and a table: the same number on the same scale, under a header naming its unit."""
    shown, downloads = pages
    leaderboard = shown["leaderboard"]
    # suite, the agent, the figure as the download and `scores`' CSV name it, as the page and `scores`' table do
    figures = [("wis", "bot:letters", "win_rate (%)", "win_rate (%)"),
               ("wis", "bot:letters", "ranking", "ranking"),  # in points: its caption says so
               ("magic", "bot:equilibrium", "win_rate (%)", "mean role win rate (%)"),
               ("magic", "bot:equilibrium", "prisoner_wr (%)", "prisoner_wr (%)"),
               ("llmarena", "bot:equilibrium", "bid_reward ($)", "bid_reward ($)"),
               ("gamabench", "bot:random", "bar_game", "bar_game")]  # 0-100: the suite's title says so
    printed_by_suite = {suite: cli_tables(db, suite) for suite in dict.fromkeys(f[0] for f in figures)}
    for suite, agent, column, label in figures:
        printed = printed_by_suite[suite]
        downloaded = downloads[f"{suite}.csv"].set_index(printed["csv"].index.name)
        page = frame_with(leaderboard, label).set_index(printed["csv"].index.name)
        value = printed["csv"].loc[agent, column]
        assert printed["json"].loc[agent, column] == pytest.approx(value), (suite, column)
        assert downloaded.loc[agent, column] == pytest.approx(value), (suite, column)
        assert shown_number(printed["table"].loc[agent, label]) == pytest.approx(value, abs=0.01), (suite, column)
        assert shown_number(page.loc[agent, label]) == pytest.approx(value, abs=0.01), (suite, column)
    assert "(0-100)" in next(h.value for h in leaderboard.header if h.value.startswith("γ-Bench"))
    captions = " ".join(c.value for c in leaderboard.caption)  # units the narrow tables' headers have no room for
    assert "in Who is Spy's points" in captions and "every game column and `average` 0-100" in captions
    assert "seven abilities on 0-100 (Judg., Reas.," in captions  # MAgIC's short headers: the scale beside them
    # `scores` as a table prints the page's format: every figure of a column with 2 decimals (was one, 0.6 for 0.57)
    cells = [c for c in printed_by_suite["llmarena"]["table"]["tictactoe"] if c]
    assert cells and all(len(c.split(".")[1]) == 2 for c in cells), cells
    # a rate is in percent: 100 for the agent that won every WiS game, never 1.0
    assert printed_by_suite["wis"]["csv"].loc["bot:letters", "win_rate (%)"] == 100.0
    for printed in printed_by_suite["wis"].values():
        assert not [c for c in printed.columns if is_rate(c)]  # no share left under a bare name


@pytest.mark.slow
def test_scores_prints_the_papers_tables_as_the_page_shows_them(db, pages):
    """A new user's report: `scores --suite magic` labelled the figure "win_rate (%)" where the page says "mean role
    win rate (%)", printed "roles 1" and "games 5" where the page says "1 of 7" and "5 of 7", and marked no average
    over part of a whole "(partial)". Each cell of the page's table reads the same in `scores`' table; CSV and JSON
    hold the numbers of the page's download, the mark as a column `partial`."""
    shown, _ = pages
    for suite, figure, parts in (("magic", "mean role win rate (%)", "roles"), ("llmarena", "average", "games")):
        printed = cli_tables(db, suite)
        page = frame_with(shown["leaderboard"], parts).set_index("agent")
        table = printed["table"]
        assert set(page.columns) <= set(table.columns), (suite, set(page.columns) - set(table.columns))
        pd.testing.assert_frame_equal(table.loc[page.index, list(page.columns)], page.astype(object),
                                      check_dtype=False, check_names=False)
        assert table[parts].str.fullmatch(r"\d of 7").all() and table[figure].str.endswith("(partial)").all()
        for form in ("csv", "json"):
            numbers = printed[form]
            assert numbers["partial"].astype(bool).all() and (numbers[parts] < 7).all(), (suite, form)
            assert list(numbers.columns).index("partial") == list(numbers.columns).index(parts) + 1, (suite, form)


@pytest.mark.slow
def test_the_headline_and_its_grid_download_the_percentages_the_page_shows(pages):
    shown, downloads = pages
    # LLMArena's headline, the first ranked by rating (γ-Bench's, by score, comes first: its self-play counts)
    page = frame_with(shown["leaderboard"], "rating (95% CI)").set_index("agent")
    headline = downloads["headline_llmarena.csv"].set_index("agent")
    for agent, row in headline.iterrows():
        shown_agent = next(a for a in page.index if a.startswith(agent))
        assert shown_number(page.loc[shown_agent, "win rate"]) == pytest.approx(row["win_rate (%)"], abs=0.05)
        assert shown_number(page.loc[shown_agent, "valid"]) == pytest.approx(row["valid_rate (%)"], abs=0.05)
    assert "value (Elo scale)" in headline.columns
    grid = downloads["grid_llmarena.csv"].set_index("agent")
    assert grid.loc["bot:equilibrium", "tictactoe (%)"] == 100.0


@pytest.mark.slow
def test_holdem_and_hanabi_shares_read_on_one_scale(pages):
    """The defect as found: Hold'em's action "share 0.57" beside Hanabi's "20.7%", the same kind of figure."""
    shown, downloads = pages
    for game, name, column in (("texas_holdem", "holdem_actions", "share (%)"),
                               ("hanabi", "hanabi_shares", "play_share (%)"),
                               ("bar_game", "rounds_bar_game", "crowded (%)")):
        table = frame_with(shown[game], column)
        on_page = [shown_number(text) for text in table[column]]
        assert all(text.endswith("%") for text in table[column]) and max(on_page) > 1, (game, on_page)
        assert on_page == pytest.approx(list(downloads[f"{name}.csv"][column]), abs=0.05)
    holdem = frame_with(shown["texas_holdem"], "share (%)")
    assert "mean_win_prob (%)" in holdem.columns  # a probability too: in percent
    hanabi = frame_with(shown["hanabi"], "play_share (%)")  # a figure's own unit (`Figure.units`), page and CSV
    assert "mean_score (0-10)" in hanabi.columns and "mean_score (0-10)" in downloads["hanabi_shares.csv"].columns
    # the charts of those shares: axis ticks and the value on hover in %, as the tables (not "share=0.57")
    for game in ("texas_holdem", "hanabi"):
        assert shown[game].get("plotly_chart"), game
        for chart in shown[game].get("plotly_chart"):
            axis = json.loads(chart.proto.spec)["layout"]["yaxis"]
            assert (axis["tickformat"], axis["hoverformat"]) == (".0%", ".1%"), game
