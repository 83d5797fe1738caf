"""Which matches a query, a scorer or a leaderboard reads: runs, games (or a game's rule variants),
presets, a date range, agents, and whether matches with fallback moves count. It sits beneath the queries and
the scorers, so both narrow the same way and neither imports the other.

A `Variant` is a game under one of its registered rule sets (`Game.variants`, e.g. Undercover's
`wis`): a suite names the variants it scores, and a selection can be narrowed to them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta
from typing import Any


@dataclass(frozen=True)
class Variant:
    """A game, and the parameter values that make one of its rule sets (none: every match of the game)."""

    game: str
    fixed: tuple[tuple[str, Any], ...] = ()
    name: str = ""  # the rule set's name in `Game.variants`, empty for the whole game

    @classmethod
    def of(cls, game: str, variant: str | None = None) -> Variant:
        """The whole game, or its rule set registered as `variant` (an unknown name is an error)."""
        from engine.games import get_game

        rule_sets = get_game(game).variants  # an unknown game is an error here, at declaration
        if variant is None:
            return cls(game)
        if variant not in rule_sets:
            raise ValueError(f"game '{game}' has no variant '{variant}' (has: {', '.join(rule_sets) or 'none'})")
        return cls(game, tuple(sorted(rule_sets[variant].items())), variant)

    @property
    def label(self) -> str:
        return f"{self.game} ({self.name})" if self.name else self.game

    def holds(self, game: str, params: dict[str, Any]) -> bool:
        """Whether a match of `game` with `params` was played under this variant (the acceptance layer asks which
        of a suite's games a study played)."""
        return game == self.game and all(params.get(k) == v for k, v in self.fixed)

    def sql(self, alias: str = "m") -> str:
        """A SQL condition over `matches AS alias` (the values are the code's own constants, quoted here)."""
        parts = [f"{alias}.game = {_literal(self.game)}"]
        for key, value in self.fixed:
            text = value if isinstance(value, str) else json.dumps(value)
            parts.append(f"json_extract_string({alias}.params, {_literal('$.' + key)}) = {_literal(text)}")
        return "(" + " AND ".join(parts) + ")"


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def variants_sql(variants: tuple[Variant, ...], alias: str = "m") -> str:
    """The matches of any of `variants` (false for none)."""
    return "(" + " OR ".join(v.sql(alias) for v in variants) + ")" if variants else "false"


def agent_sql(alias: str = "s") -> str:
    """An agent's name, as every table, CSV and link gives it, from `seats AS alias` (or a summary row, which carries
    it): `seats.agent_name`, a pure function of the seat fixed when its match was written
    (engine/agents/agent_names.py),
    so a name never changes when later runs are added. The one place SQL reads it."""
    return f"{alias}.agent_name"


def seated_sql(alias: str = "m") -> str:
    """The matches of `alias` in which an agent of a list (the condition's one parameter: names as `agent_sql` gives
    them) holds a seat."""
    return f"{alias}.match_id IN (SELECT s.match_id FROM seats s WHERE {agent_sql('s')} IN (SELECT unnest(?)))"


def rule_set_sql(alias: str = "m") -> str:
    """The name of the rule set (`Game.variants`) a match of `alias` was played under; '' for a game with one."""
    from engine.games import all_games

    cases = [f"WHEN {Variant.of(name, rules).sql(alias)} THEN {_literal(rules)}"
             for name, game in sorted(all_games().items()) for rules in game.variants]
    return f"(CASE {' '.join(cases)} ELSE '' END)" if cases else "''"


def cooperative_games() -> list[str]:
    """The games whose seats share one outcome (`Game.cooperative`: Hanabi), as the games declare it."""
    from engine.games import all_games

    return sorted(name for name, game in all_games().items() if game.cooperative)


def contested_sql(alias: str = "m") -> str:
    """The matches of `alias` (any table with `match_id`) that every table counts: in a competitive game those
    between two agents or more (self-play, every seat one agent, says nothing about who is better, so no win
    rate
    counts it: engine/papers/headline.py); in a cooperative game (`cooperative_games`) every match, since its seats
    share
    one score and one agent in every seat is the game itself (LLMArena's Hanabi).
    Two seats are one agent when their names (`agent_sql`) are the same; the seats are counted only for the matches
    of `alias` (a correlated count, which DuckDB runs once over their ids): grouping all 4M seats of a million
    matches by match held them all, whatever the date range asked for."""
    shared = ", ".join(_literal(g) for g in cooperative_games())
    together = f"{alias}.match_id IN (SELECT match_id FROM matches WHERE game IN ({shared})) OR " if shared else ""
    return (f"({together}(SELECT count(DISTINCT {agent_sql('x')}) FROM seats x "
            f"WHERE x.match_id = {alias}.match_id) > 1)")


def own_moves_sql(alias: str = "m") -> str:
    """The matches of `alias` in which every move was a player's own answer: no turn was a fallback move (random or
    fixed) the engine played for a seat whose answer it could not use, so every win and score there is the
    agents' own (issue 29: a small model's TicTacToe wins were earned by random fallback moves)."""
    return f"NOT EXISTS (SELECT 1 FROM turns f WHERE f.match_id = {alias}.match_id AND f.fallback)"


@dataclass(frozen=True)
class Selection:
    """A selection of finished matches; empty tuples and None mean no restriction (but `variants=()`, the
    variants of a suite that plays nothing, selects nothing)."""

    run_ids: tuple[str, ...] = ()
    games: tuple[str, ...] = ()
    presets: tuple[str, ...] = ()
    date_from: date | None = None
    date_to: date | None = None
    agents: tuple[str, ...] = ()  # matches in which one of these agents (`agent_sql`) holds a seat
    variants: tuple[Variant, ...] | None = None  # matches of one of these games' rule sets (None: any)
    contested: bool = False  # only the matches `contested_sql` counts (self-play of a competitive game left out)
    without_fallbacks: bool = False  # only the matches `own_moves_sql` keeps: no seat's move was a fallback

    def __post_init__(self) -> None:
        """A date range of days: a `datetime` given (a subclass of `date`) is its day, as the summaries by day and the
        log both read it."""
        for bound in ("date_from", "date_to"):
            if isinstance(value := getattr(self, bound), datetime):
                object.__setattr__(self, bound, value.date())

    def where(self, alias: str = "m") -> tuple[str, list]:
        """A SQL condition over `matches AS alias` (finished matches only) and its parameters."""
        parts, params = [f"{alias}.status = 'ok'"], []
        for column, values in (("run_id", self.run_ids), ("game", self.games), ("preset", self.presets)):
            if values:
                parts.append(f"{alias}.{column} IN (SELECT unnest(?))")
                params.append(list(values))
        if self.date_from:
            parts.append(f"{alias}.finished_at >= ?")
            params.append(self.date_from)
        if self.date_to and self.date_to < date.max:  # the last day there is bounds nothing (and has no next day)
            parts.append(f"{alias}.finished_at < ?")
            params.append(self.date_to + timedelta(days=1))
        if self.agents:
            parts.append(seated_sql(alias))
            params.append(list(self.agents))
        if self.variants is not None:
            parts.append(variants_sql(self.variants, alias))
        if self.contested:
            parts.append(contested_sql(alias))
        if self.without_fallbacks:
            parts.append(own_moves_sql(alias))
        return " AND ".join(parts), params

    def of_game(self, game: str) -> Selection:
        """This selection narrowed to one game (nothing when it leaves that game out)."""
        games = (game,) if not self.games or game in self.games else ("",)
        return replace(self, games=games)

    def within(self, variants: tuple[Variant, ...]) -> Selection:
        """This selection narrowed to the matches of `variants` (a suite's games and rule sets)."""
        return replace(self, variants=variants)


ALL = Selection()
