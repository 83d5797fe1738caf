"""The numbers of the first-run database as a researcher reads them across pages: one definition of each, stated
where it is shown, the same figure for the same pool of matches on every page (issue 15, line 1)."""

from __future__ import annotations

import re

import pandas as pd
import pytest

from engine import store
from engine.papers import headline
from tests.page_run import run_page

CHALLENGER = "bot:challenger · bot:letters"  # runs/quick.yaml's reasoned challenger of the social games


@pytest.fixture(scope="module")
def pages(first_run_db, tmp_path_factory):
    """Overview and Leaderboards, run once each on the first-run database (Leaderboards on bargain's games)."""
    monkeypatch = pytest.MonkeyPatch()
    try:
        yield {"overview": run_page("overview", first_run_db, monkeypatch),
               "leaderboard": run_page("leaderboard", first_run_db, monkeypatch, game="bargain")}
    finally:
        monkeypatch.undo()


def unescaped(markdown: str) -> str:
    """Markdown as it reads: the pages escape the punctuation of names (pages/shared/markdown.py)."""
    return re.sub(r"\\(.)", r"\1", markdown)


def overview_tables(at) -> dict[str, pd.DataFrame]:
    """Overview's per-game tables by their heading ("undercover (magic rules)")."""
    titles = [unescaped(m.value.replace("**", "")) for m in at.markdown if m.value.startswith("**")]
    tables = [df.value for df in at.dataframe if "mean score" in df.value.columns]
    assert len(titles) == len(tables)
    return dict(zip(titles, tables, strict=True))


def grids(at) -> list[dict[tuple[str, str], str]]:
    """Each suite's agents x games grid on the page: {(column heading, agent): the cell's shown text}."""
    out = []
    for text in (m.value for m in at.markdown if m.value.startswith("| agent |")):
        lines = unescaped(text).splitlines()
        columns = [c.strip() for c in lines[0].strip("|").split("|")][1:]
        cells = {}
        for line in lines[2:]:
            parts = [c.strip() for c in line.strip("|").split("|")]
            for column, cell in zip(columns, parts[1:], strict=True):
                shown = re.match(r"\[([^\]]*)\]", cell)
                if shown:
                    cells[(column, parts[0])] = shown.group(1)
        out.append(cells)
    return out


def win_cell(row: pd.Series) -> str:
    """An Overview row as a grid cell shows it: "win rate (matches)"."""
    return f"{row['win rate (95% CI)'].split(' [')[0]} ({row['matches']})"


def test_the_same_pool_gives_the_same_win_rate_on_overview_and_the_grids(pages):
    """bot:letters' Undercover read 66.7% on Overview (every rule set pooled), 55.6% in MAgIC's grid and 100.0% in
    Who-is-Spy's: now Overview has a table per rule set, each names its rules and presets, and each equals the
    grid of the suite that plays those rules."""
    tables = overview_tables(pages["overview"])
    assert "undercover" not in tables  # no table pools the three rule sets
    magic = tables["undercover (magic rules)"].set_index("agent")
    wis = tables["undercover (wis rules)"].set_index("agent")
    cells = grids(pages["leaderboard"])
    magic_grid = next(c for c in cells if any(k[0] == "undercover (magic rules)" for k in c))
    wis_grid = next(c for c in cells if any(k[0] == "undercover (wis rules)" for k in c))
    for agent in ("bot:letters", CHALLENGER, "bot:random"):
        assert magic_grid[("undercover (magic rules)", agent)] == win_cell(magic.loc[agent])
    assert wis_grid[("undercover (wis rules)", "bot:letters")] == win_cell(wis.loc["bot:letters"]) == "100.0% (3)"
    assert magic_grid[("undercover (magic rules)", "bot:letters")] != win_cell(wis.loc["bot:letters"])
    captions = unescaped(" ".join(c.value for c in pages["overview"].caption))
    assert "The contested matches of undercover (magic rules) in the selection, preset magic." in captions
    # Bargain (one rule set): Overview, LLMArena's grid and the per-game table give one figure and one interval
    bargain = tables["bargain"].set_index("agent")
    arena_grid = next(c for c in cells if any(k[0] == "bargain" for k in c))
    per_game = next(df.value for df in pages["leaderboard"].dataframe
                    if "fb wins" in df.value.columns and "rank" not in df.value.columns).set_index("agent")
    for agent in ("bot:fair", "bot:greedy", "bot:always_accept"):
        assert arena_grid[("bargain", agent)] == win_cell(bargain.loc[agent])
        assert per_game.loc[agent, "win rate (95% CI)"] == bargain.loc[agent, "win rate (95% CI)"]


