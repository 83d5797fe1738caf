"""The leaderboards page, headless, on a small played database with imported GAMA-Bench records."""

from __future__ import annotations

import asyncio
import re

import pytest
from streamlit.testing.v1 import AppTest

from engine.papers.gamabench.importer import import_dir
from engine.papers.registry import all_suites, get_suite
from engine.play.runner import run_spec
from engine.play.spec import parse_spec
from tests.page_run import run_page, serve_like_the_dashboard
from tests.test_gamabench_import import RAW

pytestmark = pytest.mark.slow

SPEC = {"name": "leaderboard", "seed": 3, "repeats": 2, "games": [
    {"game": "tictactoe", "lineups": [["bot:equilibrium", "bot:random"], ["bot:random", "bot:random"]]},
    {"game": "guessing_game", "lineups": [{"all": "bot:random"}]},
    {"game": "undercover", "preset": "wis", "params": {"role_seat": 0}, "lineups": [
        ["bot:injector", "bot:obedient", "bot:letters", "bot:obedient", "bot:letters", "bot:obedient"]]},
]}


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("leaderboard") / "results.duckdb"
    asyncio.run(run_spec(parse_spec(SPEC), path, progress=False))
    import_dir(RAW / "guessing_game", path)
    return path


def page(db, monkeypatch, **params) -> AppTest:
    return run_page("leaderboard", db, monkeypatch, **params)


def frames_with(at: AppTest, column: str) -> list:
    return [df.value for df in at.dataframe if column in df.value.columns]


def headlines(at: AppTest) -> list:
    return [frame for frame in frames_with(at, "rank") if "valid" in frame.columns]


def test_leaderboards_show_a_headline_per_suite_gamabench_and_wis(db, monkeypatch):
    from tests.test_one_definition import PAGE_PX, widths

    at = page(db, monkeypatch)
    assert not at.exception
    gama_head, arena = (frame.set_index("agent") for frame in headlines(at)[:2])  # γ-Bench's, then LLMArena's
    # γ-Bench's protocol is self-play: its headline shows the agents played so, by their 0-100 score
    assert set(gama_head.index) == {"bot:random (provisional)", "gpt-3.5-turbo-0125 (provisional)"}
    assert gama_head["score (95% CI)"].str.match(r"\d").all()
    assert set(arena.index) == {"bot:equilibrium (provisional)", "bot:random (provisional)"}  # 2 matches < 10
    assert set(arena["rank"]) == {""}  # provisional agents are not ranked
    assert arena.loc["bot:equilibrium (provisional)", "rating (95% CI)"] == "no finite rating: won every comparison"
    assert arena.loc["bot:equilibrium (provisional)", "win rate"] == "100.0%"
    assert arena.loc["bot:equilibrium (provisional)", "matches"] == "2"
    assert arena.loc["bot:equilibrium (provisional)", "valid"] == "100.0%"
    gama = frames_with(at, "guessing_game")[0]
    assert set(zip(gama["model"], gama["source"], strict=True)) == {  # a model named by its settings, a bot alone
        ("gpt-3.5-turbo-0125", "published"), ("bot:random", "ours")}
    ranking = frames_with(at, "ranking")[0]
    assert {"bot:injector", "bot:obedient", "bot:letters"} <= set(ranking["agent"])
    assert at.get("plotly_chart")
    grids = [m for m in at.markdown if m.value.startswith("| agent |")]
    aside = {c for suite in all_suites().values() for group in suite.layout.aside.values() for c in group}
    asides = [f for f in at.dataframe if set(f.value.columns[1:]) <= aside]  # an own table's columns shown apart
    figures = ["win_rate (%)", "mean_score", "foul_rate (%)", "survival_rounds"]  # a share's unit in its header
    # Who is Spy's by role: a row per agent and role it held, four figures that fit (eight side by side did not)
    frames = [f for f in at.dataframe if list(f.value.columns) == ["agent", "role", *figures]]
    roles = [f.value for f in frames]
    assert len(roles) == 1 and not set(get_suite("wis").layout.by_role.columns) & set(ranking.columns)
    assert sum(widths(frames[0]).values()) <= PAGE_PX - 34  # inside its expander (904 px measured in Chromium)
    held = set(zip(roles[0]["agent"], roles[0]["role"], strict=True))
    assert {("bot:injector", "spy"), ("bot:obedient", "civilian")} <= held and ("bot:injector", "civilian") not in held
    assert roles[0].loc[roles[0]["agent"] == "bot:injector", "win_rate (%)"].str.endswith("%").all()
    downloaded = len(at.dataframe) - len(asides) - len(roles) + len(grids)  # the asides are in their table's download
    assert len(at.get("download_button")) == 2 * downloaded + 1  # CSV, Parquet; the report
    definitions = " ".join(m.value for m in at.markdown)
    assert "self-play" in definitions and "**fallback wins**" in definitions  # each number defined on the page


