"""Rank certainty per match, measured by simulation: does an adaptive, paired study (engine/study/certainty.py) reach
the
true order of agents with separated intervals in at most half the matches of a round robin, and do its 95%
intervals cover the true differences in at least 93% of repeats?

The agents: bots of known strength, each playing its game's strong policy with probability p and a random legal move
otherwise (p = 0.9, 0.7, 0.5, 0.3, 0.1: the true order). The games: TicTacToe (the equilibrium bot), Connect Four
(minimax, 2 plies) and Texas Hold'em (hand strength).

The outcomes come from the real games through the engine's match loop (`playing.play_match`, no database): for every
pair of agents and game, a pool of deals is played first, each deal a match and its mirror on one seed (the seats
reversed: a card game dealt in duplicate). Each simulated study then draws its deals (the adaptive study) or its
single matches (the round robin, seats alternating by round) from those pools with replacement, so the truth of
the simulated world is known exactly: a pair's true share is the mean over games of its pool's mean share.

- Round robin: every pair plays one match of every game per round; after each round, the order by Bradley-Terry
  and every adjacent pair's 95% interval (normal, over its matches, each game weighing the same). Its figure: the
  matches played at the first round at which the order is the true one and every adjacent pair is separated
  (checking every round favours the round robin: its intervals are the fixed-sample ones).
- Adaptive, paired: `certainty.Study`, each deal costing its two matches whatever its game (the figure compared is
  matches; bots cost only their time, printed per game), until every adjacent pair is separated or its looks are
  spent. Its figure: the matches played when it stopped with the
  true order; its coverage: the share of the adjacent pairs' intervals at its stop that hold the true share.

    .venv/bin/python bench/certainty.py [--quick] [--repeats N] [--deals N]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from engine.agents.base import AgentSpec, Decision  # noqa: E402
from engine.agents.bots import find_policy  # noqa: E402
from engine.games import get_game  # noqa: E402
from engine.play.playing import play_match  # noqa: E402
from engine.play.spec import MatchPlan  # noqa: E402
from engine.study import certainty  # noqa: E402

STRENGTHS = (0.9, 0.7, 0.5, 0.3, 0.1)  # each agent's chance of its game's strong move: the true order
GAMES = {"tictactoe": ("equilibrium", None), "connect_four": ("minimax", "2"), "texas_holdem": ("hand_strength", None)}


@dataclass
class Mixed:
    """A bot that plays its game's strong policy with probability `p`, else a random legal move."""

    p: float

    async def act(self, obs, ctx) -> Decision:
        name, arg = GAMES[obs.game]
        action = find_policy(obs.game, name)(obs, ctx.rng, arg) if ctx.rng.random() < self.p \
            else obs.space.sample(ctx.rng)
        return Decision(action=action, response=obs.space.written(action), prompt={}, legal=True, fallback=False,
                        error=None, cost_usd=0.0, latency_ms=0.0)


def share_of_first(record) -> float:
    """Seat 0's pairwise share against seat 1: 1 won, 1/2 drawn, 0 lost (the ratings' outcome)."""
    first, second = sorted(record.seats, key=lambda s: s["seat"])
    if bool(first["won"]) != bool(second["won"]):
        return 1.0 if first["won"] else 0.0
    return 0.5 if first["rank"] == second["rank"] else float(first["rank"] < second["rank"])


async def pools(deals: int) -> tuple[dict, dict, np.ndarray]:
    """Per (a, b, game): a's share of each deal, and of each match as (seat order, share); each game's mean seconds
    a match."""
    deal_shares, match_shares, seconds = {}, {}, np.zeros(len(GAMES))
    for g, game in enumerate(GAMES):
        params = get_game(game).resolve_params({}, "default")
        start, played = time.perf_counter(), 0
        for a in range(len(STRENGTHS)):
            for b in range(a + 1, len(STRENGTHS)):
                shares, singles = [], []
                for seed in range(deals):
                    halves = []
                    for seats in ((a, b), (b, a)):
                        plan = MatchPlan(f"{game}-{seats}-{seed}", "bench", game, "default", params, seed, 0, 0,
                                         [AgentSpec(agent=f"bot:p{STRENGTHS[s]}") for s in seats])
                        record = await play_match(plan, agent_factory=lambda spec, limits: Mixed(
                            float(spec.agent.removeprefix("bot:p"))))
                        share = share_of_first(record) if seats[0] == a else 1 - share_of_first(record)
                        halves.append(share)
                        singles.append(share)
                        played += 1
                    shares.append(float(np.mean(halves)))
                deal_shares[a, b, g] = np.array(shares)
                match_shares[a, b, g] = np.array(singles).reshape(deals, 2)  # column 0: a in seat 0
        seconds[g] = (time.perf_counter() - start) / played
    return deal_shares, match_shares, seconds


