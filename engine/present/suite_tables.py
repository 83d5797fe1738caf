"""A suite's tables as every output shows them (the pages, their reports, the static site, `python -m engine
scores`), one code for all so that none reads another way:

- the headline (`headline_view`): rank, agent, the ranked number with its interval in the unit the suite's title
  states, marked partial where it averages fewer games, then win rate, valid moves, fallback wins and cost;
- the agents x games grid (`grid_view`) and a game's win rates (`win_rates_view`), where a game that declares no
  winner (a cooperative game: its seats share one score) shows NOT_APPLICABLE rather than a win rate of 0%;
- a paper's own table (`own_table_view`), read from its suite's `TableLayout`: its key columns first, an average
  over only some of its parts (LLMArena's games, MAgIC's seven roles) marked and its row put last, a model's
  condition in one column, its columns named so that none passes for the headline's win rate, each with its unit.

    headline_view(table, measure) -> DataFrame;  ranked_view(table, measure);  headline_help(measure) -> dict
    GRID_CAPTION (the other captions: engine/present/captions.py)
    grid_view(cells, suite) -> DataFrame;  grid_games(cells, suite) -> list;  by_win_rate(rows) -> DataFrame
    win_rates_view(rows, game) -> DataFrame;  has_winner(game) -> bool;  without_winner(games) -> str
    partial_rows(board, layout) -> Series;  complete_first(board, layout) -> DataFrame
    shown_names(columns, layout) -> dict;  own_table_view(board, layout) -> DataFrame
    own_table_numbers(board, layout) -> DataFrame
    own_table_parts(board, layout) -> (table, aside, by_role);  by_role_view(view, layout) -> DataFrame
"""

from __future__ import annotations

import pandas as pd

from engine.papers import headline
from engine.papers.base import TableLayout
from engine.papers.published import PAPER
from engine.present.numbers import (
    board_text,
    interval,
    number,
    on_one_scale,
    p_value,
    percent,
    unit_of,
    usd,
    with_unit,
)
from engine.score import compare
from engine.store.selection import cooperative_games

NOT_APPLICABLE = "—"  # a win rate (and its wins) of a game that declares no winner


def pool_label(game: str, rule_set: str) -> str:
    """A game and the rule set a figure pools: "undercover (magic rules)"; the game alone when it has one."""
    return f"{game} ({rule_set} rules)" if rule_set else game


# ---------------------------------------------------------------- the headline
RANKED_BY = {"rating": headline.DEFINITIONS["rating"], "win_rate": headline.DEFINITIONS["win rate"],
             "score": headline.DEFINITIONS["score"]}
# the ranked number's column label: its values are wider than the label, so "(95% CI)" costs no width
SHORT = {"rating": "rating (95% CI)", "win_rate": "win rate (95% CI)", "score": "score (95% CI)"}


GRID_CAPTION = ("win rate (contested matches behind it), over each game's contested matches under the "
                "rules named in its column, every preset in the selection (the same pool as Overview's table of that "
                "game and rule set); a cell opens those matches")


def measure_view(table: pd.DataFrame, measure) -> list[str]:
    """The ranked number with its interval, in the unit the suite's title states, "(partial)" when it averages
    fewer games than the others'; where the interval cannot be computed, why (a number without one would read as
    precise)."""
    rate, places = measure.by == "win_rate", 0 if measure.by == "rating" else 2
    partial = table["partial"] if "partial" in table else pd.Series(False, index=table.index)  # one game: never
    games = table["games"] if "games" in table else partial
    whole = table["of_games"] if "of_games" in table else games
    return [note if note else interval(v, lo, hi, as_percent=rate, decimals=1 if rate else places)
            + (f" (partial: {n} of {of} games)" if short else "")
            for v, lo, hi, note, short, n, of in zip(table["value"], table["value_lo"], table["value_hi"],
                                                     table["note"], partial, games, whole, strict=True)]


def ranked_view(table: pd.DataFrame, measure) -> pd.DataFrame:
    """Rank (blank for an unranked agent; provisional ones so marked), agent, the ranked number and matches."""
    return pd.DataFrame({
        "rank": [number(r) for r in table["rank"]],
        "agent": [a + (" (provisional)" if provisional else "")
                  for a, provisional in zip(table["agent"], table["provisional"], strict=True)],
        SHORT[measure.by]: measure_view(table, measure),
        "matches": table["matches"].map(number)})


