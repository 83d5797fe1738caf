"""Hanabi, LLMArena's small cooperative setting (§2.2, App. A.7; the Hanabi Learning Environment with
2 players, 2 colours, ranks 1-5, 2-card hands, 3 info tokens, 1 life token). The deck holds, per colour,
three 1s, two each of 2-4 and one 5. A player sees the partner's cards, never their own, and on a turn
plays a card, discards one (only when an info token is spent; it returns one) or spends a token to
reveal to the partner all their cards of one colour or one rank. A 5 completing a firework returns a
token. The game ends when the life token is lost (the score is then 0, as in the HLE), when both
fireworks are complete, or one turn per player after the deck runs out. The score - the sum of the
fireworks' top cards, at most 10 - is both seats' score (cooperative).

As LLMArena's code plays it (examples/selfplay/opponent_templates/hanabi_v5/opponent.py, info.json): one try,
then a random legal action (`retry: authors`; `retry: feedback` asks up to 3 times, telling the model its error);
each prompt is the current state alone (`need_history: false`; `history: true` adds the match so far)."""

from __future__ import annotations

import random
from typing import Any

from engine.games import register
from engine.games.base import (
    FEEDBACK,
    LLMARENA_ONE_TRY,
    AnswerSettings,
    Choice,
    Game,
    Observation,
    Param,
    SeatResult,
    history_param,
    retry_param,
)
from engine.games.extensions import policy
from engine.games.legal_actions import NamedActionTurns, hint_line

COLOURS = ("red", "yellow")
RANKS = (1, 2, 3, 4, 5)
COPIES = {1: 3, 2: 2, 3: 2, 4: 2, 5: 1}
HAND_SIZE, INFO_TOKENS, LIFE_TOKENS = 2, 3, 1
MAX_SCORE = len(COLOURS) * len(RANKS)
KINDS = ("play", "discard", "reveal")
Card = tuple[str, int]


def label(action: str) -> str:
    kind, _, what = action.partition(":")
    if kind in ("play", "discard"):
        return f"{kind.capitalize()} card {int(what) + 1}"
    return f"Reveal {what} cards" if kind == "reveal_colour" else f"Reveal rank {what} cards"


ACTIONS = tuple([f"play:{i}" for i in range(HAND_SIZE)] + [f"discard:{i}" for i in range(HAND_SIZE)]
                + [f"reveal_colour:{c}" for c in COLOURS] + [f"reveal_rank:{r}" for r in RANKS])
VOCABULARY = {label(a).lower(): a for a in ACTIONS} | {f"reveal {c}": f"reveal_colour:{c}" for c in COLOURS} | {
    f"reveal {r} cards": f"reveal_rank:{r}" for r in RANKS} | {f"reveal rank {r}": f"reveal_rank:{r}" for r in RANKS}


def kind_of(action: str) -> str:
    """play, discard or reveal: the three shares of the paper's team-collaboration analysis."""
    return action.split(":")[0].split("_")[0]


def card_text(card: Card) -> str:
    return f"{card[0]} {card[1]}"


def knowledge_text(known: dict[str, Any]) -> str:
    colour, rank = known["colour"], known["rank"]
    if colour is None and rank is None:
        return "nothing revealed"
    return f"{colour or 'colour unknown'}, {f'rank {rank}' if rank else 'rank unknown'}"


def surely_playable(known: dict[str, Any], fireworks: dict[str, int]) -> bool:
    """What is revealed about a card proves it extends a firework."""
    if known["rank"] is None:
        return False
    colours = [known["colour"]] if known["colour"] else list(COLOURS)
    return all(fireworks[c] == known["rank"] - 1 for c in colours)


