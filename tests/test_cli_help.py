"""The CLI explains itself: every option and argument of every command has a help text (read from the printed
`--help`, as a user sees it), a choice such as `scores --suite other` is said in words, and `games` prints each
parameter's default and the values it accepts."""

from __future__ import annotations

import re

import pytest

from engine.cli.main import main


def printed_help(capsys, *command: str) -> str:
    with pytest.raises(SystemExit) as done:
        main([*command, "--help"])
    assert done.value.code == 0
    return capsys.readouterr().out


def entries(help_text: str) -> dict[str, str]:
    """Each option or argument of a command's printed help -> its help text (argparse prints the help on the entry's
    line after two spaces, or on the lines below it, indented deeper)."""
    found: dict[str, str] = {}
    current = None
    in_list = False
    for line in help_text.splitlines():
        if line.endswith(":") and not line.startswith(" "):  # "options:", "positional arguments:"
            in_list = line in ("options:", "positional arguments:")
            continue
        if not in_list or not line.strip():
            continue
        entry = re.match(r"^  (\S.*?)(?:\s{2,}(\S.*))?$", line)
        if entry and not line.startswith("    " + " " * 10):
            current = entry.group(1)
            found[current] = entry.group(2) or ""
        elif current is not None:
            found[current] += " " + line.strip()
    return found


def commands(capsys) -> list[str]:
    return re.search(r"\{([\w,]+)\}", printed_help(capsys)).group(1).split(",")


def test_every_option_of_every_command_has_a_help_text(capsys):
    listed = commands(capsys)
    assert {"run", "games", "scores", "rescore", "import", "tournament", "serve"} <= set(listed)
    for command in listed:
        options = entries(printed_help(capsys, command))
        assert options, command
        unexplained = [option for option, text in options.items() if not text.strip()]
        assert not unexplained, f"`{command}` prints no help for {unexplained}"
        said = printed_help(capsys, command).split("\n\n")[1]  # under its usage line: what the command does
        assert not said.lstrip().startswith(("positional arguments", "options")), f"`{command}` says not what it does"


def test_the_help_parser_sees_an_option_without_help():
    """The check above can fail: an entry with nothing beside or below it is read as unexplained."""
    text = "usage: x\n\noptions:\n  -h, --help  show this help\n  --db DB\n  --format {a,b}\n                 a: one\n"
    assert entries(text) == {"-h, --help": "show this help", "--db DB": "", "--format {a,b}": " a: one"}


def test_scores_says_what_each_suite_holds_including_other(capsys):
    text = " ".join(printed_help(capsys, "scores").split())
    for suite in ("gamabench", "magic", "llmarena", "wis"):
        assert f"{suite}: " in text
    assert "other: Other games, the games no paper's suite plays" in text
    assert "csv or json" in text and "$ARENA_DB" in text


def test_import_lists_the_importers_it_has_and_not_their_parts(capsys, tmp_path):
    text = " ".join(printed_help(capsys, "import").split())
    assert "e.g." not in text
    assert "gamabench: GAMA-Bench's published raw records" in text
    assert "record_names" not in text and "record_replay" not in text  # parts of the importer, no sources
    assert main(["import", "record_names", str(tmp_path), "--db", str(tmp_path / "r.duckdb")]) == 2
    err = capsys.readouterr().err.strip()
    assert err == "error: no importer named 'record_names' (known: gamabench)", err


def test_games_prints_each_parameters_default_and_bounds(capsys):
    assert main(["games"]) == 0
    out = capsys.readouterr().out
    assert "  players = 10 (whole number, 2 to 100): number of players" in out  # bounded on both sides
    assert "  ratio = 0.6 (number, 0 to 1): " in out
    assert "  mode = 'implicit' (one of 'implicit', 'explicit'): " in out
    assert "  home = 5 (whole number, -1,000,000,000 to 1,000,000,000): " in out  # only the general bound
    parameter_lines = [line for line in out.splitlines() if re.match(r"^  \w+ = ", line)]
    assert parameter_lines and all(re.match(r"^  \w+ = .+ \(.+\): ", line) for line in parameter_lines)
