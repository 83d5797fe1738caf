"""Playing a game by hand in a test: a fresh game with parameters (and preset), one answer from the seat to
act, and a social game's clue stage spoken through."""

from __future__ import annotations

from typing import Any

from engine.games import get_game
from engine.games.base import Game


def new_game(name: str, seed: int = 0, preset: str = "default", **params: Any) -> Game:
    cls = get_game(name)
    game = cls(cls.resolve_params(params, preset))
    game.reset(seed)
    return game


def act(game: Game, answer: str) -> None:
    """The one seat to act answers `answer` (parsed as a model's answer would be)."""
    (seat,) = game.to_act()
    game.step({seat: game.parse(seat, answer)})


def speak_all(game: Game, text: str = "clue {s}") -> None:
    """Every seat gives its clue of the round (`text` with the seat `s` and round `r`) until the clues end."""
    while game.stage == "clue":
        seat = game.to_act()[0]
        game.step({seat: text.format(s=seat, r=game.round)})
