"""Links from a number to the matches behind it: the Transcripts URL of an agent's matches of one game within a
selection (runs, presets, dates, the suite's rule set of the game, self-play left out as in the number, and
matches with fallback moves when it leaves them out), and that selection read back on the Transcripts page, so
the page lists exactly the matches the number counts."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from urllib.parse import urlencode

from engine.present.suite_tables import pool_label  # noqa: F401 - the pages name pools through here, as the site does
from engine.store.selection import Selection, Variant, cooperative_games

LINKED = ("runs", "presets", "dates", "variant", "contested", "without_fallbacks")  # the URL keys of a linked selection


def transcripts_link(selection: Selection, game: str, agent: str, variant: str = "") -> str:
    """The relative URL of Transcripts listing `agent`'s matches of `game` (under rule set `variant`) that
    `selection` keeps."""
    query = [("game", game), ("agents", agent), *(("runs", r) for r in selection.run_ids),
             *(("presets", p) for p in selection.presets)]
    if selection.date_from or selection.date_to:
        query.append(("dates", f"{selection.date_from or ''}..{selection.date_to or ''}"))
    if variant:
        query.append(("variant", variant))
    if selection.contested:
        query.append(("contested", "1"))
    if selection.without_fallbacks:
        query.append(("without_fallbacks", "1"))
    return f"transcripts?{urlencode(query)}"


def match_link(match_id: str) -> str:
    """The relative URL of Transcripts opening one match."""
    return f"transcripts?{urlencode({'match': match_id})}"


def linked_selection(get_all: Callable[[str], list[str]], game: str | None) -> Selection | None:
    """The selection a link put in the URL (`get_all(key)`: the key's values, as `st.query_params.get_all`),
    None when it holds none. A malformed date or an unknown rule set is a ValueError naming it."""
    if not any(get_all(key) for key in LINKED):
        return None
    start = end = None
    for raw in get_all("dates")[:1]:
        first, _, last = raw.partition("..")
        try:
            start, end = (date.fromisoformat(d) if d else None for d in (first, last))
        except ValueError:
            raise ValueError(f"dates must read YYYY-MM-DD..YYYY-MM-DD, got {raw!r}") from None
    variants = None
    for name in get_all("variant")[:1]:
        if game is None:
            raise ValueError(f"a rule set ({name!r}) needs a game")
        try:
            variants = (Variant.of(game, name),)
        except ValueError:  # said in the interface's word: rules, not the engine's "variant"
            from engine.games import get_game

            known = ", ".join(get_game(game).variants) or "none"
            raise ValueError(f"game '{game}' has no rules '{name}' (has: {known})") from None
    return Selection(run_ids=tuple(get_all("runs")), presets=tuple(get_all("presets")), date_from=start,
                     date_to=end, variants=variants, contested=get_all("contested")[:1] == ["1"],
                     without_fallbacks=get_all("without_fallbacks")[:1] == ["1"])


def described(selection: Selection) -> str:
    """A linked selection in words, for the page that opened it."""
    parts = [f"runs {', '.join(selection.run_ids)}" if selection.run_ids else "",
             f"presets {', '.join(selection.presets)}" if selection.presets else "",
             f"finished {selection.date_from or 'from the first'} to {selection.date_to or 'the last'}"
             if selection.date_from or selection.date_to else "",
             f"rules: {selection.variants[0].label}" if selection.variants else "",
             _contested_words(selection) if selection.contested else "",
             "matches with fallback moves left out" if selection.without_fallbacks else ""]
    return "; ".join(p for p in parts if p)


def _contested_words(selection: Selection) -> str:
    """What "contested" did to a linked selection: self-play left out of a competitive game; in a cooperative one
    (Hanabi) one agent in every seat is the game, and every match counts."""
    games = {v.game for v in selection.variants or ()} | set(selection.games or ())
    if games and games <= set(cooperative_games()):
        return "every match counts (cooperative: one agent in every seat is the game)"
    return "self-play left out (competitive games)"
