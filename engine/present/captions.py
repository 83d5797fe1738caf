"""The captions of the tables, for the dashboard's pages and the static site alike: at most two sentences saying
what matters for that table (self-play left out, provisional and partial rows, fallback wins, a ranking's caveat),
each linking its term on the glossary, where the definitions are (engine/present/column_help.py `GLOSSARY`; the site's
glossary.html has the same anchors).

    glossed(text, term) -> str;  contested_caption() -> str;  headline_note(suite, counted, self_play) -> str
    own_table_caption(suite) -> str;  pool_caption(pool, game, presets) -> str
"""

from __future__ import annotations

from engine.games import get_game
from engine.papers.headline import MIN_MATCHES
from engine.present.column_help import GLOSSARY_PAGE, OWN_TABLE_NOTES, anchor
from engine.present.suite_tables import without_winner
from engine.store.selection import cooperative_games


def glossed(text: str, term: str | None = None) -> str:
    """A caption and its link to the glossary, at the entry for `term` (a `GLOSSARY` term, a suite's title or
    "columns": tests/test_glossary.py checks each is there), relative as every link between the pages."""
    return f"{text} [Glossary{f': {term}' if term else ''}]({GLOSSARY_PAGE}{f'#{anchor(term)}' if term else ''})"


def contested_caption() -> str:
    """What every table of a suite counts: contested matches, and who is ranked."""
    shared = f", a cooperative game's ({', '.join(cooperative_games())}) counts" if cooperative_games() else ""
    return glossed(f"Only contested matches count: self-play of a competitive game is left out{shared}. Agents with "
                   f"fewer than {MIN_MATCHES} contested matches are provisional, not ranked.", "self-play")


def headline_note(suite, counted: list[str], self_play: list[str]) -> str:
    """A suite's headline caption: how it ranks, and the games it counts (with what a match of each is judged by) and
    leaves out (played only in self-play: `headline.coverage`)."""
    games = f"Counts {', '.join(map(judged_by, counted))}" if counted else "Counts no game"
    left_out = f"; leaves out {', '.join(self_play)}, played only in self-play here" if self_play else ""
    return glossed(f"Ranked by {suite.headline.title}: overlapping 95% intervals share a rank, provisional and partial "
                   f"agents are not ranked, and fb wins are wins in matches with a random fallback move. {games}"
                   f"{left_out}.", "rank")


def judged_by(game: str) -> str:
    """A game's name, with what a match of it is judged by where that is not its rules' winner (`Game.judged_by`)."""
    judge = get_game(game).judged_by
    return game if judge in ("win", None) else f"{game} (by {judge})"


def own_table_caption(suite) -> str:
    """A paper's own table's caption: what it is and the one thing to keep in mind (`OWN_TABLE_NOTES`); the paper's
    definitions of it are on the glossary (`Suite.caption`)."""
    what = f"{suite.paper}'s own table, as its authors compute it. " if suite.paper else ""
    note = OWN_TABLE_NOTES.get(suite.name, "")
    return glossed(f"{what}{note[:1].upper()}{note[1:]}".strip(), suite.title)


def pool_caption(pool: str, game: str, presets: list[str] | None = None) -> str:
    """A win-rate table's caption: its pool of matches (of the `presets` named, else every preset), and why a game
    without a winner has no win rate."""
    named = f"{'preset' if len(presets) == 1 else 'presets'} {', '.join(presets)}" if presets else "every preset"
    return glossed(f"The contested matches of {pool} in the selection, {named}. {without_winner([game])}".strip(),
                   "win rate")
