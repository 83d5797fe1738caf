"""What every sequential LLMArena game shares about legal actions: the optional list of legal moves
in the prompt (the paper's hint ablation) and parsing a named action against the game's whole
vocabulary, so an answer naming a real but currently illegal action gets its own reason and error
(IllegalAction: asked again like an unusable answer, or a loss where the game's retry policy says so)."""

from __future__ import annotations

import re
from abc import abstractmethod
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any, ClassVar

from engine.games.parsing import IllegalAction, ParseError, json_field, require_text


def hint_line(enabled: bool, template: str, labels: Sequence[str]) -> str:
    """`template` with `{moves}` filled by the legal labels when hints are on, else an empty line."""
    return template.format(moves=", ".join(labels)) if enabled else ""


@lru_cache(maxsize=32)
def _pattern(labels: tuple[str, ...]) -> re.Pattern[str]:
    """One pass over the text for all labels (longest first, whole words): linear on huge answers."""
    ordered = sorted(labels, key=len, reverse=True)
    return re.compile(r"(?<!\w)(?:" + "|".join(re.escape(label) for label in ordered) + r")(?!\w)")


def parse_named_action(text: str, vocabulary: dict[str, Any], legal: Sequence[Any],
                       why_illegal: Callable[[Any], str], key: str = "action") -> Any:
    """The action the answer names last (a JSON `key` field wins; `vocabulary` maps lower-case labels and
    aliases to actions), if it is legal now."""
    require_text(text)
    value = json_field(text, key)
    if value is not None:
        wanted = str(value).strip().lower()
        if wanted not in vocabulary:
            raise ParseError(f"{str(value)[:40]!r} is not an action of this game")
    else:
        found = _pattern(tuple(vocabulary)).findall(text.lower())
        if not found:
            raise ParseError("no action found; answer with one of the actions named in the rules")
        wanted = found[-1]
    action = vocabulary[wanted]
    if action not in legal:
        raise IllegalAction(f"that action is not allowed now: {why_illegal(action)}", action)
    return action


class NamedActionTurns:
    """Mixin of a game played in turns (`to_move` acts) whose answers name one of `vocabulary`'s actions:
    the parser, and the check `step` makes that what reached it is legal (Hold'em, Hanabi)."""

    vocabulary: ClassVar[dict[str, Any]]
    to_move: int

    @abstractmethod
    def legal_actions(self, seat: int) -> list[Any]: ...

    @abstractmethod
    def why_illegal(self, seat: int, action: Any) -> str: ...

    def parse(self, seat: int, text: str) -> Any:
        return parse_named_action(text, self.vocabulary, self.legal_actions(seat), lambda a: self.why_illegal(seat, a))

    def movers_action(self, actions: dict[int, Any]) -> tuple[int, Any]:
        """The seat to move and its action, which must be legal now."""
        seat = self.to_move
        action = actions[seat]
        if action not in self.legal_actions(seat):
            raise ValueError(f"illegal action {action!r} reached step")
        return seat, action
