"""Database strings inside Streamlit markdown (run names, labels, agents, game names, roles): shown as
the plain text they are. A name such as `[free credits](https://evil.example)` or `:red[...]` must not
become a live link, a colour or an image on a page."""

from __future__ import annotations

import re

_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")  # every ASCII punctuation mark: CommonMark lets each be escaped


def plain(value: object) -> str:
    """`value` as markdown that renders to exactly its text, on one line."""
    return _PUNCTUATION.sub(r"\\\1", " ".join(str(value).split()))


def code(value: object) -> str:
    """`value` as an inline code span (verbatim, monospace), fenced by more backticks than it holds."""
    text = " ".join(str(value).split())
    fence = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"
