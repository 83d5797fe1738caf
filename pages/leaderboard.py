"""Leaderboards: per suite, a headline table in the manner of Chatbot Arena (ranked by the number the suite's
title states, from non-overlapping 95% intervals; win rate, matches, valid moves, fallback wins, cost; self-play
left out, provisional agents not ranked: engine/papers/headline.py defines each number), an agents x games grid whose
cells open exactly their matches in Transcripts (HELM's models x scenarios), and the paper's own table with
partial averages marked; then per game the win rates and TrueSkill / Bradley-Terry ratings.
Selection by run, game, preset and date."""

from dataclasses import replace

import pandas as pd
import streamlit as st

from engine import store
from engine.papers import headline, published
from engine.papers.registry import Headline, all_suites, own_table
from engine.present import queries
from engine.present.captions import contested_caption, glossed, headline_note, own_table_caption, pool_caption
from engine.present.export.charts import certainty_curve
from engine.present.export.charts import win_rates as win_rate_chart
from engine.present.numbers import on_one_scale
from engine.present.suite_tables import (
    GRID_CAPTION,
    VERSUS_HELP,
    by_win_rate,
    complete_first,
    grid_games,
    grid_view,
    has_winner,
    headline_help,
    headline_view,
    ranked_view,
    versus_view,
    win_rates_view,
    without_winner,
)
from engine.score import compare, cross_game
from engine.score.ratings import saved_replay, trueskill_table
from engine.store.selection import Variant
from engine.study import certainty_reads
from pages.shared import links
from pages.shared.caching import slow_scorer_wanted
from pages.shared.markdown import plain
from pages.shared.opening import open_filtered_page
from pages.shared.own_tables import show_own_table
from pages.shared.report import Report, download_table
from pages.shared.tables import show_table
from pages.shared.url_widgets import url_selectbox

DB = store.default_db()
report = Report("Leaderboards")

options, selection = open_filtered_page("Leaderboards", DB, report)


RATING = Headline()


def ratings(scope, suffix: str):
    """TrueSkill and Bradley-Terry tables over the selected matches `scope` (one game under one rule set)."""
    if not saved_replay(scope) and not slow_scorer_wanted("TrueSkill", options, scope.games or None,
                                                          f"ratings_{suffix}"):
        return
    report.caption(glossed("TrueSkill μ with its 95% interval, over contested matches (self-play left out); skills "
                           "compare only within one `component` of agents linked by matches.", "TrueSkill"))
    show_table(report, f"TrueSkill ({suffix})", trueskill_table(DB, selection=scope), f"trueskill_{suffix}")
    report.caption(glossed("Bradley-Terry over contested matches with its 95% bootstrap interval, ranked as the "
                           "headline ranks: overlapping intervals share a rank.", "rating"))
    rated = headline.ratings(DB, selection=scope)
    show_table(report, f"Bradley-Terry ({suffix})", rated, f"bradley_terry_{suffix}", shown=ranked_view(rated, RATING))


report.caption(contested_caption())
meanings = "\n".join(f"- **{name}**: {text}" for name, text in headline.DEFINITIONS.items())
with st.expander("What each number means"):
    st.markdown(meanings)
report.text(meanings)


def empty_caption(suite) -> str:
    """What a suite without a table holds in this selection: only self-play of some of its games (left out of every
    number), or none of its games at all."""
    _, self_play = headline.coverage(DB, suite=suite.name, selection=selection)
    if self_play:
        return glossed(f"Only self-play in this selection ({', '.join(self_play)}): left out of win rates and ratings, "
                       f"so {suite.title} has nothing to rank.", "self-play")
    return glossed(suite.empty, suite.title)


