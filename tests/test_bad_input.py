"""Bad databases, bad paths, bad spec files: one line saying what to do, exit code 2, no traceback,
nothing changed, and on the dashboard the same line instead of an exception box."""

from __future__ import annotations

import hashlib
import os
import re
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
from streamlit.testing.v1 import AppTest

from engine import store
from engine.cli.main import main
from engine.play.spec import MAX_MATCHES, MAX_REPEATS, MAX_SEED, SpecError, load_spec, parse_spec

pytestmark = pytest.mark.slow

RECORDS = Path(__file__).parent.parent / "engine" / "papers" / "gamabench" / "raw_results"
SPEC = "name: tiny\ngames:\n  - game: tictactoe\n    lineups: [[bot:random, bot:random]]\n"


@pytest.fixture
def spec_file(tmp_path):
    path = tmp_path / "tiny.yaml"
    path.write_text(SPEC)
    return path


def _valid_db(path):
    store.init_db(path)


def _newer_db(path):
    store.init_db(path)
    with duckdb.connect(str(path)) as con:
        con.execute("INSERT INTO schema_version VALUES (?, now())", [store.SCHEMA_VERSION + 1])


def _lacking_a_table_db(path):
    """An attack: this version's schema with the turn log dropped (`rescore`, `run` and `export` printed DuckDB's
    CatalogException as a traceback)."""
    store.init_db(path)
    with duckdb.connect(str(path)) as con:
        con.execute("DROP TABLE turns")


def _foreign_db(path):
    with duckdb.connect(str(path)) as con:
        con.execute("CREATE TABLE invoices(id INTEGER)")


def _truncated_db(path):
    _valid_db(path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 3])


def _cut_short_db(path):
    """Cut after its catalog: DuckDB opens it, and only a query reaching a lost block of a table fails."""
    store.init_db(path)
    with duckdb.connect(str(path)) as con:
        con.execute("INSERT INTO matches (match_id, game, status) "
                    "SELECT 'm' || i, 'tictactoe', 'ok' FROM range(20000) t(i)")
        con.execute("INSERT INTO turns (match_id, turn, response) "
                    "SELECT 'm' || i, i, repeat('x', 200) FROM range(20000) t(i)")
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 3])


def _read_only_db(path):
    _valid_db(path)
    path.chmod(0o444)


def _sqlite_db(path):
    with sqlite3.connect(path) as con:
        con.execute("CREATE TABLE invoices(id INTEGER)")


def _in_read_only_folder(path):
    """DuckDB cannot make the file's `.wal` there: a writer got a TransactionException traceback."""
    _valid_db(path)
    path.parent.chmod(0o555)


BAD_DATABASES = {
    "corrupt": (lambda p: p.write_bytes(os.urandom(50_000)), "not a readable DuckDB database"),
    "truncated": (_truncated_db, "not a readable DuckDB database"),
    "cut short after its catalog": (_cut_short_db, "not a readable DuckDB database"),
    "empty": (lambda p: p.write_bytes(b""), "not a readable DuckDB database"),
    "read-only": (_read_only_db, "is read-only: make it writable"),
    "a directory": (lambda p: p.mkdir(), "is a directory, not a database file"),
    "a newer schema": (_newer_db, "made by a newer version of the arena"),
    "another program's": (_foreign_db, "of something else"),
    "lacking a table": (_lacking_a_table_db, "lacks the table(s) turns of its schema"),
    "a SQLite database": (_sqlite_db, "is a SQLite database, not a DuckDB one"),  # DuckDB fetched an extension
    "in a read-only folder": (_in_read_only_folder, "cannot write in the folder of"),
}
READ_ONLY_IS_FINE_TO_READ = {"read-only", "in a read-only folder"}


def _fingerprint(path):
    if path.is_dir():
        return sorted(os.listdir(path))
    return hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mode


