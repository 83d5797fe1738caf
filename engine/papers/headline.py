"""A suite's headline table, Chatbot-Arena style, and the one definition of each number it shows (the
dashboard prints `DEFINITIONS` under the table, and every page that shows a win rate uses `agent_figures`).

Only contested matches count (`SELF_PLAY`): in a competitive game a match where every seat is the same agent
(self-play) says nothing about who is better, so it is left out of win rates, scores and ratings; in a cooperative
game (`Game.cooperative`: the seats share one score) one agent in every seat is the game, and every match counts;
a suite whose paper's protocol is self-play (`Suite.self_play`: γ-Bench) counts it in its score and matches. What
one match says about who played better is each game's declaration (`Game.judged_by`), read from its seats' places;
the caption names it (`judged`). Each suite ranks by one number (`Suite.headline`: a Bradley-Terry rating, the win
rate, or a 0-100 score), in the unit its title states. An agent with fewer than `MIN_MATCHES` contested matches is
provisional, and one that played fewer of the suite's games than were counted is partial: shown, not ranked, in
every suite. Ranks come from the 95% intervals of that number: an agent's rank is 1 + the number of ranked agents
whose interval lies wholly above its own, so agents whose intervals overlap share a rank. An interval that cannot
be computed (one match, a perfect record for a rating, every match scored alike) is not an interval: `note` says
why, and the agent is not ranked.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import special

from engine import store
from engine.games import get_game
from engine.papers.registry import Headline, get_suite
from engine.score import cross_game
from engine.score.agent_figures import (
    Summed,
    agent_figures,
    over_games,
    summed,
    summed_figures_sql,
    with_rates,
)
from engine.score.bradley_terry import rated_read, summed_pairs_sql
from engine.score.kept_tables import kept, kept_per_state
from engine.score.outcomes import numbered_agents
from engine.score.precision import fixed_values
from engine.score.ratings import OUTCOME, fit_bradley_terry, rated_pairs
from engine.store.selection import ALL, Selection, cooperative_games
from engine.store.valid_answers import DEFINITION as VALID_ANSWER

MIN_MATCHES = 10
SELF_PLAY = ("in the competitive games self-play (every seat the same agent) is left out: it says nothing about who "
             "is better; in the cooperative games (" + ", ".join(cooperative_games()) + ": the seats share one "
             "score) one agent in every seat is the game, and every match counts; in a suite whose paper plays one "
             "agent in every seat (γ-Bench, scored against the game's optimum) self-play is its protocol, and counts")
NOT_COMPARED = "not compared: never met ranked agents"  # fits the rating column
DEFINITIONS = {
    "rank": f"1 + the number of ranked agents whose 95% interval of the ranked number (the table's first number: "
            "rating, win rate or score) lies wholly above this agent's, so overlapping intervals share a rank; "
            f"agents with fewer than {MIN_MATCHES} contested matches are provisional and not ranked, and so is an "
            "agent whose interval cannot be computed (the table says why) or that played fewer of the suite's games "
            "than were counted (partial: its number pools other games), in every suite, ratings included; a lone "
            "rankable agent is not ranked either (a rank among one says nothing)",
    "rating": "Bradley-Terry strength on the Elo scale (1000 = the mean strength of the agents rated together; an "
              "agent that won or lost every comparison has no finite strength, the fit holds it at a large one, so "
              "the other ratings then average away from 1000) fitted on the pairwise outcomes "
              "of contested matches, with its 95% bootstrap interval (matches resampled). A rating compares only "
              "agents linked by matches (who played whom, directly or through others): agents that never played "
              f"the group with the most matches are rated apart and shown as '{NOT_COMPARED}', never ranked "
              "against it",
    "score": "per game, the mean over the agent's counted matches (contested ones; every match in γ-Bench, whose "
             "protocol is self-play) of its score in the match (the mean of its "
             "seats' scores there, every preset and setting in the selection) on the suite's own scale (γ-Bench: "
             "0-100, 100 = the game's best play); then the "
             "mean of those per-game means, each game weighing the same, with its 95% t interval over matches. Only "
             "the games with contested matches in the selection count (the page names those left out, e.g. played "
             "only in self-play); an agent that played fewer of them is marked partial and not ranked",
    "win rate": f"(seats won + half the seats drawn) / seats held, over contested matches ({SELF_PLAY}), with "
                "its 95% Wilson interval taking the contested matches as the sample size (an agent's seats in one "
                "match are not independent draws); the same on every page. A game that declares no winner "
                "(cooperative: Hanabi) counts in the matches, in no win rate ('—' for an agent that played only "
                "such games). " + OUTCOME,
    "mean score": "per game, the mean over the agent's contested matches of its score in the match (the mean of "
                  "its seats' scores there): the headline's score of that one game",
    "matches": "contested matches in which the agent held at least one seat (games without a winner included)",
    "contested": f"the matches every number counts: {SELF_PLAY}",
    "valid moves": VALID_ANSWER,
    "fallback wins": "seats won in matches where the agent made at least one random fallback move: wins an LLM "
                     "may owe to chance",
    "cost": "dollars the agent's calls cost, per contested match (blank when some call had no price)",
}


def judged(games) -> str:
    """What one match says about who played better in each of `games`, as each declares it (`Game.judged_by`): the
    outcome its ratings and win rates read, for the caption of a table that counts them."""
    return "One match's outcome: " + "; ".join(f"{g}, {get_game(g).judged_meaning}" for g in dict.fromkeys(games))


COLUMNS = ["rank", "agent", "provisional", "partial", "games", "of_games", "value", "value_lo", "value_hi", "note",
           "win_rate", "win_lo", "win_hi", "matches", "seats", "wins", "valid_rate", "fallback_wins", "cost_per_match"]


def ranks(lo: pd.Series, hi: pd.Series, ranked: pd.Series) -> pd.Series:
    """1 + the number of ranked agents whose interval lies wholly above this one's; NA where not ranked. Every pair
    at once: a loop of Series comparisons over agents is slow for a study's hundred agents."""
    above = (lo.to_numpy(float)[None, :] > hi.to_numpy(float)[:, None]) & ranked.to_numpy(bool)[None, :]
    return pd.Series(above.sum(1) + 1, index=lo.index, dtype="Int64").where(ranked)


