"""One TrueSkill update for a match of ordered teams, on plain floats.

The `trueskill` package builds an object factor graph for every match, which costs 0.3-2 ms; replaying
50,000 matches for the dashboard would take a minute. This module sends the same messages in the same
schedule (prior and performance layers down, the chain of team differences until the largest change is
under `min_delta` or 10 sweeps, then back up) in natural parameters (precision `pi`, precision-mean
`tau`), and reuses the package's v/w functions and draw margin, so its ratings equal the package's
(tests/test_ratings.py compares them on random matches).

Floats cannot hold every update: when a team wins that its ratings said could all but not win (four seats of
one agent whose rating has run far ahead of the fifth's), the normal cdf underflows to 0 and the package's
v/w functions raise FloatingPointError. `rate_exactly` then makes the same update in arbitrary precision
(the package's own advice: its mpmath backend), so no extreme match can stop a replay.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cache

import trueskill

Player = tuple[float, float, float]  # mu, sigma, weight
INF = math.inf
SWEEPS = 10
PRECISE_DIGITS = 50  # mpmath's working precision for an update floats cannot hold


def _mu(pi: float, tau: float) -> float:
    return tau / pi if pi else 0.0


def _inverse(pi: float) -> float:
    return 1.0 / pi if pi else INF


def _sum_message(terms: Sequence[tuple[float, float, float]]) -> tuple[float, float]:
    """The package's SumFactor.update: a message N(sum c·mu, sum c²·var) from (coefficient, pi, tau) cavities."""
    mean, variance = 0.0, 0.0
    for coeff, pi, tau in terms:
        mean += coeff * _mu(pi, tau)
        variance += coeff * coeff * _inverse(pi) if variance != INF else 0.0
    pi = 1.0 / variance if variance else INF
    return pi, pi * mean


