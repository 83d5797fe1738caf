"""The one number format lives in engine/present/numbers.py (the static site formats as the pages do); this name stays
for the pages that import it from here."""

from engine.present.numbers import (
    IDENTIFIERS,
    cell,
    interval,
    is_rate,
    missing,
    number,
    p_value,
    percent,
    readable,
    usd,
)

__all__ = ["IDENTIFIERS", "cell", "interval", "is_rate", "missing", "number", "p_value", "percent", "readable", "usd"]