def headline_view(table: pd.DataFrame, measure) -> pd.DataFrame:
    """The headline table as text: `ranked_view`, then the win rate (unless it is the ranked number), valid
    moves, fallback wins and dollars per match, under short labels (`headline_help` defines them) so that it fits
    a 1400 px window."""
    view = ranked_view(table, measure)
    if measure.by != "win_rate":  # its interval is in the per-game tables: the headline's is the ranked one's
        # no win rate at all: the agent played only games that declare no winner (`headline.DEFINITIONS`)
        view["win rate"] = table["win_rate"].map(percent).where(table["win_rate"].notna(), NOT_APPLICABLE)
    return view.assign(**{"valid": table["valid_rate"].map(percent),
                          "fb wins": table["fallback_wins"].map(number),
                          "$/match": table["cost_per_match"].map(usd)})


def headline_help(measure) -> dict[str, str]:
    """Each headline column's definition (engine/papers/headline.py): a header's tooltip, the site's list under it."""
    defined = headline.DEFINITIONS
    return {"rank": defined["rank"], SHORT[measure.by]: f"{measure.title} with its 95% interval: "
            f"{RANKED_BY[measure.by]}", "matches": defined["matches"], "win rate": defined["win rate"],
            "valid": defined["valid moves"], "fb wins": defined["fallback wins"], "$/match": defined["cost"]}


# ---------------------------------------------------------------- win rates, by game
def has_winner(game: str) -> bool:
    """Whether `game` declares a winner among its seats: not a cooperative one (`Game.cooperative`: Hanabi's seats
    share one score, no seat wins against another)."""
    return game not in cooperative_games()


def without_winner(games) -> str:
    """The caption's sentence for the games among `games` that declare no winner ('' when none does)."""
    shared = [g for g in dict.fromkeys(games) if not has_winner(g)]
    if not shared:
        return ""
    return (f"{NOT_APPLICABLE}: {', '.join(shared)} declare{'s' if len(shared) == 1 else ''} no winner (cooperative: "
            "every seat shares one score, so no seat wins against another): no win rate; its score is the figure.")


def grid_games(cells: pd.DataFrame, suite) -> list[str]:
    """The grid's games (`grid_view`'s columns after the agent): the suite's games played here, in its order."""
    return [g for g in suite.games if g in set(cells["game"])]


def grid_view(cells: pd.DataFrame, suite) -> pd.DataFrame:
    """Agents x games (`headline.agent_figures` by game, over `suite`'s rule sets) as text, a row per agent
    (sorted) and a column per game of the suite played here (in its order, named by `pool_label` with the suite's
    rule set): each cell the win rate and the contested matches behind it ("14.3% (21)", NOT_APPLICABLE for a game
    without a winner), blank where the agent did not play."""
    rule_set = {v.game: v.name for v in suite.variants}
    agents = sorted(cells["agent"].unique())
    shown = pd.DataFrame({"agent": agents})
    for game in grid_games(cells, suite):
        mine = cells[cells["game"] == game].set_index("agent")
        shown[pool_label(game, rule_set[game])] = [
            f"{percent(mine.at[a, 'win_rate']) if has_winner(game) else NOT_APPLICABLE} "
            f"({number(mine.at[a, 'matches'])})" if a in mine.index else "" for a in agents]
    return shown


def by_win_rate(rows: pd.DataFrame) -> pd.DataFrame:
    """`headline.agent_figures` rows in the win-rate tables' order: the highest win rate first, ties (every row
    of a game without a winner) by agent, whatever order the query returned them in."""
    return rows.sort_values(["win_rate", "agent"], ascending=[False, True], kind="stable")


def win_rates_view(rows: pd.DataFrame, game: str) -> pd.DataFrame:
    """`headline.agent_figures` rows of `game` as every page shows them (one definition, one look): agent,
    contested matches, seats, wins, draws, the win rate with its interval, valid moves, fallback wins, cost per
    match (the last three under the headline's short labels). A game without a winner shows NOT_APPLICABLE for
    its wins, draws, win rate and fallback wins."""
    won = has_winner(game)
    counted = (lambda column: rows[column].map(number)) if won else (lambda column: NOT_APPLICABLE)
    return pd.DataFrame({
        "agent": rows["agent"], "matches": rows["matches"].map(number), "seats": rows["seats"].map(number),
        "wins": counted("wins"), "draws": counted("draws"),
        "win rate (95% CI)": [interval(*v, as_percent=True, decimals=1) if won else NOT_APPLICABLE
                              for v in zip(rows["win_rate"], rows["win_lo"], rows["win_hi"], strict=True)],
        "valid": rows["valid_rate"].map(percent), "fb wins": counted("fallback_wins"),
        "$/match": rows["cost_per_match"].map(usd)}, index=rows.index)


