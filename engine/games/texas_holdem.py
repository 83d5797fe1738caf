"""Heads-up no-limit Texas Hold'em (LLMArena §2.2, App. A.3, after PettingZoo's texas_holdem_no_limit):
one hand, 100 chips each, blinds 1 and 2 (seat 0 posts the small blind and acts first before the flop,
last after it). Actions: fold, check/call, raise half the pot, raise the pot, all-in. Hands are
ranked by the `treys` library. A seat's score is the chips it won (negative if lost).

At every decision the game estimates, by Monte-Carlo over the unseen cards, the acting hand's
probability of winning at showdown and stores it as the metric `win_prob:<action>`: the paper's
risk-assessment analysis (action against win probability) is then a query.

As LLMArena's code plays it (examples/selfplay/opponent_templates/texas_no_limit_v6/opponent.py and
PettingZoo's texas_holdem_no_limit_v6, wrapped in TerminateIllegalWrapper): 3 tries, each the same
question again, then a random legal action; an action not legal now (a raise without the chips) ends the hand at
once, -1 to its player and 0 to the other, the wrapper's rewards (`retry: authors`; `retry: feedback` tells the
model its error and asks again instead); each prompt is the current state alone (`need_history: false`;
`history: true` adds the match). An answer is read as `_get_chat_action` reads it (`reading: authors`, the
default): the answer lower-cased, the first "action:" followed by one of the five phrases (fold, check and call,
raise half pot, raise full pot, all in), anything else asked again; `reading: lenient` takes any action named
last, "check" and "call" too."""

from __future__ import annotations

import random
import re
from typing import Any

from treys import Card, Evaluator

from engine.games import register
from engine.games.base import (
    FEEDBACK,
    FORFEIT,
    LLMARENA_SETTINGS,
    RANDOM,
    Choice,
    Game,
    Observation,
    Param,
    RetryPolicy,
    SeatResult,
    history_param,
    rank_by,
    reading_param,
    retry_param,
)
from engine.games.extensions import policy
from engine.games.legal_actions import NamedActionTurns, hint_line
from engine.games.parsing import IllegalAction, ParseError, require_text

DECK = tuple(r + s for r in "23456789TJQKA" for s in "shdc")
STREETS = ("preflop", "flop", "turn", "river")
BOARD_SIZE = {"preflop": 0, "flop": 3, "turn": 4, "river": 5}
LABELS = {"fold": "Fold", "call": "Check and Call", "raise_half_pot": "Raise Half Pot",
          "raise_pot": "Raise Full Pot", "all_in": "All in"}  # the authors' act2pos
VOCABULARY = {"fold": "fold", "check and call": "call", "check": "call", "call": "call",
              "raise half pot": "raise_half_pot", "raise pot": "raise_pot", "raise full pot": "raise_pot",
              "all-in": "all_in", "all in": "all_in", "allin": "all_in"}
AUTHORS_PHRASES = {"fold": "fold", "check and call": "call", "raise half pot": "raise_half_pot",
                   "raise full pot": "raise_pot", "all in": "all_in"}  # texas_no_limit_v6/opponent.py act2pos
_AUTHORS_ACTION = re.compile(r"action:\s*(" + "|".join(AUTHORS_PHRASES) + ")")
ILLEGAL_REWARD = -1.0  # PettingZoo's TerminateIllegalWrapper: -1 to the offender, 0 to the other
RAISE_FRACTION = {"raise_half_pot": 0.5, "raise_pot": 1.0}
MC_SAMPLES = 200
_EVALUATOR = Evaluator()
_TREYS = {c: Card.new(c) for c in DECK}


def hand_rank(hole: list[str], board: list[str]) -> int:
    """treys' rank of the best five of hole + board: lower is stronger."""
    return _EVALUATOR.evaluate([_TREYS[c] for c in board], [_TREYS[c] for c in hole])


def hand_name(hole: list[str], board: list[str]) -> str:
    return _EVALUATOR.class_to_string(_EVALUATOR.get_rank_class(hand_rank(hole, board)))


