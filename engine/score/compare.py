"""A versus B: two agents compared per game and overall, and the pairwise matrices of a suite (Chatbot Arena's
win-fraction and battle-count matrices). Agents are named as every table names them (`selection.agent_sql`); who
beat whom is the pairwise outcome of `outcomes.pairwise_outcomes` (read through `bradley_terry.rated_pairs`, the
ratings' own read), never a definition of its own.

- Their matches against each other: the matches in which A and B sat in different teams (teammates are no pair).
  A's share of a match is its pairwise score against B there (1 won, 1/2 drawn, 0 lost; A in two seats against B
  in one averages its seat pairs); wins, draws and losses count the matches where that share is above, at or below
  one half; `win_share` is the mean share (a draw counts half) with its 95% Wilson interval over those matches.
- Their mirrored pairs (a spec's `mirror: true`): a match of A against B and its mirror, the same deal (seed) with
  the seats reversed, pair; A's share of a deal is its mean share over the two, so the luck of the deal and of the
  seat cancels. `deal_share` is the mean over the deals both halves of which were played, with its 95% t interval
  over those deals (the paired differences: each deal one sample).
- Their scores against the same opponents: a match of A without B and one of B without A pair when they were played
  under the same conditions: game, parameters, preset and seed, and the same lineup once A's and B's seats are blanked
  (every other seat the same agent with the same strategy, A and B in the same seats with the same strategy). A
  side's score is the mean score (`seats.score`) of its seats; several matches of one condition (runs played twice)
  are averaged first. Per game: the mean difference A - B with its 95% t interval and the paired t-test
  (`scipy.stats.ttest_rel`); Holm's correction across the games (`stats.holm`). The overall row counts every game's
  pairs, and shows their scores only when they are of one game: each game scores on its own scale, so a difference
  pooled over games would mix units.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import ttest_rel

from engine import store
from engine.score.agent_figures import agents_seen
from engine.score.bradley_terry import rated_pairs
from engine.score.outcomes import seat_outcomes_sql
from engine.score.stats import holm, wilson_interval
from engine.store.selection import ALL, Selection, agent_sql

OVERALL = "overall"
PAIRED_TEST = "paired t-test (scipy.stats.ttest_rel)"
BLANK = "*"  # the compared agent's seat in a lineup key
MEETINGS = ["matches", "wins", "draws", "losses", "win_share", "win_lo", "win_hi"]
DEALT = ["deals", "deal_share", "deal_lo", "deal_hi"]
PAIRED = ["pairs", "score_a", "score_b", "diff", "diff_lo", "diff_hi", "p", "p_holm"]
COLUMNS = ["game", *MEETINGS, *DEALT, *PAIRED]
_OUTCOME = "their matches against each other (different teams, contested)"
_PAIRS = "conditions both played without the other (game, parameters, preset, seed, the other seats' agents)"
DEFINITIONS = {  # each column's, as a header's tooltip shows it
    "game": f"the game, or '{OVERALL}': every game's matches and pairs pooled",
    "matches": _OUTCOME,
    "wins": f"{_OUTCOME} where A's pairwise score against B was above one half",
    "draws": f"{_OUTCOME} where A's pairwise score against B was one half",
    "losses": f"{_OUTCOME} where A's pairwise score against B was below one half",
    "win_share": "A's mean pairwise score against B over their matches (a draw counts half)",
    "win_lo": "the 95% Wilson interval of the win share, over their matches: lower bound",
    "win_hi": "the 95% Wilson interval of the win share, over their matches: upper bound",
    "deals": "their mirrored pairs: a match of A against B and its mirror (the same deal, seats reversed), both played",
    "deal_share": "A's mean share over each deal's two matches, averaged over the deals",
    "deal_lo": "the 95% t interval of the deal share, over the deals: lower bound",
    "deal_hi": "the 95% t interval of the deal share, over the deals: upper bound",
    "pairs": _PAIRS,
    "score_a": "A's mean seat score over the pairs",
    "score_b": "B's mean seat score over the pairs",
    "diff": "the mean difference A - B over the pairs",
    "diff_lo": "the 95% t interval of the difference: lower bound",
    "diff_hi": "the 95% t interval of the difference: upper bound",
    "p": f"two-sided p of the {PAIRED_TEST}",
    "p_holm": "p with Holm's correction across the games; none for the pooled row",
}


class UnknownAgent(ValueError):
    """An agent name the selected matches do not hold."""


def agent_names(db: str | Path, selection: Selection = ALL) -> list[str]:
    """Every agent with a placed seat in the selected matches, as the tables name it (`agent_sql`), in name order:
    from the summaries where they are in step with the log (`agents_seen`), else from the log."""
    with store.reading(db):
        if (seen := agents_seen(db, selection)) is not None:
            return seen
        where, params = selection.where("m")
        return [name for (name,) in store.rows(db, f"""
            SELECT DISTINCT {agent_sql("s")} FROM matches m JOIN seats s USING (match_id)
            WHERE {where} AND s.rank IS NOT NULL ORDER BY 1""", params)]


def _pairs(db: str | Path, selection: Selection) -> pd.DataFrame:
    """The pairwise outcomes of the contested matches of the selection (`rated_pairs`: kind, matches, a, b, weight,
    score), empty when there are none."""
    read = rated_pairs(db, replace(selection, contested=True))
    return read[0] if read is not None else pd.DataFrame(columns=["kind", "matches", "a", "b", "weight", "score"],
                                                         dtype=float)


def _as_first(pairs: pd.DataFrame, first: str, second: str) -> pd.DataFrame:
    """The rows of `pairs` between `first` and `second`: matches and `first`'s share of each (`share`)."""
    forward = pairs[(pairs["a"] == first) & (pairs["b"] == second)]
    backward = pairs[(pairs["a"] == second) & (pairs["b"] == first)]
    return pd.DataFrame({"matches": pd.concat([forward["matches"], backward["matches"]]).astype(float),
                         "share": pd.concat([forward["score"], 1 - backward["score"]]).astype(float)})


