"""Figures without the wins that fallback moves earned (issue 29 point 1): `Selection.without_fallbacks` keeps only
the matches in which no seat's move was a fallback (summed from the summaries, which keep that per match, as the
log gives it), and the headline, a paper's table, the dashboard's filter bar
(kept in the URL, named in the report, carried by a cell's link to Transcripts) and `scores --without-fallbacks`
all follow it. The database: a stub model that always answers, one that never answers usably (the engine plays
a random move in its place), and bots."""

from __future__ import annotations

import asyncio
import io
from urllib.parse import parse_qs, urlsplit

import pandas as pd
import pytest

from engine import store
from engine.cli.main import main
from engine.papers import headline
from engine.papers.registry import get_suite
from engine.play.runner import run_spec
from engine.play.spec import parse_spec
from engine.present import transcripts
from engine.store.selection import Selection
from engine.testing import StubReply, StubServer
from pages.shared import links
from pages.shared.report import selection_of
from tests.page_run import run_page
from tests.test_reports import header, report_of

pytestmark = pytest.mark.slow

OWN_MOVES = Selection(without_fallbacks=True)


def answer(request: dict) -> StubReply:
    """`garbled` never gives a usable answer; `steady` always guesses 10."""
    if "garbled" in request.get("model", ""):
        return StubReply("I would rather not say.")
    return StubReply('{"chosen_number": 10}')


# the two models as every table names them (engine/agents/agent_names.py)
STEADY, GARBLED = (f"openai/{model} (t=0.0)" for model in ("steady", "garbled"))


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("fallbacks") / "results.duckdb"
    with StubServer(answer) as stub:
        steady = {"agent": "openai/steady", "api_base": stub.url, "temperature": 0.0}
        garbled = {"agent": "openai/garbled", "api_base": stub.url, "temperature": 0.0}
        spec = {"name": "fallbacks", "seed": 3, "repeats": 3, "games": [
            {"game": "guessing_game", "params": {"players": 2, "rounds": 1, "retry": "feedback"},
             "lineups": [[steady, "bot:random"], [garbled, "bot:random"], [steady, garbled]]},
            {"game": "tictactoe", "lineups": [[garbled, "bot:random"], ["bot:equilibrium", "bot:random"]]}]}
        asyncio.run(run_spec(parse_spec(spec), path, progress=False))
    return path


def with_fallbacks(db) -> set[str]:
    """The matches in which some turn was a fallback move, read from the turn log."""
    turns = store.query(db, "SELECT match_id, fallback FROM turns")
    return set(turns.loc[turns["fallback"].fillna(False).astype(bool), "match_id"])


def by_hand(db, leave_out: set[str]) -> pd.DataFrame:
    """Per agent, from the seats alone: matches held and seats won, over the matches not in `leave_out` (every
    match of this database is contested: no lineup seats one agent twice)."""
    seats = store.query(db, "SELECT match_id, agent_name AS agent, won FROM seats")
    seats = seats[~seats["match_id"].isin(leave_out)]
    return (seats.assign(won=seats["won"].fillna(False).astype(int)).groupby("agent")
            .agg(matches=("match_id", "nunique"), wins=("won", "sum")).sort_index())


def figures(table: pd.DataFrame) -> pd.DataFrame:
    return table.set_index("agent")[["matches", "wins"]].sort_index().astype(int)


def test_without_fallbacks_the_figures_count_exactly_the_matches_without_a_fallback_move(db, monkeypatch):
    fallbacks = with_fallbacks(db)
    assert len(fallbacks) == 9 and store.count_matches(db) == 15  # garbled's 9 (6 guessing, 3 TicTacToe), of 15
    every, own = headline.agent_figures(db), headline.agent_figures(db, OWN_MOVES)
    pd.testing.assert_frame_equal(figures(every), by_hand(db, set()), check_names=False, check_dtype=False)
    pd.testing.assert_frame_equal(figures(own), by_hand(db, fallbacks), check_names=False, check_dtype=False)
    dropped = figures(every)["matches"].sub(figures(own)["matches"], fill_value=0)
    assert dropped.to_dict() == {"bot:equilibrium": 0, "bot:random": 6, GARBLED: 9, STEADY: 3}
    assert every.set_index("agent").loc[GARBLED, "fallback_wins"] > 0
    assert (own["fallback_wins"] == 0).all()


