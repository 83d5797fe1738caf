"""El Farol Bar (γ-Bench paper §2.1): each round every player goes to the bar or stays home at
once. Going pays MAX if at most a share R goes, MIN if more; home pays HOME. In the implicit mode
(the default, as scored by the paper) those at home learn only their own payoff; in the explicit
mode everyone learns the attendance. Score (docs/GAMES.md): 100 when the share going stays at R."""

from __future__ import annotations

from typing import Any

from engine.games import register
from engine.games.base import Choice, Observation, Param
from engine.games.extensions import policy
from engine.games.gamabench_common import Move, SimultaneousGame
from engine.games.parsing import ParseError

DECISIONS = ("go", "stay")


def bar_score(shares: list[float], ratio: float) -> float:
    """(max(R, 1-R) - mean |share - R|) / max(R, 1-R) * 100: how close attendance keeps to capacity."""
    worst = max(ratio, 1 - ratio)
    gap = sum(abs(s - ratio) for s in shares) / len(shares)
    return (worst - gap) / worst * 100


@register
class BarGame(SimultaneousGame):
    name = "bar_game"
    title = "El Farol Bar"
    params = SimultaneousGame.params | {
        "ratio": Param(0.6, "capacity: the bar is fun if at most this share of players goes", kind=float,
                       lo=0.0, hi=1.0),
        "min": Param(0, "payoff for going when the bar is crowded"),
        "max": Param(10, "payoff for going when the bar is not crowded"),
        "home": Param(5, "payoff for staying home"),
        "mode": Param("implicit", "implicit: those at home learn only their payoff; explicit: all see attendance",
                      kind=str, choices=("implicit", "explicit")),
    }
    presets = {"default": {}, "implicit": {"mode": "implicit"}, "explicit": {"mode": "explicit"}}

    def space(self, seat: int) -> Choice:
        return Choice(DECISIONS, key="decision", json_answer=True)

    def authors_value(self, value: Any) -> str:
        """`games/bar_game.py` `start`: the decision lower-cased, asked again unless "go" or "stay"."""
        decision = value.lower() if isinstance(value, str) else None
        if decision not in DECISIONS:
            raise ParseError(f'{str(value)[:40]!r} is not "go" or "stay"')
        return decision

    def view(self, seat: int) -> dict[str, Any]:
        seen = [r for r in self.records if self.p["mode"] == "explicit" or r["decisions"][seat] == "go"]
        return {"ratio_pct": f"{self.p['ratio'] * 100:g}%", "mode_text": _mode_text(self.p["mode"]),
                "seen_shares": [r["share_go"] for r in seen]}

    @classmethod
    def record(cls, params: dict[str, Any], round_: int, actions: list[Any], context: dict[str, Any]) -> dict[str, Any]:
        decisions = [str(a) for a in actions]
        going = decisions.count("go")
        share = going / len(decisions)
        crowded = share > params["ratio"]
        go_pay = params["min"] if crowded else params["max"]
        return {"round": round_, "decisions": decisions, "go_count": going, "share_go": share,
                "crowded": crowded, "payoffs": [float(go_pay if d == "go" else params["home"]) for d in decisions]}

    def announce_round(self, record: dict[str, Any]) -> None:
        r, n = record["round"], len(record["decisions"])
        fun = "less fun than staying home" if record["crowded"] else "more fun than staying home"
        attendance = f"{record['go_count']} of {n} players went to the bar, so going was {fun}."
        if self.p["mode"] == "explicit":
            self.announce(f"Results of round {r}: {attendance}")
        for s, decision in enumerate(record["decisions"]):
            gain = record["payoffs"][s]
            if decision == "go":
                seen = "" if self.p["mode"] == "explicit" else f" {attendance}"
                self.announce(f"Round {r}: you went to the bar.{seen} You gained {gain:g}.", to={s})
            else:
                self.announce(f"Round {r}: you stayed home and gained {gain:g}.", to={s})

    @classmethod
    def score(cls, params: dict[str, Any], moves: list[Move], seat: int | None = None) -> float | None:
        if seat is None:
            rounds = cls.by_round(moves)
            if not rounds:
                return None
            shares = [sum(m.action == "go" for m in ms) / len(ms) for ms in rounds.values()]
            return bar_score(shares, params["ratio"])
        mine = [m for m in moves if m.seat == seat]
        if not mine:
            return None
        return bar_score([sum(m.action == "go" for m in mine) / len(mine)], params["ratio"])


def _mode_text(mode: str) -> str:
    if mode == "explicit":
        return "After each round everyone is told how many players went to the bar."
    return ("After each round, only those who went learn how crowded the bar was; "
            "those at home learn only their own payoff.")


@policy("bar_game", "equilibrium")
def _mixed_equilibrium(obs: Observation, rng, arg) -> str:
    """The symmetric mixed equilibrium: go with probability R."""
    return "go" if rng.random() < obs.view["ratio"] else "stay"


@policy("bar_game", "contrarian")
def _contrarian(obs: Observation, rng, arg) -> str:
    """Go after seeing a bar within capacity, stay after seeing it crowded; go when nothing is known."""
    seen = obs.view["seen_shares"]
    return "go" if not seen or seen[-1] <= obs.view["ratio"] else "stay"