def rate(env: trueskill.TrueSkill, teams: Sequence[Sequence[Player]], ranks: Sequence[int],
         min_delta: float = trueskill.DELTA) -> list[list[tuple[float, float]]]:
    """New (mu, sigma) of every player, teams in the given order; `ranks` (lower is better) may tie."""
    order = sorted(range(len(teams)), key=lambda j: ranks[j])
    ordered = [teams[j] for j in order]
    ranked = [ranks[j] for j in order]
    beta2, n = env.beta ** 2, len(ordered)
    skill_var = [[sigma * sigma + env.tau * env.tau for _, sigma, _ in team] for team in ordered]
    weights = [[max(min_delta, w) for _, _, w in team] for team in ordered]
    # down: each player's performance N(mu, sigma² + tau² + beta²), each team's N(sum w·mu, sum w²·var)
    perf = [[(1 / (v + beta2), mu / (v + beta2)) for (mu, _, _), v in zip(team, var, strict=True)]
            for team, var in zip(ordered, skill_var, strict=True)]
    prior = [_sum_message([(w, *p) for p, w in zip(ps, ws, strict=True)]) for ps, ws in zip(perf, weights, strict=True)]
    value = [list(p) for p in prior]  # team performance marginals
    left = [[0.0, 0.0] for _ in range(n)]  # message to team j from the difference factor j (team j on its left)
    right = [[0.0, 0.0] for _ in range(n)]  # message to team j from the difference factor j-1 (on its right)
    diff_down = [[0.0, 0.0] for _ in range(n - 1)]
    trunc = [[0.0, 0.0] for _ in range(n - 1)]
    diff = [[0.0, 0.0] for _ in range(n - 1)]  # difference marginals
    margins = [env.ppf((env.draw_probability + 1) / 2.0) * math.sqrt(len(ordered[k]) + len(ordered[k + 1])) * env.beta
               for k in range(n - 1)]

    def replace(target: list[float], old: list[float], new: tuple[float, float]) -> None:
        target[0] += new[0] - old[0]
        target[1] += new[1] - old[1]
        old[0], old[1] = new

    def down(k: int) -> None:
        message = _sum_message([(1.0, value[k][0] - left[k][0], value[k][1] - left[k][1]),
                                (-1.0, value[k + 1][0] - right[k + 1][0], value[k + 1][1] - right[k + 1][1])])
        replace(diff[k], diff_down[k], message)

    def truncate(k: int) -> float:
        pi, tau = diff[k][0] - trunc[k][0], diff[k][1] - trunc[k][1]
        sqrt_pi = math.sqrt(pi)
        args = (tau / sqrt_pi, margins[k] * sqrt_pi)
        if ranked[k] == ranked[k + 1]:
            v, w = env.v_draw(*args), env.w_draw(*args)
        else:
            v, w = env.v_win(*args), env.w_win(*args)
        new_pi, new_tau = pi / (1.0 - w), (tau + sqrt_pi * v) / (1.0 - w)
        pi_delta = abs(diff[k][0] - new_pi)
        delta = 0.0 if pi_delta == INF else max(abs(diff[k][1] - new_tau), math.sqrt(pi_delta))
        trunc[k] = [new_pi - pi, new_tau - tau]
        diff[k] = [new_pi, new_tau]
        return delta

    def up(k: int, to_left: bool) -> None:
        cavity = (diff[k][0] - diff_down[k][0], diff[k][1] - diff_down[k][1])
        if to_left:  # t_k = d_k + t_{k+1}
            other = (value[k + 1][0] - right[k + 1][0], value[k + 1][1] - right[k + 1][1])
            replace(value[k], left[k], _sum_message([(1.0, *cavity), (1.0, *other)]))
        else:  # t_{k+1} = t_k - d_k
            other = (value[k][0] - left[k][0], value[k][1] - left[k][1])
            replace(value[k + 1], right[k + 1], _sum_message([(1.0, *other), (-1.0, *cavity)]))

    for _ in range(SWEEPS):
        if n == 2:
            down(0)
            delta = truncate(0)
        else:
            delta = 0.0
            for k in range(n - 2):
                down(k)
                delta = max(delta, truncate(k))
                up(k, to_left=False)
            for k in range(n - 2, 0, -1):
                down(k)
                delta = max(delta, truncate(k))
                up(k, to_left=True)
        if delta <= min_delta:
            break
    up(0, to_left=True)
    up(n - 2, to_left=False)

    # up: each player's skill given its team's performance and its teammates' performances
    rated: list[list[tuple[float, float]]] = []
    for team, var, ws, ps, (pi_t, tau_t), total in zip(ordered, skill_var, weights, perf, prior, value, strict=True):
        cavity = (total[0] - pi_t, total[1] - tau_t)
        players = []
        for i, ((mu, _, _), v, w) in enumerate(zip(team, var, ws, strict=True)):
            terms = [(1.0 / w, *cavity)] + [(-wx / w, *px) for x, (px, wx) in enumerate(zip(ps, ws, strict=True))
                                             if x != i]
            pi_m, tau_m = _sum_message(terms)
            a = 1.0 / (1.0 + beta2 * pi_m)
            pi_r, tau_r = 1.0 / v + a * pi_m, mu / v + a * tau_m
            players.append((tau_r / pi_r, math.sqrt(1.0 / pi_r)))
        rated.append(players)
    result: list[list[tuple[float, float]]] = [[] for _ in teams]
    for position, j in enumerate(order):
        result[j] = rated[position]
    return result


def rate_exactly(env: trueskill.TrueSkill, teams: Sequence[Sequence[Player]], ranks: Sequence[int]
                 ) -> list[list[tuple[float, float]]]:
    """`rate` with `env`'s floats, or where they underflow (FloatingPointError), the same update with `env`'s
    parameters in mpmath at PRECISE_DIGITS digits, returned as floats."""
    try:
        return rate(env, teams, ranks)
    except FloatingPointError:
        import mpmath

        with mpmath.workdps(PRECISE_DIGITS):
            rated = rate(_precise(env), teams, ranks)
        return [[(float(mu), float(sigma)) for mu, sigma in team] for team in rated]


@cache
def _precise(env: trueskill.TrueSkill) -> trueskill.TrueSkill:
    """`env` on trueskill's mpmath backend (made once per environment: the backend imports mpmath)."""
    return trueskill.TrueSkill(mu=env.mu, sigma=env.sigma, beta=env.beta, tau=env.tau,
                               draw_probability=env.draw_probability, backend="mpmath")
