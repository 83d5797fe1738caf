"""One rating across games (docs/METRICS.md, "One rating across games"), as Kaggle Game Arena rates: a Bradley-Terry
fit over every game's pairwise outcomes (`outcomes.pairwise_outcomes`: the better rank wins, equal ranks tie,
teammates are no pair), each game weighing the same however many matches it holds, with bootstrap 95% intervals
(each game's matches resampled within that game); per agent, how its place moves when each game is left out; and
the ranking's fragility: the fewest matches whose removal changes the order of the top k.

The fit is this module's own (`weighted_fit`): `bradley_terry`'s fits weigh every match alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from engine import store
from engine.score.bradley_terry import ELO_BASE, ELO_SCALE, RIDGE
from engine.score.kept_tables import kept
from engine.score.outcomes import component_numbers, numbered_agents, pairwise_outcomes
from engine.store.selection import ALL, Selection

TOP_K = (1, 3)  # the fragility of first place and of the top three
SEARCH_STEPS = 400  # the greedy search's refits at most
EXACT_KINDS = 400  # kinds of match tried one by one to prove a single removal is the fewest


@dataclass(frozen=True)
class Outcomes:
    """Every game's pairwise outcomes as arrays: row i is a kind of match of `game[i]`, played `matches[i]` times,
    between agents `a[i]` and `b[i]` (numbers into `names`), of `weight[i]` of its match's comparisons and `score[i]`
    (1 a won, 1/2 tie)."""

    names: np.ndarray
    games: np.ndarray  # the games, in name order
    game: np.ndarray  # each row's game number
    kind: np.ndarray  # each row's kind of match, numbered across games
    matches: np.ndarray
    a: np.ndarray
    b: np.ndarray
    weight: np.ndarray
    score: np.ndarray

    def game_weights(self, matches: np.ndarray) -> np.ndarray:
        """Each row's factor that makes every game weigh the same (its share of the games' mean number of matches),
        given each row's matches `matches`."""
        per_kind = np.zeros(self.kind.max() + 1)
        per_kind[self.kind] = matches  # a kind's rows hold its matches alike
        played = np.bincount(self.game_of_kind(), per_kind, len(self.games))
        present = played > 0
        factor = np.where(present, played[present].mean() / np.where(present, played, 1), 0.0)
        return factor[self.game]

    def game_of_kind(self) -> np.ndarray:
        of = np.zeros(self.kind.max() + 1, np.int64)
        of[self.kind] = self.game
        return of

    def sides(self, matches: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each row's weight won by a and by b, each row played `matches` times, every game weighing the same."""
        total = matches * self.weight * self.game_weights(matches)
        return total * self.score, total * (1 - self.score)


def read_outcomes(db: str | Path, selection: Selection = ALL) -> Outcomes | None:
    """The selection's pairwise outcomes of every game, restricted to the first component of who met whom (the most
    matches: `outcomes.component_numbers`); None when nothing is there to rate."""
    where, params = selection.where("m")
    with store.reading(db):
        games = store.query(db, f"SELECT DISTINCT m.game FROM matches m WHERE {where} ORDER BY 1", params)["game"]
        read = [pairwise_outcomes(db, game, selection).assign(game=game) for game in games]
    pairs = pd.concat([p for p in read if len(p)], ignore_index=True) if any(len(p) for p in read) else None
    if pairs is None:
        return None
    names, (a, b) = numbered_agents(pairs)
    component = component_numbers(a, b, pairs["matches"].to_numpy(), len(names))
    pairs = pairs[component[a] == 1].reset_index(drop=True)
    names, (a, b) = numbered_agents(pairs)
    game_names, game = np.unique(pairs["game"].to_numpy(object), return_inverse=True)
    _, kind = np.unique(pairs[["game", "kind"]].astype(str).agg(" ".join, axis=1), return_inverse=True)
    return Outcomes(names, game_names, game, kind, pairs["matches"].to_numpy(float), a, b,
                    pairs["weight"].to_numpy(float), pairs["score"].to_numpy(float))


def weighted_fit(a: np.ndarray, b: np.ndarray, won: np.ndarray, lost: np.ndarray, n: int,
                 start: np.ndarray | None = None) -> np.ndarray:
    """Bradley-Terry strengths (natural log-odds, mean 0 over the agents that play) maximising the weighted,
    ridge-penalised likelihood (`RIDGE` as `bradley_terry`'s): pair i, a[i] against b[i], won with weight `won[i]`
    and lost with `lost[i]`. Newton steps, each at most 1 in any strength (the likelihood is concave: the capped
    steps still climb), until a step is below 1e-7."""
    theta = np.zeros(n) if start is None else start.copy()
    total = won + lost
    for _ in range(100):
        p = 1 / (1 + np.exp(theta[b] - theta[a]))  # the chance that a beats b
        slope = won - total * p  # the log-likelihood's derivative in theta[a] - theta[b]
        grad = np.bincount(a, slope, n) - np.bincount(b, slope, n) - RIDGE * theta
        curve = total * p * (1 - p)
        hessian = np.diag(RIDGE + np.bincount(a, curve, n) + np.bincount(b, curve, n))
        np.add.at(hessian, (a, b), -curve)
        np.add.at(hessian, (b, a), -curve)
        step = np.linalg.solve(hessian, grad)
        step *= min(1.0, 1 / max(np.abs(step).max(), 1e-300))
        theta += step
        if np.abs(step).max() < 1e-7:
            break
    plays = np.bincount(a, total, n) + np.bincount(b, total, n) > 0
    return theta - theta[plays].mean() if plays.any() else theta


def _fit(data: Outcomes, matches: np.ndarray, start: np.ndarray | None = None) -> np.ndarray:
    won, lost = data.sides(matches)
    return weighted_fit(data.a, data.b, won, lost, len(data.names), start)


def _played(data: Outcomes, matches: np.ndarray) -> np.ndarray:
    return (np.bincount(data.a, matches, len(data.names)) + np.bincount(data.b, matches, len(data.names))) > 0


def _order(theta: np.ndarray, present: np.ndarray, names: np.ndarray) -> list[int]:
    """The agents that play, best first; strengths within 1e-6 (the fit's own precision) tie, and ties go by name."""
    agents = np.flatnonzero(present)
    return [int(i) for i in agents[np.lexsort((names[agents], -np.round(theta[agents], 6)))]]


def _resamples(data: Outcomes, n_boot: int, seed: int) -> np.ndarray:
    """Each row's matches in each of `n_boot` resamples (resamples x rows): each game's matches drawn by kind from a
    multinomial, apart from the other games' (so every game keeps its number of matches and its weight)."""
    rng = np.random.default_rng(seed)
    per_kind = np.zeros(data.kind.max() + 1)
    per_kind[data.kind] = data.matches
    of_game = data.game_of_kind()
    drawn = np.zeros((n_boot, len(per_kind)))
    for g in range(len(data.games)):
        kinds = np.flatnonzero(of_game == g)
        counts = per_kind[kinds]
        drawn[:, kinds] = rng.multinomial(int(counts.sum()), counts / counts.sum(), size=n_boot)
    return drawn[:, data.kind]


RATING_COLUMNS = ["agent", "rating", "lo", "hi", "matches", "games"]


def rating_table(data: Outcomes, n_boot: int = 200, seed: int = 0) -> pd.DataFrame:
    """A row per agent, best first: its rating (Elo scale, 1000 = the mean agent), the 95% bootstrap interval (none,
    NaN, for an agent of one match: resampling one match says nothing of its spread), its matches and games; then
    per game `without <game>`, how many places it moves when that game is left out (+ down, - up; blank when it
    plays only that game). Unranked: `headline.across_games` ranks it by the one rule of every ranked table."""
    theta = _fit(data, data.matches)
    boot = np.full((n_boot, len(data.names)), np.nan)
    for i, matches in enumerate(_resamples(data, n_boot, seed)):
        fitted = _fit(data, matches, theta)
        boot[i, _played(data, matches)] = fitted[_played(data, matches)]
    boot -= np.nanmean(boot - theta, axis=1, keepdims=True)  # each resample on the full fit's origin
    lo, hi = (np.nanpercentile(boot, q, axis=0) if n_boot else theta for q in (2.5, 97.5))
    order = _order(theta, _played(data, data.matches), data.names)
    table = pd.DataFrame({"agent": data.names[order], "rating": ELO_BASE + ELO_SCALE * theta[order],
                          "lo": ELO_BASE + ELO_SCALE * lo[order], "hi": ELO_BASE + ELO_SCALE * hi[order]})
    kind_matches = np.zeros(data.kind.max() + 1)
    kind_matches[data.kind] = data.matches
    table["matches"] = [int(kind_matches[np.unique(data.kind[(data.a == i) | (data.b == i)])].sum()) for i in order]
    table.loc[table["matches"] < 2, ["lo", "hi"]] = np.nan
    table["games"] = [len(np.unique(data.game[(data.a == i) | (data.b == i)])) for i in order]
    place = {agent: p for p, agent in enumerate(order)}
    if len(data.games) > 1:
        for g, game in enumerate(data.games):
            kept_matches = np.where(data.game == g, 0.0, data.matches)
            present = _played(data, kept_matches)
            without = {agent: p for p, agent in enumerate(_order(_fit(data, kept_matches, theta), present,
                                                                 data.names))}
            table[f"without {game}"] = [without[i] - place[i] if i in without else np.nan for i in order]
    return table[RATING_COLUMNS + [c for c in table.columns if c not in RATING_COLUMNS]]


FRAGILITY_COLUMNS = ["top", "matches_to_change", "of_matches", "search"]


def fragility(data: Outcomes, k: int) -> tuple[int | None, str]:
    """The fewest matches whose removal changes the order of the top `k` (which agents hold places 1..k, in that
    order), and how it was found. Greedy: each step removes matches of the one kind that, by the fit's local
    sensitivity (one Newton step: removing a match moves the strengths by H⁻¹ times its gradient), closes one of
    the top k's margins (each of places 1..k against the next) in the fewest matches, half of that estimate at a
    time (one when the estimate is under 2), refitting after each step. Removing every match of one of the top k
    also changes the order (it is no longer rated): the answer is the smaller of the two, an upper bound on the
    fewest. When it is 2, every single removal is tried, so 2 is then exact; 1 is always exact. None when no agent
    beyond the top k is rated."""
    matches = data.matches.copy()
    theta = _fit(data, matches)
    order = _order(theta, _played(data, matches), data.names)
    if len(order) <= k:
        return None, "greedy"
    wanted = order[:k]
    kind_matches = np.zeros(data.kind.max() + 1)
    kind_matches[data.kind] = matches
    best = min(int(kind_matches[np.unique(data.kind[(data.a == i) | (data.b == i)])].sum()) for i in wanted)
    removed = 0
    for _ in range(SEARCH_STEPS):
        kind, count = _closest_kind(data, theta, matches, order[:k + 1])
        if kind is None or removed + count >= best:
            break
        matches = np.where(data.kind == kind, matches - count, matches)
        removed += count
        theta = _fit(data, matches, theta)
        order = _order(theta, _played(data, matches), data.names)
        if order[:k] != wanted:
            best = removed
            break
    if best == 2 and data.kind.max() < EXACT_KINDS and not _one_removal_changes(data, k, wanted):
        return 2, "exact"
    return best, "exact" if best == 1 else "greedy"


def _one_removal_changes(data: Outcomes, k: int, wanted: list[int]) -> bool:
    theta = _fit(data, data.matches)
    for kind in np.unique(data.kind):
        matches = np.where(data.kind == kind, data.matches - 1, data.matches)
        if _order(_fit(data, matches, theta), _played(data, matches), data.names)[:k] != wanted:
            return True
    return False


def _closest_kind(data: Outcomes, theta: np.ndarray, matches: np.ndarray, top: list[int]
                  ) -> tuple[int | None, int]:
    """The kind of match whose removal closes a margin of the top order in the fewest matches (by the local
    sensitivity), and how many of its matches to remove now; None when no removal narrows any margin."""
    n = len(data.names)
    won, lost = data.sides(matches)
    total = won + lost
    p = 1 / (1 + np.exp(theta[data.b] - theta[data.a]))
    curve = total * p * (1 - p)
    hessian = np.diag(RIDGE + np.bincount(data.a, curve, n) + np.bincount(data.b, curve, n))
    np.add.at(hessian, (data.a, data.b), -curve)
    np.add.at(hessian, (data.b, data.a), -curve)
    # one match of a row's kind: its log-likelihood's gradient, per agent (rows x agents)
    each = np.divide(won - total * p, matches, out=np.zeros_like(won), where=matches > 0)
    kinds = np.unique(data.kind[matches > 0])
    gradient = np.zeros((len(kinds), n))
    row_kind = np.searchsorted(kinds, data.kind)
    live = matches > 0
    np.add.at(gradient, (row_kind[live], data.a[live]), each[live])
    np.add.at(gradient, (row_kind[live], data.b[live]), -each[live])
    moved = -np.linalg.solve(hessian, gradient.T).T  # the strengths' move when one match of each kind goes
    available = np.zeros(data.kind.max() + 1)
    available[data.kind] = matches
    best, best_needed = None, np.inf
    for upper, lower in zip(top, top[1:], strict=False):
        margin = theta[upper] - theta[lower]
        closing = moved[:, lower] - moved[:, upper]  # how much one removal closes it
        with np.errstate(divide="ignore"):
            needed = np.where(closing > 0, margin / closing, np.inf)
        needed = np.where(available[kinds] >= 1, needed, np.inf)
        i = int(np.argmin(needed))
        if needed[i] < best_needed:
            best, best_needed = i, needed[i]
    if best is None:
        return None, 0
    count = int(max(1, min(available[kinds[best]], np.floor(best_needed / 2))))
    return int(kinds[best]), count


@dataclass(frozen=True)
class CrossGame:
    """The rating across games and its fragility, as the pages and the CLI show them."""

    ratings: pd.DataFrame
    fragility: pd.DataFrame
    games: tuple[str, ...]


def cross_game(db: str | Path, selection: Selection = ALL, n_boot: int = 200, seed: int = 0) -> CrossGame:
    """The rating across every game of the selection (`rating_table`) and the fragility of its top 1 and top 3
    (`fragility`), kept per database state (`kept_tables`)."""

    def rated() -> pd.DataFrame:
        data = read_outcomes(db, selection)
        return pd.DataFrame(columns=RATING_COLUMNS) if data is None else rating_table(data, n_boot, seed)

    def fragile() -> pd.DataFrame:
        data = read_outcomes(db, selection)
        if data is None:
            return pd.DataFrame(columns=FRAGILITY_COLUMNS)
        per_kind = np.zeros(data.kind.max() + 1)
        per_kind[data.kind] = data.matches
        rows = [(k, *fragility(data, k)) for k in TOP_K if k < len(data.names)]
        return pd.DataFrame([{"top": k, "matches_to_change": pd.NA if count is None else count,
                              "of_matches": int(per_kind.sum()), "search": how} for k, count, how in rows],
                            columns=FRAGILITY_COLUMNS)

    ratings = kept(db, f"cross-game ratings {n_boot} {seed} {selection!r}", rated)
    games = tuple(c.removeprefix("without ") for c in ratings.columns if c.startswith("without "))
    return CrossGame(ratings, kept(db, f"cross-game fragility {selection!r}", fragile), games)


def fragility_sentence(table: pd.DataFrame) -> str:
    """The fragility table in words, a clause per k."""
    parts = []
    for row in table.itertuples():
        what = "first place" if row.top == 1 else f"the order of the top {row.top}"
        if pd.isna(row.matches_to_change):
            parts.append(f"{what}: no agent to overtake")
        else:
            bound = "exactly" if row.search == "exact" else "at most (greedy search)"
            parts.append(f"removing {bound} {row.matches_to_change} of {row.of_matches} matches changes {what}")
    return "; ".join(parts) + "." if parts else ""


CAPTION = ("One rating across games (as Kaggle Game Arena's): a Bradley-Terry fit over every game's pairwise outcomes, "
           "each game weighing the same however many matches it holds, 1000 = the mean agent, with its 95% bootstrap "
           "interval (each game's matches resampled within it; none for an agent of one match), agents linked by "
           "matches only, `without <game>` how many places the agent moves when that game is left out (+ down, - up).")


def view(table: pd.DataFrame) -> pd.DataFrame:
    """The ranked ratings (`headline.across_games`) as the pages and the CLI print them: the rank blank for an unranked
    agent, provisional ones so marked, whole Elo points with a thousands separator, the interval in one column (blank
    without one, the note says so), the moves signed."""
    shown = pd.DataFrame({"rank": ["" if pd.isna(rank) else str(int(rank)) for rank in table["rank"]],
                          "agent": [agent + (" (provisional)" if provisional else "")
                                    for agent, provisional in zip(table["agent"], table["provisional"], strict=True)],
                          "rating": ["" if pd.isna(rating) else f"{rating:,.0f}" for rating in table["rating"]],
                          "95% interval": ["" if pd.isna(lo) else f"{lo:,.0f} to {hi:,.0f}"
                                           for lo, hi in zip(table["lo"], table["hi"], strict=True)],
                          "matches": [f"{int(n):,}" for n in table["matches"]], "games": table["games"],
                          "note": table["note"]})
    for column in [c for c in table.columns if c.startswith("without ")]:
        shown[column] = ["—" if pd.isna(move) else f"{int(move):+d}" if move else "0" for move in table[column]]
    return shown
