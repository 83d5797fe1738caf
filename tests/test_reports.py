"""A page's HTML report says at the top what it was made from: the database, the filters, the runs, the date."""

from __future__ import annotations

import asyncio
import re
from datetime import UTC, datetime

import pytest
from streamlit.testing.v1 import AppTest

from engine.play.runner import run_spec
from engine.play.spec import parse_spec
from engine.present import queries
from engine.store.selection import Selection
from pages.shared import report as sharing
from pages.shared.numbers import readable

pytestmark = pytest.mark.slow

SPECS = [{"name": "first", "seed": 1, "repeats": 2, "games": [
             {"game": "tictactoe", "lineups": [["bot:equilibrium", "bot:random"]]},
             {"game": "cost_sharing", "lineups": [{"challenger": "bot:selfish", "others": "bot:fair"}]}]},
         {"name": "second", "seed": 2, "games": [{"game": "tictactoe", "lineups": [["bot:random", "bot:random"]]}]}]


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("reports") / "results.duckdb"
    for spec in SPECS:
        asyncio.run(run_spec(parse_spec(spec), path, progress=False))
    return path


def report_of(db, monkeypatch, page: str, **params) -> str:
    """The HTML the page's report button offers (captured where the page hands it over)."""
    made: list[str] = []
    monkeypatch.setattr(sharing.Report, "download", lambda self, name: made.append(self.html()))
    monkeypatch.setenv("ARENA_DB", str(db))
    at = AppTest.from_file(f"../pages/{page}.py", default_timeout=60)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception and made
    return made[-1]


def header(html: str) -> dict[str, str]:
    table = html.split("<table class='scope'>", 1)[1].split("</table>", 1)[0]
    return {k: re.sub("<[^>]+>", " ", v) for k, v in re.findall(r"<tr><th>(\w+)</th><td>(.*?)</td></tr>", table)}


def test_a_filtered_leaderboard_report_names_its_database_filters_and_runs(db, monkeypatch):
    first = parse_spec(SPECS[0]).run_id
    top = header(report_of(db, monkeypatch, "leaderboard", runs=first, games="tictactoe"))
    assert top["Database"] == str(db)
    assert top["Selection"] == f"runs: {first}; games: tictactoe"
    assert top["Runs"].split() == ["1", "run", "first", f"({first}):", "2", "matches"]  # its TicTacToe matches only
    assert top["Made"].startswith(datetime.now(UTC).strftime("%Y-%m-%d"))


@pytest.mark.parametrize("page", ["overview", "leaderboard", "games", "robustness", "abilities", "transcripts"])
def test_every_pages_report_starts_with_its_scope(db, monkeypatch, page):
    top = header(report_of(db, monkeypatch, page))
    assert top["Database"] == str(db) and top["Made"]
    if page == "transcripts":  # one match: its run and the match named
        assert "match:" in top["Selection"] and top["Runs"].split()[:2] == ["1", "run"]
    elif page == "abilities":  # MAgIC's games only: the cost sharing run
        assert top["Runs"].split()[:3] == ["1", "run", "first"]
    else:  # how many runs, in words (it read a bare "2" above the list)
        assert top["Selection"] == "everything in the database" and top["Runs"].split()[:2] == ["2", "runs"]


def test_a_pages_downloads_are_made_when_clicked_not_on_every_run(db, monkeypatch):
    """At a million matches the Leaderboards page spent 0.5 s of its 2.3 s writing CSV, Parquet and its HTML report
    for buttons nobody pressed (every rerun made them again). The buttons hold what makes each file: the same
    bytes, made on a click."""
    import streamlit as st
    from streamlit.delta_generator import DeltaGenerator

    offered: dict[str, object] = {}
    monkeypatch.setattr(DeltaGenerator, "download_button",
                        lambda self, label, data, file_name, *a, **k: offered.setdefault(file_name, data))
    monkeypatch.setattr(st, "download_button",  # the report's button, in the page's main column
                        lambda label, data, file_name, *a, **k: offered.setdefault(file_name, data))
    monkeypatch.setenv("ARENA_DB", str(db))
    at = AppTest.from_file("../pages/leaderboard.py", default_timeout=60).run()
    assert not at.exception
    assert "leaderboards.html" in offered and any(name.endswith(".parquet") for name in offered)
    assert all(callable(make) for make in offered.values()), [n for n, m in offered.items() if not callable(m)]
    report = offered["leaderboards.html"]().decode()
    assert report.startswith("<!doctype html>") and report.count("plotly") >= 1
    csv = next(make() for name, make in offered.items() if name.endswith(".csv")).decode()
    assert csv.startswith("agent,") or "," in csv.splitlines()[0]


