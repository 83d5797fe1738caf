"""Acceptance: every study shipped under runs/ played end to end through the command line, as a user builds up a
results file: `make run`'s first run (runs/quick.yaml, the `first_run_db` fixture), then each study played into
that same database with the command its header names, then `scores` for every suite, `rescore`, `scores` again, and
every page of the dashboard on the database. The studies play with their shipped lineups, presets, settings and
repeats (all of them take about a minute: fewer repeats hid a failure that needs a hundred matches, issue 24); only
the round-robin tournament is cut short (`--max-matches`), its rounds the shipped tournament's first ones.

Everything is played once, by the module's fixture; the tests read what the commands printed and the database.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest
import yaml

from engine import store
from engine.games.settings import setting_label
from engine.papers.magic.abilities import SOCIAL_ABILITY_COLUMNS
from engine.papers.registry import all_suites
from engine.play.spec_schema import Spec
from engine.study import tournament
from tests.page_run import run_page
from tests.test_first_run import blanks

STUDIES = sorted(path.stem for path in (store.ROOT / "runs").glob("*.yaml"))
FIRST_RUN = "quick"  # what `make run` plays: the database a user starts from
TOURNAMENT_MATCHES = 8  # per game: every game of the round robin, a round or two each
SUITES = list(all_suites())
FORMATS = ("table", "csv", "json")
PAGES = sorted(path.stem for path in (store.ROOT / "pages").glob("*.py"))
MISSING = {"None", "nan", "NaN", "<NA>", "NaT"}
TRACEBACK = "Traceback (most recent call last)"

# How a game of a paper shows in its suite's table: LLMArena and γ-Bench have a column per game, MAgIC the abilities
# the game measures (its paper's definitions, engine/papers/magic/abilities.py), Who is Spy one ranking.
MAGIC_ABILITIES = {game: [f"{ability} (0-100)" for ability in abilities] for game, abilities in {
    "chameleon": list(SOCIAL_ABILITY_COLUMNS.values()), "undercover": list(SOCIAL_ABILITY_COLUMNS.values()),
    "cost_sharing": ["Cooperation", "Coordination"],
    "prisoners_dilemma": ["Rationality"], "magic_public_good": ["Rationality"]}.items()}


def columns_of(suite: str, game: str) -> list[str]:
    """The columns of `suite`'s table a game of its paper fills."""
    return {"magic": MAGIC_ABILITIES.get(game, [game]), "wis": ["ranking"]}.get(suite, [game])


@dataclass
class Ran:
    """One command as a user typed it, and what it printed."""

    argv: list[str]
    returncode: int
    stdout: str
    stderr: str
    seconds: float

    def failure(self) -> str:
        """Empty when the command exited 0 without a traceback; else what went wrong, to read in the test's report."""
        if self.returncode == 0 and TRACEBACK not in self.stdout + self.stderr:
            return ""
        return (f"`{' '.join(self.argv)}` exited {self.returncode}\n--- stdout (end)\n{self.stdout[-1500:]}\n"
                f"--- stderr (end)\n{self.stderr[-3000:]}")


def engine(*args: str) -> Ran:
    argv = ["python", "-m", "engine", *args]
    start = time.perf_counter()
    done = subprocess.run([sys.executable, *argv[1:]], cwd=store.ROOT, capture_output=True, text=True, timeout=900)
    return Ran(argv, done.returncode, done.stdout, done.stderr, time.perf_counter() - start)


def study_file(study: str) -> Path:
    return store.ROOT / "runs" / f"{study}.yaml"


def is_tournament(study: str) -> bool:
    """A round robin (`engine tournament`, its header says) rather than a run spec (`engine run`)."""
    keys = set(yaml.safe_load(study_file(study).read_text(encoding="utf-8")))
    return bool((keys - set(Spec.model_fields)) & tournament.KEYS)


def play(study: str, db: Path) -> Ran:
    path = str(study_file(study).relative_to(store.ROOT))
    if is_tournament(study):
        return engine("tournament", path, "--db", str(db), "--quiet", "--max-matches", str(TOURNAMENT_MATCHES))
    return engine("run", path, "--db", str(db), "--quiet")


def all_scores(db: Path) -> dict[tuple[str, str], Ran]:
    return {(suite, fmt): engine("scores", "--suite", suite, "--db", str(db), "--format", fmt)
            for suite in SUITES for fmt in FORMATS}


@dataclass
class Shipped:
    db: Path
    played: dict[str, Ran]
    scores: dict[tuple[str, str], Ran]
    rescore: Ran
    rescored: dict[tuple[str, str], Ran]


