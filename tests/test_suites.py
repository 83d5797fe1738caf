"""The suite registry (engine/papers/registry.py) and the selection beneath it: every suite's games, rule variants,
leaderboard and figures resolve; Undercover's three rule sets are registered variants that select their own
matches; a selection narrows by agent and variant; the CLI's `scores` reads every suite through the registry."""

from __future__ import annotations

import asyncio

import pytest

from engine import store
from engine.cli.main import main
from engine.games import all_games
from engine.papers import other
from engine.papers.registry import all_suites, get_suite, suites_of
from engine.play.runner import run_spec
from engine.play.spec import parse_spec
from engine.store.selection import ALL, Selection, Variant

LINEUP_6 = ["bot:letters"] + ["bot:random"] * 5
SPEC = {"name": "suites", "seed": 5, "games": [
    {"game": "undercover", "preset": "wis", "lineups": [LINEUP_6]},
    {"game": "undercover", "preset": "magic", "lineups": [["bot:random", "bot:random", "bot:random"]]},
    {"game": "tictactoe", "lineups": [["bot:equilibrium", "bot:random"]]},
]}


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("suites") / "results.duckdb"
    asyncio.run(run_spec(parse_spec(SPEC), path, progress=False))
    return path


def test_the_four_papers_and_the_rest_are_registered_and_their_functions_resolve():
    suites = all_suites()
    assert list(suites) == ["gamabench", "magic", "llmarena", "wis", "other"]
    for suite in suites.values():
        assert callable(suite.board)
        for figure in suite.figures:
            assert callable(figure.table) and set(figure.games) <= set(suite.games)
    with pytest.raises(ValueError, match="unknown suite 'nope'"):
        get_suite("nope")


def test_undercovers_rule_sets_are_variants_each_paper_names_its_own():
    assert set(all_games()["undercover"].variants) == {"magic", "llmarena", "wis"}
    rules = {name: [v.fixed for v in all_suites()[name].variants if v.game == "undercover"]
             for name in ("magic", "llmarena", "wis")}
    assert rules == {name: [(("rules", name),)] for name in rules}
    assert [s.name for s in suites_of("undercover")] == ["magic", "llmarena", "wis"]
    with pytest.raises(ValueError, match="no variant 'poker'"):
        Variant.of("undercover", "poker")
    with pytest.raises(ValueError, match="unknown game"):
        Variant.of("no_such_game")


def test_every_game_belongs_to_a_suite_and_the_other_suite_takes_the_unclaimed():
    claimed = {g for s in all_suites().values() if s.name != "other" for g in s.games}
    assert set(all_games()) == claimed | set(get_suite("other").games)
    rest = other.suite(claimed - {"tictactoe"})
    assert rest.games == ("tictactoe",)


def test_a_variant_selects_its_own_matches(db):
    def games(selection: Selection) -> list[tuple]:
        where, params = selection.where("m")
        return store.rows(db, f"SELECT game, json_extract_string(params, '$.rules') FROM matches m WHERE {where} "
                              "ORDER BY 1, 2", params)

    assert games(ALL.within(get_suite("wis").variants)) == [("undercover", "wis")]
    assert games(ALL.within(get_suite("magic").variants)) == [("undercover", "magic")]
    assert games(ALL.within(get_suite("llmarena").variants)) == [("tictactoe", None)]
    assert games(Selection(agents=("bot:equilibrium",))) == [("tictactoe", None)]
    assert games(ALL.of_game("undercover")) == [("undercover", "magic"), ("undercover", "wis")]
    assert games(Selection(games=("tictactoe",)).of_game("undercover")) == []


def test_a_suite_board_narrowed_to_its_variants(db):
    rates = get_suite("other").leaderboard(db)
    assert rates.empty  # every game here belongs to a paper
    wis = get_suite("wis").leaderboard(db).set_index("agent")
    assert wis.loc["bot:random", "games"] == 5  # its five seats of the WiS game, not the three of the MAgIC one