@pytest.mark.parametrize("kind", sorted(BAD_DATABASES))
@pytest.mark.parametrize("command", ["run", "scores", "import", "rescore", "export"])
def test_a_bad_database_is_one_line_exit_2_and_left_as_it_was(tmp_path, spec_file, capsys, kind, command):
    db = tmp_path / "results.duckdb"
    make, says = BAD_DATABASES[kind]
    make(db)
    before = _fingerprint(db)
    argv = {"run": ["run", str(spec_file), "--quiet"], "scores": ["scores", "--suite", "gamabench"],
            "import": ["import", "gamabench", str(RECORDS)], "rescore": ["rescore"],
            "export": ["export", str(tmp_path / "site")]}[command]
    try:
        if kind in READ_ONLY_IS_FINE_TO_READ and command in ("scores", "export"):  # reading a read-only file is fine
            assert main([*argv, "--db", str(db)]) == 0 and _fingerprint(db) == before
            return
        assert main([*argv, "--db", str(db)]) == 2
        err = capsys.readouterr().err.strip()
        assert err.count("\n") == 0 and says in err and "Traceback" not in err
        assert err.startswith(f"error: {db}") or err.startswith("error: cannot")
        assert _fingerprint(db) == before
        assert not (tmp_path / "results.duckdb.wal").exists()
    finally:
        tmp_path.chmod(0o755)


@pytest.mark.parametrize("command", [["run", "{spec}", "--quiet"], ["scores", "--suite", "gamabench"], ["rescore"]])
def test_a_fifo_as_the_database_is_refused_at_once_not_waited_on(tmp_path, spec_file, command):
    """Opening a FIFO blocks until something writes to it: run, scores and rescore hung."""
    fifo = tmp_path / "results.duckdb"
    os.mkfifo(fifo)
    argv = [a.replace("{spec}", str(spec_file)) for a in command]
    done = subprocess.run([sys.executable, "-m", "engine", *argv, "--db", str(fifo)], capture_output=True, text=True,
                          timeout=60, cwd=Path(__file__).parent.parent)
    err = done.stderr.strip()
    assert done.returncode == 2 and err.count("\n") == 0 and "Traceback" not in err
    assert err == f"error: {fifo} is not a regular file (a FIFO, a socket or a device): pass --db (or set ARENA_DB) " \
                  "to a database file"
    assert stat.S_ISFIFO(fifo.stat().st_mode) and not (tmp_path / "results.duckdb.wal").exists()


@pytest.mark.parametrize("kind", ["corrupt", "cut short after its catalog", "a directory", "a newer schema"])
def test_the_dashboard_shows_the_same_line_instead_of_an_exception_box(tmp_path, monkeypatch, kind):
    db = tmp_path / "results.duckdb"
    make, says = BAD_DATABASES[kind]
    make(db)
    monkeypatch.setenv("ARENA_DB", str(db))
    at = AppTest.from_file("../app.py", default_timeout=60).run()
    assert not at.exception
    assert len(at.error) == 1 and says in at.error[0].value and str(db) in at.error[0].value


