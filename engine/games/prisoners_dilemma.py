"""Three-player iterated Prisoner's Dilemma (MAgIC paper §3): each round every player
cooperates or defects at once; payoffs follow the setting {cooperate, defect, one_defect,
two_defect} (docs/GAMES.md); the highest total after the last round wins: alone, for the outcome ratings and win
rates read (`judged_by`, a tie at the top is a draw); tied or alone, for MAgIC's role win rate (`top_total`, as the
authors' log_game counts a win). Presets `magic_1`..`magic_7`
play the seven payoff groups of engine/data/magic/prisoners_dilemma (see magic_common).

A decision is read as the authors' code reads it (`decision_reading: authors`, cathyxl/MAgIC
chatarena/environments/prisoner.py `_scoring` and metrics_release.py `norm_decision`): an answer that
contains "cooperate" anywhere (any case) cooperates, any other answer defects, never re-asked. So "I will
not cooperate" cooperates and "no idea" defects. An empty answer is no answer and is re-asked, as in every
game. `decision_reading: strict` reads the JSON field, else the last action named, and re-asks otherwise."""

from __future__ import annotations

from typing import Any

from engine.games import register
from engine.games.base import SCORE, AnswerSettings, Choice, Observation, Param, SeatResult, placed_by
from engine.games.extensions import policy
from engine.games.magic_common import MagicScenario, group_param, load_group
from engine.games.parsing import require_text

ACTIONS = ("cooperate", "defect")
PAYOFF_KEYS = ("cooperate", "defect", "one_defect", "two_defect")


def round_payoffs(choices: list[str], p: dict[str, Any]) -> list[float]:
    defectors = choices.count("defect")
    if defectors == 0:
        return [p["cooperate"]] * len(choices)
    if defectors == len(choices):
        return [p["defect"]] * len(choices)
    lone_or_pair = p["one_defect"] if defectors == 1 else p["two_defect"]
    return [lone_or_pair if c == "defect" else 0 for c in choices]


@register
class PrisonersDilemma(MagicScenario):
    name = "prisoners_dilemma"
    answer_settings = AnswerSettings(temperature=0.0, max_tokens=128)  # cathyxl/MAgIC competition_prisoner.json
    title = "Iterated Prisoner's Dilemma (3 players)"
    score_meaning = "the seat's total payoff over the rounds"
    judged_by = SCORE
    judged_meaning = "MAgIC's Score: the highest total alone wins, a tie at the top draws"
    rules_version = 2  # 2: judged by the total alone at the top; `top_total` keeps MAgIC's win
    params = {
        "rounds": Param(5, "rounds played", lo=1, hi=100),
        "cooperate": Param(2.0, "payoff to each when all cooperate", kind=float),
        "defect": Param(1.0, "payoff to each when all defect", kind=float),
        "one_defect": Param(4.0, "payoff to a lone defector (cooperators get 0)", kind=float),
        "two_defect": Param(2.0, "payoff to each of two defectors (the cooperator gets 0)", kind=float),
        # group 1 is the authors' released setting (2, 1, 4, 2); groups 2-7 are ours, defection stays dominant
        "group": group_param("prisoners_dilemma", 0, optional=True),
        "decision_reading": Param("authors", "'authors': an answer containing 'cooperate' cooperates, any other "
                                  "defects (MAgIC's prisoner.py); 'strict': the JSON field or the last action named",
                                  kind=str, choices=("authors", "strict")),
    }

    def setup(self) -> None:
        self.history_choices: list[list[str]] = []
        self.totals = [0.0, 0.0, 0.0]
        self.round = 1
        given = {k: self.p[k] for k in PAYOFF_KEYS}
        self.payoffs = ({k: float(v) for k, v in load_group(self.name, self.p["group"])["topic_values"].items()}
                        if self.p["group"] else given)

    def to_act(self) -> list[int]:
        return [] if self.done() else [0, 1, 2]

    def observe(self, seat: int) -> Observation:
        view = {"totals": list(self.totals), "my_total": self.totals[seat],
                "past_choices": [list(c) for c in self.history_choices]} | self.payoffs
        return self.make_observation(seat, "choose", view, Choice(ACTIONS, key="action"))

    def parse(self, seat: int, text: str) -> str:
        if self.p["decision_reading"] == "authors":
            return "cooperate" if "cooperate" in require_text(text).lower() else "defect"
        return super().parse(seat, text)

    def step(self, actions: dict[int, Any]) -> None:
        choices = [str(actions[s]) for s in range(3)]
        gains = round_payoffs(choices, self.payoffs)
        self.totals = [t + g for t, g in zip(self.totals, gains, strict=True)]
        self.history_choices.append(choices)
        choices_text = ", ".join(f"{self.player_name(s)} chose to {c}" for s, c in enumerate(choices))
        points = ", ".join(f"{self.player_name(s)} {g:g}" for s, g in enumerate(gains))
        totals = ", ".join(f"{self.player_name(s)} {t:g}" for s, t in enumerate(self.totals))
        self.announce(f"Round {self.round}: {choices_text}. Points this round: {points}. Totals: {totals}.")
        self.round += 1

    def done(self) -> bool:
        return len(self.history_choices) >= self.p["rounds"]

    def public_state(self) -> dict[str, Any]:
        last = self.history_choices[-1] if self.history_choices else []
        return {"round": len(self.history_choices), "choices": last, "totals": list(self.totals)}

    def result(self) -> dict[int, SeatResult]:
        return placed_by(dict(enumerate(self.totals)))

    def metrics(self) -> list[tuple[int | None, str, float]]:
        rows: list[tuple[int | None, str, float]] = []
        for s in range(3):
            rows.append((s, "defections", sum(c[s] == "defect" for c in self.history_choices)))
            # MAgIC Rationality: defecting is the rational move of every round
            rows.append((s, "rational_moves", sum(c[s] == "defect" for c in self.history_choices)))
            rows.append((s, "rational_chances", len(self.history_choices)))
            rows.append((s, "final_score", self.totals[s]))  # MAgIC Table 2 "Score"
            rows.append((s, "top_total", float(self.totals[s] == max(self.totals))))  # MAgIC's win: ties too
        return rows

    def outcome(self) -> dict[str, Any]:
        return {"totals": self.totals, "choices": self.history_choices, "group": self.p["group"],
                "payoffs": self.payoffs}


@policy("prisoners_dilemma", "equilibrium")
def _always_defect(obs: Observation, rng, arg) -> str:
    """Defection is dominant in every setting, so the equilibrium defects every round."""
    return "defect"


@policy("prisoners_dilemma", "tit_for_tat")
def _tit_for_tat(obs: Observation, rng, arg) -> str:
    """Cooperate first, then defect after any round in which someone else defected."""
    past = obs.view["past_choices"]
    if not past:
        return "cooperate"
    others = [c for s, c in enumerate(past[-1]) if s != obs.seat]
    return "defect" if "defect" in others else "cooperate"


policy("prisoners_dilemma", "always_defect")(_always_defect)