def test_own_tables_leave_self_play_out_unless_the_paper_plays_it(db):
    """The MAgIC Undercover game here is bot:random in every seat: MAgIC's own table counted it (a challenger
    against itself); like the headline, it leaves it out now. γ-Bench's protocol is one model in every seat,
    scored against the game's optimum: its table keeps self-play, and says so."""
    assert get_suite("magic").leaderboard(db).empty
    assert not get_suite("magic").board(db).empty  # the scorer itself still reads what it is given
    assert get_suite("gamabench").self_play and "keeps self-play" in get_suite("gamabench").caption


def test_scores_command_reads_every_suite(db, capsys):
    for name in all_suites():
        assert main(["scores", "--suite", name, "--db", str(db), "--format", "json"]) == 0
    capsys.readouterr()
    assert main(["scores", "--suite", "wis", "--db", str(db), "--format", "csv"]) == 0
    assert capsys.readouterr().out.startswith("agent,strategy,ranking,points_per_game,points_per_game_lo,"
                                              "points_per_game_hi,games,win_rate (%)")


COOPERATIVE = {"name": "cooperative", "seed": 2, "repeats": 3, "games": [
    {"game": "hanabi", "lineups": [{"all": "bot:hint_follower"}, {"all": "bot:random"}]},
    {"game": "tictactoe", "lineups": [["bot:equilibrium", "bot:random"], ["bot:random", "bot:random"]]},
]}


@pytest.fixture(scope="module")
def cooperative_db(tmp_path_factory):
    path = tmp_path_factory.mktemp("cooperative") / "results.duckdb"
    asyncio.run(run_spec(parse_spec(COOPERATIVE), path, progress=False))
    return path


def test_a_cooperative_games_self_play_counts_in_every_table(cooperative_db, capsys):
    """Hanabi declares that its seats share one score (`Game.cooperative`): two copies of one agent are the game,
    so its self-play matches stay in LLMArena's table (`scores`), the headline's games and the win-rate figures.
    TicTacToe is competitive: its self-play stays out of them."""
    import io

    import pandas as pd

    from engine.papers import headline
    from engine.store.selection import cooperative_games

    assert cooperative_games() == ["hanabi"]
    assert main(["scores", "--suite", "llmarena", "--db", str(cooperative_db), "--format", "csv"]) == 0
    table = pd.read_csv(io.StringIO(capsys.readouterr().out)).set_index("agent")
    assert {"tictactoe", "hanabi", "hanabi_reward (0-10)"} <= set(table.columns)
    assert table["hanabi"].notna().sum() == 2 and table["games"].max() == 2
    assert headline.coverage(cooperative_db, "llmarena") == (["tictactoe", "hanabi"], [])
    hanabi = headline.agent_figures(cooperative_db, ALL.of_game("hanabi")).set_index("agent")
    assert hanabi["matches"].to_dict() == {"bot:hint_follower": 3, "bot:random": 3}
    tictactoe = headline.agent_figures(cooperative_db, ALL.of_game("tictactoe")).set_index("agent")
    assert tictactoe.loc["bot:random", "matches"] == 3  # its three matches against itself are left out


def test_what_counts_as_cooperative_is_what_the_game_declares(cooperative_db, monkeypatch):
    """Not the game's name: a competitive game declared cooperative keeps its self-play too, and Hanabi declared
    competitive loses it."""
    from engine.games import get_game
    from engine.papers.headline import agent_figures

    monkeypatch.setattr(get_game("tictactoe"), "cooperative", True)
    monkeypatch.setattr(get_game("hanabi"), "cooperative", False)
    assert agent_figures(cooperative_db, ALL.of_game("tictactoe")).set_index("agent").loc["bot:random",
                                                                                          "matches"] == 6
    assert agent_figures(cooperative_db, ALL.of_game("hanabi")).empty