def _spec_error(capsys, path) -> str:
    assert main(["run", str(path), "--quiet", "--db", str(path.parent / "never.duckdb")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "Traceback" not in err
    assert not (path.parent / "never.duckdb").exists()
    return err


def test_a_spec_path_that_is_a_directory_or_not_utf8_is_one_line(tmp_path, capsys):
    assert "is a directory" in _spec_error(capsys, tmp_path)
    latin = tmp_path / "latin.yaml"
    latin.write_bytes(SPEC.replace("tiny", "caf\xe9").encode("latin-1"))
    assert "not UTF-8" in _spec_error(capsys, latin)


def _raw(**top) -> dict:
    return {"name": "bounded", "games": [{"game": "tictactoe", "lineups": [["bot:random", "bot:random"]]}]} | top


@pytest.mark.parametrize("top, says", [
    ({"repeats": 100_000_000}, f"repeats: Input should be less than or equal to {MAX_REPEATS}"),
    ({"seed": 2**63}, f"seed: Input should be less than or equal to {MAX_SEED}"),
    ({"seed": MAX_SEED, "repeats": 2}, "from 0 to"),
    ({"seeds": [1, 2**63]}, f"seeds[1]: Input should be less than or equal to {MAX_SEED}"),
    ({"seeds": list(range(MAX_REPEATS + 1))}, f"seeds: List should have at most {MAX_REPEATS} items"),
    ({"seeds": [1, 2, 1, 1]}, "a seed given twice counts one sample twice; repeated: [1]"),  # an attacker's report
    ({"concurrency": 10**12}, "concurrency: Input should be less than or equal to 10000"),
    ({"name": "two\nlines"}, "name: 'two\\nlines' has a control character (U+000A) at position 4"),
    ({"name": "bell\x07"}, "a control character (U+0007) at position 5; use printable text"),
    ({"name": [1, 2]}, "name: Input should be a valid string, got [1, 2]"),  # a list is no empty name
])
def test_unbounded_or_unprintable_specs_are_refused_before_anything_is_built(top, says):
    """Each refusal says which field and what is wrong (a control character: which one, where)."""
    with pytest.raises(SpecError, match=re.escape(says)):
        parse_spec(_raw(**top))


def test_a_run_of_more_matches_than_the_bound_is_refused():
    lineups = [["bot:random", "bot:random"]] * 11
    raw = _raw(repeats=MAX_REPEATS) | {"games": [{"game": "tictactoe", "lineups": lineups}]}
    with pytest.raises(SpecError, match=re.escape(f"games[0]: the run would have more than {MAX_MATCHES} matches")):
        parse_spec(raw)


def test_labels_and_agents_with_control_characters_are_refused():
    with pytest.raises(SpecError, match=re.escape("label: 'evil\\x1b[31m' has a control character (U+001B) at")):
        parse_spec(_raw() | {"games": [{"game": "tictactoe", "lineups": [
            [{"agent": "bot:random", "label": "evil\x1b[31m"}, "bot:random"]]}]})


@pytest.mark.parametrize("model, says", [
    ("nosuchprovider/model-x", "unknown provider 'nosuchprovider' in 'nosuchprovider/model-x'"),
    ("gpt-nonexistent", "'gpt-nonexistent' is not a model litellm knows by bare name"),
    ("local/smollm3", "unknown local model 'local/smollm3' (known: local/smollm2)"),
    ("local/../../x", "unknown local model 'local/../../x'"),
    ("openai/", "no model named after 'openai/'")])
def test_a_model_no_provider_serves_is_refused_in_one_line_before_anything_plays(tmp_path, capsys, model, says):
    """An attacker's report: these passed the spec, every match of the run errored, and it exited 1."""
    spec = tmp_path / "models.yaml"
    spec.write_text(f"name: models\ngames:\n  - game: tictactoe\n    lineups: [[{{agent: '{model}'}}, bot:random]]\n")
    db = tmp_path / "r.duckdb"
    assert main(["run", str(spec), "--db", str(db), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error in {spec}: ") and says in err and err.count("\n") == 1, err
    assert not db.exists()


@pytest.mark.parametrize("name, value", [("ratio", 1e300), ("ratio", float("inf")), ("ratio", float("nan")),
                                         ("max", 10**12)])
def test_game_parameters_are_bounded(name, value):
    with pytest.raises(SpecError, match="finite number within"):
        parse_spec(_raw() | {"games": [{"game": "guessing_game", "params": {name: value},
                                        "lineups": [{"all": "bot:random"}]}]})


def test_the_largest_seed_is_written_and_read_back(db_path):
    import asyncio

    from engine.play.runner import run_spec

    summary = asyncio.run(run_spec(parse_spec(_raw(seed=MAX_SEED)), db_path, progress=False))
    assert summary.errors == 0
    assert store.rows(db_path, "SELECT seed FROM matches") == [(MAX_SEED,)]


def test_load_spec_still_reads_a_good_file(spec_file):
    assert load_spec(spec_file).name == "tiny"


@pytest.mark.parametrize("command", [["scores", "--suite", "magic"], ["rescore"]])
def test_scores_and_rescore_of_a_database_that_does_not_exist_say_so(tmp_path, capsys, command):
    """A typo in --db printed "no magic results in ..." with exit 0: the user read an empty table, not the typo."""
    missing = tmp_path / "reslts.duckdb"
    assert main([*command, "--db", str(missing)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "does not exist" in err and str(missing) in err
    assert not missing.exists()


@pytest.mark.parametrize("kind", ["directory", "text"])
def test_serve_refuses_a_path_that_is_no_database_before_it_starts(tmp_path, capsys, kind):
    """`serve --db` with a directory or a text file started the dashboard anyway; it says so in one line now."""
    path = tmp_path / "db"
    if kind == "directory":
        path.mkdir()
    else:
        path.write_text("not a database\n" * 10)
    assert main(["serve", "--db", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and err.count("\n") == 0 and str(path) in err
