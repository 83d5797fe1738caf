"""`python -m engine run SPEC --until-separated [--budget-usd X | --budget-matches N]`: the spec's agents and
two-seat games played as an adaptive, paired study (engine/certainty.py) in batches of deals, until every pair of
adjacent ranks is separated, its looks are spent or the budget ends.

A deal is two matches on one seed, the second with the seats reversed (`matches.mirror`, `matches.deal`); a batch's
matches carry its look's number in `matches.repeat`. The study is read back from the database before each batch
(its complete deals, its looks, its dollars and matches), so a stopped study continues where it was: the same
command again.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine import certainty, store
from engine.agents.base import AgentSpec
from engine.runner import run_spec
from engine.spec import MatchPlan, RunSpec, SpecError, _hash_of, seat_name


@dataclass(frozen=True)
class Frame:
    """What a study plays: its agents (in name order) and its games (game, preset, params: a two-seat setting each)."""

    agents: list[AgentSpec]
    games: list[tuple[str, str, dict]]

    @property
    def names(self) -> list[str]:
        return [seat_name(agent) for agent in self.agents]


def frame_of(spec: RunSpec) -> Frame:
    """The agents and two-seat games of the spec's matches; SpecError when it has none of either."""
    games, agents = {}, {}
    for plan in spec.matches:
        if len(plan.seats) != 2:
            raise SpecError(f"{plan.game}: --until-separated plays two-seat games (a pair of agents per deal)")
        games.setdefault((plan.game, plan.preset, json.dumps(plan.params, sort_keys=True)), plan.params)
        for seat in plan.seats:
            agents.setdefault(seat_name(seat), seat)
    if len(agents) < 2:
        raise SpecError("--until-separated needs two agents or more among the lineups")
    return Frame([agents[name] for name in sorted(agents)], [(g, p, params) for (g, p, _), params in games.items()])


def read_study(db: str | Path, run_id: str, frame: Frame) -> certainty.Study:
    """The study as the database holds it: each complete deal's share of its lower-numbered agent (1 won, 1/2
    drawn, 0 lost, over its two matches), its looks (the batches begun), its dollars and its finished matches."""
    deals = certainty.Deals(len(frame.agents), len(frame.games))
    if not Path(db).exists():
        return certainty.Study(deals)
    number = {name: i for i, name in enumerate(frame.names)}
    setting = {(g, p, json.dumps(params, sort_keys=True)): i for i, (g, p, params) in enumerate(frame.games)}
    rows = store.rows(db, """
        SELECT m.deal, m.game, m.preset, CAST(m.params AS VARCHAR), s.seat, s.agent_name, s.won, s.rank
        FROM matches m JOIN seats s USING (match_id)
        WHERE m.run_id = ? AND m.status = 'ok' AND m.deal IS NOT NULL ORDER BY m.deal, m.match_id, s.seat""", [run_id])
    halves: dict[str, list[tuple[int, int, int, float]]] = {}
    for i in range(0, len(rows), 2):
        (deal, game, preset, params, _, first, won_1, rank_1), (*_, second, won_2, rank_2) = rows[i], rows[i + 1]
        share = 1.0 if won_1 and not won_2 else 0.0 if won_2 and not won_1 else \
            0.5 if rank_1 == rank_2 else float(rank_1 < rank_2)
        a, b = number[first], number[second]
        g = setting[game, preset, json.dumps(json.loads(params), sort_keys=True)]
        halves.setdefault(deal, []).append((min(a, b), max(a, b), g, share if a < b else 1 - share))
    for played in halves.values():
        if len(played) == 2:
            deals.add(played[0][:3], (played[0][3] + played[1][3]) / 2)
    (looks, matches), = store.rows(db, "SELECT count(DISTINCT repeat), count(*) FILTER (WHERE status = 'ok') "
                                       "FROM matches WHERE run_id = ?", [run_id])
    (usd,), = store.rows(db, "SELECT coalesce(sum(t.cost_usd), 0) FROM turns t JOIN matches m USING (match_id) "
                             "WHERE m.run_id = ?", [run_id])
    return certainty.Study(deals, looks=looks, spent_usd=float(usd), matches=matches)


