"""The one palette of every chart (the dashboard's pages, their HTML reports, the exported site): agents told apart
by colour, and by people with any common colour-vision deficiency (plotly's `Safe`, Paul Tol's muted scheme). A
figure names its colours itself (`colorway`), so that no theme repaints it: Streamlit's own draws two agents in two
near-identical blues, and a report saved without it in one grey."""

from __future__ import annotations

import plotly.express as px

PALETTE: list[str] = px.colors.qualitative.Safe


def painted(fig):
    """`fig` with the arena's palette as its own colorway: traces without a colour of their own take theirs from it,
    in order, wherever the figure is drawn."""
    return fig.update_layout(colorway=PALETTE)