def with_board(monkeypatch, name: str, board) -> None:
    """Suite `name` with another leaderboard function, for this test (a suite holds its scorer, not its name)."""
    from dataclasses import replace

    monkeypatch.setitem(all_suites(), name, replace(get_suite(name), board=board))


def test_scores_prints_the_same_digits_for_the_same_data(db, capsys, monkeypatch):
    """DuckDB's parallel sums give the same ranking as 1540.0000000000055 one time and 1540.000000000006 the
    next (after a rescore): `scores` prints both at the one precision (6 significant digits), in every format."""
    import pandas as pd

    printed = {}
    for noisy in (1540.0000000000055, 1540.000000000006):
        board = pd.DataFrame({"agent": ["a"], "strategy": ["-"], "ranking": [noisy], "games": [3],
                              "win_rate": [2 / 3 + (noisy - 1540)]})
        with_board(monkeypatch, "wis", lambda db, selection=ALL, board=board: board)
        for form in ("table", "csv", "json"):
            assert main(["scores", "--suite", "wis", "--db", str(db), "--format", form]) == 0
            printed.setdefault(form, set()).add(capsys.readouterr().out)
    assert all(len(outputs) == 1 for outputs in printed.values()), printed
    assert "1540.0,3,66.6667" in printed["csv"].pop()  # the win rate in percent, at the one precision
    assert '"ranking":1540.0' in printed["json"].pop().replace(" ", "")


def test_a_table_failing_to_compute_is_one_line_and_its_exit_code(db, capsys, monkeypatch):
    from engine.cli.main import EXIT_SCORING

    def broken(db, selection=ALL):
        raise FloatingPointError("Cannot calculate correctly\nsecond line")

    with_board(monkeypatch, "wis", broken)
    assert main(["scores", "--suite", "wis", "--db", str(db)]) == EXIT_SCORING == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "wis table could not be computed (FloatingPointError: Cannot calculate correctly)" in err


SUITE_NAMES = tuple(all_suites())


def suite_names_compared_in(path) -> list[str]:
    """Where the file's code tells suites apart by name: a suite's name (a string) compared with something, used as a
    dict key or an index, or looked up with `.get`/`.pop`."""
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))

    def named(node) -> bool:
        return isinstance(node, ast.Constant) and node.value in SUITE_NAMES

    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            sides = [n for side in (node.left, *node.comparators)
                     for n in (side.elts if isinstance(side, ast.Tuple | ast.List | ast.Set) else [side])]
            found += [n.value for n in sides if named(n)]
        elif isinstance(node, ast.Dict):
            found += [k.value for k in node.keys if k is not None and named(k)]
        elif isinstance(node, ast.Subscript) and named(node.slice):
            found.append(node.slice.value)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("get", "pop"):
            found += [a.value for a in node.args if named(a)]
    return [f"{path.name}: '{name}'" for name in found]


def test_no_page_tells_suites_apart_by_name():
    """How a suite's table is shown is declared with the suite (`Suite.layout`): a page reads it for whichever suite
    it shows, so a new suite needs no page changed (pages/abilities.py, MAgIC's own page, may ask for its suite by
    name: a call, not a comparison)."""
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    files = [root / "app.py", *sorted((root / "pages").rglob("*.py"))]
    assert len(files) > 10
    assert [hit for path in files for hit in suite_names_compared_in(path)] == []


def test_the_name_check_sees_each_way_of_telling_suites_apart(tmp_path):
    path = tmp_path / "page.py"
    path.write_text('if suite.name == "wis": pass\nKEY = {"magic": 1}\nx = PAPER["llmarena"]\ny = ASIDE.get("other")\n'
                    'z = name in ("gamabench",)\nSUITE = get_suite("magic")\nmore = count(2, "other")\n')
    assert suite_names_compared_in(path) == ["page.py: 'wis'", "page.py: 'magic'", "page.py: 'llmarena'",
                                             "page.py: 'other'", "page.py: 'gamabench'"]