def win_probability(hole: list[str], board: list[str], rng: random.Random, samples: int = MC_SAMPLES) -> float:
    """P(win) + P(tie)/2 of `hole` at showdown against a random hand, the rest of the board drawn at random."""
    unseen = [c for c in DECK if c not in hole and c not in board]
    missing = 5 - len(board)
    score = 0.0
    for _ in range(samples):
        drawn = rng.sample(unseen, 2 + missing)
        full_board = board + drawn[2:]
        mine, theirs = hand_rank(hole, full_board), hand_rank(drawn[:2], full_board)
        score += 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0
    return score / samples


def cards_text(cards: list[str]) -> str:
    return ", ".join(cards) if cards else "none yet"


@register
class TexasHoldem(NamedActionTurns, Game):
    vocabulary = VOCABULARY
    name = "texas_holdem"
    title = "Texas Hold'em (no limit, heads-up)"
    paper = "LLMArena"
    answer_settings = LLMARENA_SETTINGS
    score_meaning = "chips won against the starting stack (negative: lost); an illegal action: -1, the other 0"
    retry_policies = {"authors": RetryPolicy("authors", tries=3, feedback=False, exhausted=RANDOM, illegal=FORFEIT),
                      "feedback": FEEDBACK}
    params = {
        "hint": Param(True, "list the legal actions in the prompt", kind=bool),
        "stack": Param(100, "chips each player starts with", lo=10, hi=10_000),
        "big_blind": Param(2, "the big blind (the small blind is half of it)", lo=2, hi=100),
        "retry": retry_param(retry_policies), "history": history_param(), "reading": reading_param(),
    }
    presets = {"default": {}, "no_hint": {"hint": False}}
    rules_version = 3  # 2: LLMArena's re-asks, prompts without the match; 3: their reading, -1/0 for an illegal action

    @classmethod
    def n_seats(cls, params: dict[str, Any]) -> int:
        return 2

    # ---- dealing and chips
    def setup(self) -> None:
        deck = list(DECK)
        self.rng.shuffle(deck)
        self.holes = [deck[0:2], deck[2:4]]
        self.full_board = deck[4:9]
        self.mc_rng = random.Random(self.rng.random())
        self.stacks = [self.p["stack"]] * 2
        self.committed = [0, 0]
        self.street_bets = [0, 0]
        self.street = 0
        self.acted: set[int] = set()
        self.folded: int | None = None
        self.forfeited_by: int | None = None  # the seat whose illegal action ended the hand
        self.showdown = False
        self.finished = False
        self.last_action: dict[str, Any] | None = None
        self.decisions: list[tuple[int, str, float]] = []
        self.round = 1
        small = self.p["big_blind"] // 2
        self._put(0, small)
        self._put(1, self.p["big_blind"])
        self.to_move = 0
        self.announce(f"{self.player_name(0)} posts the small blind ({small}); {self.player_name(1)} posts "
                      f"the big blind ({self.p['big_blind']}). Each player is dealt two private cards.")

    def _put(self, seat: int, amount: int) -> None:
        amount = min(amount, self.stacks[seat])
        self.stacks[seat] -= amount
        self.street_bets[seat] += amount
        self.committed[seat] += amount

    def board(self) -> list[str]:
        return self.full_board[:BOARD_SIZE[STREETS[self.street]]]

    def pot(self) -> int:
        return sum(self.committed)

    def to_call(self, seat: int) -> int:
        return max(self.street_bets) - self.street_bets[seat]

    def raise_size(self, seat: int, action: str) -> int:
        """Chips on top of the call: a fraction of the pot as it would stand after calling."""
        return int((self.pot() + self.to_call(seat)) * RAISE_FRACTION[action])

    def legal_actions(self, seat: int) -> list[str]:
        legal = ["fold", "call"]
        to_call = self.to_call(seat)
        if self.stacks[1 - seat] > 0 and self.stacks[seat] > to_call:
            for action in RAISE_FRACTION:
                size = self.raise_size(seat, action)
                if size >= self.p["big_blind"] and to_call + size < self.stacks[seat]:
                    legal.append(action)
            legal.append("all_in")
        return legal

    def why_illegal(self, seat: int, action: str) -> str:
        if self.stacks[1 - seat] == 0:
            return "your opponent is all-in; you can only call or fold"
        if self.stacks[seat] <= self.to_call(seat):
            return "calling already takes all your chips; you can only call or fold"
        return f"you do not have the chips for {LABELS[action]}; choose All in or a smaller action"

    def parse(self, seat: int, text: str) -> str:
        if self.p["reading"] == "lenient":
            return super().parse(seat, text)
        found = _AUTHORS_ACTION.search(require_text(text).lower())
        if found is None:
            raise ParseError('no "Action: <action>" found; answer like "Action: Check and Call"')
        action = AUTHORS_PHRASES[found.group(1)]
        if action not in self.legal_actions(seat):
            raise IllegalAction(f"that action is not allowed now: {self.why_illegal(seat, action)}", action)
        return action

    # ---- the protocol
    def to_act(self) -> list[int]:
        return [] if self.finished else [self.to_move]

    def observe(self, seat: int) -> Observation:
        legal = self.legal_actions(seat)
        labels = tuple(LABELS[a] for a in legal)
        view = {
            "hand": cards_text(self.holes[seat]), "hole": list(self.holes[seat]),
            "community": cards_text(self.board()), "board": self.board(), "street": STREETS[self.street],
            "pot": self.pot(), "my_chips": self.stacks[seat], "my_bet": self.committed[seat],
            "opponent_chips": self.stacks[1 - seat], "opponent_bet": self.committed[1 - seat],
            "to_call": self.to_call(seat), "legal": legal, "all_actions": ", ".join(LABELS.values()),
            "available_line": hint_line(self.p["hint"], "You can choose one of these actions: [{moves}].", labels),
        }
        return self.make_observation(seat, "bet", view, Choice(tuple(legal), labels, key="action",
                                                               form="Action: {}"))

    def step(self, actions: dict[int, Any]) -> None:
        seat, action = self.movers_action(actions)
        self.decisions.append((seat, action, win_probability(self.holes[seat], self.board(), self.mc_rng)))
        to_call = self.to_call(seat)
        if action == "fold":
            self.folded = seat
        elif action == "call":
            self._put(seat, to_call)
        elif action == "all_in":
            self._put(seat, self.stacks[seat])
        else:
            self._put(seat, to_call + self.raise_size(seat, action))
        if action in ("all_in", *RAISE_FRACTION) and self.street_bets[seat] > self.street_bets[1 - seat]:
            self.acted = set()  # a raise reopens the betting
        self.acted.add(seat)
        self.last_action = {"seat": seat, "action": action, "street": STREETS[self.street]}
        self.announce(f"{self.player_name(seat)}: {LABELS[action]} (has put {self.committed[seat]} in, "
                      f"{self.stacks[seat]} left; pot {self.pot()}).")
        self._advance(seat)

    def _advance(self, seat: int) -> None:
        if self.folded is not None:
            self._finish()
            return
        low = min((0, 1), key=lambda s: self.street_bets[s])
        settled = self.street_bets[0] == self.street_bets[1] or self.stacks[low] == 0
        if not (settled and len(self.acted) == 2):
            self.to_move = 1 - seat
            return
        self._refund_uncalled()
        if self.street == len(STREETS) - 1 or 0 in self.stacks:
            self.street = len(STREETS) - 1  # nothing left to bet: run the board out
            self.showdown = True
            self._finish()
            return
        self.street += 1
        self.round += 1
        self.street_bets, self.acted, self.to_move = [0, 0], set(), 1
        self.announce(f"{STREETS[self.street].capitalize()}: the community cards are {cards_text(self.board())}.")

    def _refund_uncalled(self) -> None:
        high = max((0, 1), key=lambda s: self.street_bets[s])
        excess = self.street_bets[high] - self.street_bets[1 - high]
        self.stacks[high] += excess
        self.street_bets[high] -= excess
        self.committed[high] -= excess

    def _finish(self) -> None:
        pot = self.pot()
        if self.folded is not None:
            self.stacks[1 - self.folded] += pot
            self.announce(f"{self.player_name(self.folded)} folds; {self.player_name(1 - self.folded)} wins {pot}.")
        else:
            ranks = [hand_rank(self.holes[s], self.full_board) for s in (0, 1)]
            shown = "; ".join(f"{self.player_name(s)} shows {cards_text(self.holes[s])} "
                              f"({hand_name(self.holes[s], self.full_board)})" for s in (0, 1))
            if ranks[0] == ranks[1]:
                self.stacks[0] += pot // 2
                self.stacks[1] += pot - pot // 2
                self.announce(f"Showdown on {cards_text(self.full_board)}: {shown}. The pot of {pot} is split.")
            else:
                winner = 0 if ranks[0] < ranks[1] else 1
                self.stacks[winner] += pot
                self.announce(f"Showdown on {cards_text(self.full_board)}: {shown}. "
                              f"{self.player_name(winner)} wins {pot}.")
        self.finished = True

    def forfeit(self, seat: int, reason: str, action: Any = None) -> None:
        """TerminateIllegalWrapper's rule: the hand ends at once, -1 to `seat` and 0 to the other (`chips_won`)."""
        self.forfeited_by = seat
        self.last_action = {"seat": seat, "action": "illegal", "street": STREETS[self.street]}
        self.announce(f"{self.player_name(seat)} loses the hand: {reason}. {self.player_name(seat)} scores "
                      f"{ILLEGAL_REWARD:g}, {self.player_name(1 - seat)} 0.")
        self.finished = True

    def done(self) -> bool:
        return self.finished

    def step_rewards(self) -> dict[int, float]:
        """The chips the mover won or lost (RLCard's payoff, which LLMArena reads): 0 until its action ends the hand."""
        seat = self.last_action["seat"]
        return {seat: float(self.chips_won()[seat]) if self.finished else 0.0}

    def chips_won(self) -> dict[int, float]:
        """Chips won against the stack; after an illegal action the wrapper's rewards instead."""
        if self.forfeited_by is not None:
            return {s: ILLEGAL_REWARD if s == self.forfeited_by else 0.0 for s in (0, 1)}
        return {s: self.stacks[s] - self.p["stack"] for s in (0, 1)}

    def public_state(self) -> dict[str, Any]:
        state = {"street": STREETS[self.street], "board": self.board(), "pot": self.pot(),
                 "stacks": list(self.stacks), "committed": list(self.committed), "to_move": self.to_move,
                 "last_action": self.last_action, "finished": self.finished}
        if self.showdown:
            state["shown"] = [list(h) for h in self.holes]
        if self.finished:
            state["chips_won"] = [self.chips_won()[s] for s in (0, 1)]
        return state

    def result(self) -> dict[int, SeatResult]:
        won = self.chips_won()
        ranks = rank_by({s: float(v) for s, v in won.items()})
        offender = self.forfeited_by
        return {s: SeatResult(float(won[s]), won[s] > 0 or offender not in (None, s), ranks[s]) for s in (0, 1)}

    def metrics(self) -> list[tuple[int | None, str, float]]:
        return [(seat, f"win_prob:{action}", p) for seat, action, p in self.decisions]

    def outcome(self) -> dict[str, Any]:
        return {"chips_won": [self.chips_won()[s] for s in (0, 1)], "showdown": self.showdown,
                "folded": self.folded, "actions": len(self.decisions), "illegal_action_by": self.forfeited_by}


@policy("texas_holdem", "hand_strength")
def _hand_strength(obs: Observation, rng: random.Random, arg: str | None) -> str:
    """Bets by the Monte-Carlo strength of its hand: raises strong hands, calls when the pot odds pay, else folds."""
    v = obs.view
    p = win_probability(v["hole"], v["board"], rng)
    pot_odds = v["to_call"] / (v["pot"] + v["to_call"]) if v["to_call"] else 0.0
    wanted = (["all_in"] if p > 0.85 else []) + (["raise_pot"] if p > 0.7 else []) + (
        ["raise_half_pot"] if p > 0.55 else []) + (["call"] if p >= pot_odds else ["fold"])
    return next(a for a in wanted if a in obs.space.options)