def test_a_version_8_database_gets_the_fallbacks_key_by_the_upgrade(db, tmp_path):
    """Summaries written before the key: the upgrade builds them again, and the filter sums them right."""
    old = tmp_path / "v8.duckdb"
    old.write_bytes(db.read_bytes())
    with store.connect(old) as con:
        for table in ("agent_summary", "metric_summary"):
            con.execute(f"ALTER TABLE {table} DROP COLUMN fallbacks")
        con.execute("ALTER TABLE generation DROP COLUMN summaries_code")  # a version 8 file had no code stamp
        con.execute("UPDATE schema_version SET version = 8")
    store.init_db(old)
    assert store.summaries_in_step(old)
    own = headline.agent_figures(old, OWN_MOVES)
    pd.testing.assert_frame_equal(figures(own), by_hand(old, with_fallbacks(old)), check_names=False,
                                  check_dtype=False)


def test_the_headline_and_a_papers_table_follow_the_filter(db):
    arena = headline.headline(db, "llmarena", OWN_MOVES)
    assert set(arena["agent"]) == {"bot:equilibrium", "bot:random"}  # garbled's TicTacToe wins were random moves
    assert arena.set_index("agent").loc["bot:random", "matches"] == 3
    gama = get_suite("gamabench").leaderboard(db, OWN_MOVES).set_index("model")
    assert gama.loc[STEADY, "matches"] == 3 and GARBLED not in gama.index
    assert get_suite("gamabench").leaderboard(db).set_index("model").loc[STEADY, "matches"] == 6


def scores(db, capsys, *switch: str) -> pd.DataFrame:
    assert main(["scores", "--suite", "gamabench", "--db", str(db), "--format", "csv", *switch]) == 0
    return pd.read_csv(io.StringIO(capsys.readouterr().out)).set_index("model")


def test_the_scores_command_leaves_out_matches_with_fallback_moves_on_request(db, capsys):
    assert scores(db, capsys).loc[STEADY, "matches"] == 6
    own = scores(db, capsys, "--without-fallbacks")
    assert own.loc[STEADY, "matches"] == 3 and GARBLED not in own.index
    with pytest.raises(SystemExit):
        main(["scores", "--help"])
    assert "--without-fallbacks" in capsys.readouterr().out


def leaderboard_headlines(at) -> list[pd.DataFrame]:
    return [df.value.set_index("agent") for df in at.dataframe if {"rank", "fb wins"} <= set(df.value.columns)]


def test_the_leaderboards_page_follows_the_checkbox_kept_in_the_url(db, monkeypatch):
    at = run_page("leaderboard", db, monkeypatch)
    assert not at.exception and at.checkbox(key="without_fallbacks").value is False
    arena = leaderboard_headlines(at)[-1]  # LLMArena's: TicTacToe
    assert arena.loc["bot:random (provisional)", "matches"] == "6"
    assert f"{GARBLED} (provisional)" in arena.index
    at.checkbox(key="without_fallbacks").check().run()
    assert at.query_params["without_fallbacks"] == "1"
    linked = run_page("leaderboard", db, monkeypatch, without_fallbacks="1")  # the link a colleague opens
    for shown in (at, linked):
        assert not shown.exception and shown.checkbox(key="without_fallbacks").value is True
        arena = leaderboard_headlines(shown)[-1]
        assert arena.loc["bot:random (provisional)", "matches"] == "3"
        assert f"{GARBLED} (provisional)" not in arena.index and set(arena["fb wins"]) == {"0"}


def test_the_report_header_names_the_filter_and_counts_the_matches_it_keeps(db, monkeypatch):
    run_id = store.query(db, "SELECT run_id FROM runs")["run_id"].item()
    top = header(report_of(db, monkeypatch, "leaderboard", without_fallbacks="1"))
    assert top["Selection"] == "fallback moves: matches with any left out"
    assert top["Runs"].split() == ["1", "run", "fallbacks", f"({run_id}):", "6", "matches"]  # 15 played, 9 fallbacks
    assert selection_of(Selection()) == {}