def test_each_layout_names_columns_its_board_has(db):
    """A layout names the board's columns; a renamed or dropped column would silently show the table otherwise."""
    from engine.papers.magic.abilities import ABILITY_COLUMNS, PROFILE_COLUMNS

    def named(layout) -> set[str]:
        coverage = (layout.coverage.value, layout.coverage.parts) if layout.coverage else ()
        by_role = layout.by_role.columns if layout.by_role else []
        return {*layout.key, *(c for group in layout.aside.values() for c in group), *by_role, *coverage,
                *layout.always_shown, *layout.renamed}

    assert named(get_suite("magic").layout) <= set(PROFILE_COLUMNS)
    assert set(ABILITY_COLUMNS) <= set(get_suite("magic").layout.renamed)  # every ability shown, short
    assert named(get_suite("wis").layout) <= set(get_suite("wis").board(db).columns)
    assert named(get_suite("gamabench").layout) <= set(get_suite("gamabench").board(db).columns)


def test_a_layout_marks_partial_rows_orders_and_renames():
    """pages/shared/own_tables.py shows any suite's table from its layout alone: the average over fewer parts than
    the whole marked and put last (fewer parts lower), the key columns first, renamed columns, and a
    blank column kept only when the layout keeps it."""
    import pandas as pd

    from engine.papers.base import Coverage, TableLayout
    from engine.present.suite_tables import complete_first, own_table_view, partial_rows

    board = pd.DataFrame({"agent": ["a", "b", "c"], "skill": [0.5, 0.25, 1.0], "blank": [None] * 3,
                          "kept": [None] * 3, "average": [40.0, 90.0, 100.0], "parts": [3, 2, 1]})
    layout = TableLayout(key=("average", "parts"), coverage=Coverage("average", "parts", 3, "games"),
                         always_shown=("kept",), renamed={"skill": "Skill", "average": "mean"})
    assert list(partial_rows(board, layout)) == [False, True, True]
    assert list(complete_first(board, layout)["agent"]) == ["a", "b", "c"]
    view = own_table_view(board, layout)
    assert list(view.columns) == ["agent", "mean", "parts", "Skill", "kept"]
    assert list(view["mean"]) == ["40.00", "90.00 (partial)", "100.00 (partial)"]
    assert list(view["parts"]) == ["3 of 3", "2 of 3", "1 of 3"] and list(view["Skill"]) == ["0.50", "0.25", "1.00"]
    assert list(own_table_view(board, TableLayout())["agent"]) == ["a", "b", "c"]


def game_lists_in(path, games: set[str]) -> list[str]:
    """The literal tuples, lists and sets of two or more of the papers' games in the file's code."""
    import ast

    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Tuple | ast.List | ast.Set):
            names = [e.value for e in node.elts if isinstance(e, ast.Constant) and e.value in games]
            if len(names) >= 2:
                found.append(f"{path.name}:{node.lineno} {names}")
    return found


# MAgIC's scorers still copy its theory games; engine/papers/magic/games.py's THEORY is the list to read there
def test_scorers_read_their_game_lists_from_the_suite():
    """A paper's game list is its games.py (engine/papers/<paper>/games.py): a scorer that kept its own copy would miss
    a game added to the suite."""
    from pathlib import Path

    games = {g for s in all_suites().values() if s.name != "other" for g in s.games}
    engine = Path(__file__).resolve().parent.parent / "engine"
    readers = {"games.py", "authors_prompts.py", "importer.py", "record_names.py", "record_replay.py"}  # no scorers
    metrics = sorted(path for path in {*(engine / "papers").rglob("*.py"), *(engine / "score").glob("*.py")}
                     if path.name not in readers)
    assert len(metrics) > 20
    assert [hit for path in metrics for hit in game_lists_in(path, games)] == []