def grid_links(at: AppTest, suite: int = 0) -> dict[tuple[str, str], tuple[str, dict]]:
    """The cells of the `suite`-th agents x games grid: (game, agent) -> (shown text, the link's parameters)."""
    import re
    from urllib.parse import parse_qs, urlsplit

    grid = [m.value for m in at.markdown if m.value.startswith("| agent |")][suite]
    cells = re.findall(r"\[([^\]]*)\]\((transcripts\?[^)]*)\)", grid)
    return {(q["game"][0], q["agents"][0]): (text, q) for text, link in cells
            for q in [parse_qs(urlsplit(link).query)]}


def test_the_games_x_agents_grid_links_each_cell_to_its_transcripts(db, monkeypatch):
    at = page(db, monkeypatch)
    text, query = grid_links(at)[("tictactoe", "bot:equilibrium")]
    assert text == "100.0% (2)"  # win rate and the contested matches behind it
    assert query["contested"] == ["1"]  # self-play out, as in the number
    _, query = grid_links(at, 1)[("undercover", "bot:injector")]  # Who is Spy: Undercover under its rules
    assert query["variant"] == ["wis"]


def test_a_grid_cell_opens_exactly_the_matches_behind_its_number(db, monkeypatch):
    """bot:random's TicTacToe cell counts its 2 matches against bot:equilibrium, not its 2 self-play matches; the
    link keeps the page's run filter and Transcripts lists those 2 matches (it listed all 4, of every run)."""
    from engine.present import queries

    options = queries.filter_options(db)
    played = options.loc[options["run_name"] == "leaderboard", "run_id"].iloc[0]
    at = page(db, monkeypatch, runs=played)
    text, query = grid_links(at)[("tictactoe", "bot:random")]
    assert text == "0.0% (2)" and query["runs"] == [played] and query["contested"] == ["1"]
    listed = run_page("transcripts", db, monkeypatch, **query)
    assert not listed.exception and listed.subheader[0].value == "Matches: 2 matches"
    assert "self-play left out" in " ".join(c.value for c in listed.caption)
    lineups = next(df.value for df in listed.dataframe if "lineup" in df.value.columns)["lineup"]
    assert all("bot:equilibrium" in lineup for lineup in lineups)
    everything = run_page("transcripts", db, monkeypatch, game="tictactoe", agents="bot:random")
    assert everything.subheader[0].value == "Matches: 4 matches"  # self-play included when no cell asks otherwise
    broken = run_page("transcripts", db, monkeypatch, game="tictactoe", dates="last week")
    assert not broken.exception and "dates must read YYYY-MM-DD" in broken.error[0].value


def test_a_date_range_to_the_last_day_or_reversed_in_the_url_reads_its_days(db, monkeypatch):
    """An attacker's report: `dates=...9999-12-31` drew "Leaderboards could not be drawn (OverflowError ...)", and a
    range ending before it starts showed nothing without a word; the first reads every day on, the second the same
    days in order."""
    from datetime import date

    everything = headlines(page(db, monkeypatch))
    for dates in ("2000-01-01..9999-12-31", "9999-12-31..2000-01-01"):
        at = page(db, monkeypatch, dates=dates)
        assert not at.exception and not at.error
        assert tuple(at.date_input[0].value) == (date(2000, 1, 1), date(9999, 12, 31))
        assert [h["agent"].tolist() for h in headlines(at)] == [h["agent"].tolist() for h in everything]


