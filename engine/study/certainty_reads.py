"""The adaptive, paired study as the database holds it (engine/study/certainty.py, engine/study/certainty_run.py): its
agents and
games from its spec, its complete deals, looks, dollars and matches, each game's expected cost of a deal, and its
cost against certainty, look by look. Reads only: the pages import it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from engine import store
from engine.agents.base import AgentSpec
from engine.agents.bots import check_bot
from engine.play.spec import RunSpec, SpecError, parse_spec, seat_name
from engine.study import certainty


@dataclass(frozen=True)
class Frame:
    """What a study plays: its agents (in name order, `names`), its games (game, preset, params: a two-seat setting
    each) and its pairings (a, b, game) whose two agents can both play the game (a bot exists in its own games)."""

    agents: list[AgentSpec]
    games: list[tuple[str, str, dict]]
    names: list[str]
    playable: frozenset[certainty.Pairing]


def frame_of(spec: RunSpec) -> Frame:
    """The agents and two-seat games of the spec's matches, and the pairings that can be played; SpecError when it has
    none of either, or no pairing two of its agents can play."""
    games, agents = {}, {}
    for plan in spec.matches:
        if len(plan.seats) != 2:
            raise SpecError(f"{plan.game}: --until-separated plays two-seat games (a pair of agents per deal)")
        games.setdefault((plan.game, plan.preset, json.dumps(plan.params, sort_keys=True)), plan.params)
        for seat in plan.seats:
            agents.setdefault(seat_name(seat, plan), seat)
    if len(agents) < 2:
        raise SpecError("--until-separated needs two agents or more among the lineups")
    names = sorted(agents)
    settings = [(g, p, params) for (g, p, _), params in games.items()]
    able = [[_can_play(agents[name], game) for game, _, _ in settings] for name in names]
    playable = frozenset((a, b, g) for a in range(len(names)) for b in range(a + 1, len(names))
                         for g in range(len(settings)) if able[a][g] and able[b][g])
    if not playable:
        raise SpecError("--until-separated: no two agents of the lineups can play one game together")
    return Frame([agents[name] for name in names], settings, names, playable)


def _can_play(agent: AgentSpec, game: str) -> bool:
    """Whether `agent` can be seated in `game`: a bot only in the games that have it, any other agent everywhere."""
    if not agent.is_bot:
        return True
    try:
        check_bot(game, agent.agent)
    except ValueError:
        return False
    return True


def read_study(db: str | Path, run_id: str, frame: Frame, looks: int | None = None) -> certainty.Study:
    """The study as the database holds it (its first `looks` looks only, when given): each complete deal's share of
    its lower-numbered agent (1 won, 1/2 drawn, 0 lost, over its two matches), its looks (the batches begun), its
    dollars and its finished matches (errored ones too: they were spent)."""
    deals = certainty.Deals(len(frame.agents), len(frame.games), playable=frame.playable)
    if not Path(db).exists():
        return certainty.Study(deals)
    number = {name: i for i, name in enumerate(frame.names)}
    setting = {(g, p, json.dumps(params, sort_keys=True)): i for i, (g, p, params) in enumerate(frame.games)}
    rows = store.rows(db, """
        SELECT m.deal, m.game, m.preset, CAST(m.params AS VARCHAR), s.seat, s.agent_name, s.won, s.rank
        FROM matches m JOIN seats s USING (match_id)
        WHERE m.run_id = ? AND m.status = 'ok' AND m.deal IS NOT NULL AND m.repeat < ?
        ORDER BY m.deal, m.match_id, s.seat""", [run_id, _upto(looks)])
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
    (taken, matches), = store.rows(db, "SELECT count(DISTINCT repeat), count(*) "
                                       "FROM matches WHERE run_id = ? AND repeat < ?", [run_id, _upto(looks)])
    (usd,), = store.rows(db, "SELECT coalesce(sum(t.cost_usd), 0) FROM turns t JOIN matches m USING (match_id) "
                             "WHERE m.run_id = ? AND m.repeat < ?", [run_id, _upto(looks)])
    return certainty.Study(deals, looks=taken, spent_usd=float(usd), matches=matches)


def _upto(looks: int | None) -> int:
    return 2**31 - 1 if looks is None else looks


CURVE_COLUMNS = ["look", "matches", "usd", "widest", "open", "next"]


def curve(db: str | Path, run_id: str) -> pd.DataFrame:
    """Cost against certainty of a study (a run of two-seat games with deals: `--until-separated`, or a spec's
    `mirror: true`, whose repeats are its looks): per look, the matches and dollars spent so far, the widest
    adjacent interval and the adjacent pairs still open; and a last row (`next` true) with what the next batch
    would buy: its matches and expected dollars added, and the widest interval expected after it (each pairing's
    spread as now, its deals counted with the batch's). Empty when the run is no such study."""
    (raw,), = store.rows(db, "SELECT spec FROM runs WHERE run_id = ?", [run_id]) or [(None,)]
    try:
        frame = frame_of(parse_spec(json.loads(raw)))
    except (SpecError, TypeError, ValueError):
        return pd.DataFrame(columns=CURVE_COLUMNS)
    study = read_study(db, run_id, frame)
    rows = [read_study(db, run_id, frame, look).snapshot() | {"next": False} for look in range(1, study.looks + 1)]
    if not rows or not study.deals.total():
        return pd.DataFrame(columns=CURVE_COLUMNS)
    cost = deal_costs(db, run_id, frame)
    batch = study.next_batch(cost)
    if batch:
        planned: dict[certainty.Pairing, int] = {}
        for pairing in batch:
            planned[pairing] = planned.get(pairing, 0) + 1
        ranked = certainty.order(study.deals)
        widths = [hi - lo for lo, hi in (certainty.pair_interval(study.deals, u, v, planned=planned)[1:]
                                         for u, v in zip(ranked, ranked[1:], strict=False))]
        dollars = float(sum(cost[p[2]] for p in batch)) if study.spent_usd > 0 else 0.0  # else costs are seconds
        rows.append({"look": study.looks + 1, "matches": study.matches + 2 * len(batch),
                     "usd": study.spent_usd + dollars,
                     "widest": certainty.widest(widths), "open": np.nan, "next": True})
    return pd.DataFrame(rows, columns=CURVE_COLUMNS)


def studies(db: str | Path) -> pd.DataFrame:
    """The runs whose matches are dealt in pairs (`matches.deal`), newest first: the studies `curve` can draw."""
    return store.query(db, """SELECT run_id, max(finished_at) AS finished FROM matches WHERE deal IS NOT NULL
                              GROUP BY run_id ORDER BY finished DESC""")


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