def test_overview_never_averages_scores_of_different_rule_sets(pages, first_run_db):
    """Undercover's "mean score" averaged three scales (MAgIC's credits, LLMArena's 0/1, Who-is-Spy's points); each
    table now holds one rule set, its mean the mean of that scale alone."""
    wis = overview_tables(pages["overview"])["undercover (wis rules)"].set_index("agent")
    points = store.query(first_run_db, """
        SELECT avg(s.score) AS mean FROM matches m JOIN seats s USING (match_id)
        WHERE m.game = 'undercover' AND json_extract_string(m.params, '$.rules') = 'wis'
          AND coalesce(s.label, s.agent) = 'bot:letters'""")["mean"].iloc[0]
    assert wis.loc["bot:letters", "mean score"] == f"{points:,.2f}"


def test_a_chameleon_tie_is_a_draw_the_headline_and_magic_count_alike(first_run_db):
    """bot:scripted (now `challenger · bot:letters`) read 0.0% in Chameleon while its role win rates were 50%: every
    match of it was a tie, which MAgIC credits 1 of 2 and the win rate counted as a loss. A draw counts half now: the
    win rate of every agent is its share of MAgIC's credits."""
    rates = headline.agent_figures(first_run_db, by_game=True)
    chameleon = rates[rates["game"] == "chameleon"].set_index("agent")
    credits = store.query(first_run_db, """
        SELECT s.agent_name AS agent, sum(c.value) / sum(x.value) AS share
        FROM matches m JOIN seats s USING (match_id)
        JOIN metrics c ON c.match_id = s.match_id AND c.seat = s.seat AND c.name = 'credits'
        JOIN metrics x ON x.match_id = s.match_id AND x.seat = s.seat AND x.name = 'max_credits'
        WHERE m.game = 'chameleon' AND m.match_id IN (SELECT match_id FROM seats GROUP BY match_id
                                                      HAVING count(DISTINCT agent_name) > 1)
        GROUP BY ALL""").set_index("agent")["share"]
    assert chameleon.loc[CHALLENGER, "win_rate"] == pytest.approx(0.5)
    assert chameleon.loc[CHALLENGER, "draws"] == chameleon.loc[CHALLENGER, "seats"]
    pd.testing.assert_series_equal(chameleon["win_rate"].sort_index(), credits.sort_index(), check_names=False)


def test_agents_that_never_met_are_not_ranked_against_each_other(first_run_db, pages):
    """LLMArena's headline put the Bargain bots (1,092 and 1,091) above bot:equilibrium (1,003) though they never
    played each other: the Bargain bots are rated apart now, not ranked, and the page says why."""
    table = headline.headline(first_run_db, "llmarena").set_index("agent")
    for agent in ("bot:fair", "bot:greedy", "bot:always_accept"):
        assert table.loc[agent, "note"] == headline.NOT_COMPARED and pd.isna(table.loc[agent, "rank"])
    # bot:equilibrium is rated in the group that met; it played 2 of the 5 counted games: partial, not ranked
    assert table.loc["bot:equilibrium", "note"] == "" and table.loc["bot:equilibrium", "partial"]
    assert pd.isna(table.loc["bot:equilibrium", "rank"])
    arena = next(df.value for df in pages["leaderboard"].dataframe if "rating (95% CI)" in df.value.columns)
    shown = arena.set_index("agent")
    assert shown.loc["bot:fair (provisional)", "rating (95% CI)"] == headline.NOT_COMPARED
    assert "never played the group with the most matches" in " ".join(m.value for m in pages["leaderboard"].markdown)