# ---------------------------------------------------------------- a paper's own table


def with_condition(shown: pd.DataFrame, parts: list[str]) -> pd.DataFrame:
    """`shown` with a model's condition columns `parts` (prompt version, temperature, strategy, as shown) in one
    column where the first was ("v1 · 1.00 · vanilla", blank for a bot): narrower than three."""
    at = list(shown.columns).index(parts[0])
    joined = [" · ".join(v for v in row if v) for row in shown[parts].itertuples(index=False)]
    shown = shown.drop(columns=parts)
    shown.insert(at, "condition", joined)
    return shown


def partial_rows(board: pd.DataFrame, layout: TableLayout) -> pd.Series:
    """Whether each row averages only some of its parts (`layout.coverage`): False for a table without one."""
    if layout.coverage is None or board.empty:
        return pd.Series(False, index=board.index)
    return board[layout.coverage.parts].fillna(0) < layout.coverage.whole


def complete_first(board: pd.DataFrame, layout: TableLayout) -> pd.DataFrame:
    """A paper's own table in reading order: ranked rows first (by `rank`, where the table has one), then the
    complete unranked rows, then the partial rows (an average over 1 of 7 games must not lead at "100.00"), those
    covering more parts first; otherwise in the table's own order."""
    parts = board[layout.coverage.parts] if layout.coverage else pd.Series(0, index=board.index)
    key = pd.DataFrame({"unranked": board["rank"].isna() if "rank" in board else False,
                        "rank": board["rank"] if "rank" in board else 0,
                        "partial": partial_rows(board, layout), "covers": -parts.fillna(0)}, index=board.index)
    if "source" in board:  # a paper's row stays right under our row of its model (`published.interleave_published`)
        key = key.mask(board["source"].astype(str).str.startswith(f"{PAPER}:")).ffill()
    key["row"] = range(len(key))
    # the partial rows: those covering more parts first (4 of 7 games above 1 of 7, whatever its value)
    key["covers"] = key["covers"].where(key["partial"].astype(bool), 0)
    order = key.sort_values(["unranked", "partial", "rank", "covers", "row"], kind="stable",
                            na_position="last").index
    return board.loc[order]


def shown_names(columns, layout: TableLayout) -> dict[str, str]:
    """Each column's name as the pages show it: the layout's name for it (`renamed`) with its unit ("mean role win
    rate (%)"), the unit every output writes in its header (`numbers.on_one_scale`)."""
    return {c: with_unit(layout.renamed.get(c, c), unit_of(str(c), layout.units)) for c in columns}


def own_table_view(board: pd.DataFrame, layout: TableLayout) -> pd.DataFrame:
    """The table as text, as every page shows it: its key columns first, an average over only some of its parts
    marked beside its value and in its count ("1 of 7 (partial)", the header names the unit) and its row put last
    (`complete_first`), a model's condition in one column, columns blank in every row
    left out (but the key and `always_shown` ones), and the names the layout gives, with their units (`shown_names`)."""
    board = complete_first(board, layout)
    shown = board_text(board)
    first = list(board.columns[:1])
    key = [c for c in layout.key if c in board.columns and c not in first]
    shown = shown[first + key + [c for c in board.columns if c not in first + key]]
    coverage = layout.coverage
    if coverage and not board.empty:
        partial = board[coverage.parts] < coverage.whole
        shown[coverage.value] = [f"{text} (partial)" if text and short else text
                                 for text, short in zip(shown[coverage.value], partial, strict=True)]
        shown[coverage.parts] = [f"{int(n)} of {coverage.whole}" if n == n else "" for n in board[coverage.parts]]
    condition = [c for c in ("prompt_version", "temperature", "strategy") if c in shown]
    if len(condition) > 1:
        shown = with_condition(shown, condition)
    # the key and always-shown columns stay even when blank (`overall` blank: not all eight games played; an ability
    # no one has: MAgIC's profile always has seven); a bot's strategy or a game no row played goes
    always_shown = {*first, *key, *layout.always_shown}
    blank = [c for c in shown.columns if c not in always_shown and shown[c].eq("").all()]
    if "source" in shown and shown["source"].eq("ours").all():
        blank.append("source")  # nothing published beside ours: the column would only repeat "ours"
    return shown.drop(columns=blank).rename(columns=shown_names(shown.columns, layout))