def truth(deal_shares: dict) -> dict[tuple[int, int], float]:
    n = len(STRENGTHS)
    return {(a, b): float(np.mean([deal_shares[a, b, g].mean() for g in range(len(GAMES))]))
            for a in range(n) for b in range(a + 1, n)}


def round_robin(match_shares: dict, rng: np.random.Generator, most_rounds: int) -> int | None:
    """The matches the round robin played when it first had the true order, every adjacent pair separated."""
    deals = certainty.Deals(len(STRENGTHS), len(GAMES))
    true_order = list(range(len(STRENGTHS)))
    for r in range(most_rounds):
        for pairing in deals.pairings():
            pool = match_shares[pairing]
            deals.add(pairing, float(pool[rng.integers(len(pool)), r % 2]))
        ranked = certainty.order(deals)
        if ranked == true_order and all(certainty.pair_interval(deals, u, v, 1.96)[1] > 0.5
                                        for u, v in zip(ranked, ranked[1:], strict=False)):
            return deals.total()
    return None


def adaptive(deal_shares: dict, cost: np.ndarray, rng: np.random.Generator, true: dict
             ) -> tuple[int | None, list[bool], int]:
    """The matches the adaptive study played when it stopped with the true order (None otherwise), whether each
    adjacent pair's interval at its stop held the true share, and its matches."""
    study = certainty.Study(certainty.Deals(len(STRENGTHS), len(GAMES)))
    while batch := study.next_batch(cost):
        study.record([(p, float(deal_shares[p][rng.integers(len(deal_shares[p]))])) for p in batch], cost)
    ranked = certainty.order(study.deals)
    covered = []
    for u, v in zip(ranked, ranked[1:], strict=False):
        _, lo, hi = certainty.pair_interval(study.deals, u, v)
        real = true[u, v] if u < v else 1 - true[v, u]
        covered.append(bool(lo <= real <= hi))
    reached = study.separated() and ranked == list(range(len(STRENGTHS)))
    return (study.matches if reached else None), covered, study.matches


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer deals in the pools and fewer repeats")
    parser.add_argument("--repeats", type=int, help="simulated studies of each kind (default 300, quick 100)")
    parser.add_argument("--deals", type=int, help="deals per pair and game in the pools (default 150, quick 24)")
    args = parser.parse_args()
    repeats = args.repeats or (100 if args.quick else 300)
    deals = args.deals or (24 if args.quick else 150)
    random.seed(0)
    start = time.perf_counter()
    deal_shares, match_shares, seconds = asyncio.run(pools(deals))
    true = truth(deal_shares)
    print(f"pools: {deals} deals per pair and game, {len(STRENGTHS) * (len(STRENGTHS) - 1) * deals * len(GAMES)} "
          f"matches in {time.perf_counter() - start:.0f} s; seconds a match: "
          + ", ".join(f"{game} {s * 1000:.2f} ms" for game, s in zip(GAMES, seconds, strict=True)))
    print("true adjacent shares: " + ", ".join(f"p{STRENGTHS[a]} over p{STRENGTHS[a + 1]} {true[a, a + 1]:.3f}"
                                              for a in range(len(STRENGTHS) - 1)))
    rng = np.random.default_rng(0)
    robin = [round_robin(match_shares, rng, 4000) for _ in range(repeats)]
    runs = [adaptive(deal_shares, np.full(len(GAMES), 2.0), rng, true) for _ in range(repeats)]
    robin_reached = [m for m in robin if m is not None]
    adaptive_reached = [m for m, _, _ in runs if m is not None]
    coverage = 100 * float(np.mean([c for _, covered, _ in runs for c in covered]))
    robin_median = float(np.median(robin_reached)) if robin_reached else float("nan")
    adaptive_median = float(np.median([m for _, _, m in runs]))
    ratio = adaptive_median / robin_median
    print(f"round robin: median {robin_median:.0f} matches to the true order with separated intervals "
          f"({len(robin_reached)} of {repeats} reached it within 4000 rounds)")
    print(f"adaptive, paired: median {adaptive_median:.0f} matches at its stop; true order with separated intervals "
          f"in {len(adaptive_reached)} of {repeats}; its 95% intervals held the true share in {coverage:.1f}% of "
          f"adjacent pairs")
    print(f"time: {time.perf_counter() - start:.0f} s")
    passed = ratio <= 0.5 and coverage >= 93 and len(adaptive_reached) >= 0.9 * repeats
    print(f"VERDICT: {'PASS' if passed else 'FAIL'}: matches ratio {ratio:.2f} (adaptive / round robin), "
          f"coverage {coverage:.1f}%")


if __name__ == "__main__":
    main()
