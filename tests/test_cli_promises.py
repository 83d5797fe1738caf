"""What the README's command table promises and no other test holds: the table names every command and option
the CLI has (and only those), `--if-empty` leaves a database that holds matches alone, `--db` defaults to
`$ARENA_DB`, else `results.duckdb` at the repository root, and `serve` listens on 127.0.0.1:8501 by default."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from engine import store
from engine.cli.main import main

ROOT = Path(__file__).resolve().parent.parent


def readme_table() -> dict[str, set[str]]:
    """Per command of the README's command table, the options its rows name."""
    table: dict[str, set[str]] = {}
    for line in (ROOT / "README.md").read_text(encoding="utf-8").splitlines():
        row = re.match(r"\| `python -m engine (\w+)([^`]*)`", line)
        if row:
            table.setdefault(row.group(1), set()).update(re.findall(r"--[\w-]+", row.group(2)))
    return table


def cli_help(capsys, *command: str) -> str:
    with pytest.raises(SystemExit) as done:
        main([*command, "--help"])
    assert done.value.code == 0
    return capsys.readouterr().out


def test_the_readmes_command_table_names_every_command_and_option_and_no_other(capsys):
    table = readme_table()
    listed = re.search(r"\{([\w,]+)\}", cli_help(capsys)).group(1).split(",")
    assert sorted(table) == sorted(listed)
    for command, options in table.items():
        real = set(re.findall(r"--[\w-]+", cli_help(capsys, command))) - {"--help"}
        said = options | ({"--db"} if "--db" in real else set())  # the table says once that every command takes it
        assert said == real, command


def bot_spec(path: Path, name: str) -> Path:
    path.write_text(yaml.safe_dump({"name": name, "seed": 0, "repeats": 1,
                                    "games": [{"game": "tictactoe", "lineups": [{"all": "bot:random"}]}]}))
    return path


def test_if_empty_plays_into_an_empty_database_and_leaves_one_with_matches_alone(tmp_path, capsys):
    db = tmp_path / "results.duckdb"
    assert main(["run", str(bot_spec(tmp_path / "a.yaml", "first")), "--db", str(db), "--if-empty", "--quiet"]) == 0
    assert store.count_matches(db) == 1
    assert main(["run", str(bot_spec(tmp_path / "b.yaml", "second")), "--db", str(db), "--if-empty", "--quiet"]) == 0
    assert "already holds matches" in capsys.readouterr().out
    assert store.rows(db, "SELECT name FROM runs") == [("first",)]


def test_an_edited_spec_under_its_old_name_is_refused_and_the_unedited_one_still_resumes(tmp_path, capsys):
    """An attacker's report: a spec edited (repeats 20 -> 30) and run again under its name played all 30 as a
    second run, and every table counted the first 20 twice."""
    db, spec = tmp_path / "results.duckdb", tmp_path / "study.yaml"
    assert main(["run", str(bot_spec(spec, "study")), "--db", str(db), "--quiet"]) == 0
    first = store.rows(db, "SELECT run_id FROM runs")
    spec.write_text(spec.read_text().replace("repeats: 1", "repeats: 3"))
    assert main(["run", str(spec), "--db", str(db), "--quiet"]) == 2
    said = capsys.readouterr().err
    assert f"holds a run named 'study' played from another version of this spec ({first[0][0]})" in said
    assert "give the edited spec another name" in said and len(said.strip().splitlines()) == 1
    assert store.rows(db, "SELECT run_id FROM runs") == first and store.count_matches(db) == 1
    spec.write_text(spec.read_text().replace("repeats: 3", "repeats: 1"))
    assert main(["run", str(spec), "--db", str(db), "--quiet"]) == 0  # the same spec resumes (nothing left)
    assert store.count_matches(db) == 1


def test_a_run_whose_model_has_no_key_is_refused_before_it_plays(tmp_path, capsys, monkeypatch):
    """A new user's report: without OPENAI_API_KEY `run` retried for 41 s, then stored the match as an error
    ("Cannot connect to host api.openai.com:443 ssl:<ssl.SSLContext object at 0x...>"), exit 1, where the Launch
    form said at once "no key". The command says it in one line, exit 2, and stores nothing."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.chdir(tmp_path)  # no .env of the repository's
    spec = tmp_path / "nokey.yaml"
    spec.write_text(yaml.safe_dump({"name": "nokey", "games": [{"game": "tictactoe", "lineups": [
        [{"agent": "openai/gpt-99-ultra"}, {"agent": "bot:random"}]]}]}), encoding="utf-8")
    db = tmp_path / "nokey.duckdb"
    assert main(["run", str(spec), "--db", str(db)]) == 2
    assert capsys.readouterr().err == (f"error in {spec}: openai/gpt-99-ultra: no key: set OPENAI_API_KEY in the "
                                       "environment or in .env\n")
    assert not db.exists()


def test_the_default_database_is_arena_db_else_results_duckdb_at_the_root(monkeypatch, tmp_path):
    monkeypatch.setenv("ARENA_DB", str(tmp_path / "mine.duckdb"))
    assert store.default_db() == tmp_path / "mine.duckdb"
    monkeypatch.delenv("ARENA_DB")
    assert store.default_db() == ROOT / "results.duckdb"


def test_serve_defaults_to_this_machine_on_port_8501_and_the_default_database(monkeypatch):
    import engine.cli.main as cli

    served = []
    monkeypatch.setattr(cli, "_cmd_serve", lambda args: served.append(args) or 0)
    assert cli.main(["serve"]) == 0
    (args,) = served
    assert (args.address, args.port, args.db, args.allowed_host) == ("127.0.0.1", 8501, str(store.default_db()), [])