def grid(db, suite, selection) -> tuple[str, pd.DataFrame, pd.DataFrame]:
    """Agents x games (HELM's models x scenarios) as a markdown table, a row per agent so that a suite's few games
    fit the window however many agents played: each cell the agent's win rate in that game and the number of
    contested matches behind it (`grid_view`, as the static site shows it), a link to exactly those matches in
    Transcripts (the page's selection, the suite's rule set of the game, self-play of a competitive game left out);
    the cells as text for the report; and the numbers for the download (none for a game without a winner)."""
    scope = replace(selection.within(suite.variants), contested=True)
    cells = headline.agent_figures(db, scope, by_game=True)
    if cells.empty:  # only self-play, which a suite whose protocol it is ranks (γ-Bench): no contested cell
        return "", pd.DataFrame(), pd.DataFrame()
    rule_set = {v.game: v.name for v in suite.variants}
    texts = grid_view(cells, suite)
    games = grid_games(cells, suite)
    rows = ["| agent | " + " | ".join(plain(label) for label in texts.columns[1:]) + " |",
            "|---" * (len(games) + 1) + "|"]
    rows += [f"| {plain(row['agent'])} | " + " | ".join(
        f"[{row[label]}]({links.transcripts_link(scope, g, row['agent'], rule_set[g])})" if row[label] else ""
        for g, label in zip(games, texts.columns[1:], strict=True)) + " |" for _, row in texts.iterrows()]
    rates = cells.assign(win_rate=cells["win_rate"].where(cells["game"].map(has_winner)))
    rates = rates.pivot(index="agent", columns="game", values="win_rate").reindex(columns=games).reset_index()
    rates.columns.name = None
    return "\n".join(rows), texts, rates


def pairwise_matrices(suite, agents: tuple[str, ...]) -> None:
    """Chatbot Arena's matrices of a suite's contested matches (engine/score/compare.py): rows A, columns B, A's win
    share over their matches against each other, and the number of those matches beside it; agents in the headline's
    order."""
    shares, counts = compare.matrices(DB, selection=selection.within(suite.variants), order=agents)
    if shares.empty:
        return
    with st.expander(f"{suite.title}: pairwise win share and matches (row against column)"):
        report.caption(glossed("Row A, column B: A's share of their matches against each other (a draw counts half; "
                               "blank where they never met), and beside it the number of those matches.",
                               "pairwise matrix"))
        left, right = st.columns(2)
        with left:
            show_table(report, f"{suite.title}: win share, row against column", shares, f"pairwise_{suite.name}",
                       units=dict.fromkeys(shares.columns[1:], "%"))
        with right:
            show_table(report, f"{suite.title}: matches, row against column", counts, f"battles_{suite.name}")


for suite in all_suites().values():
    if not suite.games:  # the games outside the papers, when every game is a paper's
        continue
    st.header(suite.title)
    table = headline.headline(DB, suite=suite.name, selection=selection)
    if not table.empty:
        counted, self_play = headline.coverage(DB, suite=suite.name, selection=selection)
        report.caption(headline_note(suite, counted, self_play))
        show_table(report, f"{suite.title}: headline", table, f"headline_{suite.name}",
                   shown=headline_view(table, suite.headline), helps=headline_help(suite.headline),
                   units=suite.headline.units)
        cells, texts, rates = grid(DB, suite, selection)
        if not texts.empty:
            report.markdown(f"**Agents x games**: {GRID_CAPTION} in Transcripts. {without_winner(suite.games)}")
            st.markdown(cells)
            download_table(on_one_scale(rates, dict.fromkeys(rates.columns[1:], "%")), f"grid_{suite.name}")
            report.table(f"{suite.title}: agents x games (win rate)", texts)
        pairwise_matrices(suite, tuple(table["agent"]))
    if suite.slow and not saved_replay(replace(selection, games=())) and not slow_scorer_wanted(
            f"{suite.title}'s table", options, suite.games, f"{suite.name}_table"):
        continue
    board = own_table(DB, suite=suite.name, selection=selection)
    if not board.empty:
        st.markdown(f"**{suite.paper}'s own table**" if suite.paper else "**Per game**")
        report.caption(own_table_caption(suite))
        paper = queries.published_rows(DB, suite=suite.name)  # the paper's rows for the models we played
        board = complete_first(published.interleave_published(board, paper), suite.layout)  # partial rows last
        show_own_table(report, suite.title, board, suite.name, suite.layout)
    elif table.empty:
        report.caption(empty_caption(suite))
    else:
        report.caption(glossed(f"{suite.paper}'s own table: nothing to score in this selection.", suite.title))