def test_the_url_selects_the_game_and_filters(db, monkeypatch):
    at = page(db, monkeypatch, games="tictactoe", game="tictactoe")
    assert not at.exception
    assert [set(h["agent"]) for h in headlines(at)] == [{"bot:equilibrium (provisional)", "bot:random (provisional)"}]
    for rated in (frames_with(at, "conservative")[0], frames_with(at, "rating (95% CI)")[-1]):  # follow the filters
        assert {a.removesuffix(" (provisional)") for a in rated["agent"]} == {"bot:equilibrium", "bot:random"}
    assert "tictactoe" in at.query_params["game"] and "tictactoe" in at.query_params["games"]


def test_an_empty_database_says_how_to_fill_it(tmp_path, monkeypatch):
    at = page(tmp_path / "none.duckdb", monkeypatch)
    assert not at.exception and "No matches yet" in at.info[0].value


def test_only_a_filtered_trueskill_replay_waits_to_be_asked_on_big_databases(db, monkeypatch):
    """Every game's and each game's replay is saved and kept current, so those show at once however big the
    database; a selection by run replays from scratch, which waits for a click above the limit."""
    from engine.present import queries
    from pages.shared import caching

    monkeypatch.setattr(caching, "SLOW_SCORER_LIMIT", 0)
    at = page(db, monkeypatch)
    assert not at.exception and not [box for box in at.checkbox if box.key.startswith("ratings_")]
    assert frames_with(at, "conservative") and frames_with(at, "ranking") and frames_with(at, "average")
    options = queries.filter_options(db)
    run_id = options.loc[options["run_name"] == "leaderboard", "run_id"].iloc[0]
    at = page(db, monkeypatch, runs=run_id, game="tictactoe")
    assert not at.exception and not frames_with(at, "conservative")
    ask = next(box for box in at.checkbox if box.key == "ratings_tictactoe")
    assert "Compute TrueSkill over" in ask.label
    at = ask.check().run()
    assert not at.exception and {"bot:equilibrium", "bot:random"} <= set(frames_with(at, "conservative")[0]["agent"])


def test_wis_and_llmarena_tables_follow_the_run_filter(db, monkeypatch):
    from engine.present import queries

    options = queries.filter_options(db)
    imported = options.loc[options["run_name"] != "leaderboard", "run_id"].iloc[0]
    played = options.loc[options["run_name"] == "leaderboard", "run_id"].iloc[0]
    at = page(db, monkeypatch, runs=played)
    assert not at.exception and {"bot:injector"} <= set(frames_with(at, "ranking")[0]["agent"])
    assert "bot:equilibrium" in set(frames_with(at, "tictactoe")[0]["agent"])  # LLMArena's table
    at = page(db, monkeypatch, runs=imported)
    assert not at.exception and not frames_with(at, "ranking") and not frames_with(at, "tictactoe")
    captions = [c.value for c in at.caption]
    assert any("No Who-is-Spy" in c for c in captions) and any("No LLMArena games" in c for c in captions)


@pytest.mark.parametrize("path", ["pages/leaderboard.py", "pages/abilities.py", "pages/games.py",
                                  "pages/robustness.py"])
def test_the_app_navigates_to_each_analysis_page(db, monkeypatch, path):
    monkeypatch.setenv("ARENA_DB", str(db))
    at = AppTest.from_file("../app.py", default_timeout=60).run()
    at.switch_page(path).run()
    assert not at.exception and at.title[0].value != "Game Arena for LLMs"  # the page, not the overview


def test_partial_rows_come_last_tables_fit_and_one_format_a_column(first_run_db, monkeypatch):
    """A new user's pass at 1400 px on the first run: LLMArena's table led with bot:fair "100.00 (partial, 1 of 7)"
    and MAgIC's with bot:equilibrium's "100.0% (partial)" above bot:scripted's complete 71.4%; the papers' tables
    scrolled sideways; Bid read "100" and "0" beside "100.00"; the win-rate chart's axis read 0-1 beside tables in %."""
    import json

    from tests.test_one_definition import PAGE_PX, widths

    at = page(first_run_db, monkeypatch, game="tictactoe")
    assert not at.exception
    frames = {name: next(df for df in at.dataframe if column in df.value.columns)
              for name, column in (("magic", "mean role win rate (%)"), ("llmarena", "bid"), ("gama", "overall"))}
    magic = frames["magic"].value
    partial = magic["mean role win rate (%)"].str.endswith("(partial)")
    assert partial.any() and not partial.iloc[:(~partial).sum()].any()
    assert magic["agent"].iloc[0] == "bot:random"  # the one complete challenger (bot:scripted was two bots)
    arena = frames["llmarena"].value
    covered = [int(g.split(" of ")[0]) for g in arena["games"]]
    assert covered == sorted(covered, reverse=True) and arena["agent"].iloc[0] == "bot:random"
    assert all(re.fullmatch(r"\d+\.\d{2}( \(partial\))?", v)
               for column in ("bid", "bargain", "average") for v in arena[column] if v)
    for name, frame in frames.items():
        assert sum(widths(frame).values()) <= PAGE_PX, (name, widths(frame))
    chart = next(json.loads(c.proto.spec) for c in at.get("plotly_chart")
                 if json.loads(c.proto.spec)["layout"]["title"]["text"].startswith("Win rate"))
    assert chart["layout"]["yaxis"]["tickformat"] == ".0%"


