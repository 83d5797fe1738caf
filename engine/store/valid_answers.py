"""What a valid answer is, defined once: a decision whose FIRST answer parsed and was legal, so no re-ask, no
fallback move (random or fixed) and no illegal move. A move the engine played in the agent's place, or one it got
right only when asked again, is not the agent's own answer (issue 29: "valid 72.7%" sat beside an illegal-move
rate of 45.5% for the same agent, each page counting its own way). Every page and table that counts valid or
failed answers reads this module: the SQL condition over a turns row and the words."""

from __future__ import annotations

DEFINITION = ("share of the agent's decisions whose first answer parsed and was legal: no re-ask, no fallback move, "
              "no illegal move (bots: always)")


def valid_sql(alias: str = "t") -> str:
    """The SQL condition that a `turns` row (as `alias`) is a decision with a valid answer; NULLs (a bot's or an
    imported turn's unknown facts) count as fine."""
    return (f"(coalesce({alias}.retries, 0) = 0 AND coalesce({alias}.legal, true) "
            f"AND NOT coalesce({alias}.fallback, false))")


def invalid_sql(alias: str = "t") -> str:
    """The SQL condition that a decision's answer was not valid: re-asked, replaced or illegal."""
    return f"NOT {valid_sql(alias)}"

