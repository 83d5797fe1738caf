"""Games: the per-game figures the papers plot, for the model and runs chosen. γ-Bench games: the
per-round curves of what each round recorded (seed 002 §3); LLMArena: the hint ablation, ConnectFour
rewards, Hold'em actions against hand strength and Hanabi's action shares (seed 001); Who is Spy: the
per-role table (seed 003)."""

import plotly.express as px
import streamlit as st

from engine import queries, store
from engine.metrics import llmarena_analyses as arena
from engine.metrics import wis
from engine.sharing import Report, cached, filter_bar, show_table, url_selectbox

ANY = "any agent"
DB = store.default_db()
report = Report("Games")

st.title("Games")
if store.count_matches(DB) == 0:
    st.info("No matches yet. Play some with `python -m engine run runs/quick.yaml` (or `make run`).")
    st.stop()

options = queries.filter_options(DB)
filters = filter_bar(options, games=False, report=report, db=DB)
games = sorted(options["game"].unique())
left, right = st.columns(2)
with left:
    game = url_selectbox("Game", games, "game", default="guessing_game")
with right:
    agent = url_selectbox("Agent", [ANY, *queries.agents(DB, filters)["agent"]], "agent")
mine = None if agent == ANY else agent


def only_mine(table):
    return table if mine is None or table.empty else table[table["agent"] == mine]


def gamabench_curves() -> None:
    curves = queries.round_curves(DB, game, filters, mine)
    if curves.empty:
        st.caption("No rounds recorded for this selection.")
        return
    fields = [c for c in curves.columns if c not in ("step", "matches")]
    st.caption(f"Mean per round over {int(curves['matches'].max())} match(es)"
               f"{'' if mine is None else f' with {mine} at the table'}.")
    fig = px.line(curves, x="step", y=fields, markers=True, title=f"{game}: per-round figures")
    fig.update_layout(xaxis_title="round", yaxis_title="value", height=420)
    st.plotly_chart(fig)
    report.figure(f"{game}: per-round figures", fig)
    show_table(report, f"{game}: per-round figures", curves, f"rounds_{game}")


def llmarena_figures() -> None:
    if game in ("tictactoe", "connect_four"):
        ablation = only_mine(arena.hint_ablation(DB, (game,), filters=filters))
        if not ablation.empty:
            fig = px.bar(ablation, x="agent", y="illegal_move_rate", color="hint", barmode="group",
                         title="Illegal-move rate with and without the legal-move hint")
            st.plotly_chart(fig)
            report.figure("Hint ablation", fig)
        show_table(report, "Hint ablation", ablation, f"hint_ablation_{game}")
    if game == "connect_four":
        rewards = only_mine(arena.connect_four_rewards(DB, filters))
        show_table(report, "ConnectFour rewards", rewards, "connect_four_rewards")
    if game == "texas_holdem":
        actions = only_mine(arena.poker_actions_by_win_prob(DB, filters=filters))
        if not actions.empty:
            fig = px.bar(actions, x="win_prob_bin", y="share", color="action", facet_col="agent",
                         title="Hold'em actions by win probability")
            st.plotly_chart(fig)
            report.figure("Hold'em actions by win probability", fig)
        show_table(report, "Hold'em actions", only_mine(arena.poker_action_win_prob(DB, filters)), "holdem_actions")
    if game == "hanabi":
        shares = only_mine(arena.hanabi_action_shares(DB, filters))
        if not shares.empty:
            fig = px.bar(shares, x="agent", y=["play_share", "reveal_share", "discard_share"],
                         title="Hanabi action shares")
            st.plotly_chart(fig)
            report.figure("Hanabi action shares", fig)
        show_table(report, "Hanabi action shares", shares, "hanabi_shares")


st.header(game)
if game in queries.GAMABENCH_GAMES:
    gamabench_curves()
elif game in ("tictactoe", "connect_four", "texas_holdem", "hanabi"):
    st.caption("LLMArena's analyses of the selected matches.")
    llmarena_figures()
elif game == "undercover":
    roles = only_mine(cached(wis.figures_by_role, DB, filters=filters))
    if roles.empty:
        st.caption("No Who-is-Spy (rules `wis`) games yet.")
    else:
        st.caption("Who is Spy: figures per role over the selected WiS games.")
        show_table(report, "Who is Spy: figures by role", roles, "wis_roles")

st.subheader("Win rates")
rates = only_mine(queries.win_rates(DB, queries.Filters(filters.run_ids, (game,), filters.presets,
                                                       filters.date_from, filters.date_to)))
show_table(report, f"{game}: win rates", rates, f"win_rates_{game}")
report.download(f"games_{game}")