def test_own_tables_leave_self_play_out_count_games_and_mark_partial_averages(pages, first_run_db, monkeypatch):
    """MAgIC's mean role win rate read 100% for a bot that held one role, LLMArena's coverage read "5 of 5" over 7
    game columns, Who-is-Spy's "6 of 9 (partial)" counted seats: now an average over part of its whole says so beside
    its value, coverage counts the paper's games or roles, self-play of a competitive game is out (Hanabi's, a
    cooperative game, counts: issue 24)."""
    frames = [df.value for df in pages["leaderboard"].dataframe]
    magic = next(f for f in frames if "mean role win rate (%)" in f.columns).set_index("agent")
    assert magic.loc["bot:equilibrium", "mean role win rate (%)"] == "100.0% (partial)"
    assert magic.loc["bot:equilibrium", "roles"] == "3 of 7"  # the header names the unit, the value "(partial)"
    assert magic.loc["bot:random", "roles"] == "7 of 7"
    assert "partial" not in magic.loc["bot:random", "mean role win rate (%)"]
    arena = next(f for f in frames if "average" in f.columns and "tictactoe" in f.columns).set_index("agent")
    assert arena.loc["bot:random", "games"] == "5 of 7"  # its self-play Hanabi counts: two copies are the team
    assert arena.loc["bot:random", "average"].endswith(" (partial)")
    assert "bot:hint_follower" in arena.index  # Hanabi with itself, the cooperative game's only protocol
    assert "bot:letters" not in arena.index  # it only ever played Undercover (competitive) against itself
    wis = next(f for f in frames if "ranking" in f.columns).set_index("agent")
    assert "games" not in wis.columns and wis.loc["bot:letters", "seats played"] == "6"
    # each paper's table defined on the Glossary, where its caption links (the page keeps the one caveat it needs)
    captions = " ".join(c.value for c in pages["leaderboard"].caption)
    assert "(glossary#magic-abilities)" in captions and "(glossary#bench-0-100)" in captions
    glossary = " ".join(m.value for m in run_page("glossary", first_run_db, monkeypatch).markdown)
    assert "public_good_payback (its mean payout from the public pool" in glossary
    assert "`setting`: vanilla = the game's parameters as the paper plays it" in glossary


SMOLLM2 = tuple(f"local/smollm2 ({s}max_tokens=24)" for s in ("t=0.0, ", "", "prompt v2, "))  # defaults not shown


def test_a_model_at_two_settings_is_two_agents_on_every_page(pages, first_run_db, monkeypatch):
    """local/smollm2 played at two temperatures and two prompt versions was one row: now each setting is an agent,
    named by its settings (a bot by its agent string), on the headline, in the grids, in the match list, and a grid
    cell opens exactly that setting's matches."""
    gama = next(df.value for df in pages["leaderboard"].dataframe if "score (95% CI)" in df.value.columns)
    agents = {a.removesuffix(" (provisional)") for a in gama["agent"]}
    assert set(SMOLLM2) <= agents and "local/smollm2" not in agents and "bot:random" in agents
    lineups = next(df.value for df in pages["overview"].dataframe if "lineup" in df.value.columns)["lineup"]
    assert any(lineup.startswith(f"{SMOLLM2[2]}, ") for lineup in lineups)
    cells = {key: text for grid in grids(pages["leaderboard"]) for key, text in grid.items()}
    assert {("guessing_game", agent) for agent in SMOLLM2} <= set(cells)
    link = re.search(r"\((transcripts\?[^)]*agents=local%2Fsmollm2\+%28prompt\+v2%2C\+max_tokens%3D24%29"
                     r"[^)]*)\)",
                     next(m.value for m in pages["leaderboard"].markdown if "guessing\\_game" in m.value))
    from urllib.parse import parse_qs, urlsplit
    query = {k: v[0] for k, v in parse_qs(urlsplit(link.group(1)).query).items()}
    listed = run_page("transcripts", first_run_db, monkeypatch, **query)
    assert not listed.exception and listed.subheader[0].value == "Matches: 6 matches"


def test_llmarenas_bargain_figures_use_the_one_win_rate(first_run_db):
    """Bargain's figures on the Games page counted a Bargain without a deal as a loss while the headline counted
    it as a draw: both count it half now (bot:fair: 3 deals won, 3 without a deal, 75.0%)."""
    from engine.papers.llmarena.negotiation import bargain_table

    figures = headline.agent_figures(first_run_db, by_game=True)
    bargain = figures[figures["game"] == "bargain"].set_index("agent")["win_rate"]
    table = bargain_table(first_run_db).set_index("agent")["win_rate"]
    pd.testing.assert_series_equal(table.sort_index(), bargain.sort_index(), check_names=False)
    assert table["bot:fair"] == pytest.approx(0.75)
