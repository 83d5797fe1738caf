"""Battle Royale (γ-Bench paper §2.3): players with rising hit rates shoot in turn, the least
accurate first, with unlimited bullets; a player may miss on purpose; the last survivor wins.
Hit rates run evenly from `hit_min` to `hit_max` (35%, 40%, ..., 80% by default). Score
(docs/GAMES.md): the share of shooting turns aimed at the surviving opponent with the highest hit rate.
The game stops after `rounds` = 20 shots (a round is one shot) even with several survivors, who then
share the win: the paper's appendix and the authors' `games/battle_royale.py` (`start(round)` plays one
shot, `main.py` runs 20 rounds; 27 of their 65 vanilla records end that way). The preset
`last_survivor` plays on to one survivor (200 shots at most)."""

from __future__ import annotations

from typing import Any

from engine.games import register
from engine.games.base import Choice, Observation, Param
from engine.games.extensions import policy
from engine.games.gamabench_common import GamaGame, Move, gamabench_retry_param, players_param

MISS = "miss"


def hit_rates(params: dict[str, Any]) -> list[int]:
    n, lo, hi = params["players"], params["hit_min"], params["hit_max"]
    return [round(lo + k * (hi - lo) / (n - 1)) for k in range(n)]


def strongest_targets(alive: list[list[int]], shooter: int) -> set[int]:
    """The opponents with the highest hit rate among those alive (ties: all of them)."""
    others = [(seat, rate) for seat, rate in alive if seat != shooter]
    best = max(rate for _, rate in others)
    return {seat for seat, rate in others if rate == best}


@register
class BattleRoyale(GamaGame):
    name = "battle_royale"
    title = "Battle Royale"
    params = {
        "players": players_param(), "retry": gamabench_retry_param(),
        "hit_min": Param(35, "hit rate (%) of the first, least accurate shooter", lo=0, hi=100),
        "hit_max": Param(80, "hit rate (%) of the last, most accurate shooter", lo=0, hi=100),
        "rounds": Param(20, "shots after which the game stops and the survivors share the win", lo=1, hi=1000),
    }
    presets = {"default": {}, "last_survivor": {"rounds": 200}}

    @classmethod
    def check_params(cls, params: dict[str, Any]) -> None:
        if params["hit_max"] < params["hit_min"]:
            raise ValueError(f"parameter 'hit_max' must be at least 'hit_min' ({params['hit_min']}), "
                             f"got {params['hit_max']}")

    def start(self) -> None:
        self.rates = hit_rates(self.p)
        self.alive = list(range(self.n))  # shooting order: rising hit rate, i.e. seat order
        self.out_at: dict[int, int] = {}
        self.shooter = 0
        self.forced_hit: bool | None = None
        self.round = 1
        order = ", ".join(f"{self.player_name(s)} ({self.rates[s]}%)" for s in range(self.n))
        self.announce(f"Shooting order, from the least to the most accurate: {order}.")

    def to_act(self) -> list[int]:
        return [] if self.done() else [self.shooter]

    def observe(self, seat: int) -> Observation:
        targets = [s for s in self.alive if s != seat]
        space = Choice(tuple(targets) + (None,), tuple(self.player_name(s) for s in targets) + (MISS,), key="target")
        view = {
            "n": self.n, "my_rate": self.rates[seat],
            "my_order": self.alive.index(seat) + 1 if seat in self.alive else 0,
            "alive": [[s, self.rates[s]] for s in self.alive],
            "alive_text": ", ".join(f"{self.player_name(s)} (hit rate {self.rates[s]}%)" for s in self.alive),
            "players_left": len(self.alive),
        }
        return self.make_observation(seat, "shoot", view, space)

    def step(self, actions: dict[int, Any]) -> None:
        shooter, target = self.shooter, actions[self.shooter]
        hit = target is not None and self.roll_hit(shooter)
        record = self.shot_record(self.round, shooter, target, [[s, self.rates[s]] for s in self.alive], hit)
        self.close_step(record, {shooter: target}, "shoot")
        if hit:
            self.alive.remove(target)
            self.out_at[target] = self.round
        self.announce_shot(record)
        later = [s for s in self.alive if s > shooter]
        self.shooter = later[0] if later else self.alive[0]
        self.round += 1

    def roll_hit(self, shooter: int) -> bool:
        """Whether a shot lands: the shooter's hit rate against the match's seeded dice (or what a record forced)."""
        if self.forced_hit is not None:
            hit, self.forced_hit = self.forced_hit, None
            return hit
        return self.rng.random() * 100 < self.rates[shooter]

    def force(self, facts: dict[str, Any]) -> None:
        """An imported record's next shot: who shoots (`shooter`) and whether it lands (`hit`)."""
        self.shooter, self.forced_hit = int(facts["shooter"]), bool(facts["hit"])

    @staticmethod
    def shot_record(turn: int, shooter: int, target: int | None, alive_before: list[list[int]],
                    hit: bool) -> dict[str, Any]:
        after = [pair for pair in alive_before if not (hit and pair[0] == target)]
        return {"round": turn, "shooter": shooter, "target": target, "hit": hit, "alive_before": alive_before,
                "players_left": len(after)}

    def announce_shot(self, record: dict[str, Any]) -> None:
        who = self.player_name(record["shooter"])
        if record["target"] is None:
            what = f"{who} missed on purpose."
        else:
            aim = self.player_name(record["target"])
            landed = f"hit: {aim} is out" if record["hit"] else "missed"
            what = f"{who} shot at {aim} and {landed}."
        self.announce(f"Round {record['round']}: {what} {record['players_left']} players are left.")

    def done(self) -> bool:
        return len(self.alive) <= 1 or len(self.records) >= self.p["rounds"]

    def standing(self) -> dict[int, float]:
        return {s: float("inf") if s in self.alive else self.out_at[s] for s in range(self.n)}

    @classmethod
    def score(cls, params: dict[str, Any], moves: list[Move], seat: int | None = None) -> float | None:
        shots = [m for m in moves if seat is None or m.seat == seat]
        if not shots:
            return None
        right = sum(m.action is not None and m.action in strongest_targets(m.context["alive_before"], m.seat)
                    for m in shots)
        return right / len(shots) * 100


@policy("battle_royale", "equilibrium")
def _strongest(obs: Observation, rng, arg) -> int:
    """Aim at the most accurate opponent: the strategy the γ-Bench score rewards (the full N-player
    equilibrium of the paper's truel literature grows too complex to script)."""
    return min(strongest_targets(obs.view["alive"], obs.seat))


@policy("battle_royale", "weakest")
def _weakest(obs: Observation, rng, arg) -> int:
    """Aim at the least accurate opponent: a fixed strategy the score counts as wrong."""
    others = [(rate, seat) for seat, rate in obs.view["alive"] if seat != obs.seat]
    return min(others)[1]
