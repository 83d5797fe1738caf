"""MAgIC's radar (Figures 1 and 6): its seven axes, the abilities on the paper's 0-100 scale, and the polygon's
area in two units. Its own module so that the published rows (engine/papers/published.py, below the store) and the
scorer (engine/papers/magic/abilities.py, above it) draw the same radar.

- `AREA`: the polygon as a percentage of the full one (every ability at 100): 0-100 like the abilities,
  comparable at a glance. The wedges' constant cancels, leaving the mean product of neighbouring axes / 100.
- `PAPER_AREA`: the raw polygon area on 0-100 axes, the bars of Figures 1 and 6 (GPT-4-turbo about 9.3
  thousand, "Area x 1k"): 1/2 sin(2 pi / 7) x the sum of the products of neighbouring axes; the full polygon
  is about 27.4 thousand. The paper prints no number for these bars: the published rows' areas are computed
  here from Table 1's abilities, as the figure draws them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

ABILITIES = ["Judgement", "Reasoning", "Deception", "Self-awareness", "Cooperation", "Coordination", "Rationality"]
RADAR_SCALE = 100.0  # Figure 1 draws the abilities from 0 to 100, and Table 1 prints them so
ABILITY_COLUMNS = [f"{name} (0-100)" for name in ABILITIES]  # every output path names the scale
AREA = "area (%)"  # of the full radar; short: the profile fits a 1400 px window
PAPER_AREA = "area (0-100 axes)"  # the raw polygon, as Figures 1 and 6 plot it


def _neighbour_products(values: Sequence[float]) -> float:
    return sum(a * b for a, b in zip(values, [*values[1:], *values[:1]], strict=True))


def _complete(values: Sequence[float]) -> bool:
    return bool(values) and not any(v != v for v in values)


def area_percent(values: Sequence[float]) -> float:
    """The polygon of `values` (0-100, on equally spaced axes) as a percentage of the full polygon; NaN if any
    value is missing."""
    if not _complete(values):
        return float("nan")
    return _neighbour_products(values) / (len(values) * RADAR_SCALE)


def area_paper(values: Sequence[float]) -> float:
    """The raw area of the polygon of `values` (0-100, on equally spaced axes), the unit of the paper's
    Figures 1 and 6; NaN if any value is missing."""
    if not _complete(values):
        return float("nan")
    return 0.5 * math.sin(2 * math.pi / len(values)) * _neighbour_products(values)
