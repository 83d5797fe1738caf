"""MAgIC (docs/PAPERS.md): the social-deduction games (Chameleon, Undercover under MAgIC's rules) and three
game-theory games, scored as seven abilities per challenger."""

from __future__ import annotations

from engine.papers.base import Coverage, Headline, Suite, TableLayout
from engine.papers.magic.abilities import ability_profile
from engine.papers.magic.games import ROLE_WIN_RATES, SOCIAL, TABLE_2, THEORY
from engine.papers.magic.radar import ABILITIES, ABILITY_COLUMNS, AREA, PAPER_AREA

# the seven abilities (0-100, as the scorer gives them) under short headers (the full name and scale in the header's
# tooltip), so that the profile shows every ability in a 1400 px window
SHORT_ABILITIES = dict(zip(ABILITY_COLUMNS, ("Judg.", "Reas.", "Decep.", "Self-aw.", "Coop.", "Coord.", "Rational."),
                           strict=True))
MEAN_ROLE_WIN_RATE = "mean role win rate"  # Table 1's "win rate": not the win rate of engine/papers/headline.py

LAYOUT = TableLayout(
    key=("win_rate", "roles", AREA),
    aside={"The seven role win rates": ROLE_WIN_RATES, "MAgIC's Table 2": TABLE_2,
           "The radar's area in the paper's unit (Figures 1 and 6)": (PAPER_AREA,)},
    coverage=Coverage("win_rate", "roles", len(ROLE_WIN_RATES), "roles"),
    always_shown=(*SHORT_ABILITIES, *ROLE_WIN_RATES, *TABLE_2),  # the profile always has them, blank or not
    renamed={**SHORT_ABILITIES, "win_rate": MEAN_ROLE_WIN_RATE},
    # the role win rates and the mean role win rate are rates: in % everywhere without a declaration
    units={"cost_sharing_cost": "% of cost", "prisoner_score": "points", "public_good_payback": "points"},
    helps={**{short: f"{name}: 0-100, the radar's scale (MAgIC paper §3.3)"
              for name, short in zip(ABILITIES, SHORT_ABILITIES.values(), strict=True)},
           "roles": "MAgIC's role win rates the mean role win rate averages, of its seven (fewer: partial)"},
)

SUITE = Suite(
    name="magic", title="MAgIC abilities", paper="MAgIC",
    variants=SOCIAL + THEORY,
    board=ability_profile,
    headline=Headline("win_rate", "win rate"),
    layout=LAYOUT,  # MAgIC compares challengers by win rate (here: the one definition)
    caption=f"Per challenger: the seven abilities on 0-100 ({', '.join(SHORT_ABILITIES.values())}: each named whole "
            "in its header's tooltip), the mean role win rate (the mean of its seven role win rates, "
            "MAgIC's Table 1 win rate: not the headline's win rate), the radar's area (as a % of the full radar, and "
            "in the paper's unit: the raw polygon on 0-100 axes, Figures 1 and 6), "
            "Table 2's cost_sharing_cost (its mean share, %, of the agreed split in successful cost-sharing games), "
            "prisoner_score (its mean final score in the Prisoner's Dilemma) and public_good_payback (its mean payout "
            "from the public pool: every player's contributions over the rounds x the multiplier / 3, in points, each "
            "player starting with 100). A mean role win rate over fewer than the seven roles is marked partial. As the "
            "authors' metrics_release.py computes them: Deception counts every outcome but 0 as a win as "
            "chameleon/undercover, plus 0.25 x (flag 1 seen) / (distinct flags 0, 1 seen as a non-chameleon); "
            "Self-awareness pools both games unweighted; Reasoning has one gold and one inter item per probe "
            "(inter right only if both other beliefs match), and a missing suspicion row reads as Player 1 (their "
            "argmax of zeros); a fallback vote is a wrong vote in Judgement. Rows "
            "with source `paper: ...` are the paper's Tables 1 and 2 for the same models (never in `scores`).",
    empty="No Chameleon, Undercover (MAgIC rules), cost sharing, prisoner's dilemma or public good matches "
          "in this selection.",
)