def ranked(table: pd.DataFrame) -> pd.DataFrame:
    """`table` (agent, matches, value, value_lo, value_hi, note; `partial` if given) with `provisional` (fewer than
    MIN_MATCHES contested matches) and `rank` (the ranked: neither provisional, partial nor without an interval, and
    at least two of them),
    the ranked first, best value first: the one rule of every ranked table."""
    table = table.copy()
    table["note"] = [note or ("" if lo == lo and hi == hi else "no interval")  # a mean of equal scores: [x, x]
                     for note, lo, hi in zip(table["note"].fillna(""), table["value_lo"], table["value_hi"],
                                             strict=True)]
    table["provisional"] = table["matches"] < MIN_MATCHES
    partial = table["partial"] if "partial" in table else False
    rankable = ~table["provisional"] & ~partial & (table["note"] == "")
    # a rank among one says nothing: a lone complete agent (the random bot that played every game) is not "1"
    table["rank"] = ranks(table["value_lo"], table["value_hi"], rankable & (rankable.sum() > 1))
    return table.sort_values(["rank", "provisional", "value", "agent"], ascending=[True, True, False, True],
                             na_position="last", ignore_index=True, key=fixed_values)


ACROSS_NAMES = {"rating": "value", "lo": "value_lo", "hi": "value_hi"}  # the rating's columns as `ranked` names them
ACROSS_CAPTION = (f"{cross_game.CAPTION} Rank: 1 + the ranked agents whose interval lies wholly above; fewer than "
                  f"{MIN_MATCHES} matches is provisional, not ranked.")


