"""One definition of each number on every page, on the first-run database (runs/quick.yaml): counts of contested
matches beside the ratings and in the hint table, one γ-Bench score and the games it leaves out, one MAgIC profile
on Abilities and Leaderboards, tables that fit a 1400 px window, defined per-round columns and charts of one unit,
and win-rate intervals over matches, not seats."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from engine.papers import headline
from engine.papers.llmarena.analyses import hint_ablation
from engine.score import stats
from engine.store.selection import ALL
from pages.shared.markdown import plain
from pages.shared.tables import column_width, fitted_columns
from tests.page_run import run_page

PAGE_PX = 938  # the table area of a page in a 1400 x 900 Chromium window, sidebar open (measured)


def frames_with(at, column: str) -> list:
    return [df for df in at.dataframe if column in df.value.columns]


def widths(frame) -> dict[str, int]:
    return {name: spec["width"] for name, spec in json.loads(frame.proto.columns).items() if name != "_index"}


@pytest.fixture(scope="module")
def leaderboard(first_run_db, tmp_path_factory):
    with pytest.MonkeyPatch.context() as monkeypatch:
        yield run_page("leaderboard", first_run_db, monkeypatch, game="tictactoe")


def test_trueskill_counts_the_contested_matches_of_the_win_rate_table(leaderboard):
    """Defect 1: bot:random read 18 matches, 6 wins beside the ratings (self-play counted) and 12, 0 above."""
    assert not leaderboard.exception
    skill = frames_with(leaderboard, "conservative")[0].value.set_index("agent")
    rates = frames_with(leaderboard, "seats")[0].value.set_index("agent")
    assert skill.loc["bot:random", ["matches", "wins"]].tolist() == ["12", "0"]
    for agent in rates.index:
        assert skill.loc[agent, ["matches", "wins"]].tolist() == rates.loc[agent, ["matches", "wins"]].tolist()


def test_the_hint_table_counts_contested_matches(first_run_db):
    """Defect 2: 12 'matches' per hint level were seats, self-play included."""
    table = hint_ablation(first_run_db, selection=ALL.of_game("tictactoe"))
    per_agent = table.groupby("agent")["matches"].sum()
    figures = headline.agent_figures(first_run_db, ALL.of_game("tictactoe")).set_index("agent")["matches"]
    assert per_agent.to_dict() == figures.to_dict()
    assert table.set_index(["agent", "hint"]).loc[("bot:random", True), "matches"] == 6


def test_one_gamma_bench_score_and_the_games_it_leaves_out(first_run_db, leaderboard, monkeypatch):
    """Defect 3: Overview's mean score, the headline's score and its caption name the same number and games. γ-Bench's
    protocol is self-play: every game played counts, self-play matches included, and none is left out."""
    counted, left_out = headline.coverage(first_run_db, "gamabench")
    assert counted == ["guessing_game", "bar_game", "battle_royale", "pirate_game"] and left_out == []
    top = headline.headline(first_run_db, "gamabench").set_index("agent")
    by_game = pd.concat([headline.agent_figures(first_run_db, ALL.of_game(g), contested=False).assign(game=g)
                         for g in counted])
    per_agent = by_game.groupby("agent")["mean_score"]
    assert top["value"].to_dict() == pytest.approx(per_agent.mean().to_dict())  # the mean over its games
    assert top["games"].to_dict() == per_agent.size().to_dict()
    assert top["partial"].to_dict() == (top["games"] < len(counted)).to_dict() and top["partial"].any()
    caption = next(c.value for c in leaderboard.caption if c.value.startswith("Ranked by γ-Bench score 0-100:"))
    assert "Counts guessing_game, bar_game" in caption and "leaves out" not in caption
    overview = run_page("overview", first_run_db, monkeypatch)
    shown = [df.value.set_index("agent") for df in overview.dataframe if "mean score" in df.value.columns]
    # an agent that played contested guessing_game alone, no self-play: Overview's mean score is its headline score
    guessing = by_game[by_game["game"] == "guessing_game"].set_index("agent")["matches"]
    contested = headline.agent_figures(first_run_db, ALL.of_game("guessing_game")).set_index("agent")["matches"]
    alone = [a for a in top.index[top["games"] == 1] if a in contested.index and contested[a] == guessing[a]]
    assert alone
    for agent in alone:
        assert f"{top.loc[agent, 'value']:.2f}" in [df.loc[agent, "mean score"] for df in shown if agent in df.index]


def test_a_partial_average_is_marked_and_not_ranked(first_run_db):
    table = headline.headline(first_run_db, "magic")
    assert table["partial"].any() and table.loc[table["partial"], "rank"].isna().all()
    assert table.loc[~table["partial"], "games"].eq(table["games"].max()).all()


def test_abilities_and_leaderboards_show_one_magic_profile(first_run_db, leaderboard, monkeypatch):
    """Defect 4 and 7: the same agents, the same partial marks, a blank strategy for a bot; area on 0-100."""
    abilities = run_page("abilities", first_run_db, monkeypatch)
    assert not abilities.exception
    mine = frames_with(abilities, "mean role win rate (%)")[0].value
    board = frames_with(leaderboard, "mean role win rate (%)")[0].value
    ours = board[board["source"] == "ours"].drop(columns="source") if "source" in board else board
    pd.testing.assert_frame_equal(mine.reset_index(drop=True), ours.reset_index(drop=True))
    one_role = mine[mine["roles"] == "1 of 7"]
    assert len(one_role) and one_role["mean role win rate (%)"].str.endswith("(partial)").all()
    assert "strategy" not in mine or "-" not in set(mine["strategy"])  # bots only: no strategy column at all
    areas = [float(a.removesuffix("%")) for a in mine["area (%)"] if a]  # a percentage, as every one is shown
    assert areas and all(0 <= a <= 100 for a in areas) and all(len(a.split(".")[1]) == 2 for a in mine["area (%)"] if a)


def test_headline_tables_fit_the_window_and_keep_whole_labels(leaderboard):
    """Defects 5 and 6: every headline within the page's width, every column as wide as its label."""
    headlines = [f for f in frames_with(leaderboard, "$/match") if "rank" in f.value.columns]
    assert len(headlines) == 4  # γ-Bench, MAgIC, LLMArena, Who is Spy
    for frame in headlines:
        assert sum(widths(frame).values()) <= PAGE_PX, widths(frame)
    for frame in leaderboard.dataframe:
        for name, width in widths(frame).items():
            assert width >= column_width(pd.Series([], dtype=object), name), name
    gama = frames_with(leaderboard, "guessing_game")[0].value
    assert list(gama.columns[:3]) == ["model", "overall", "matches"]  # the key columns first