st.header("Across games")
across = headline.across_games(DB, selection)
if across.ratings.empty:
    report.caption(glossed("No contested match between agents in this selection.", "self-play"))
else:
    report.caption(glossed(headline.ACROSS_CAPTION, "rating"))
    show_table(report, "One rating across games", across.ratings, "across_games", shown=cross_game.view(across.ratings))
    report.caption(glossed(f"Fragility: {cross_game.fragility_sentence(across.fragility)}", "rank"))

dealt = certainty_reads.studies(DB)
if not dealt.empty:
    st.subheader("Cost against certainty")
    study = url_selectbox("Study (a run dealt in pairs)", list(dealt["run_id"]), "study")
    points = certainty_reads.curve(DB, run_id=study)
    if points.empty:
        report.caption("This run is no study of two-seat games: nothing to draw.")
    else:
        report.caption("The widest interval of an adjacent pair of ranks (a share against the next agent, 1/2 = "
                       "even) against the matches played, look by look, and dashed what the next batch is expected "
                       "to buy (`python -m engine run SPEC --until-separated` plays it).")
        fig = certainty_curve(points, f"Cost against certainty: {study}")
        st.plotly_chart(fig)
        report.figure(f"Cost against certainty: {study}", fig)

st.header("A versus B")
CHOOSE = "(choose an agent)"
versus_agents = [CHOOSE, *compare.agent_names(DB, selection=selection)]
left, right = st.columns(2)
with left:
    first = url_selectbox("Agent A", versus_agents, "versus_a")
with right:
    second = url_selectbox("Agent B", versus_agents, "versus_b")
if CHOOSE in (first, second) or first == second:
    report.caption(glossed("Choose two different agents: their matches against each other and their scores against "
                           "the same opponents, per game and overall (`python -m engine compare A B` prints the same "
                           "table).", "A versus B"))
else:
    versus = compare.compare(DB, a=first, b=second, selection=selection)
    report.caption(glossed(f"{plain(first)} (A) against {plain(second)} (B): their matches against each other, then "
                           f"their scores paired by seed against the same opponents ({compare.PAIRED_TEST}, Holm "
                           "across games); hover a header for its column's definition.", "A versus B"))
    show_table(report, f"{first} versus {second}", versus, "versus", shown=versus_view(versus), helps=VERSUS_HELP)

st.header("Per game")
pooled = headline.agent_figures(DB, selection, by_game=True)  # games with contested matches, by rule set
pairs = [] if pooled.empty else sorted(set(zip(pooled["game"], pooled["rule_set"], strict=True)))
pools = {links.pool_label(g, r): (g, r) for g, r in pairs}
choice = url_selectbox("Game", list(pools), "game") if pools else None
game, rule_set = pools.get(choice, (None, ""))
scope = selection.of_game(game) if game else selection  # a game of one rule set: its saved replay serves
if rule_set:
    scope = scope.within((Variant.of(game, rule_set),))
rows = headline.agent_figures(DB, scope) if game else pd.DataFrame()
if rows.empty:
    report.caption(glossed("No contested match in this selection (self-play only, or none).", "self-play"))
else:
    rows = by_win_rate(rows)[[
        "agent", "matches", "seats", "wins", "draws", "win_rate", "win_lo", "win_hi", "valid_rate", "fallback_wins",
        "cost_per_match"]]
    if has_winner(game):  # a game without one would chart a row of zeros
        fig = win_rate_chart(rows, f"Win rate: {choice}")
        st.plotly_chart(fig)
        report.figure(f"Win rate: {choice}", fig)
    report.caption(pool_caption(links.pool_label(game, rule_set), game))
    show_table(report, f"Win rates: {choice}", rows, f"win_rates_{game}", shown=win_rates_view(rows, game))
    ratings(scope, f"{game}_{rule_set}" if rule_set else game)

report.download("leaderboards")