_NO_MEETING = pd.DataFrame({"matches": [], "share": []}, dtype=float)


def meetings(rows: pd.DataFrame) -> dict[str, float]:
    """`MEETINGS` of A's shares against B (`_as_first`' rows)."""
    n = float(rows["matches"].sum())
    won = float((rows["matches"] * rows["share"]).sum())
    lo, hi = wilson_interval(won, n)
    return {"matches": n, "wins": float(rows.loc[rows["share"] > 0.5, "matches"].sum()),
            "draws": float(rows.loc[rows["share"] == 0.5, "matches"].sum()),
            "losses": float(rows.loc[rows["share"] < 0.5, "matches"].sum()),
            "win_share": won / n if n else np.nan, "win_lo": float(lo), "win_hi": float(hi)}


def dealt_shares(db: str | Path, a: str, b: str, selection: Selection = ALL) -> pd.DataFrame:
    """One row per deal both halves of which A and B played against each other (a match and its mirror: the same
    `matches.deal`, one `mirror` each): its game and A's mean pairwise share over the two matches (`share`: the
    ratings' outcome, 1 won, 1/2 drawn, 0 lost, A's seats against B's in other teams averaged)."""
    seats, params = seat_outcomes_sql(replace(selection, agents=(a, b), contested=True))
    return store.query(db, f"""
        WITH s AS ({seats}),
        per_match AS (
          SELECT x.match_id, avg(CASE WHEN x.rank < y.rank THEN 1.0 WHEN x.rank = y.rank THEN 0.5 ELSE 0.0 END)
                 AS share
          FROM s x JOIN s y ON x.match_id = y.match_id AND x.role <> y.role AND x.agent = ? AND y.agent = ?
          GROUP BY x.match_id)
        SELECT any_value(m.game) AS game, m.deal, avg(p.share) AS share
        FROM per_match p JOIN matches m USING (match_id) WHERE m.deal IS NOT NULL
        GROUP BY m.deal HAVING count(DISTINCT m.mirror) = 2 ORDER BY m.deal""", [*params, a, b])


