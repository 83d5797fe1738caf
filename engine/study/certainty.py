"""An adaptive, paired study (docs/METRICS.md, "Rank certainty per dollar"): matches are played in deals (a lineup
and its mirror on one seed: `mirror: true`), and in batches, each batch spent where the ranking is still uncertain
per expected dollar, with a uniform share so that no pairing starves, until every pair of adjacent ranks is
separated or the budget ends.

The figure a pair is separated on is A's share against B (1 won, 1/2 drawn, 0 lost), each game weighing the same:
the mean over games of each game's mean deal share. Its interval is normal with the deals' spread, at the level
that holds over `LOOKS` looks at once (Bonferroni: alpha / LOOKS two-sided), so it stays valid whichever batches the
study chose and whenever it stopped, as long as it looked at most `LOOKS` times (the batches grow geometrically, and
the study stops at its last look).

Every choice is a function of what the study stored (its deals, looks and spending: `Study`): a study stopped
anywhere and rebuilt from them chooses as the one that kept going.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from statistics import NormalDist

import numpy as np

from engine.score.cross_game import weighted_fit

LOOKS = 6  # the looks the intervals hold over at once: a study stops at its last
ALPHA = 0.05
FIRST_DEALS = 30  # the first batch: at least this many deals, every pairing alike (looks are not spent on noise)
GROWTH = 2.0  # each batch as many deals as the study has played so far (times GROWTH - 1)
UNIFORM_SHARE = 0.2  # of each batch, spread over the least-played pairings and games
PRIOR_SD = 0.5  # the widest spread a share in 0-1 has: a pairing's spread starts there
PRIOR_WEIGHT = 0.5  # deals' worth of that prior in a pairing's spread: a few deals alike do not read as certainty
Pairing = tuple[int, int, int]  # agent a, agent b (a < b), game


def z_value(looks: int = LOOKS, alpha: float = ALPHA) -> float:
    """The normal quantile of an interval that holds at all `looks` looks at once (two-sided, Bonferroni)."""
    return NormalDist().inv_cdf(1 - alpha / (2 * looks))


@dataclass
class Deals:
    """The deal shares played so far: per pairing (a, b, game), a's share of each deal (the mean of its matches)."""

    agents: int
    games: int
    shares: dict[Pairing, list[float]] = field(default_factory=dict)
    playable: frozenset[Pairing] | None = None  # the pairings whose agents can both play its game; None: every one

    def add(self, pairing: Pairing, share: float) -> None:
        self.shares.setdefault(pairing, []).append(share)

    def count(self, pairing: Pairing) -> int:
        return len(self.shares.get(pairing, ()))

    def pairings(self) -> list[Pairing]:
        return [(a, b, g) for a in range(self.agents) for b in range(a + 1, self.agents) for g in range(self.games)
                if self.playable is None or (a, b, g) in self.playable]

    def total(self) -> int:
        return sum(len(v) for v in self.shares.values())


def spread(deals: Deals, pairing: Pairing) -> float:
    """The standard deviation of a deal share of `pairing`: its deals' own, pooled with `PRIOR_WEIGHT` deals' worth
    of the widest (`PRIOR_SD`), so that a few deals alike (two draws) do not read as no spread at all."""
    shares = deals.shares.get(pairing, ())
    own = float(np.var(shares, ddof=1)) * (len(shares) - 1) if len(shares) > 1 else 0.0
    return float(np.sqrt((own + PRIOR_WEIGHT * PRIOR_SD ** 2) / (max(len(shares) - 1, 0) + PRIOR_WEIGHT)))


def pair_interval(deals: Deals, a: int, b: int, z: float | None = None, planned: dict[Pairing, int] | None = None
                  ) -> tuple[float, float, float]:
    """a's share against b, each game weighing the same (the mean over the games they played of the mean deal share),
    and its interval (`z_value` unless given): (share, lo, hi); NaN where they never met. `planned`: deals to come,
    counted in each game's deals (the interval expected after them, the spread as now)."""
    flip = a > b
    low, high = (b, a) if flip else (a, b)
    means, variances = [], []
    for g in range(deals.games):
        shares = deals.shares.get((low, high, g))
        if shares:
            means.append(float(np.mean(shares)))
            coming = (planned or {}).get((low, high, g), 0)
            variances.append(spread(deals, (low, high, g)) ** 2 / (len(shares) + coming))
    if not means:
        return np.nan, np.nan, np.nan
    share = float(np.mean(means))
    half = (z_value() if z is None else z) * float(np.sqrt(np.sum(variances))) / len(means)
    share, lo, hi = share, share - half, share + half
    return (1 - share, 1 - hi, 1 - lo) if flip else (share, lo, hi)


def order(deals: Deals) -> list[int]:
    """The agents best first, by a Bradley-Terry fit on every deal share with each game weighing the same."""
    rows = [(a, b, g, s) for (a, b, g), shares in deals.shares.items() for s in shares]
    if not rows:
        return list(range(deals.agents))
    a, b, g, s = (np.array(column) for column in zip(*rows, strict=True))
    per_game = np.bincount(g.astype(int), minlength=deals.games)
    weight = per_game[per_game > 0].mean() / per_game[g.astype(int)]  # only the games played are indexed
    theta = weighted_fit(a.astype(int), b.astype(int), weight * s, weight * (1 - s), deals.agents)
    return [int(i) for i in np.lexsort((np.arange(deals.agents), -theta))]


def unseparated(deals: Deals, ranked: list[int]) -> list[tuple[int, int]]:
    """The adjacent pairs of `ranked` whose interval of the upper's share against the lower's holds 1/2."""
    open_pairs = []
    for upper, lower in zip(ranked, ranked[1:], strict=False):
        _, lo, _ = pair_interval(deals, upper, lower)
        if not lo > 0.5:
            open_pairs.append((upper, lower))
    return open_pairs


