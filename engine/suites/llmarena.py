"""LLMArena (docs/PAPERS.md): seven two-player and team games, a normalized TrueSkill table, and the analyses of
its §4 (hint ablation, ConnectFour rewards, Hold'em actions against win probability, Hanabi's actions)."""

from __future__ import annotations

from engine.games.hanabi import MAX_SCORE as HANABI_MAX
from engine.selection import Variant
from engine.suites.base import Chart, Coverage, Figure, Scorer, Suite, TableLayout

HANABI_SCALE = f"0-{HANABI_MAX}"  # the fireworks score: the cards played, both colours to 5


GAMES = ("tictactoe", "connect_four", "texas_holdem", "bid", "bargain", "undercover", "hanabi")
REWARD_GAMES = ("bid", "hanabi")  # scored by their average reward, not a TrueSkill rating
OWN_RULES = tuple(Variant.of(g, "llmarena" if g == "undercover" else None) for g in GAMES)
HINT_GAMES = ("tictactoe", "connect_four")  # the games of the hint ablation (Table 2)
ANALYSES = "engine.metrics.llmarena_analyses"

SUITE = Suite(
    name="llmarena", title="LLMArena", paper="LLMArena",
    variants=OWN_RULES,
    board=Scorer("engine.metrics.llmarena:leaderboard"),
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
               HINT_GAMES, Scorer(f"{ANALYSES}:hint_ablation"),
               Chart("bar", "agent", "illegal_move_rate", color="hint", barmode="group")),
        Figure("connect_four_rewards", "ConnectFour rewards", ("connect_four",),
               Scorer(f"{ANALYSES}:connect_four_rewards")),
        Figure("holdem_actions_by_win_prob", "Hold'em actions by win probability", ("texas_holdem",),
               Scorer(f"{ANALYSES}:poker_actions_by_win_prob"),
               Chart("bar", "win_prob_bin", "share", color="action", facet_col="agent"), show_table=False),
        Figure("holdem_actions", "Hold'em actions", ("texas_holdem",), Scorer(f"{ANALYSES}:poker_action_win_prob")),
        Figure("bargain_figures", "Bargain: reward, its share of the pool, agreement and win rates", ("bargain",),
               Scorer("engine.metrics.negotiation:bargain_table"), units={"reward": "points"}),
        Figure("bid_figures", "Bid: reward, win rate and the deviation from the equilibrium bid", ("bid",),
               Scorer("engine.metrics.negotiation:bid_table"), units={"reward": "$"}),
        Figure("hanabi_shares", "Hanabi action shares", ("hanabi",), Scorer(f"{ANALYSES}:hanabi_action_shares"),
               Chart("bar", "agent", ("play_share", "reveal_share", "discard_share")),
               units={"mean_score": HANABI_SCALE}),
    ),
)