def test_runs_of_follows_every_filter(db):
    options = queries.filter_options(db)
    assert len(sharing.runs_of(Selection(), options)) == 2
    assert sharing.runs_of(Selection(presets=("nope",)), options) == []
    assert sharing.selection_of(Selection()) == {}


def test_the_transcripts_report_shows_the_seats_as_the_page_does(db, monkeypatch):
    """The seat table of a transcript's report read "None", "True" and 3 decimals: now blanks, yes/no, 2 decimals."""
    html = report_of(db, monkeypatch, "transcripts")
    seats = html.split("<h2>Seats of match", 1)[1].split("</table>", 1)[0]
    cells = re.findall(r"<td>(.*?)</td>", seats)
    assert cells and not {"None", "True", "False", "nan"} & set(cells)
    assert {"yes", "no"} & set(cells)
    assert not [c for c in cells if re.fullmatch(r"-?\d+\.\d{3,}", c)]
    assert [c for c in cells if re.fullmatch(r"-?\d+\.\d{2}", c)]  # scores with 2 decimals


def test_downloads_and_reports_print_the_same_digits_for_the_same_data(monkeypatch):
    """DuckDB's parallel sums give one number as 0.12500000000000003 one time and 0.125 the next: the CSV and
    Parquet downloads, the page's tables and the HTML report hold both at the one precision (6 significant digits),
    so a researcher diffing two exports sees no change that is not there."""
    import io

    import pandas as pd
    import plotly.graph_objects as go
    from streamlit.delta_generator import DeltaGenerator

    downloaded: dict[str, list[bytes]] = {}

    def keep(self, label, data, file_name, *args, **kwargs):
        downloaded.setdefault(file_name, []).append(data() if callable(data) else data)  # the file a click makes

    monkeypatch.setattr(DeltaGenerator, "download_button", keep)
    reports, pages = [], []
    for noisy in (0.12500000000000003, 0.125):
        table = pd.DataFrame({"agent": ["a"], "mean": [noisy], "ranking": [1540 + noisy * 1e-11]})
        sharing.download_table(table, "noisy")
        report = sharing.Report("Noise")
        report.table("noisy", table)
        report.figure("noisy", go.Figure(go.Bar(x=["a"], y=[noisy])))
        made = re.sub(r"<tr><th>Made</th><td>[^<]*</td>", "", report.html())
        reports.append(re.sub(r"[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", "id", made))  # plotly's div ids
        pages.append(readable(table).to_dict())
    assert downloaded["noisy.csv"][0] == downloaded["noisy.csv"][1]
    assert b"0.125,1540.0" in downloaded["noisy.csv"][0]
    parquet = [pd.read_parquet(io.BytesIO(data)) for data in downloaded["noisy.parquet"]]
    assert parquet[0].equals(parquet[1]) and parquet[0]["mean"][0] == 0.125
    assert reports[0] == reports[1] and pages[0] == pages[1]


def text_of(html: str) -> str:
    """The report's words as a reader sees them: tags gone, entities read."""
    import html as entities

    return entities.unescape(re.sub(r"\s+", " ", re.sub("<[^>]+>", " ", html)))


def test_the_leaderboard_report_keeps_the_pages_captions_definitions_and_shown_cells(db, monkeypatch):
    """Issue 29: the report dropped every caption and definition, and the grid's "50.0% (2)" became a bare 0.5."""
    from engine.papers import headline
    from engine.present.column_help import GLOSSARY

    made = report_of(db, monkeypatch, "leaderboard", game="tictactoe")
    words = text_of(made)
    assert "self-play of a competitive game is left out" in words and "provisional, not ranked" in words  # captions
    assert headline.DEFINITIONS["fallback wins"] in words  # the "fb wins" header's definition
    # the definitions its captions link on the Glossary page, at its end: a report's links lead nowhere offline
    glossary = words.split(" Glossary ")[-1]
    assert headline.SELF_PLAY in glossary and GLOSSARY["TrueSkill"][:80] in glossary
    assert GLOSSARY["rank"][1:80] in glossary and GLOSSARY["rating"][1:80] in glossary
    grid = made.split("agents x games (win rate)</h2>", 1)[1].split("</table>", 1)[0]
    cells = re.findall(r"<td>(.*?)</td>", grid)
    assert any(re.fullmatch(r"\d+\.\d% \(\d+\)", c) for c in cells), cells  # as the page shows it
    assert not [c for c in cells if re.fullmatch(r"0\.\d+", c)]
    assert "<th title=" in made  # a header's tooltip, as on the page