def _dealt_figures(deals: pd.DataFrame) -> dict[str, float]:
    """`DEALT` of one game's or every game's deals: the mean share and its 95% t interval, within 0 to 1 (none under 2
    deals)."""
    n = len(deals)
    figures = {"deals": float(n), "deal_share": deals["share"].mean() if n else np.nan, "deal_lo": np.nan,
               "deal_hi": np.nan}
    if n < 2:
        return figures
    from scipy import stats  # only here, as in `_paired_figures`

    half = stats.t.ppf(0.975, n - 1) * deals["share"].std(ddof=1) / np.sqrt(n)
    share = figures["deal_share"]
    return figures | {"deal_lo": max(0.0, share - half), "deal_hi": min(1.0, share + half)}


def _seat_scores(db: str | Path, a: str, b: str, selection: Selection) -> pd.DataFrame:
    """Every seat of the selected matches in which A or B sits: match, game, its conditions (params, preset, seed),
    seat, agent, strategy and score."""
    where, params = replace(selection, agents=(a, b)).where("m")
    return store.query(db, f"""
        SELECT m.match_id, m.game, CAST(m.params AS VARCHAR) AS params, coalesce(m.preset, '') AS preset, m.seed,
               s.seat, {agent_sql("s")} AS agent, coalesce(s.strategy, '') AS strategy, s.score
        FROM matches m JOIN seats s USING (match_id) WHERE {where} ORDER BY m.match_id, s.seat""", params)


def their_matches(db: str | Path, a: str, b: str, selection: Selection = ALL) -> pd.DataFrame:
    """One row per selected match in which A or B sits: its game, its condition (params, preset, seed, and its lineup
    with A's and B's seats blanked), whether A and B sit in it (`has_a`, `has_b`) and their seats' mean score."""
    seats = _seat_scores(db, a, b, selection)
    seats["has_a"], seats["has_b"] = seats["agent"] == a, seats["agent"] == b
    mine = seats["has_a"] | seats["has_b"]
    seats["token"] = seats["agent"].where(~mine, BLANK) + "/" + seats["strategy"]
    seats["own_score"] = seats["score"].where(mine)
    by_match = seats.groupby("match_id", sort=False)
    matches = by_match[["game", "params", "preset", "seed"]].first()
    matches["lineup"] = by_match["token"].agg("|".join)
    matches[["has_a", "has_b"]] = by_match[["has_a", "has_b"]].any()
    matches["score"] = by_match["own_score"].mean()
    return matches.reset_index()


def paired_scores(matches: pd.DataFrame) -> pd.DataFrame:
    """One row per condition both A (without B) and B (without A) played (`their_matches` rows; the module's
    docstring says what pairs them): game, score_a, score_b."""
    key = ["game", "params", "preset", "seed", "lineup"]
    sides = [matches[matches[mine] & ~matches[other]].groupby(key)["score"].mean().rename(name)
             for mine, other, name in (("has_a", "has_b", "score_a"), ("has_b", "has_a", "score_b"))]
    paired = pd.concat(sides, axis=1, join="inner").dropna().reset_index()
    return paired[["game", "score_a", "score_b"]]