def ranked_across(ratings: pd.DataFrame) -> pd.DataFrame:
    """The rating across games (`cross_game.rating_table`) ranked by the one rule (`ranked`: provisional below
    MIN_MATCHES matches, rank 1 + the ranked agents whose interval lies wholly above) and in that order."""
    rated = ranked(ratings.rename(columns=ACROSS_NAMES).assign(note=""))
    rated = rated.rename(columns={value: name for name, value in ACROSS_NAMES.items()})
    return rated[["rank", "provisional", *ratings.columns, "note"]]


def across_games(db: str | Path, selection: Selection = ALL) -> cross_game.CrossGame:
    """The rating across games of the selection and its fragility (`cross_game.cross_game`), ranked
    (`ranked_across`)."""
    across = cross_game.cross_game(db, selection)
    return across if across.ratings.empty else replace(across, ratings=ranked_across(across.ratings))


def one_sided(pairs: pd.DataFrame) -> dict[str, str]:
    """Agents whose every pairwise comparison (`ratings.pairwise_outcomes`) went one way (a perfect record): their
    Bradley-Terry strength has no finite maximum (only the ridge holds it), so the rating and its interval mean
    nothing."""
    if pairs.empty:
        return {}
    names, (a, b) = numbered_agents(pairs)
    share, score = (pairs["matches"] * pairs["weight"]).to_numpy(float), pairs["score"].to_numpy(float)
    won, lost = (np.bincount(a, share * mine, len(names)) + np.bincount(b, share * (1 - mine), len(names))
                 for mine in (score, 1 - score))
    return {**{agent: "no finite rating: won every comparison" for agent in names[lost == 0]},
            **{agent: "no finite rating: lost every comparison" for agent in names[won == 0]}}


def ratings(db: str | Path, selection: Selection = ALL) -> pd.DataFrame:
    """Bradley-Terry over the contested matches of the selection, ranked by the headline's rule: agent, matches
    (contested), value = rating, value_lo, value_hi (none for the agents not compared with the ranked ones), note,
    provisional, rank. Kept per database state (`kept_tables`): its bootstrap is what costs."""
    scope = replace(selection, contested=True)
    return kept(db, f"headline ratings {scope!r}", lambda: _rated(rated_pairs(db, scope)))


def _rated(read: tuple[pd.DataFrame, pd.DataFrame] | None) -> pd.DataFrame:
    """`ratings` of the pairs and agents' matches read (`rated_read`; None: nothing to rate)."""
    columns = ["rank", "agent", "provisional", "value", "value_lo", "value_hi", "note", "matches"]
    if read is None:
        return pd.DataFrame(columns=columns)
    pairs, played = read
    rated = fit_bradley_terry(pairs, played, first_only=True)  # only the first is ranked: only it needs intervals
    notes = one_sided(pairs)
    table = rated.rename(columns={"rating": "value", "lo": "value_lo", "hi": "value_hi"}).drop(columns="rank")
    alike = ~(table["value_hi"] > table["value_lo"])  # every bootstrap resample gave one rating: no information
    table["note"] = table["agent"].map(notes).fillna("").where(~alike | table["agent"].isin(notes),
                                                               "no interval: every match alike")
    table["note"] = table["note"].where(table["component"] == 1, NOT_COMPARED)  # another scale: never ranked
    return ranked(table)[columns]


def scores(db: str | Path, selection: Selection, metric: str, bounds: tuple[float, float] | None = None,
           self_play: bool = False) -> pd.DataFrame:
    """Per agent, `DEFINITIONS["score"]`: the mean over games of its mean score per contested match in each (every
    match with `self_play`, the protocol of a suite that plays one agent in every seat) (a match's score: the mean
    of the agent's seats' `metric` there), with a 95% t interval from the games' own variances over matches, clipped
    to the scale `bounds` (a 0-100 score read "79.8 [46.8 to 100.0]"): agent, value, value_lo, value_hi, note,
    games (the games it averages)."""
    with store.reading(db):
        games = _moments(store.query(db, *_scores_sql(db, summed(db, selection, contested=not self_play), metric)))
    return _scored(games, bounds)