def test_a_selection_of_self_play_only_says_so(tmp_path, monkeypatch):
    """Leaderboards said "No LLMArena games in this selection" over a TicTacToe self-play match."""
    path = tmp_path / "results.duckdb"
    spec = {"name": "alone", "seed": 1, "games": [{"game": "tictactoe", "lineups": [["bot:random", "bot:random"]]}]}
    asyncio.run(run_spec(parse_spec(spec), path, progress=False))
    at = page(path, monkeypatch)
    assert not at.exception
    said = " ".join(c.value for c in at.caption)
    assert "Only self-play in this selection (tictactoe): left out of win rates and ratings" in said
    assert "No LLMArena games in this selection" not in said


def test_hanabis_self_play_keeps_its_column_and_the_page_says_which_games_are_cooperative(tmp_path, monkeypatch):
    """LLMArena's round robin plays Hanabi as self-play (two copies of one agent are the team): its column left
    LLMArena's table ("4 of 7" games) when self-play was left out of every table. A cooperative game keeps it, and
    the page names the games whose self-play counts."""
    from tests.test_suites import COOPERATIVE

    path = tmp_path / "results.duckdb"
    asyncio.run(run_spec(parse_spec(COOPERATIVE), path, progress=False))
    at = page(path, monkeypatch)
    assert not at.exception
    arena = frames_with(at, "hanabi")[0]
    random = arena.set_index("agent").loc["bot:random"]
    assert {"tictactoe", "hanabi"} <= set(arena.columns) and random["games"] == "2 of 7" and random["hanabi"] == "0.00"
    said = " ".join(c.value for c in at.caption)
    assert "self-play of a competitive game is left out, a cooperative game's (hanabi) counts" in said
    assert "leaves out" not in said  # Hanabi is counted, not left out as self-play


def test_undercover_under_llmarenas_rules_with_one_agent_in_four_seats_shows_its_ratings(tmp_path, monkeypatch):
    """runs/llmarena_undercover.yaml's lineup (one civilian agent in four seats): its TrueSkill replay met an update
    floats cannot hold and the page showed trueskill's traceback for `game=undercover (llmarena rules)`."""
    from tests.test_ratings import undercover_matches, write_outcomes

    path = tmp_path / "results.duckdb"
    write_outcomes(path, "undercover", undercover_matches("CTTTTTTTCCCTCTTTCTTC"), params={"rules": "llmarena"})
    at = page(path, monkeypatch, game="undercover (llmarena rules)")
    assert not at.exception and not at.error
    assert set(frames_with(at, "conservative")[0]["agent"]) == {"civ", "tested"}


def test_a_page_that_fails_says_what_failed_in_one_line_never_a_traceback(db, monkeypatch):
    """Whatever a page meets that it cannot draw (here the papers' rows), the served dashboard says what failed in
    one line (the traceback goes to the dashboard's log), as the CLI does."""
    from engine.papers import published

    def broken(*args, **kwargs):
        raise RuntimeError("the paper's rows cannot be read\nsecond line")

    monkeypatch.setattr(published, "interleave_published", broken)
    monkeypatch.setenv("ARENA_DB", str(db))
    serve_like_the_dashboard(monkeypatch)  # the page runs inside app.py, as served
    at = AppTest.from_file("../app.py", default_timeout=60).run()
    at.switch_page("pages/leaderboard.py").run()
    assert not at.exception
    assert [e.value for e in at.error] == ["Leaderboards could not be drawn (RuntimeError: the paper's rows cannot be "
                                           "read); the details are in the dashboard's log."]
