"""Who is Spy (WiS, docs/PAPERS.md): Undercover under its own rules, a ranking by points and the figures per role."""

from __future__ import annotations

from engine.papers.base import ByRole, Figure, Suite, TableLayout
from engine.papers.wis.games import UNDERCOVER
from engine.papers.wis.scores import figures_by_role, leaderboard

ROLES = ("spy", "civilian")

SUITE = Suite(
    name="wis", title="Who is Spy ranking", paper="Who-is-Spy",
    variants=(UNDERCOVER,),
    board=leaderboard,
    layout=TableLayout(
        key=("ranking", "points_per_game", "points_per_game_lo", "points_per_game_hi", "games", "win_rate"),
        by_role=ByRole(
            "Figures by role (spy, civilian)", ROLES, ("win_rate", "mean_score", "foul_rate", "survival_rounds"),
            helps={"role": "the role the agent held (a row for each role it held)",
                   "win_rate": "seats won / seats held in this role",
                   "mean_score": "mean score of the seats held in this role"}),
        # Who is Spy counts every seat a player held as a game played (its ranking subtracts one per seat): named so
        # that it cannot pass for the headline's matches
        renamed={"games": "seats played"},
        helps={"ranking": "100 + the sum of scores - games played: it grows with games played, so agents with "
                          "different numbers of games are not comparable by it (compare points per game)",
               "points_per_game": "(ranking - 100) / games played, with its 95% t interval over seats",
               "seats played": "seats the agent held: Who is Spy counts each seat as a game played (its ranking "
                               "subtracts one per seat)"}),
    # the points' unit in the caption: in the headers it would push a table with a model's condition past 1400 px
    caption="Ranking = 100 + the sum of scores - games played (over the selected WiS games): it grows with games "
            "played, so agents with different numbers of games are not comparable by it; points per game = (ranking - "
            "100) / games, with its 95% t interval over seats, are. Scale: `ranking` and the mean scores in Who is "
            "Spy's points; rates in %.",
    empty="No Who-is-Spy (`undercover`, rules `wis`) games in this selection.",
    figures=(
        Figure("wis_roles", "Who is Spy: figures by role", ("undercover",),
               figures_by_role),
    ),
)