def _scored(games: pd.DataFrame, bounds: tuple[float, float] | None) -> pd.DataFrame:
    """`scores` of the per agent and game moments read (`_moments`' columns)."""
    columns = ["agent", "value", "value_lo", "value_hi", "note", "games"]
    if games.empty:
        return pd.DataFrame(columns=columns)
    games["se2"] = games["var"] / games["count"]  # NaN for a game of one match: no interval
    # per agent at once: a loop over agents is slow for a study's hundred agents, each in several settings
    by_agent = games.groupby("agent", sort=True)
    n_games = by_agent.size()
    mean = by_agent["mean"].mean()
    se = np.sqrt(by_agent["se2"].sum().where(~games["se2"].isna().groupby(games["agent"]).any())) / n_games
    half = special.stdtrit(np.maximum(by_agent["count"].sum() - n_games, 1), 0.975) * se  # Student's t quantile
    single = games[games["count"] < 2].groupby("agent")["game"].agg(", ".join).reindex(n_games.index)
    table = pd.DataFrame({"agent": n_games.index, "value": mean.to_numpy(), "value_lo": (mean - half).to_numpy(),
                          "value_hi": (mean + half).to_numpy(),
                          "note": ("no interval: one match of " + single).fillna("").to_numpy(),
                          "games": n_games.to_numpy()}, columns=columns)
    low, high = (-np.inf, np.inf) if bounds is None else bounds
    table["value_lo"], table["value_hi"] = table["value_lo"].clip(lower=low), table["value_hi"].clip(upper=high)
    return table


def _scores_sql(db: str | Path, where: Summed, metric: str) -> tuple[str, list]:
    """The query of per agent and game, its contested matches scored by `metric` (`count`) and the sum and sum of
    squares of its score per match, from the `metric_summary` rows `where` selects; its parameters. `_moments` of
    it is what `scores` averages."""
    rows, params = where.rows(db, "metric_summary")
    return f"""
        SELECT k.agent_name AS agent, k.game, sum(k.matches)::BIGINT AS count, sum(k.total) AS total,
               sum(k.squares) AS squares
        FROM ({rows}) k WHERE k.name = ? GROUP BY ALL ORDER BY agent, game""", [*params, metric]


def _moments(games: pd.DataFrame) -> pd.DataFrame:
    """Per agent and game the mean, variance and count of its score per match, from the summed counts
    (`_scores_sql`): the variance from the sum of squares."""
    if games.empty:
        return games
    games["mean"] = games["total"] / games["count"]
    spread = (games["squares"] - games["total"] * games["mean"]).clip(lower=0)
    games["var"] = (spread / (games["count"] - 1)).where(games["count"] > 1)
    return games[["agent", "game", "mean", "var", "count"]]


def coverage(db: str | Path, suite: str, selection: Selection = ALL) -> tuple[list[str], list[str]]:
    """The suite's games its headline counts (those with contested matches in the selection; every game played in a
    suite whose protocol is self-play, `Suite.self_play`) and those it leaves out because the selection holds only
    self-play of them, each in the suite's order."""
    scope = selection.within(get_suite(suite).variants)
    with store.reading(db):
        rows, params = summed(db, scope, contested=False).rows(db)
        found = store.query(db, f"""SELECT k.game, bool_or(k.several OR k.game IN (SELECT unnest(?))) AS contested
                                    FROM ({rows}) k GROUP BY k.game""", [cooperative_games(), *params])
    if found.empty:  # no match of the suite (or no database yet: a frame without columns)
        return [], []
    played = found.set_index("game")["contested"] | get_suite(suite).self_play  # its protocol: self-play counts
    order = [g for g in get_suite(suite).games if g in played.index]
    return [g for g in order if played[g]], [g for g in order if not played[g]]


def _win_rates(by_game: pd.DataFrame, agents: pd.Series) -> dict[str, pd.Series]:
    """Each of `agents`' win rate and its interval over the games of `by_game` (`agent_figures` by game) that
    declare a winner: a cooperative game's seats share one score and win nothing against each other, so its matches
    counted as lost and an agent that played only Hanabi showed 0.0% (missing now: no win rate)."""
    rates = over_games(by_game[~by_game["game"].isin(cooperative_games())])
    rates = rates.set_index("agent") if not rates.empty else pd.DataFrame(columns=["win_rate", "win_lo", "win_hi"])
    return {column: agents.map(rates[column]).astype(float) for column in ("win_rate", "win_lo", "win_hi")}


