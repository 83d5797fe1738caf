"""The site's HTML: every value escaped on its way in (agent names and model answers are hostile input: a
`<script>` in an answer shows as text), one page template with relative links (the site opens from disk as from
any web server), and the few pieces pages are made of: tables whose cells may link, preformatted text, notes."""

from __future__ import annotations

import html
import json
import posixpath
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pandas as pd

GLOSSARY_HTML = "glossary.html"  # the definitions of every page's terms, as the dashboard's Glossary page gives them
PLOTLY_JS = "assets/plotly.min.js"  # written once per site, loaded by the pages that draw a chart
STYLE_CSS = "assets/style.css"
STYLE = """body{font-family:system-ui,sans-serif;margin:1.5em auto;max-width:1320px;padding:0 1em;color:#222}
nav{font-size:.9em;margin-bottom:1em}nav a{margin-right:1em}
table{border-collapse:collapse;margin:.5em 0 1em;font-size:.9em}
td,th{border:1px solid #ccc;padding:2px 6px;text-align:left;vertical-align:top}th{background:#f3f3f3}
td.n{text-align:right;white-space:nowrap}
pre{white-space:pre-wrap;word-break:break-word;background:#f7f7f7;padding:.4em;margin:.2em 0;font-size:.85em}
.note{color:#555;font-size:.9em}.badge{display:inline-block;border-radius:3px;padding:0 5px;margin-right:4px;
font-size:.85em;color:#fff;background:#c0392b}.badge.retry{background:#d68910}
section.turn{border-top:1px solid #ddd;padding:.4em 0}section.turn h3{font-size:1em;margin:.2em 0}
.wide{overflow-x:auto}
.cols{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:1em}details summary{cursor:pointer;color:#555}
"""


def esc(value: Any) -> str:
    """Any value as HTML text: markup in it stays text (quotes too, so it may stand in an attribute)."""
    return html.escape("" if value is None else str(value), quote=True)


def text(value: Any) -> str:
    """Any value as the text of an element (not an attribute): quotes stay quotes, a JSON answer reads as JSON and
    weighs less than with every quote escaped."""
    return html.escape("" if value is None else str(value), quote=False)


def relative(page: str, target: str) -> str:
    """The link from the site page `page` to the site file `target` (both relative to the site's root)."""
    return posixpath.relpath(target, posixpath.dirname(page) or ".")


def link(href: str, label: Any) -> str:
    return f'<a href="{esc(href)}">{text(label)}</a>'


def pre(value: Any) -> str:
    return f"<pre>{text(value)}</pre>"


