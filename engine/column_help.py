"""What a column of the figures' and papers' tables means, one line each (`COLUMN_HELP`), defined once for every
output that explains a table: the pages' header tooltips and the Games page's lines under its tables, the HTML
reports and the static site's lists under its tables.

    column_help(columns, game, own) -> dict;  defined(column, own, game) -> str | None
"""

from __future__ import annotations

from collections.abc import Mapping

from engine.headline import DEFINITIONS
from engine.numbers import bare_name

# `game:column` where a game's column means something of its own; a column of one paper's own table only is defined
# by its suite (`TableLayout.helps`).
COLUMN_HELP = {
    "step": "the round (or step) of the match",
    "matches": "matches behind the row (a per-round curve: the matches that reached that round)",
    "tictactoe:matches": "contested matches (self-play left out): the win rate's matches",
    "connect_four:matches": "contested matches (self-play left out): the win rate's matches",
    "win_rate": "(seats won + half the seats drawn) / seats held, over contested matches (engine/headline.py)",
    "moves": "the agent's moves, over every match (self-play included)",
    "illegal_moves": "moves whose first answer was rejected or that broke the rules",
    "mean": "the mean of the numbers the players chose that round",
    "guessing_game:target": "the number to come closest to: the game's ratio (2/3) x that round's mean",
    "winning_number": "the chosen number closest to the target that round",
    "go_count": "players who went to the bar that round",
    "share_go": "share of the players who went to the bar that round",
    "crowded": "share of the matches where the bar was crowded that round (more went than its capacity)",
    "battle_royale:hit": "share of the matches where that round's shot hit",
    "players_left": "players still in the game after that round's shot",
    "accepts": "votes accepting that round's proposal, the proposer's own included",
    "aboard": "pirates still aboard (voting) that round",
    "passed": "share of the matches where that round's proposal passed",
    "play_share": "share of the agent's Hanabi actions that played a card",
    "reveal_share": "share of the agent's Hanabi actions that gave a hint (revealed a colour or a rank)",
    "discard_share": "share of the agent's Hanabi actions that discarded a card",
    "actions": "the agent's Hanabi actions (plays, hints and discards) over its matches",
    "hanabi:games": "Hanabi matches the agent played (cooperative: every seat shares the team's score)",
    "hanabi:mean_score": "the team's fireworks score (cards played, 0 to 5 per colour), averaged over the matches",
    "mean_reward_per_move": "ConnectFour's reward of a move, V(s') - V(s): how much it improved the mover's "
                            "position by the solver's value, averaged over the agent's moves",
    "mean_reward_per_game": "the sum of that reward over the agent's moves in a match, averaged over matches",
    "share": "share of the agent's Hold'em decisions that were this action",
    "mean_win_prob": "mean Monte-Carlo probability that the agent's hand wins, when it took this action",
    "vote_accuracy": "a civilian's votes for the spy / its votes cast (abstentions aside)",
    "foul_rate": "fouls (an empty or late speech, one stating the speaker's own word, or one repeating an earlier "
                 "speech) / speeches",
    "survival_rounds": "mean rounds the agent stayed in the game before being voted out",
    "illegal_move_rate": "illegal moves / moves, over every match (self-play included): a first answer rejected "
                         "(re-asked or a random fallback) or a move on a taken cell / full column",
    "parse_failures": "decisions whose answer was re-asked, illegal or replaced by a random fallback move",
    "valid": DEFINITIONS["valid moves"], "fb wins": DEFINITIONS["fallback wins"], "$/match": DEFINITIONS["cost"],
    "seats": "seats the agent held in its contested matches (a match may seat it more than once)",
    "condition": "a model's condition in three parts, in this order: prompt version · sampling temperature · "
                 "prompting strategy (\"v1 · 0.00 · vanilla\"; then its max_tokens where it played several; blank "
                 "for a bot)",
}



def column_help(columns, game: str | None = None, own: Mapping[str, str] | None = None) -> dict[str, str]:
    """The definition of each column that has one: the suite's own (`own`, a `TableLayout.helps`) first, then the
    game's `COLUMN_HELP` line, then the column's; a column named with its unit ("share (%)") by its bare name's."""
    own = own or {}
    helps = {c: defined(c, own, game) for c in columns}
    return {c: text for c, text in helps.items() if text}


def defined(column, own: Mapping[str, str] | None = None, game: str | None = None) -> str | None:
    """One column's definition (`column_help`): its own name's, else its bare name's (without the unit
    `numbers.with_unit` wrote in it)."""
    own = own or {}
    for name in dict.fromkeys((str(column), bare_name(column))):
        text = own.get(name) or COLUMN_HELP.get(f"{game}:{name}", COLUMN_HELP.get(name))
        if text:
            return text
    return None