def deal_costs(db: str | Path, run_id: str, frame: Frame) -> np.ndarray:
    """Each game's expected cost of a deal: twice its mean dollars a match in this study (litellm's prices); where
    the study has spent no dollar (bots, unpriced models), twice its mean seconds a match (bots cost their time);
    1 for a game not yet played."""
    if not Path(db).exists():
        return np.ones(len(frame.games))
    rows = store.rows(db, """
        SELECT m.game, m.preset, CAST(m.params AS VARCHAR), avg(coalesce(c.usd, 0)),
               avg(epoch(m.finished_at) - epoch(m.started_at))
        FROM matches m LEFT JOIN (SELECT match_id, sum(cost_usd) AS usd FROM turns GROUP BY match_id) c
          USING (match_id)
        WHERE m.run_id = ? AND m.status = 'ok' GROUP BY 1, 2, 3""", [run_id])
    setting = {(g, p, json.dumps(params, sort_keys=True)): i for i, (g, p, params) in enumerate(frame.games)}
    usd, seconds = np.full(len(frame.games), np.nan), np.full(len(frame.games), np.nan)
    for game, preset, params, mean_usd, mean_s in rows:
        g = setting.get((game, preset, json.dumps(json.loads(params), sort_keys=True)))
        if g is not None:
            usd[g], seconds[g] = mean_usd, mean_s
    cost = usd if np.nansum(usd) > 0 else seconds
    return np.where(np.isnan(cost) | (cost <= 0), 1.0 if np.all(np.isnan(cost)) else np.nanmean(cost), 2 * cost)


def batch_plans(spec: RunSpec, frame: Frame, study: certainty.Study, batch: list[certainty.Pairing]
                ) -> list[MatchPlan]:
    """The matches of a batch: per deal, the lower-numbered agent in seat 1 then its mirror, on the pairing's next
    seed (its deals so far, counting those of the batch before it), the look's number as their `repeat`."""
    plans, planned = [], {}
    for pairing in batch:
        a, b, g = pairing
        seed = study.deals.count(pairing) + planned.get(pairing, 0)
        planned[pairing] = planned.get(pairing, 0) + 1
        game, preset, params = frame.games[g]
        deal = _hash_of(json.dumps([spec.run_id, game, preset, params, frame.names[a], frame.names[b], seed],
                                   sort_keys=True, default=str), 12)
        for mirror, seats in ((False, [frame.agents[a], frame.agents[b]]), (True, [frame.agents[b], frame.agents[a]])):
            plans.append(MatchPlan(match_id=_hash_of(f"{deal}:{mirror}", 16), run_id=spec.run_id, game=game,
                                   preset=preset, params=params, seed=seed, repeat=study.looks, lineup=int(mirror),
                                   seats=seats, deadline_s=spec.matches[0].deadline_s, mirror=mirror, deal=deal))
    return plans


async def until_separated(spec: RunSpec, db: str | Path, budget_usd: float | None = None,
                          budget_matches: int | None = None, progress: bool = True) -> certainty.Study:
    """Play the study batch by batch until `Study.next_batch` has nothing more; the study as it ends."""
    frame = frame_of(spec)
    history = []
    while True:
        study = read_study(db, spec.run_id, frame)
        if study.looks:
            history.append(study.snapshot())
        cost = deal_costs(db, spec.run_id, frame)
        batch = study.next_batch(cost, budget_usd, budget_matches)
        if not batch:
            study.history = history
            return study
        plans = batch_plans(spec, frame, study, batch)
        await run_spec(RunSpec(spec.name, spec.run_id, spec.raw, spec.concurrency, spec.model_concurrency, plans,
                               spec.model_limits, spec.executor), db, progress=progress)


def report(study: certainty.Study, frame: Frame) -> list[str]:
    """The study in lines: each look of this command's batches (its matches, dollars, widest adjacent interval and
    open pairs: cost against certainty), then the order with each adjacent pair's share and interval."""
    lines = ["look  matches  usd  widest adjacent interval  open pairs"]
    lines += [f"{h['look']:>4}  {h['matches']:>7}  {h['usd']:.4f}  {h['widest']:.3f}  {h['open']}"
              for h in study.history]
    ranked = certainty.order(study.deals)
    for upper, lower in zip(ranked, ranked[1:], strict=False):
        share, lo, hi = certainty.pair_interval(study.deals, upper, lower)
        lines.append(f"{frame.names[upper]} over {frame.names[lower]}: {share:.3f} [{lo:.3f}, {hi:.3f}]"
                     + ("" if lo > 0.5 else " (not separated)"))
    return lines
