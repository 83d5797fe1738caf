"""LLMArena's games under its rule variants, which its suite and scorers share."""

from __future__ import annotations

from engine.store.selection import Variant

GAMES = ("tictactoe", "connect_four", "texas_holdem", "bid", "bargain", "undercover", "hanabi")
REWARD_GAMES = ("bid", "hanabi")  # scored by their average reward, not a TrueSkill rating
OWN_RULES = tuple(Variant.of(g, "llmarena" if g == "undercover" else None) for g in GAMES)
HINT_GAMES = ("tictactoe", "connect_four")  # the games of the hint ablation (Table 2)
