"""Who-is-Spy's game: Undercover under its rules, which its suite and scorers share."""

from engine.store.selection import Variant

UNDERCOVER = Variant.of("undercover", "wis")