def compact_json(value: Any) -> str:
    """A JSON value on as few characters as it takes (the transcripts of 1,000 matches stay small)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def note(text: Any) -> str:
    return f'<p class="note">{esc(text)}</p>'


def note_link(href: str, label: Any) -> str:
    return f'<p class="note">{link(href, label)}</p>'


def definitions(items: Mapping[str, str]) -> str:
    return "<dl>" + "".join(f"<dt><b>{esc(k)}</b></dt><dd>{esc(v)}</dd>" for k, v in items.items()) + "</dl>"


def table(shown: pd.DataFrame, links: Mapping[str, Sequence[str | None]] | None = None,
          numeric: Sequence[str] = ()) -> str:
    """`shown` (text cells, as `engine.present.numbers.readable` makes them) as an HTML table; a column of `links` makes
    each of its cells a link to that row's href (None: plain text); `numeric` columns align right."""
    links = links or {}
    head = "".join(f"<th>{esc(c)}</th>" for c in shown.columns)
    rows = []
    for i, row in enumerate(shown.itertuples(index=False)):
        cells = []
        for column, value in zip(shown.columns, row, strict=True):
            href = links[column][i] if column in links else None
            content = link(href, value) if href and value != "" else text(value)
            cells.append(f'<td class="n">{content}</td>' if column in numeric else f"<td>{content}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    shown_table = f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    if _width_px(shown) <= PAGE_PX:
        return shown_table
    return (f'<p class="note">Wider than the page ({len(shown.columns)} columns): the table scrolls sideways.</p>'
            f'<div class="wide">{shown_table}</div>')


PAGE_PX = 1320  # the body's max-width (STYLE)
CHAR_PX, CELL_PX = 7.5, 14  # a character at the tables' .9em, and a cell's padding and border


def _width_px(shown: pd.DataFrame) -> float:
    """About how wide `shown` draws: each column as wide as its longest cell or header."""
    return sum(CELL_PX + CHAR_PX * max([len(str(c)), *(len(str(v)) for v in shown[c])]) for c in shown.columns)


def markdown_html(markdown: str) -> str:
    """The little markdown the pages and the suites' captions write (**bold**, *italics*, `code`, [text](link),
    "- " items, a line break "  \n") as HTML, every other character escaped; a link keeps its text only (it
    points into the server a report or a site leaves)."""
    text = html.escape(markdown, quote=False)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", text)
    text = re.sub(r"\*([^*\s][^*]*)\*", r"<i>\1</i>", text)
    text = re.sub(r"`([^`]+)`", r"<code>\1</code>", text)
    lines = text.replace("  \n", "<br>").split("\n")
    items = [line[2:] for line in lines if line.startswith("- ")]
    if items and len(items) == len([line for line in lines if line.strip()]):
        return "<ul>" + "".join(f"<li>{item}</li>" for item in items) + "</ul>"
    return "<br>".join(lines)


def caption(markdown: str, path: str) -> str:
    """A table's caption (engine/present/captions.py: its glossary link is `[label](glossary#anchor)`) as a note of
    the site
    page at `path`, the link leading to the site's glossary, at that anchor."""
    parts = re.split(r"\[([^\]]*)\]\(glossary(#[a-z0-9-]*)?\)", markdown)
    shown = markdown_html(parts[0])
    for label, place, rest in zip(parts[1::3], parts[2::3], parts[3::3], strict=True):
        shown += link(relative(path, GLOSSARY_HTML) + (place or ""), label) + markdown_html(rest)
    return f'<p class="note">{shown}</p>'


def prose(markdown: str) -> str:
    """A caption written in the pages' markdown, as a note."""
    return f'<p class="note">{markdown_html(markdown)}</p>'


def glossary(terms: Mapping[str, str], suite_captions: Mapping[str, str], columns: Mapping[str, str],
             anchor: Callable[[str], str]) -> str:
    """The glossary's body, as the dashboard's Glossary page gives it (engine/present/column_help.py): every term of
    `terms` with its `anchor`, each paper's own table as the paper defines it (`suite_captions`: title ->
    `Suite.caption`), and every column's definition (`columns`)."""
    defined = "".join(f'<dt id="{esc(anchor(term))}"><b>{esc(term)}</b></dt><dd>{esc(text[:1].upper() + text[1:])}.'
                      "</dd>" for term, text in terms.items())
    tables = "".join(f'<h3 id="{esc(anchor(title))}">{esc(title)}</h3>{prose(caption)}'
                     for title, caption in suite_captions.items() if caption)
    return (f"<dl>{defined}</dl><h2>The papers' own tables</h2>{tables}<h2 id=\"columns\">Columns</h2>"
            f"{definitions(columns)}")


def page(path: str, title: str, body: str, charts: bool = False) -> str:
    """A whole page of the site at `path`: its title, the way back to the index, and `body` (already HTML);
    plotly.js from the site's one copy when it draws `charts`."""
    script = f'<script src="{esc(relative(path, PLOTLY_JS))}"></script>' if charts else ""
    home = "" if path == "index.html" else f"<nav>{link(relative(path, 'index.html'), '← the study')}</nav>"
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{esc(title)}</title>'
            f'<link rel="stylesheet" href="{esc(relative(path, STYLE_CSS))}">{script}</head>'
            f"<body>{home}<h1>{esc(title)}</h1>{body}</body></html>")