def _figures_and_value_rows(db: str | Path, scope: Selection, measure: Headline, self_play: bool = False
                            ) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """`agent_figures` of the scope by game (every match with `self_play`, else the contested ones), and the rows
    the headline's value is computed from, read from the same summary rows: a rating's pairs (`rated_pairs`) or a
    score's sums per agent and game (`scores`). The two reads run at once (`store.queries_at_once`).

    The value rows are None when they are read later: a rating without fallback moves or of self-play (the
    pairwise summary does not key those), or a win rate (which the figures hold)."""
    # the pairwise summary has no fallback key: a rating without fallback moves, or of self-play, reads the log
    if measure.by == "win rate" or (measure.by == "rating" and (scope.without_fallbacks or self_play)):
        return agent_figures(db, scope, by_game=True, contested=not self_play), None
    where = summed(db, scope, contested=not self_play)
    value_sql = summed_pairs_sql(db, where) if measure.by == "rating" else _scores_sql(db, where, measure.metric)
    by_game, value_rows = store.queries_at_once(db, [summed_figures_sql(db, where, by_game=True), value_sql])
    return with_rates(by_game), value_rows


@kept_per_state
def headline(db: str | Path, suite: str, selection: Selection = ALL) -> pd.DataFrame:
    """One row per agent over the contested matches of suite `suite` in the selection: `value` is the number the
    suite ranks by (`Suite.headline`), `games` the suite's games it played, `partial` when a score or win rate
    covers fewer than the games counted (`coverage`); the ranked first (best first), then the unranked."""
    with store.reading(db):  # one connection for every read: opening a large file costs more than a read
        return _headline(db, suite, selection)


def _headline(db: str | Path, suite: str, selection: Selection) -> pd.DataFrame:
    measure: Headline = get_suite(suite).headline
    self_play = get_suite(suite).self_play  # the paper's protocol: its matches count
    scope = selection.within(get_suite(suite).variants)
    # one read: the figures, the win rates and the games played (and a rating's pairs or a score's sums with it)
    by_game, value_rows = _figures_and_value_rows(db, scope, measure, self_play)
    if by_game.empty:
        return pd.DataFrame(columns=COLUMNS)
    figures = over_games(by_game)
    # a win rate compares agents: over contested matches even where self-play counts (one agent in every seat wins
    # every seat of a match all its seats tie)
    figures = figures.assign(**_win_rates(agent_figures(db, scope, by_game=True) if self_play else by_game,
                                          figures["agent"]))
    if measure.by == "rating":
        read = (rated_pairs(db, replace(scope, contested=True)) if value_rows is None
                else rated_read(value_rows, figures))
        values = _rated(read)[["agent", "value", "value_lo", "value_hi", "note"]]
    elif measure.by == "score":
        values = _scored(_moments(value_rows), measure.bounds).drop(columns="games")
    else:
        values = figures[["agent"]].assign(value=figures["win_rate"], value_lo=figures["win_lo"],
                                           value_hi=figures["win_hi"], note="")
    table = figures.merge(values, on="agent", how="left")
    table["note"] = [n if n == n else "nothing to rate" for n in table["note"]]
    # the games the ranked number reads: a rating or a win rate none where the seats share one score (cooperative)
    ranked_games = by_game if measure.by == "score" else by_game[~by_game["game"].isin(cooperative_games())]
    played = ranked_games.groupby("agent")["game"].nunique()
    table["games"] = table["agent"].map(played).fillna(0).astype(int)
    # fewer of the counted games than were counted is another mix: a score or win rate pools the games played, a
    # rating weighs the games' comparisons by the matches played (one game's rating is that game's), so every suite
    # alike; complete means every counted game, not as many as the agent that played most
    table["of_games"] = ranked_games["game"].nunique()
    table["partial"] = table["games"] < table["of_games"]
    return ranked(table)[COLUMNS]