def deals_needed(deals: Deals) -> float:
    """An estimate of the deals the open adjacent pairs still need: for each, the deals at which its interval's
    half-width would equal its share's distance from 1/2 at its present spread, less those played."""
    needed = 0.0
    for upper, lower in unseparated(deals, order(deals)):
        share, lo, hi = pair_interval(deals, upper, lower)
        low, high = min(upper, lower), max(upper, lower)
        played = sum(deals.count((low, high, g)) for g in range(deals.games))
        gap = abs(share - 0.5)
        if not gap > 0 or not played:
            return np.inf
        needed += max(0.0, played * ((hi - lo) / 2 / gap) ** 2 - played)
    return needed


def reduction_per_dollar(deals: Deals, pairing: Pairing, cost: np.ndarray, planned: int = 0) -> float:
    """How much one more deal of `pairing` (after `planned` more already chosen) shrinks the variance of its pair's
    share (each game weighing 1/games of it), per expected dollar of the deal (`cost[game]`)."""
    n = deals.count(pairing) + planned
    sd = spread(deals, pairing)
    shrink = sd ** 2 * (1 / n - 1 / (n + 1)) if n else sd ** 2 * 4  # a game never played: its mean is unknown
    return shrink / deals.games ** 2 / max(float(cost[pairing[2]]), 1e-12)


def choose_batch(deals: Deals, size: int, cost: np.ndarray) -> list[Pairing]:
    """The next `size` deals. A uniform share (`UNIFORM_SHARE` of them) goes to the pairings that starve: fewer
    deals than `UNIFORM_SHARE` times the mean over pairings, least played first. The rest go one by one to the
    pairing, among the games of the adjacent pairs not yet separated, whose next deal shrinks its pair's variance
    most per expected dollar (`reduction_per_dollar`, counting the deals already chosen). A pairing separated and
    not starving gets none; an empty list when every adjacent pair is separated."""
    targets = unseparated(deals, order(deals))
    if not targets:
        return []
    chosen: list[Pairing] = []
    planned: dict[Pairing, int] = {}

    def pick(pairing: Pairing) -> None:
        chosen.append(pairing)
        planned[pairing] = planned.get(pairing, 0) + 1

    every = deals.pairings()
    floor = UNIFORM_SHARE * deals.total() / len(every)
    for _ in range(int(round(size * UNIFORM_SHARE))):
        least = min(every, key=lambda p: deals.count(p) + planned.get(p, 0))
        if deals.count(least) + planned.get(least, 0) >= floor:
            break
        pick(least)
    playable = set(every)
    candidates = [p for u, v in targets for g in range(deals.games) if (p := (min(u, v), max(u, v), g)) in playable]
    while candidates and len(chosen) < size:
        pick(max(candidates, key=lambda p: reduction_per_dollar(deals, p, cost, planned.get(p, 0))))
    return chosen


def widest(widths: list[float]) -> float:
    """The widest of the intervals' widths that are known (NaN when none is: agents that never met)."""
    return max((w for w in widths if w == w), default=np.nan)


@dataclass
class Study:
    """An adaptive study's state between batches: its deals, the looks taken and the dollars and matches spent."""

    deals: Deals
    looks: int = 0
    spent_usd: float = 0.0
    matches: int = 0
    history: list[dict] = field(default_factory=list)  # per look: matches, dollars, the widest adjacent interval

    def next_batch(self, cost: np.ndarray, budget_usd: float | None = None, budget_matches: int | None = None,
                   matches_per_deal: int = 2) -> list[Pairing]:
        """The deals of the next batch, or [] when the study is done: every adjacent pair separated, `LOOKS` looks
        taken, or the budget spent. The first batch is at least `FIRST_DEALS` deals, as many of every pairing; then
        each batch holds (GROWTH - 1) times the deals played so far (`deals_needed` when fewer, a quarter of that at
        least), cut to what the budget still buys (a deal's dollars and matches counted whole, so the budget is never
        exceeded)."""
        if self.looks >= LOOKS:
            return []
        if self.deals.total() == 0:
            every = self.deals.pairings()
            batch = every * -(-FIRST_DEALS // len(every))
        else:
            size = self.deals.total() * (GROWTH - 1)
            batch = choose_batch(self.deals, max(1, int(min(size, max(size / 4, deals_needed(self.deals))))), cost)
        kept, usd, matches = [], self.spent_usd, self.matches
        for pairing in batch:
            price = float(cost[pairing[2]])
            if (budget_usd is not None and usd + price > budget_usd) or \
                    (budget_matches is not None and matches + matches_per_deal > budget_matches):
                continue
            kept.append(pairing)
            usd, matches = usd + price, matches + matches_per_deal
        return kept

    def record(self, played: list[tuple[Pairing, float]], cost: np.ndarray, matches_per_deal: int = 2) -> None:
        """A batch's deals played (pairing, share), counted as one look."""
        for pairing, share in played:
            self.deals.add(pairing, share)
            self.spent_usd += float(cost[pairing[2]])
            self.matches += matches_per_deal
        self.looks += 1
        self.history.append(self.snapshot())

    def snapshot(self) -> dict:
        """Where the study stands: its looks, matches and dollars, its widest adjacent interval and its open pairs."""
        ranked = order(self.deals)
        widths = [hi - lo for lo, hi in (pair_interval(self.deals, u, v)[1:] for u, v in zip(ranked, ranked[1:],
                                                                                          strict=False))]
        return {"look": self.looks, "matches": self.matches, "usd": self.spent_usd,
                "widest": widest(widths),
                "open": len(unseparated(self.deals, ranked))}

    def separated(self) -> bool:
        return not unseparated(self.deals, order(self.deals))
