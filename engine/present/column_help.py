"""What a column of the figures' and papers' tables means, one line each (`COLUMN_HELP`), defined once for every
output that explains a table: the pages' header tooltips and the Games page's lines under its tables, the HTML
reports and the static site's lists under its tables. And the glossary (`GLOSSARY`: term -> definition), the one
place the dashboard's Glossary page and the static site define the terms every caption links to (`anchor`), with
the one sentence a paper's own table needs beside it (`OWN_TABLE_NOTES`); the paper's full definitions of its table
(`Suite.caption`) are on the glossary too.

    column_help(columns, game, own) -> dict;  defined(column, own, game) -> str | None;  anchor(term) -> str
    glossary_entries() -> {anchor: (term, text)};  linked(markdown) -> [anchor]: the entries a caption links
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from engine.games import all_games
from engine.papers.headline import DEFINITIONS, MIN_MATCHES, SELF_PLAY, judged
from engine.papers.magic.suite import SHORT_ABILITIES
from engine.papers.registry import all_suites
from engine.present.numbers import bare_name
from engine.score.outcomes import OUTCOME
from engine.score.stats import ALPHA, MIN_SAMPLE, SCORE_MARGIN, SD_MARGIN

# `game:column` where a game's column means something of its own; a column of one paper's own table only is defined
# by its suite (`TableLayout.helps`).
COLUMN_HELP = {
    "step": "the round (or step) of the match",
    "matches": "matches behind the row (a per-round curve: the matches that reached that round)",
    "tictactoe:matches": "contested matches (self-play left out): the win rate's matches",
    "connect_four:matches": "contested matches (self-play left out): the win rate's matches",
    "win_rate": "(seats won + half the seats drawn) / seats held, over contested matches (engine/papers/headline.py)",
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

GLOSSARY = {  # the headline's numbers first, as it defines them, then the terms of the other tables and pages
    **DEFINITIONS,
    "outcome": f"{OUTCOME}. {judged(all_games())}",
    "pairwise matrix": "row A, column B: A's share of their contested matches against each other (a win 1, a draw "
                       "half, by each game's declared outcome), blank where they never met; the matrix beside it "
                       "counts those matches (Chatbot Arena's win-fraction and battle-count matrices)",
    "A versus B": "two agents side by side (`python -m engine compare A B`): per game and overall, their matches "
                  "against each other (wins, draws, losses, A's win share with its Wilson interval), then their "
                  "scores against the same opponents, paired by game, setting, seed and the rest of the lineup (mean "
                  "difference A - B with its t interval, a paired t-test, Holm's correction across games)",
    "self-play": f"every seat of a match held by one agent; {SELF_PLAY}",
    "cooperative": "a game whose seats share one score (Hanabi): no seat wins against another, so it has no win rate "
                   "('—' in every win-rate table, never 0%), its score is the figure, and its self-play counts",
    "pool": "the contested matches of one game under one rule set, every preset in the selection: one win-rate table "
            "a pool (Overview, Leaderboards and Games show the same figure for it). A game played under several "
            "papers' rules (Undercover) has a pool per rule set",
    "TrueSkill": "μ with its 95% interval μ ± 1.96σ; conservative = μ - 3σ; the selected matches replayed in the "
                 "order they finished. Skills compare only within a group of agents linked by matches (`component`: "
                 "1 is the largest); an agent that never played against another has none. Every seat of a team "
                 "weighs 1, as LLMArena's code rates: in a game of one seat against four (Undercover, Chameleon) the "
                 "lone seat's rating moves far more than each of the four's, so μ follows the roles an agent played; "
                 "Bradley-Terry weighs every match the same",
    "provisional": f"an agent with fewer than {MIN_MATCHES} contested matches: shown, not ranked (its interval is too "
                   "wide to say where it stands)",
    "partial": "an average over only some of the parts a table averages (a suite's games, MAgIC's seven roles): it "
               "pools other parts than a complete row does, so it is not comparable with one; marked partial, listed "
               "last, never ranked",
    "interval": "every 95% interval: Wilson's score interval for a rate (a win rate over its contested matches, an "
                "ability over its votes, items, probes, games or decisions), a t interval over matches (or seats) for "
                "a mean, a bootstrap over matches for a Bradley-Terry rating, μ ± 1.96σ for TrueSkill. Robustness "
                "clips a mean's t interval to the range its scores can take: 0-100 for γ-Bench's games, else the "
                "lowest to the highest score of the game in that setting (a mean cannot leave the range of its "
                "data). Ranks separate only agents whose intervals do not overlap",
    "n": "the matches (or seats) a figure rests on: a figure over few of them moves a lot from one match to the next. "
         "An ability's interval counts each vote, item, probe or decision as its own trial, so it is narrower than "
         "the uncertainty over matches: read it with its n",
    "fallback": "a move the engine played in the player's place when its answers could not be used after the game's "
                "retries: a random legal move (a random fallback) or the game's fixed action. 'Leave out matches "
                "with fallback moves' drops every match that has one from every table",
    "per-round curve": "one curve per setting (preset and parameters: a 3-player one-round game is never averaged "
                       "with a 10-player twenty-round one); each round's point is the mean over the matches of its "
                       "setting that reached that round (its table's `matches` column gives each round's count)",
    "mean role win rate": "MAgIC's win rate: the mean of the challenger's seven role win rates, each role weighing "
                          "the same; not the win rate of the other pages (seats won / seats held)",
    "radar area": "the polygon of the seven abilities as a percentage of the full radar; the paper's bars plot the "
                  "raw area on 0-100 axes (full radar about 27,400; GPT-4-turbo about 9,300), in the hover and in the "
                  "profile's `area (0-100 axes)`. Missing abilities (games not played) leave gaps and no area",
    "ability": "each of MAgIC's seven abilities is a share of counted chances on 0-100 (Judgement: right votes; "
               "Reasoning: right belief items; Deception: games won as chameleon or undercover, plus the authors' "
               "0.25 guess term, so it and its interval reach 125; Self-awareness: right role probes; Cooperation: "
               "cost-sharing games agreed; Coordination: agreed splits it proposed; Rationality: rational "
               "decisions), shown with n, the challenger's matches behind it, and its 95% Wilson interval",
    "Who is Spy ranking": "100 + the sum of scores - games played (a seat is a game): it grows with games played, so "
                          "agents with different numbers of games are not comparable by it. Points per game = "
                          "(ranking - 100) / games, with its 95% t interval over seats, are",
    "condition": COLUMN_HELP["condition"],
    "verdict": f"Robustness' judgement of one factor: it needs {MIN_SAMPLE} scores or more at the default and at every "
               "other level (the paper's five runs), else 'not enough data'. Sensitive: a level differs from the "
               f"default with a Holm-adjusted p < {ALPHA:g}. Robust: the 95% interval of every level's difference "
               f"from the default lies within ± the margin (an equivalence test), {SCORE_MARGIN:g} points of "
               "γ-Bench's 0-100 score (between the paper's \"consistent\" 2.4-3.4 and the 7.6-11.0 it singles out) "
               f"or {SD_MARGIN:g} standard deviations of the default's scores on other games. Inconclusive: neither; "
               "more scores would tell",
}
# the one thing to keep in mind beside a paper's own table (its full definitions: the glossary, `Suite.caption`)
OWN_TABLE_NOTES = {
    "gamabench": "It keeps self-play (γ-Bench's protocol), and rows of different settings score different games.",
    "llmarena": "Scale: every game column and `average` 0-100 (the best agent here = 100); `paper` rows are the "
                "paper's Table 1.",
    "magic": f"the seven abilities on 0-100 ({', '.join(SHORT_ABILITIES.values())}: each named whole in its header's "
             "tooltip); partial rows average fewer than the seven roles, `paper` rows are the paper's Tables 1 and 2.",
    "wis": "Ranking and mean scores are in Who is Spy's points; the ranking grows with games played, so compare "
           "agents by points per game.",
    "other": "No paper defines a table for these games: their win rates per seat, self-play of a competitive game left "
             "out.",
}


GLOSSARY_PAGE = "glossary"  # the Glossary page's path (app.py): every caption links its term there


def anchor(term: str) -> str:
    """A term's place on the glossary page and in the static site's glossary: "win rate" -> "win-rate"."""
    return re.sub(r"[^a-z0-9]+", "-", term.lower()).strip("-")


def glossary_entries() -> dict[str, tuple[str, str]]:
    """Anchor -> (term, definition): every `GLOSSARY` term, then each paper's own table as its paper defines it
    (`Suite.caption`, under the suite's title)."""
    entries = {anchor(term): (term, text) for term, text in GLOSSARY.items()}
    return entries | {anchor(s.title): (s.title, s.caption) for s in all_suites().values() if s.caption}


def linked(markdown: str) -> list[str]:
    """The glossary's anchors a caption links to (a report lists their definitions: its links lead nowhere)."""
    return re.findall(rf"\]\({GLOSSARY_PAGE}#([a-z0-9-]+)\)", markdown)


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
