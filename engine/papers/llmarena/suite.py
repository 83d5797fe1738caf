"""LLMArena (docs/PAPERS.md): seven two-player and team games, a normalized TrueSkill table, and the analyses of
its §4 (hint ablation, ConnectFour rewards, Hold'em actions against win probability, Hanabi's actions)."""

from __future__ import annotations

from engine.games.hanabi import MAX_SCORE as HANABI_MAX
from engine.papers.base import Chart, Coverage, Figure, Suite, TableLayout
from engine.papers.llmarena import analyses
from engine.papers.llmarena.games import GAMES, HINT_GAMES, OWN_RULES, REWARD_GAMES
from engine.papers.llmarena.leaderboard import leaderboard
from engine.papers.llmarena.negotiation import bargain_table, bid_table

HANABI_SCALE = f"0-{HANABI_MAX}"  # the fireworks score: the cards played, both colours to 5



SUITE = Suite(
    name="llmarena", title="LLMArena", paper="LLMArena",
    variants=OWN_RULES,
    board=leaderboard,
    # the raw figures behind the normalized columns apart: the seven game columns fill a 1400 px window
    layout=TableLayout(key=("average", "games"), coverage=Coverage("average", "games", len(GAMES), "games"),
                       aside={"Raw figures, before normalizing to the best": (
                           *(f"{g}_reward" for g in REWARD_GAMES), "undercover_win_rate")},
                       # the seven game columns' one scale is in the caption: in each header it would not fit
                       units={"bid_reward": "$", "hanabi_reward": HANABI_SCALE}),
    caption="Per game: TrueSkill mu (team members weigh 1, trueskill.rate's default) as a share of the best "
            "agent's · 100; Bid, Hanabi: average reward; Undercover: the win rate as the undercover against four "
            "fixed civilians (§3.1), only for agents that played it; all normalized to the best · 100, over the "
            "selected games of LLMArena's own rules. Scale: every game column and `average` 0-100 (the best agent "
            "= 100); the raw figures in the unit their header names (Bid: dollars won; Hanabi: the fireworks "
            f"score, {HANABI_SCALE}; the undercover's win rate in %). Unusable answers as the authors' code treats "
            "them (`retry: authors`): TicTacToe, ConnectFour and Hold'em 3 tries, then a random legal move; Hanabi, "
            "Bargain and Undercover 1 try, then a random action; Bid 1 try, then a bid of $0; an illegal move "
            "(a taken cell, a full column, an illegal Hold'em action, a bid above the valuation) loses the match; "
            "no history in the prompts; Undercover's word guesses and vote in one answer. Rows with source "
            "`paper: ...` are the paper's Table 1 "
            "for the same models (never in `scores`).",
    empty="No LLMArena games in this selection.",
    slow=True,
    figures=(
        Figure("hint_ablation_{game}", "Illegal-move rate with and without the legal-move hint",
               HINT_GAMES, analyses.hint_ablation,
               Chart("bar", "agent", "illegal_move_rate", color="hint", barmode="group")),
        Figure("connect_four_rewards", "ConnectFour rewards", ("connect_four",),
               analyses.connect_four_rewards),
        Figure("holdem_actions_by_win_prob", "Hold'em actions by win probability", ("texas_holdem",),
               analyses.poker_actions_by_win_prob,
               Chart("bar", "win_prob_bin", "share", color="action", facet_col="agent"), show_table=False),
        Figure("holdem_actions", "Hold'em actions", ("texas_holdem",), analyses.poker_action_win_prob),
        Figure("bargain_figures", "Bargain: reward, its share of the pool, agreement and win rates", ("bargain",),
               bargain_table, units={"reward": "points"}),
        Figure("bid_figures", "Bid: reward, win rate and the deviation from the equilibrium bid", ("bid",),
               bid_table, units={"reward": "$"}),
        Figure("hanabi_shares", "Hanabi action shares", ("hanabi",), analyses.hanabi_action_shares,
               Chart("bar", "agent", ("play_share", "reveal_share", "discard_share")),
               units={"mean_score": HANABI_SCALE}),
    ),
)
