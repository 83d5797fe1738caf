"""Hostile run specs are refused whole before anything is written: each in one line naming the field, exit code 2,
no traceback, no database made. Wrong types, sizes (the YAML itself, anchors that expand past the cap, nesting),
game parameters against their bounds and relations, seats, settings, presets, bot arguments and free text."""

from __future__ import annotations

import asyncio
import os
import resource
import time

import pytest

from engine.cli.main import main
from engine.play.runner import run_spec
from engine.play.spec import SpecError, parse_spec, seat_name
from engine.play.spec_text import MAX_DEPTH, MAX_EXPANDED, MAX_SPEC_CHARS, load_yaml

TWO_BOTS = ["bot:random", "bot:random"]


def _game(**entry) -> dict:
    return {"name": "hostile", "games": [{"game": "tictactoe", "lineups": [TWO_BOTS]} | entry]}


def _params(game: str, **params) -> dict:
    return {"name": "hostile", "games": [{"game": game, "params": params, "lineups": [{"all": "bot:random"}]}]}


def _seat(seat, game: str = "tictactoe") -> dict:
    return {"name": "hostile", "games": [{"game": game, "lineups": [[seat, "bot:random"]]}]}


# (the spec, the field its refusal names, what it says)
HOSTILE = {
    "game a mapping": (_game(game={"x": 1}), "games[0].game", "Input should be a valid string"),
    "game a list": (_game(game=[1, 2]), "games[0].game", "Input should be a valid string"),
    "preset a list": (_game(preset=["default"]), "games[0].preset", "Input should be a valid string"),
    "presets a string": (_game(presets="nosuch"), "games[0].presets", "Input should be a valid list"),
    "presets unknown": (_game(presets=["nosuch"]), "games[0].presets", "has no preset 'nosuch'"),
    "presets twice": (_game(presets=["default", "default"]), "games[0].presets", "lists a preset twice"),
    "params with a number as name": (_game(params={1: 2, "hint": True}), "games[0].params", "a key must be text"),
    "min above max": (_params("guessing_game", min=10, max=5), "games[0].params",
                      "'max' must be larger than 'min' (10), got 5"),
    "hit_max below hit_min": (_params("battle_royale", hit_min=90, hit_max=10), "games[0].params",
                              "'hit_max' must be at least 'hit_min'"),
    "valuations reversed": (_params("sealed_bid_auction", valuation_min=50, valuation_max=10), "games[0].params",
                            "'valuation_max' must be at least 'valuation_min'"),
    "a billion valuations": (_params("sealed_bid_auction", valuation_max=10**9, valuation_step=1), "games[0].params",
                             "at most 100,000"),
    "a billion rounds": (_params("battle_royale", rounds=10**9), "games[0].params",
                                         "'rounds' must be <= 1000"),
    "role_seat past the players": (_params("undercover", role_seat=99), "games[0].params",
                                   "'role_seat' must be below the number of players (3), got 99"),
    "challenger_seat past the players": (_params("chameleon", challenger_seat=50), "games[0].params",
                                         "'challenger_seat' must be below the number of players (3), got 50"),
    "first_speaker past the players": (_params("undercover", first_speaker=7), "games[0].params",
                                       "'first_speaker' must be below the number of players"),
    "a setting that does not exist": (_params("undercover", setting=999999), "games[0].params",
                                      "'setting' must be below 20 (the number of settings), got 999999"),
    "an instance that does not exist": (_params("bargain", instance=5000), "games[0].params",
                                        "'instance' must be below 1000"),
    "fixed clues without scripts": (_params("undercover", words="llmarena", fixed_clues=True), "games[0].params",
                                    "'fixed_clues' needs scripted clues"),
    "a search depth that never ends": (_seat("bot:minimax:99", "connect_four"), "games[0].lineups seat 1",
                                       "bot:minimax:<plies> takes a search depth from 1 to 5, got '99'"),
    "a search depth that is not a number": (_seat("bot:minimax:abc", "connect_four"), "games[0].lineups seat 1",
                                            "got 'abc'"),
    "an argument to a bot that takes none": (_seat("bot:random:7"), "games[0].lineups seat 1",
                                             "bot:random takes no argument"),
    "an injection that does not exist": (_seat("bot:injector:lure", "undercover") | {"games": [
        {"game": "undercover", "lineups": [["bot:injector:lure", "bot:random", "bot:random"]]}]},
        "games[0].lineups seat 1", "bot:injector takes no argument (it attacks) or 'defense'"),
    "a 200,000-character persona": (_seat({"agent": "openai/gpt-4o-mini", "strategy": "persona:" + "x" * 200_000}),
                                    "games[0].lineups[0][0].strategy", "at most 2,000 characters, got 200,008"),
    "a strategy that is a list": (_seat({"agent": "openai/gpt-4o-mini", "strategy": ["cot"]}),
                                  "games[0].lineups[0][0].strategy", "Input should be a valid string"),
    "a 200,000-character description": (_game() | {"description": "x" * 200_000}, "description",
                                        "at most 10,000 characters"),
    "max_tokens of a billion": (_seat({"agent": "openai/gpt-4o-mini", "max_tokens": 10**9}),
                                "games[0].lineups[0][0].max_tokens",
                                "Input should be less than or equal to 1000000"),
    "an alias that is a list": (_game() | {"agents": {"mine": [1]}}, "agents.mine", "an agent string or a mapping"),
    "defaults a list": (_game() | {"defaults": ["cot"]}, "defaults", "Input should be a valid dictionary"),
    "a nested key that is a number": (_game() | {"description": {1: "x"}}, "description", "a key must be text"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_hostile_spec_is_refused_in_one_line_naming_its_field(case):
    raw, field, says = HOSTILE[case]
    with pytest.raises(SpecError) as refused:
        parse_spec(raw)
    message = str(refused.value)
    assert "\n" not in message and message.startswith(field) and says in message, message


def _cli_refusal(tmp_path, capsys, text: str) -> str:
    """Run the real command on the spec text: exit 2, one line, no traceback, no database (nor its folder)."""
    spec = tmp_path / "hostile.yaml"
    spec.write_text(text, encoding="utf-8")
    db = tmp_path / "results" / "results.duckdb"
    assert main(["run", str(spec), "--quiet", "--db", str(db)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"error in {spec}: ") and "\n" not in err and "Traceback" not in err
    assert not db.parent.exists()
    return err


CLI = {
    "game: {x: 1}": "games[0].game: Input should be a valid string, got {'x': 1}",
    "game: [1, 2]": "games[0].game: Input should be a valid string, got [1, 2]",
    "preset: [default]": "games[0].preset: Input should be a valid string, got ['default']",
    "presets: nosuch": "games[0].presets: Input should be a valid list, got 'nosuch'",
    "params: {hint: true, 1: 2}": "games[0].params: a key must be text, got 1",
}


@pytest.mark.parametrize("line", sorted(CLI))
def test_the_command_refuses_wrong_types_in_one_line_with_exit_2(tmp_path, capsys, line):
    text = (f"name: hostile\ngames:\n  - game: tictactoe\n    {line}\n    lineups: [[bot:random, bot:random]]\n"
            if not line.startswith("game:") else
            f"name: hostile\ngames:\n  - {line}\n    lineups: [[bot:random, bot:random]]\n")
    assert CLI[line] in _cli_refusal(tmp_path, capsys, text)


@pytest.mark.parametrize("game, params, lineup, says", [
    ("guessing_game", "{min: 10, max: 5}", "{all: bot:random}", "'max' must be larger than 'min'"),
    ("undercover", "{role_seat: 99}", "{all: bot:random}", "'role_seat' must be below the number of players"),
    ("undercover", "{setting: 999999}", "{all: bot:random}", "'setting' must be below 20"),
    ("chameleon", "{challenger_seat: 50}", "{all: bot:random}", "'challenger_seat' must be below"),
    ("connect_four", "{}", "[bot:minimax:99, bot:random]", "search depth from 1 to 5, got '99'"),
    ("connect_four", "{}", "[bot:minimax:abc, bot:random]", "search depth from 1 to 5, got 'abc'"),
])
def test_the_command_refuses_what_failed_per_match_before_any_is_played(tmp_path, capsys, game, params, lineup, says):
    text = f"name: hostile\ngames:\n  - {{game: {game}, params: {params}, lineups: [{lineup}]}}\n"
    assert says in _cli_refusal(tmp_path, capsys, text)


def _anchor_bomb(field: str) -> str:
    """Ten levels of ten aliases each: 10^10 copies of one word once expanded, in about 500 characters."""
    levels = "".join(f"\n    l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 10) + "]" for i in range(1, 10))
    return (f"name: bomb\n{field}:\n    l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]{levels}\n"
            "games:\n  - {game: tictactoe, lineups: [[bot:random, bot:random]]}\n")


@pytest.mark.parametrize("field", ["description", "agents"])
def test_an_anchor_bomb_is_refused_at_once_and_in_little_memory(tmp_path, capsys, field):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.monotonic()
    err = _cli_refusal(tmp_path, capsys, _anchor_bomb(field))
    assert time.monotonic() - start < 5
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 100_000  # KB: under 100 MB more
    assert f": {field}.l" in err and f"more than {MAX_EXPANDED:,} nodes and characters" in err


def test_a_merge_key_bomb_is_refused_before_it_is_built():
    """`<<:` copies the merged mapping's entries while PyYAML builds the document: refused before that."""
    text = "m0: &m0 {a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: 7, h: 8, i: 9, j: 10}\n" + "".join(
        f"m{i}: &m{i} {{<<: [{', '.join([f'*m{i - 1}'] * 10)}]}}\n" for i in range(1, 9))
    start = time.monotonic()
    with pytest.raises(SpecError, match="more than .* nodes and characters once its YAML aliases are expanded"):
        load_yaml(text)
    assert time.monotonic() - start < 5


def test_deep_nesting_and_self_reference_are_refused_in_one_line(tmp_path, capsys):
    deep = "name: deep\ndescription: " + "[" * 3000 + "]" * 3000 + "\ngames: []\n"
    assert f"line 2: nested more than {MAX_DEPTH} deep" in _cli_refusal(tmp_path, capsys, deep)
    looped = "name: loop\ndescription: &me [*me]\ngames: []\n"
    assert f"nested more than {MAX_DEPTH} deep once its YAML aliases are expanded" in _cli_refusal(
        tmp_path, capsys, looped)
    with pytest.raises(SpecError, match=f"nested more than {MAX_DEPTH} deep"):  # built in code, not read from YAML
        nested: list = []
        for _ in range(MAX_DEPTH + 5):
            nested = [nested]
        parse_spec(_game() | {"description": nested})


def test_a_spec_file_past_the_cap_or_not_a_file_is_refused(tmp_path, capsys):
    huge = "name: huge\ndescription: " + "x" * MAX_SPEC_CHARS + "\ngames: []\n"
    assert f"longer than {MAX_SPEC_CHARS:,} characters" in _cli_refusal(tmp_path, capsys, huge)
    fifo = tmp_path / "spec.fifo"
    os.mkfifo(fifo)
    assert main(["run", str(fifo), "--quiet", "--db", str(tmp_path / "never.duckdb")]) == 2
    assert "is not a regular file" in capsys.readouterr().err
    assert not (tmp_path / "never.duckdb").exists()


def test_a_spec_within_every_bound_still_plays(db_path):
    raw = {"name": "fine", "description": "x" * 10_000, "games": [
        {"game": "connect_four", "lineups": [["bot:minimax:5", "bot:random"]]},
        {"game": "undercover", "params": {"role_seat": 2, "first_speaker": 2, "setting": 19, "challenger_seat": 2},
         "lineups": [["bot:injector:defense", "bot:letters", "bot:letters"]]},
        {"game": "guessing_game", "params": {"min": 0, "max": 1}, "lineups": [{"all": "bot:random"}]}]}
    summary = asyncio.run(run_spec(parse_spec(raw), db_path, progress=False))
    assert summary.errors == 0, summary.error_messages


@pytest.mark.parametrize("agents", [{"a": "bot:random", "b": "a"}, {"a": "b", "b": "a"},
                                    {"a": "bot:random", "b": {"agent": "a", "temperature": 0.5}}])
def test_an_alias_naming_another_alias_is_refused_when_the_spec_is_read(agents):
    """An attack: `b: a` passed the checks, its matches were played with `a` sent to litellm as a model name and
    errored 22 s later (exit 1, an errored run left in the database)."""
    raw = {"name": "aliases", "agents": agents,
           "games": [{"game": "tictactoe", "lineups": [["a", "b"]]}]}
    with pytest.raises(SpecError, match=r"agents\.\w: names the alias '?\w'?; an alias names an agent"):
        parse_spec(raw)


def test_a_key_given_twice_is_refused_naming_its_line():
    """An attack: `name: x` then `name: y` played run y without a word (YAML keeps the last)."""
    with pytest.raises(SpecError, match=r"line 2: 'name' is given twice in the spec; give it once"):
        load_yaml("name: x\nname: y\ngames: []\n")
    with pytest.raises(SpecError, match=r"line 4: 'game' is given twice in games"):
        load_yaml("name: x\ngames:\n  - game: tictactoe\n    game: bid\n")
    assert load_yaml("a: &a {x: 1}\nb:\n  <<: *a\n  y: 2\n") == {"a": {"x": 1}, "b": {"x": 1, "y": 2}}


@pytest.mark.parametrize("raw, where, code", [
    ({"name": "x", "agents": {"a": {"agent": "bot:random", "label": "lab\x1b[2J\x1b[31mRED\u202eevil"}},
      "games": [{"game": "tictactoe", "lineups": [["a", "bot:random"]]}]}, r"lineups\[0\]\[0\]\.label", "001B"),
    (_game() | {"description": "d\x1b[2Jx\x00y"}, "description", "001B"),
    (_seat({"agent": "openai/m", "strategy": "persona:\u202eevil"}), r"lineups\[0\]\[0\]\.strategy", "202E"),
    (_seat({"agent": "openai/m", "prompt_version": "v1\x07"}), r"lineups\[0\]\[0\]\.prompt_version", "0007"),
])
def test_control_characters_are_refused_in_labels_free_text_and_settings(raw, where, code):
    """An attack: a label given in an alias, a description or a persona kept ANSI escapes (they cleared and coloured
    the terminal `scores` printed to) and bidi overrides (a label read as another agent's name)."""
    with pytest.raises(SpecError, match=rf"{where}: .*control character \(U\+{code}\)"):
        parse_spec(raw)
    assert parse_spec(_game() | {"description": "two lines\nand a tab\there, a family 👨‍👩‍👧"})


def test_one_label_for_two_agents_is_refused_and_a_label_is_kept_stripped():
    """An attacker's report: two different agents labelled alike in one lineup played, then `scores` printed no
    results (their match counted as self-play), with no word; a label "Alice\u00a0" stood beside "Alice" as
    another row that reads the same. Issue 40: one label for each game's defender showed four bots as one. A label
    naming two different agent strings anywhere in a spec is refused, naming the label and both agents; one model
    under one label at two settings is two names told apart by the setting; the same agent under one label in several
    games is one agent; a label is stripped."""
    def spec(*seats):
        return {"name": "x", "games": [{"game": "tictactoe", "lineups": [list(seats)]}]}

    with pytest.raises(SpecError, match=r"tictactoe: the label 'A' names two different agents "
                                        r"\(bot:random and bot:equilibrium\)"):
        parse_spec(spec({"agent": "bot:random", "label": "A"}, {"agent": "bot:equilibrium", "label": "A"}))
    one_model = parse_spec(spec({"agent": "openai/gpt-4o", "label": "gpt"},  # one model at two settings
                                {"agent": "openai/gpt-4o", "label": "gpt", "temperature": 0.2}))
    assert [seat_name(seat, one_model.matches[0]) for seat in one_model.matches[0].seats] == ["gpt · openai/gpt-4o",
                                                                        "gpt · openai/gpt-4o (t=0.2)"]
    kept = parse_spec(spec({"agent": "bot:random", "label": "Alice\u00a0"}, {"agent": "bot:equilibrium",
                                                                          "label": "Bob"}))
    assert kept.matches[0].seats[0].label == "Alice"
    with pytest.raises(SpecError, match="connect_four: the label 'defender' names two different agents"):
        parse_spec({"name": "y", "games": [
            {"game": "tictactoe", "lineups": [["bot:random", {"agent": "bot:equilibrium", "label": "defender"}]]},
            {"game": "connect_four", "lineups": [["bot:random", {"agent": "bot:minimax", "label": "defender"}]]}]})
    same = parse_spec({"name": "z", "games": [
        {"game": "tictactoe", "lineups": [["bot:equilibrium", {"agent": "bot:random", "label": "defender"}]]},
        {"game": "connect_four", "lineups": [["bot:minimax", {"agent": "bot:random", "label": "defender"}]]}]})
    assert len(same.matches) == 2


@pytest.mark.parametrize("entry, says", [
    ({"lineups": [{"challenger": "bot:random", "others": "bot:random", "rotat": True}]},
     "games[1].lineups[0].rotat: unknown key; allowed: challenger, others, rotate"),
    ({"lineups": [["bot:random", {"agent": "openai/m", "temprature": 0.5}]]},
     "games[1].lineups[0][1].temprature: unknown key; allowed: agent, api_base, label, max_tokens, prompt_version, "
     "strategy, temperature"),
    ({"lineups": [["bot:random", {"agent": "openai/m", "api_base": ["http://a/v1", "a:80"]}]]},
     "games[1].lineups[0][1].api_base[1]: 'a:80' is not a URL"),
    ({"lineup": [TWO_BOTS]},
     "games[1].lineup: unknown key; allowed: game, lineups, mirror, params, preset, presets, repeats"),
])
def test_a_misspelt_or_wrong_setting_is_named_by_its_full_path(entry, says):
    raw = {"name": "located", "games": [{"game": "tictactoe", "lineups": [TWO_BOTS]}, {"game": "tictactoe"} | entry]}
    with pytest.raises(SpecError) as refused:
        parse_spec(raw)
    assert str(refused.value).startswith(says), refused.value
