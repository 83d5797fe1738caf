"""Wording for the pages and the CLI, in one place: counted nouns ("1 match", "2 matches", "1,204 turns"; never
"1 matches" or "match(es)"), titles opening a sentence, dollars, and a failure in one line."""

from __future__ import annotations

import math


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


def sentence_start(title: str) -> str:
    """A title opening a sentence: its first letter up, the rest as written ("γ-Bench score" keeps its γ and its B,
    which str.capitalize would make "Γ-bench")."""
    return title if not title[:1].isascii() else title[:1].upper() + title[1:]


def usd(value: float | None) -> str:
    """Dollars, the one format of the pages, the CLI and the logs: 2 decimals ("$1,234.50", "$0.00"), and below a
    cent two significant digits ("$0.0031": one call costs fractions of a cent, "$0.00" would hide it);
    "unknown" when there is no price (None or NaN: a model missing from litellm's price map)."""
    if value is None or value != value:
        return "unknown"
    if value == 0 or abs(value) >= 0.01:
        return f"${value:,.2f}"
    decimals = 1 - math.floor(math.log10(abs(value)))
    return f"${value:.{decimals}f}"


def failure(exc: BaseException) -> str:
    """What failed, in one line for a user (never a traceback): the exception's type and its message's first
    line."""
    lines = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__