@pytest.fixture(scope="module")
def shipped(first_run_db, tmp_path_factory) -> Shipped:
    """The first run's database (a copy), every shipped study played into it (the first run again: it resumes, with
    nothing left to play), the suites' scores, a rescore and the scores after it."""
    db = tmp_path_factory.mktemp("shipped") / first_run_db.name
    for part in first_run_db.parent.glob(first_run_db.name + "*"):  # the database and its saved ratings (not the
        if part.is_dir():  # run locks and launch folders beside it: they belong to the processes that made them)
            continue
        shutil.copy(part, db.parent / part.name)
    start = time.perf_counter()
    played = {study: play(study, db) for study in [FIRST_RUN, *(s for s in STUDIES if s != FIRST_RUN)]}
    scores = all_scores(db)
    rescore = engine("rescore", "--db", str(db))
    rescored = all_scores(db)
    commands = [*played.values(), *scores.values(), rescore, *rescored.values()]
    print(f"\nshipped studies: {len(commands)} commands in {time.perf_counter() - start:.0f} s "
          f"(plays {sum(r.seconds for r in played.values()):.0f} s)")
    return Shipped(db, played, scores, rescore, rescored)


def study_runs(db: Path, study: str) -> pd.DataFrame:
    """The game and params of every match a study played: its run (named as the spec), or its tournament's rounds
    (`<name>-<game>-r<round>`)."""
    name = yaml.safe_load(study_file(study).read_text(encoding="utf-8"))["name"]
    return store.query(db, """SELECT DISTINCT m.game, m.preset, m.params FROM matches m JOIN runs r USING (run_id)
                              WHERE r.name = ? OR r.name LIKE ? ESCAPE '\\'""",
                       [name, name.replace("_", "\\_") + "-%-r%"])


def games_played(db: Path, study: str) -> dict[str, list[str]]:
    """Per suite, the games of its paper the study played (under the paper's rules), in the suite's order."""
    played = study_runs(db, study)
    matches = [(game, json.loads(params)) for game, params in zip(played["game"], played["params"], strict=True)]
    return {name: list(dict.fromkeys(v.game for v in suite.variants if any(v.holds(g, p) for g, p in matches)))
            for name, suite in all_suites().items()}


def scores_table(shipped: Shipped, suite: str) -> pd.DataFrame:
    from io import StringIO

    text = shipped.scores[(suite, "csv")].stdout
    return pd.read_csv(StringIO(text)) if text.strip() else pd.DataFrame()


# ---------------------------------------------------------------- the commands


@pytest.mark.parametrize("study", STUDIES)
def test_the_study_plays_through_the_cli(shipped, study):
    if failure := shipped.played[study].failure():
        pytest.fail(failure, pytrace=False)


def test_max_matches_cuts_every_game_of_the_tournament_short(shipped):
    """`tournament --max-matches N`: every game of the round robin played, none past N matches (its first round
    always plays, whatever its size), where the shipped spec plays at least 50 per game."""
    for study in filter(is_tournament, STUDIES):
        rounds = tournament.load_tournament(study_file(study))
        played = store.query(shipped.db, "SELECT game, count(*) AS n FROM matches m JOIN runs r USING (run_id) "
                                         "WHERE r.name LIKE ? GROUP BY game", [f"{rounds.name}-%"])
        played = dict(zip(played["game"], played["n"], strict=True))
        for plan in rounds.games:
            first = len(tournament.round_spec(rounds, plan, 0).matches)
            assert first <= played.get(plan.game, 0) <= max(first, TOURNAMENT_MATCHES), (study, plan.game, played)
        assert rounds.min_matches > TOURNAMENT_MATCHES


@pytest.mark.parametrize("study", STUDIES)
def test_the_study_fills_its_papers_tables(shipped, study):
    """For each paper the study played, `scores` shows every game of it the study played: a column (LLMArena,
    γ-Bench), the abilities it measures (MAgIC), the ranking (Who is Spy), each with a value for some agent."""
    played = games_played(shipped.db, study)
    assert any(played.values()), f"{study} played no game of any suite"
    missing = []
    for suite, games in played.items():
        table = scores_table(shipped, suite)
        for game in games:
            empty = [c for c in columns_of(suite, game) if c not in table.columns or table[c].isna().all()]
            if empty:
                missing.append(f"scores --suite {suite}: {game} played, no value under {empty} "
                               f"(columns: {list(table.columns)})")
    if missing:
        pytest.fail("\n".join(missing), pytrace=False)


@pytest.mark.parametrize("study", STUDIES)
def test_the_gamabench_table_keeps_the_studys_settings_apart(shipped, study):
    """Every setting of a γ-Bench game the study played (its parameters that differ from the paper's, as every page
    names it: engine.games.settings.setting_label) has its own row in γ-Bench's table, never merged with another one."""
    played = study_runs(shipped.db, study)
    played = played[played["game"].isin(all_suites()["gamabench"].games)]
    if played.empty:
        return
    table = scores_table(shipped, "gamabench")
    ours = table[table["source"] == "ours"]
    merged = []
    for game, rows in played.groupby("game"):
        settings = {setting_label(game, preset, params) for preset, params in zip(rows["preset"], rows["params"],
                                                                                  strict=True)}
        shown = set(ours.loc[ours[game].notna(), "setting"])
        if settings - shown:
            merged.append(f"{game}: settings {sorted(settings - shown)} have no row (rows: {sorted(shown)})")
    if merged:
        pytest.fail("\n".join(merged), pytrace=False)