def test_link_columns_come_first_and_the_first_column_is_pinned():
    shown = pd.DataFrame({"game": ["tictactoe"], "open": ["transcripts?match=m1"]})
    link = {"open": {"label": "open", "width": "small", "type_config": {"type": "link", "display_text": "open"}}}
    display, config = fitted_columns(shown, link)
    assert list(display.columns) == ["open", "game"]
    assert config["open"]["pinned"] and not config["game"]["pinned"] and config["open"]["width"] == "small"
    assert column_width(pd.Series(["mean role win rate"]), "x") > column_width(pd.Series(["0.5"]), "x")


def test_games_page_defines_its_columns_and_draws_one_unit_per_chart(first_run_db, monkeypatch):
    """Defect 8: a definition under each table, counts apart from shares, no averaged seat index, and an all-zero
    illegal-move chart on a 0-1 axis that says so."""
    bar = run_page("games", first_run_db, monkeypatch, game="bar_game")
    text = "\n".join(m.value for m in bar.markdown)  # under the table, folded: "Column definitions"
    for column in ("go_count", "share_go (%)", "crowded (%)"):  # defined under the name the table shows
        assert f"**{plain(column)}**:" in text
    charts = [json.loads(c.proto.spec) for c in bar.get("plotly_chart")]
    series = [" ".join(trace["hovertemplate"] for trace in chart["data"]) for chart in charts]
    assert "go_count" in series[0] and "share_go" not in series[0] and "crowded" not in series[0]
    assert "share_go" in series[1] and "crowded" in series[1] and "go_count" not in series[1]
    assert charts[1]["layout"]["yaxis"]["range"] == [0, 1]

    royale = run_page("games", first_run_db, monkeypatch, game="battle_royale")
    assert not {"shooter", "target"} & set(royale.dataframe[0].value.columns)
    pirate = run_page("games", first_run_db, monkeypatch, game="pirate_game")
    assert "proposer" not in pirate.dataframe[0].value.columns

    board = run_page("games", first_run_db, monkeypatch, game="tictactoe")
    illegal = json.loads(board.get("plotly_chart")[0].proto.spec)
    assert illegal["layout"]["yaxis"]["range"] == [0, 1]
    assert any("no illegal moves" in c.value for c in board.caption)
    assert any(f"**{plain('illegal_move_rate (%)')}**:" in m.value for m in board.markdown)


def test_win_rate_intervals_take_matches_not_seats(first_run_db):
    """Defect 9: bot:random holds 39 seats in 21 guessing_game matches: its interval has n = 21."""
    row = headline.agent_figures(first_run_db, ALL.of_game("guessing_game")).set_index("agent").loc["bot:random"]
    assert row["seats"] > row["matches"]
    low, high = stats.wilson_interval(row["win_rate"] * row["matches"], row["matches"])
    assert (row["win_lo"], row["win_hi"]) == pytest.approx((float(low), float(high)))
    narrow = stats.wilson_interval(row["credit"], row["seats"])
    assert row["win_hi"] - row["win_lo"] > float(narrow[1] - narrow[0])
    assert "contested matches as the sample size" in headline.DEFINITIONS["win rate"]