def _paired_figures(scores: pd.DataFrame) -> dict[str, float]:
    """`PAIRED` (but p_holm) of one game's or every game's paired scores: the paired t-test and its 95% interval of
    the mean difference (none with fewer than 2 pairs; no p where every difference is 0)."""
    n = len(scores)
    figures = {"pairs": float(n), "score_a": scores["score_a"].mean() if n else np.nan,
               "score_b": scores["score_b"].mean() if n else np.nan,
               "diff": (scores["score_a"] - scores["score_b"]).mean() if n else np.nan,
               "diff_lo": np.nan, "diff_hi": np.nan, "p": np.nan}
    if n < 2:
        return figures
    with warnings.catch_warnings(), np.errstate(invalid="ignore", divide="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)  # equal differences: no spread, said by the NaN below
        test = ttest_rel(scores["score_a"], scores["score_b"])
        low, high = test.confidence_interval(0.95)
    return figures | {"diff_lo": float(low), "diff_hi": float(high), "p": float(test.pvalue)}


def compare(db: str | Path, a: str, b: str, selection: Selection = ALL) -> pd.DataFrame:
    """A versus B (`COLUMNS`): a row per game either their matches against each other or their paired scores
    cover, in name order, then the overall row (every game's matches pooled; its pairs' scores only for one game).
    UnknownAgent when the selection holds no such agent; ValueError when A and B are one agent."""
    with store.reading(db):
        known = agent_names(db, selection)
        if not known:
            raise UnknownAgent(f"no agent has played in {db} (or in the selection)")
        for name in (a, b):
            if name not in known:
                raise UnknownAgent(f"unknown agent '{name}' in {db}; known: {', '.join(known)}")
        if a == b:
            raise ValueError(f"'{a}' compared with itself: name two different agents")
        matches = their_matches(db, a, b, selection)
        dealt = dealt_shares(db, a, b, selection)
        games = sorted(set(matches["game"]))
        # their pairwise outcomes, in the games they met in: a game's pairs read whole, which the summaries answer
        # (narrowed to A's and B's matches, the summed read picks those matches from the log first)
        met = {game: _as_first(_pairs(db, replace(selection, games=(game,))), a, b)
               for game in sorted(set(matches.loc[matches["has_a"] & matches["has_b"], "game"]))}
    paired = paired_scores(matches)
    rows = [{"game": game, **meetings(met.get(game, _NO_MEETING)), **_dealt_figures(dealt[dealt["game"] == game]),
             **_paired_figures(paired[paired["game"] == game])} for game in games]
    table = pd.DataFrame(rows, columns=COLUMNS)
    table = table[(table["matches"] > 0) | (table["pairs"] > 0)].reset_index(drop=True)
    table["p_holm"] = holm(table["p"].to_numpy(dtype=float))
    pooled = _paired_figures(paired)
    if paired["game"].nunique() > 1:  # each game scores on its own scale: a pooled difference would mix units
        pooled = {**dict.fromkeys(PAIRED, np.nan), "pairs": pooled["pairs"]}
    overall = {"game": OVERALL, **meetings(pd.concat([_NO_MEETING, *met.values()])), **_dealt_figures(dealt),
               **pooled, "p_holm": np.nan}
    table = pd.concat([table, pd.DataFrame([overall], columns=COLUMNS)], ignore_index=True)
    for column in ("matches", "wins", "draws", "losses", "deals", "pairs"):
        table[column] = table[column].astype(int)
    return table


def matrices(db: str | Path, selection: Selection = ALL, order: Sequence[str] | None = None
             ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Chatbot Arena's two matrices over the contested matches of the selection: rows A, columns B, (1) A's win
    share over its matches against B (a draw half; blank where they never met) and (2) the number of those matches.
    Agents in `order` (those that met nobody left out), else by name."""
    pairs = _pairs(db, selection)
    both = pd.concat([
        pd.DataFrame({"row": pairs["a"], "column": pairs["b"], "matches": pairs["matches"],
                      "won": pairs["matches"] * pairs["score"]}),
        pd.DataFrame({"row": pairs["b"], "column": pairs["a"], "matches": pairs["matches"],
                      "won": pairs["matches"] * (1 - pairs["score"])})])
    summed = both.groupby(["row", "column"])[["matches", "won"]].sum()
    agents = sorted(set(summed.index.get_level_values("row")))
    if order is not None:
        agents = [agent for agent in order if agent in set(agents)] + [a for a in agents if a not in set(order)]
    counts = summed["matches"].unstack().reindex(index=agents, columns=agents)
    shares = (summed["won"] / summed["matches"]).unstack().reindex(index=agents, columns=agents)
    counts = counts.fillna(0).astype(int)
    for frame in (shares, counts):
        frame.index.name, frame.columns.name = "agent", None
    return shares.reset_index(), counts.reset_index()