@pytest.mark.parametrize("suite", SUITES)
def test_scores_prints_every_suite(shipped, suite):
    if failures := [f for fmt in FORMATS if (f := shipped.scores[(suite, fmt)].failure())]:
        pytest.fail("\n".join(failures), pytrace=False)


def test_rescore_runs_clean(shipped):
    if failure := shipped.rescore.failure():
        pytest.fail(failure, pytrace=False)


def first_difference(before: str, after: str) -> str:
    lines = list(zip([*before.splitlines(), ""], [*after.splitlines(), ""], strict=False))
    line = next(i for i, (a, b) in enumerate(lines) if a != b)
    return f"line {line + 1}:\n  before: {lines[line][0]}\n  after:  {lines[line][1]}"


@pytest.mark.parametrize("suite", SUITES)
def test_scores_print_the_same_after_rescore(shipped, suite):
    """The turn log replayed into the same metrics: the same table, to the digit, in every format."""
    before, after = ({fmt: ran[(suite, fmt)].stdout for fmt in FORMATS} for ran in (shipped.scores, shipped.rescored))
    if changed := [f"--format {fmt}, {first_difference(before[fmt], after[fmt])}" for fmt in FORMATS
                   if before[fmt] != after[fmt]]:
        pytest.fail(f"scores --suite {suite} printed other output after rescore:\n" + "\n".join(changed),
                    pytrace=False)


# ---------------------------------------------------------------- the dashboard


def shown_texts(at) -> list[tuple[str, str]]:
    """What a page shows as text, by kind: its markdown, code boxes, captions, plain text and notices."""
    kinds = ("markdown", "code", "caption", "text", "info", "warning", "success", "error", "subheader", "header",
             "title")
    return [(kind, str(element.value)) for kind in kinds for element in at.get(kind)]


def unreadable(at) -> list[str]:
    """Everything on a page a user should not meet: an exception, an error notice, a traceback, a table cell or a
    text reading None or nan."""
    problems = [f"exception: {e.value}" for e in at.exception] + [f"error: {e.value}" for e in at.error]
    texts = shown_texts(at)
    problems += [f"{kind} reading: {text[:300]}" for kind, text in texts
                 if text.strip() in MISSING or TRACEBACK in text]
    problems += [f"{kind} table row: {line[:300]}" for kind, text in texts for line in text.splitlines()
                 if line.startswith("|") and MISSING & {cell.strip() for cell in line.split("|")}]
    for frame in [df.value for df in at.dataframe] + [t.value for t in at.table]:
        if blanks(frame):
            problems.append(f"table {list(frame.columns)}: {blanks(frame)[:5]}")
    return problems


def assert_reads_clean(at) -> None:
    if problems := unreadable(at):
        pytest.fail("\n".join(problems), pytrace=False)
    assert at.dataframe or at.table, "the page shows no table"


@pytest.mark.parametrize("page", PAGES)
def test_every_page_reads_clean(shipped, monkeypatch, page):
    assert_reads_clean(run_page(page, shipped.db, monkeypatch))


def test_a_legal_answer_beside_a_parse_failure_reads_clean(shipped, monkeypatch):
    """Transcripts on a legal answer in a match where another answer failed to parse (the first run's real model
    has such matches): the answer's facts and nothing more, no empty error box."""
    turns = store.query(shipped.db, """
        WITH failed AS (SELECT DISTINCT match_id FROM turns WHERE retries > 0 OR fallback OR NOT legal),
             ordered AS (SELECT *, row_number() OVER (PARTITION BY match_id ORDER BY turn) - 1 AS position
                         FROM turns WHERE match_id IN (SELECT match_id FROM failed))
        SELECT match_id, position FROM ordered
        WHERE seat IS NOT NULL AND legal AND NOT coalesce(fallback, false) AND retries = 0 AND error IS NULL
        ORDER BY match_id, position LIMIT 1""")
    assert not turns.empty, "no legal answer beside a parse failure in the shipped studies: this test reads nothing"
    match_id, position = turns.iloc[0]
    at = run_page("transcripts", shipped.db, monkeypatch, match=match_id, turn=str(position))
    assert [s.value for s in at.subheader][-1] == f"Match {match_id}"
    assert_reads_clean(at)


def test_leaderboards_of_every_game_read_clean(shipped, monkeypatch):
    """Leaderboards' per-game section (its win rates and ratings) for every game and rule set with contested
    matches in the database, as its Game box offers them."""
    from engine.papers import headline
    from pages.shared.links import pool_label

    pools = headline.agent_figures(shipped.db, by_game=True)[["game", "rule_set"]].drop_duplicates()
    problems = []
    for game, rule_set in zip(pools["game"], pools["rule_set"], strict=True):
        at = run_page("leaderboard", shipped.db, monkeypatch, game=pool_label(game, rule_set))
        problems += [f"game={pool_label(game, rule_set)}: {problem}" for problem in unreadable(at)]
    if problems:
        pytest.fail("\n".join(problems), pytrace=False)