@register
class Hanabi(NamedActionTurns, Game):
    vocabulary = VOCABULARY
    name = "hanabi"
    title = "Hanabi (2 colours)"
    paper = "LLMArena"
    answer_settings = AnswerSettings(temperature=0.0)  # THU-BPM/LLMArena opponent_templates/hanabi_v5/info.json
    judged_by = None  # cooperative: both seats share the fireworks score, neither plays better than the other
    judged_meaning = "none (cooperative: one shared score)"
    score_meaning = f"the fireworks score both seats share: the cards played, at most {MAX_SCORE}"
    retry_policies = {"authors": LLMARENA_ONE_TRY, "feedback": FEEDBACK}
    params = {"hint": Param(True, "list the legal actions in the prompt", kind=bool),
              "retry": retry_param(retry_policies), "history": history_param()}
    presets = {"default": {}, "no_hint": {"hint": False}}
    rules_version = 2  # LLMArena's one try, and prompts without the match so far

    @classmethod
    def n_seats(cls, params: dict[str, Any]) -> int:
        return 2

    def setup(self) -> None:
        self.deck: list[Card] = [(c, r) for c in COLOURS for r in RANKS for _ in range(COPIES[r])]
        self.rng.shuffle(self.deck)
        self.hands: list[list[Card]] = [[self.deck.pop() for _ in range(HAND_SIZE)] for _ in (0, 1)]
        self.knowledge = [[{"colour": None, "rank": None} for _ in range(HAND_SIZE)] for _ in (0, 1)]
        self.fireworks = {c: 0 for c in COLOURS}
        self.info, self.lives = INFO_TOKENS, LIFE_TOKENS
        self.discards: list[Card] = []
        self.final_turns: int | None = None  # set when the deck runs out
        self.to_move = 0
        self.last_action: dict[str, Any] | None = None
        self.counts = {s: dict.fromkeys(KINDS, 0) for s in (0, 1)}
        self.round = 1
        self.announce("Each player is dealt two cards, which only the partner can see.")

    # ---- rules
    def legal_actions(self, seat: int) -> list[str]:
        partner = self.hands[1 - seat]
        slots = range(len(self.hands[seat]))
        legal = [f"play:{i}" for i in slots] + ([f"discard:{i}" for i in slots] if self.info < INFO_TOKENS else [])
        if self.info > 0:
            legal += [f"reveal_colour:{c}" for c in COLOURS if any(card[0] == c for card in partner)]
            legal += [f"reveal_rank:{r}" for r in RANKS if any(card[1] == r for card in partner)]
        return legal

    def why_illegal(self, seat: int, action: str) -> str:
        kind, _, what = action.partition(":")
        if kind in ("play", "discard") and int(what) >= len(self.hands[seat]):
            return f"you have no card {int(what) + 1}"
        if kind == "discard":
            return "all 3 info tokens are available, so you cannot discard now"
        if self.info == 0:
            return "there is no info token left to reveal cards"
        return f"your partner holds no {what if kind == 'reveal_colour' else f'rank {what}'} card"

    def score(self) -> int:
        return 0 if self.lives <= 0 else sum(self.fireworks.values())

    def _draw(self, seat: int) -> None:
        if self.deck:
            self.hands[seat].append(self.deck.pop())
            self.knowledge[seat].append({"colour": None, "rank": None})
            if not self.deck:
                self.final_turns = 2

    # ---- the protocol
    def to_act(self) -> list[int]:
        return [] if self.done() else [self.to_move]

    def observe(self, seat: int) -> Observation:
        legal = self.legal_actions(seat)
        labels = tuple(label(a) for a in legal)
        partner = self.hands[1 - seat]
        last = self.last_action
        view = {
            "partner_hand": ", ".join(f"card {i + 1}: {card_text(c)}" for i, c in enumerate(partner)),
            "partner_cards": [list(c) for c in partner],
            "partner_knowledge": [dict(k) for k in self.knowledge[1 - seat]],
            "my_cards": "; ".join(f"card {i + 1}: {knowledge_text(k)}" for i, k in enumerate(self.knowledge[seat])),
            "my_knowledge": [dict(k) for k in self.knowledge[seat]],
            "fireworks": ", ".join(f"{c} {n}" for c, n in self.fireworks.items()), "firework_levels": self.fireworks,
            "info_tokens": self.info, "life_tokens": self.lives, "deck_size": len(self.deck),
            "discarded": ", ".join(card_text(c) for c in self.discards) or "none",
            "opponent_action": label(last["action"]) if last and last["seat"] != seat else "none yet",
            "last_card": card_text(last["card"]) if last and last.get("card") else "none",
            "legal": legal, "all_actions": "Play card N, Discard card N, Reveal <colour> cards, Reveal rank N cards",
            "available_line": hint_line(self.p["hint"], "You can choose one of these actions: [{moves}].", labels),
        }
        return self.make_observation(seat, "turn", view, Choice(tuple(legal), labels, key="action"))

    def step(self, actions: dict[int, Any]) -> None:
        seat, action = self.movers_action(actions)
        kind, _, what = action.partition(":")
        countdown = self.final_turns
        card: Card | None = None
        if kind in ("play", "discard"):
            card = self.hands[seat].pop(int(what))
            self.knowledge[seat].pop(int(what))
            if kind == "discard":
                self.info += 1
                self.discards.append(card)
                outcome = f"discards {card_text(card)}"
            elif self.fireworks[card[0]] == card[1] - 1:
                self.fireworks[card[0]] = card[1]
                self.info += int(card[1] == RANKS[-1] and self.info < INFO_TOKENS)
                outcome = f"plays {card_text(card)}: the {card[0]} firework is at {card[1]}"
            else:
                self.lives -= 1
                self.discards.append(card)
                outcome = f"plays {card_text(card)}, which fits no firework: a life token is lost"
            self._draw(seat)
        else:
            self.info -= 1
            field, value = ("colour", what) if kind == "reveal_colour" else ("rank", int(what))
            matching = [i for i, c in enumerate(self.hands[1 - seat]) if c[0 if field == "colour" else 1] == value]
            for i in matching:
                self.knowledge[1 - seat][i][field] = value
            outcome = f"reveals to {self.player_name(1 - seat)}: card(s) {', '.join(str(i + 1) for i in matching)} " \
                      f"{'are' if len(matching) > 1 else 'is'} {value if field == 'colour' else f'rank {value}'}"
        self.counts[seat][kind_of(action)] += 1
        self.last_action = {"seat": seat, "action": action, "kind": kind_of(action),
                            "card": list(card) if card else None}
        self.announce(f"{self.player_name(seat)} {outcome}.")
        if countdown is not None:  # a turn after the deck ran out (the move that emptied it does not count)
            self.final_turns = countdown - 1
        self.to_move = 1 - seat
        self.round += 1

    def done(self) -> bool:
        return self.lives <= 0 or all(n == RANKS[-1] for n in self.fireworks.values()) or self.final_turns == 0

    def public_state(self) -> dict[str, Any]:
        return {"fireworks": dict(self.fireworks), "info_tokens": self.info, "life_tokens": self.lives,
                "deck_size": len(self.deck), "discards": [list(c) for c in self.discards],
                "knowledge": [[dict(k) for k in hand] for hand in self.knowledge], "last_action": self.last_action,
                "to_move": self.to_move, "score": self.score()}

    def result(self) -> dict[int, SeatResult]:
        score = self.score()
        return {s: SeatResult(float(score), score == MAX_SCORE, 1) for s in (0, 1)}

    def metrics(self) -> list[tuple[int | None, str, float]]:
        return [(s, f"hanabi_{kind}", float(n)) for s, c in self.counts.items() for kind, n in c.items()]

    def outcome(self) -> dict[str, Any]:
        return {"score": self.score(), "fireworks": dict(self.fireworks), "life_tokens": self.lives}


