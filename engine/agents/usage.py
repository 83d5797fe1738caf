"""What a provider says a call used, checked: a token count or a price outside what any real call
uses (a negative, a float, 3e9 prompt tokens) is recorded as unknown (NULL) instead of failing the
match's write, or, once cached, every resume's write."""

from __future__ import annotations

import math
from typing import Any

MAX_TOKENS_PER_CALL = 10_000_000  # far beyond any context window, well inside the turn log's INTEGER
MAX_COST_PER_CALL = 1_000.0  # dollars
UNKNOWN_COUNT = -1  # what litellm is given for a count it would refuse; `token_count` reads it back as unknown
USAGE_COUNTS = ("prompt_tokens", "completion_tokens", "total_tokens", "reasoning_tokens")


def token_count(value: Any) -> int | None:
    """A provider's token count, or None when it is missing or not believable."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, float) and not value.is_integer():
        return None
    return int(value) if 0 <= value <= MAX_TOKENS_PER_CALL else None


def as_litellm_count(value: Any) -> Any:
    """A provider's count as litellm's `Usage` takes it: a whole number or None as given, anything else (12.5, "12",
    a list) UNKNOWN_COUNT. litellm refuses the whole response over one such count, and the match errors."""
    return value if value is None or isinstance(value, int) and not isinstance(value, bool) else UNKNOWN_COUNT


def call_cost(value: Any) -> float | None:
    """A call's price in dollars, or None when it is missing or not believable."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    value = float(value)
    return value if math.isfinite(value) and 0 <= value <= MAX_COST_PER_CALL else None
