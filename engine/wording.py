"""Counted nouns for the pages and the CLI: "1 match", "2 matches", "1,204 turns" (never "1 matches" or
"match(es)"), in one place."""

from __future__ import annotations


def plural_of(noun: str) -> str:
    """English plural of a lower-case noun: -s, -es after s/x/z/ch/sh, -ies after a consonant and y."""
    if noun.endswith(("s", "x", "z", "ch", "sh")):
        return noun + "es"
    if noun.endswith("y") and noun[-2:-1] not in "aeiou":
        return noun[:-1] + "ies"
    return noun + "s"


def count(n: int | float, noun: str, many: str | None = None) -> str:
    """`n` with thousands separators and the noun agreeing with it: count(1, "match") == "1 match" (`many`: an
    irregular plural)."""
    return f"{n:,} {noun if n == 1 else many or plural_of(noun)}"