def _hint_for(card: Card, known: dict[str, Any]) -> str:
    """The reveal that brings a playable card closest to surely playable: its rank first, then its colour."""
    if known["rank"] is None:
        return f"reveal_rank:{card[1]}"
    return f"reveal_colour:{card[0]}"


@policy("hanabi", "hint_follower")
def _hint_follower(obs: Observation, rng: random.Random, arg: str | None) -> str:
    """Plays a card the hints prove playable; else hints a playable partner card; else discards an
    unhinted card; else gives any reveal. Never plays a card on a guess."""
    v, legal = obs.view, obs.space.options
    fireworks = v["firework_levels"]
    for i, known in enumerate(v["my_knowledge"]):
        if surely_playable(known, fireworks):
            return f"play:{i}"
    for card, known in zip(v["partner_cards"], v["partner_knowledge"], strict=True):
        if fireworks[card[0]] == card[1] - 1 and not surely_playable(known, fireworks):
            hint = _hint_for(tuple(card), known)
            if hint in legal:
                return hint
    discards = [f"discard:{i}" for i, k in enumerate(v["my_knowledge"]) if k["colour"] is None and k["rank"] is None]
    discards += [a for a in legal if a.startswith("discard:")]
    safe = [a for a in discards if a in legal] or [a for a in legal if a.startswith("reveal")]
    return safe[0] if safe else rng.choice(legal)