def test_a_cells_link_opens_exactly_the_matches_the_filtered_number_counts(db, monkeypatch):
    scope = Selection(without_fallbacks=True, contested=True)
    url = links.transcripts_link(scope, "tictactoe", "bot:random")
    params = parse_qs(urlsplit(url).query)
    assert params["without_fallbacks"] == ["1"]
    linked = links.linked_selection(lambda key: params.get(key, []), "tictactoe")
    assert linked == replace_games(scope) and "fallback moves left out" in links.described(linked)
    search = transcripts.MatchSearch(game="tictactoe", agents=("bot:random",), within=linked)
    assert transcripts.count_matches(db, search) == 3  # the headline's 3, not the 6 played
    at = run_page("transcripts", db, monkeypatch, **{key: values[0] for key, values in params.items()})
    assert not at.exception
    assert any("matches with fallback moves left out" in c.value for c in at.caption)
    assert next(h.value for h in at.subheader if h.value.startswith("Matches")) == "Matches: 3 matches"


def replace_games(selection: Selection) -> Selection:
    """A link names its game apart (`game=`), not in the selection."""
    return Selection(contested=selection.contested, without_fallbacks=selection.without_fallbacks)


def test_the_games_and_robustness_pages_follow_the_link(db, monkeypatch):
    games = run_page("games", db, monkeypatch, game="tictactoe", without_fallbacks="1")
    assert not games.exception and games.checkbox(key="without_fallbacks").value is True
    shown = " ".join(df.value.to_csv() for df in games.dataframe)
    assert "openai/garbled" not in shown and "bot:random" in shown
    robustness = run_page("robustness", db, monkeypatch, agent="openai/steady", without_fallbacks="1")
    assert not robustness.exception
    played = next(df.value for df in robustness.dataframe if "condition" in df.value.columns)
    assert set(played["scores"]) == {"3"}  # its 3 matches against bot:random; those against garbled left out


SHOTS = "/tmp/arena_browser_fallbacks"  # the screenshots to look at (kept after the test)


def shown(page) -> str:
    """The text of the page's main area, its tables' cells included."""
    return page.get_by_test_id("stMain").inner_text()


@pytest.mark.browser
def test_in_the_browser_the_checkbox_leaves_the_fallback_wins_out_and_the_link_keeps_it(db):
    """Issue 29 points 1 and 8 at 1400 x 900: ticking the checkbox puts it in the URL and takes openai/garbled (every
    one of its matches had fallback moves) off the Leaderboards; the link opened afresh shows the same."""
    from pathlib import Path

    from playwright.sync_api import expect, sync_playwright

    from tests.test_browser import CHROMIUM, FLAGS, serving, settle

    shots = Path(SHOTS)
    shots.mkdir(exist_ok=True)
    with serving(db) as url, sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        page = chromium.new_page(viewport={"width": 1400, "height": 900})
        page.goto(f"{url}/leaderboard")
        settle(page)
        switch = page.get_by_role("checkbox", name="Leave out matches with fallback moves")
        expect(switch).not_to_be_checked()
        assert "openai/garbled" in shown(page)
        page.screenshot(path=str(shots / "every_match.png"), full_page=True)
        switch.check(force=True)  # Streamlit draws its own box over the input
        page.wait_for_url("**without_fallbacks=1**")
        settle(page)
        page.screenshot(path=str(shots / "without_fallbacks.png"), full_page=True)
        assert "openai/garbled" not in shown(page) and "openai/steady" in shown(page)
        fresh = chromium.new_page(viewport={"width": 1400, "height": 900})
        fresh.goto(page.url)
        settle(fresh)
        expect(fresh.get_by_role("checkbox", name="Leave out matches with fallback moves")).to_be_checked()
        assert fresh.locator('[data-testid="stException"]').count() == 0
        chromium.close()


def test_a_link_to_a_cooperative_games_matches_says_every_match_counts():
    """A new user's report: the Hanabi cell of a grid opened Transcripts captioned "self-play left out (competitive
    games)", though every Hanabi match is self-play and every one was counted. A cooperative game's link says its
    matches all count; a competitive game's, or a mixed selection's, that self-play is left out."""
    from engine.store.selection import Selection

    assert "every match counts (cooperative" in links.described(Selection(games=("hanabi",), contested=True))
    for games in (("tictactoe",), ("hanabi", "tictactoe"), ()):
        said = links.described(Selection(games=games, contested=True))
        assert said == "self-play left out (competitive games)", (games, said)
    assert links.described(Selection(games=("hanabi",))) == ""