def own_table_numbers(board: pd.DataFrame, layout: TableLayout) -> pd.DataFrame:
    """The table as numbers (`python -m engine scores` as CSV or JSON): the page's CSV download (in the page's row
    order, `complete_first`; each share in percent and each unit in its header, `numbers.on_one_scale`) with the
    page's "(partial)" mark as a column `partial` beside the count of parts."""
    if board.empty:
        return board
    board = complete_first(board, layout)
    numbers = on_one_scale(board, layout.units)
    if layout.coverage is not None:
        numbers.insert(list(board.columns).index(layout.coverage.parts) + 1, "partial",
                       partial_rows(board, layout).to_numpy())
    return numbers


def by_role_view(view: pd.DataFrame, layout: TableLayout) -> pd.DataFrame:
    """The figures by role of an `own_table_view` (its `{role}_{figure}` columns), a row per agent and role it
    held: four columns that fit, where eight side by side (half of them blank, an agent holding one role) ran past a
    1400 px window. Each figure under its name with its unit; empty without `layout.by_role` or a role held."""
    by_role = layout.by_role
    if by_role is None:
        return pd.DataFrame()
    keys = [*view.columns[:1], *(c for c in ("strategy", "condition") if c in view.columns[1:])]
    figures = shown_names(by_role.figures, layout)
    named = shown_names(by_role.columns, layout)
    rows = [{**{k: row[k] for k in keys}, "role": role,
             **{figures[f]: row.get(named[f"{role}_{f}"], "") for f in by_role.figures}}
            for _, row in view.iterrows() for role in by_role.roles]
    table = pd.DataFrame(rows, columns=[*keys, "role", *figures.values()])
    return table[table[list(figures.values())].ne("").any(axis=1)].reset_index(drop=True)  # roles never held: none


def own_table_parts(board: pd.DataFrame, layout: TableLayout) -> tuple[pd.DataFrame, dict[str, list[str]],
                                                                        pd.DataFrame]:
    """A paper's own table as the pages and the site lay it out: the table (`own_table_view` without its figures by
    role), the layout's `aside` groups (title -> their columns as shown, each shown apart beside the first column)
    and the figures by role (`by_role_view`) as a table of their own."""
    view = own_table_view(board, layout)
    names = shown_names(board.columns, layout)
    by_role = [names.get(c, c) for c in layout.by_role.columns] if layout.by_role else []
    aside = {label: [names.get(c, c) for c in columns] for label, columns in layout.aside.items()}
    return view.drop(columns=[c for c in by_role if c in view]), aside, by_role_view(view, layout)


def versus_view(table: pd.DataFrame) -> pd.DataFrame:
    """`compare`'s table as text, each interval beside its value ("95.8% [79.8% to 99.3%]") so that it fits a
    window: the page's table and the command's."""
    counts = {column: table[column].map(number) for column in ("matches", "wins", "draws", "losses")}
    return pd.DataFrame({
        "game": table["game"], **counts,
        "win share (95% CI)": [interval(v, lo, hi, as_percent=True, decimals=1) for v, lo, hi in
                               zip(table["win_share"], table["win_lo"], table["win_hi"], strict=True)],
        "deals": table["deals"].map(number),
        "deal share (95% CI)": [interval(v, lo, hi, as_percent=True, decimals=1) for v, lo, hi in
                                zip(table["deal_share"], table["deal_lo"], table["deal_hi"], strict=True)],
        "pairs": table["pairs"].map(number), "score A": table["score_a"].map(number),
        "score B": table["score_b"].map(number),
        "diff (95% CI)": [interval(v, lo, hi) for v, lo, hi in
                          zip(table["diff"], table["diff_lo"], table["diff_hi"], strict=True)],
        "p": table["p"].map(p_value), "p holm": table["p_holm"].map(p_value)})


_DEFINED = compare.DEFINITIONS
VERSUS_HELP = {"game": _DEFINED["game"], **{c: _DEFINED[c] for c in ("matches", "wins", "draws", "losses")},
               "win share (95% CI)": f"{_DEFINED['win_share']}, with its 95% Wilson interval over their matches",
               "deals": _DEFINED["deals"],
               "deal share (95% CI)": f"{_DEFINED['deal_share']}, with its 95% t interval over the deals",
               "pairs": _DEFINED["pairs"], "score A": _DEFINED["score_a"], "score B": _DEFINED["score_b"],
               "diff (95% CI)": f"{_DEFINED['diff']}, with its 95% t interval", "p": _DEFINED["p"],
               "p holm": _DEFINED["p_holm"]}
