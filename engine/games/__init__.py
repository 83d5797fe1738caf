"""Game registry. A new game is one module in this package that decorates its class with `@register`."""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

from engine.games.base import Game

_REGISTRY: dict[str, type[Game]] = {}
_NOT_GAMES = {"base", "parsing"}


def register(cls: type[Game]) -> type[Game]:
    if cls.name in _REGISTRY and _REGISTRY[cls.name] is not cls:
        raise ValueError(f"two games are named '{cls.name}'")
    _REGISTRY[cls.name] = cls
    return cls


@cache
def _load_all() -> None:
    """Import every game module, once (listing the package's files again for every match would be wasted work)."""
    for info in pkgutil.iter_modules(__path__):
        if info.name not in _NOT_GAMES:
            importlib.import_module(f"{__name__}.{info.name}")


def all_games() -> dict[str, type[Game]]:
    _load_all()
    return dict(sorted(_REGISTRY.items()))


def get_game(name: str) -> type[Game]:
    games = all_games()
    if name not in games:
        raise ValueError(f"unknown game '{name}' (known: {', '.join(games)})")
    return games[name]