def figure_colours(made: str) -> list[dict]:
    """The figures a report draws, as plotly's JSON (`Plotly.newPlot(id, data, layout, config)`)."""
    import json

    decoder = json.JSONDecoder()
    figures = []
    for call in made.split("Plotly.newPlot(")[1:]:
        rest = call.split(",", 1)[1].lstrip()
        data, end = decoder.raw_decode(rest)
        layout, _ = decoder.raw_decode(rest[end:].lstrip(", "))
        figures.append({"data": data, "layout": layout})
    return figures


def test_a_reports_charts_keep_the_palettes_colours_and_open_offline(db, monkeypatch):
    """Issue 29: charts lost their colours (the radar's two agents in one grey, Streamlit's two near-identical blues
    on the page): every figure names the arena's colour-blind safe palette as its own, and the one copy of plotly.js
    is inlined (no CDN), so the file opens offline."""
    from engine.present.palette import PALETTE

    made = report_of(db, monkeypatch, "leaderboard", game="tictactoe")
    figures = figure_colours(made)
    assert figures and all(f["layout"].get("colorway") == PALETTE for f in figures)
    bars = figures[0]["data"][0]
    assert len(bars["x"]) == 2 and len(set(bars["marker"]["color"])) == 2  # two agents, two colours
    assert set(bars["marker"]["color"]) <= set(PALETTE)
    assert not re.search(r"<script[^>]*\ssrc=", made)  # nothing loaded from elsewhere
    assert made.count("Plotly.newPlot(") == len(figures) and len(re.findall(r"plotly\.js v\d", made)) == 1

    import plotly.graph_objects as go

    radar = sharing.Report("Radar")  # a figure drawn in Streamlit's theme, no colour of its own
    radar.figure("two agents", go.Figure([go.Scatterpolar(r=[1, 2], name=a) for a in ("a", "b")],
                                         layout={"template": "streamlit"}))
    assert figure_colours(radar.html())[0]["layout"]["colorway"] == PALETTE


def test_the_games_reports_curves_are_drawn_in_the_palette(db, monkeypatch):
    """A game's figures (TicTacToe's hint ablation), one colour per series, from the palette (not the theme's blues)."""
    from engine.present.palette import PALETTE

    figures = figure_colours(report_of(db, monkeypatch, "games", game="tictactoe"))
    colours = [t.get("line", {}).get("color") or t.get("marker", {}).get("color") for f in figures for t in f["data"]]
    assert figures and colours and set(colours) <= set(PALETTE), colours


def test_the_overview_report_keeps_its_captions_and_every_table_downloads(db, monkeypatch):
    """Overview's tables had no download and its report no caption."""
    from streamlit.delta_generator import DeltaGenerator

    files: list[str] = []
    monkeypatch.setattr(DeltaGenerator, "download_button",
                        lambda self, label, data, file_name, *a, **k: files.append(file_name))
    made = report_of(db, monkeypatch, "overview")
    assert "The mean score is on the game's own scale" in text_of(made)
    assert "The contested matches of tictactoe in the selection" in text_of(made)
    assert {"runs.csv", "matches.csv", "win_rates_tictactoe.csv"} <= set(files), files
    assert "when the run started, in UTC" in made  # the runs' column definitions


def test_the_pages_markdown_reads_as_html_and_markup_stays_text():
    """A caption's **bold**, *italics*, `code` and list read as on the page; a link keeps its text (its target is
    the server the report leaves); any markup a model or a run name carries stays text."""
    assert sharing.markdown_html("**Minimum: 5** is *not enough data* for `x` [the matches](/transcripts?g=1)") == (
        "<b>Minimum: 5</b> is <i>not enough data</i> for <code>x</code> the matches")
    assert sharing.markdown_html("- **a**: x\n- **b**: y") == "<ul><li><b>a</b>: x</li><li><b>b</b>: y</li></ul>"
    assert sharing.markdown_html("<script>alert(1)</script>  \nnext") == "&lt;script&gt;alert(1)&lt;/script&gt;<br>next"
