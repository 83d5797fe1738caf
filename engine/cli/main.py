"""Command line: `python -m engine {run,games,scores,headline,compare,rescore,import,tournament,export,serve} ...`

Exit codes (`EXIT_CODES`, printed by --help): what failed, in one line on stderr, never a traceback."""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb

from engine import store
from engine.papers import summaries as paper_summaries  # noqa: F401  (its import registers the papers' summaries)
from engine.store.files import CannotWrite, cannot_write, check_path, write_refused
from engine.wording import count, failure, usd

if TYPE_CHECKING:
    from engine.play.spec import RunSpec

EXIT_ERRORS, EXIT_BAD_INPUT, EXIT_SCORING, EXIT_ALREADY_PLAYING, EXIT_CANNOT_WRITE = 1, 2, 3, 4, 5
EXIT_INTERRUPTED = 130
EXIT_CODES = {
    0: "done",
    EXIT_ERRORS: "some matches ended in an error (run, tournament), every match of a study's batch did (run "
                 "--until-separated), or kept their old figures (rescore); the others are stored",
    EXIT_BAD_INPUT: "bad input: a spec, an option or a database the arena cannot use; nothing was played",
    EXIT_SCORING: "a score could not be computed (the ratings refreshed after a run or a rescore, or the table "
                  "`scores` prints); every match played is stored",
    EXIT_ALREADY_PLAYING: "another live process plays this run already (run); nothing was written",
    EXIT_CANNOT_WRITE: "a write was refused (a full disk, a read-only file system found mid-command): it did not go "
                       "in, the database is as it was before it (a run keeps the matches written earlier)",
    EXIT_INTERRUPTED: "interrupted; the finished matches are stored",
}


def _cmd_run(args: argparse.Namespace) -> int:
    from engine.play.run_lock import RunAlreadyPlaying
    from engine.play.runner import default_workers, run_spec
    from engine.play.spec import SpecError, load_spec

    try:
        spec = load_spec(args.spec)
    except SpecError as exc:
        print(f"error in {args.spec}: {exc}", file=sys.stderr)
        return 2
    if not (args.executor == "ray" or args.address) and (missing := _missing_access(spec)):
        print(f"error in {args.spec}: {missing}", file=sys.stderr)  # not every match failing after its retries
        return EXIT_BAD_INPUT
    if not args.until_separated and (args.budget_usd is not None or args.budget_matches is not None):
        print("error: --budget-usd and --budget-matches need --until-separated", file=sys.stderr)
        return EXIT_BAD_INPUT
    db = Path(args.db)
    _interrupt_on_stop_signals()
    tally = None
    try:
        store.check_db(db, timeout=None)  # a run waits for a busy database as long as it takes, saying who holds it
        if args.if_empty and store.count_matches(db, timeout=None) > 0:
            print(f"{db} already holds matches; not playing {args.spec}")
            return 0
        if other := _other_version(db, spec.name, spec.run_id):
            print(f"error in {args.spec}: {db} holds a run named '{spec.name}' played from another version of this "
                  f"spec ({other}): this one would play its matches again as a second run, counted twice in every "
                  f"table; give the edited spec another name", file=sys.stderr)
            return EXIT_BAD_INPUT
        if args.until_separated:
            return _until_separated(args, spec, db)
        if args.progress_file:  # a run launched from the dashboard: turn-level progress the Launch page reads
            from engine.serve.launch.live import TurnTally

            tally = TurnTally(Path(args.progress_file))
        summary = asyncio.run(run_spec(spec, db, concurrency=args.concurrency, progress=not args.quiet,
                                       executor=args.executor or ("ray" if args.address else None),
                                       address=args.address, on_turn=tally.record if tally else None,
                                       workers=args.workers or default_workers(spec)))
    except RunAlreadyPlaying as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_ALREADY_PLAYING
    except KeyboardInterrupt:
        if tally:
            tally.write("cancelled")
        print(f"interrupted: {_saved(db, spec.run_id, None if args.until_separated else len(spec.matches))}; "
              "run the same command again to resume",
              file=sys.stderr)
        return EXIT_INTERRUPTED
    if tally:
        tally.write("finished")
    print(f"run {summary.run_id}: {count(summary.n_matches, 'match')}, {summary.skipped:,} already done, "
          f"{summary.played:,} played, {count(summary.errors, 'error')}, {count(summary.turns, 'turn')}, "
          f"{count(summary.tokens, 'token')}, {usd(summary.cost_usd)}")
    print(f"longest wait for the database: {store.LONGEST_WAIT['write']:.2f} s")
    for line in summary.error_messages[:10]:
        print(f"  error {line}", file=sys.stderr)
    if not _refresh_ratings(db):
        return EXIT_SCORING
    return EXIT_ERRORS if summary.errors else 0


def _until_separated(args: argparse.Namespace, spec, db: Path) -> int:
    """`run --until-separated`: the adaptive, paired study (engine/study/certainty_run.py), then its report."""
    from engine.play.spec import SpecError
    from engine.study.certainty_run import StudyFailed, frame_of, report, until_separated

    try:
        frame = frame_of(spec)
    except SpecError as exc:
        print(f"error in {args.spec}: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        study = asyncio.run(until_separated(spec, db, args.budget_usd, args.budget_matches, progress=not args.quiet))
    except StudyFailed as exc:
        print(f"study {spec.run_id} stopped: {exc}", file=sys.stderr)
        return EXIT_ERRORS
    print("\n".join(report(study, frame)))
    print(f"study {spec.run_id}: {'separated' if study.separated() else 'not separated'} after {study.looks} looks, "
          f"{count(study.matches, 'match')}, {usd(study.spent_usd)}")
    return 0 if not study.matches or _refresh_ratings(db) else EXIT_SCORING  # a budget that bought no deal: none


def _other_version(db: Path, name: str, run_id: str) -> str | None:
    """The id of a run of this name played from a different spec (a run's id is its name plus a hash of its spec:
    an edited spec is another run, never a resume of the first), or None."""
    if not db.exists():
        return None
    found = store.query(db, "SELECT run_id FROM runs WHERE name = ? AND run_id <> ? ORDER BY created_at DESC",
                        [name, run_id])
    return None if found.empty else str(found["run_id"].iloc[0])


def _saved(db: Path, run_id: str, n_matches: int | None) -> str:
    """How much of an interrupted run the database holds, read back from it: what the line says is so (out of
    `n_matches`, unless None: a study's matches are not known in advance)."""
    try:
        done = store.rows(db, "SELECT count(*) FROM matches WHERE run_id = ? AND status = 'ok'", [run_id])
    except duckdb.CatalogException:  # interrupted before the database had its tables
        done = []
    done_n = done[0][0] if done else 0
    return f"{count(done_n, 'match')} done and saved" if n_matches is None else \
        f"{done_n:,} of {count(n_matches, 'match')} done and saved"


def _at_least_one(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _missing_access(spec: RunSpec) -> str | None:
    """The Launch form's "no key" / "no endpoint" check of every model the spec calls, in one line (no network; on
    a Ray cluster the workers' environment holds the keys, so it is not checked here)."""
    from engine.serve.launch import preflight

    problems = [f"{seat.agent}: {problem}" for seat in preflight.models_of(spec)
                if (problem := preflight.access_problem(seat.agent, seat.api_base))]
    return "; ".join(problems) or None


WORKERS_PER_CORE = 8  # each worker is a process with its own memory: past a few per core they win nothing


def _concurrency(text: str) -> int:
    from engine.play.spec import MAX_CONCURRENCY

    value = _at_least_one(text)
    if value > MAX_CONCURRENCY:
        raise argparse.ArgumentTypeError(f"at most {MAX_CONCURRENCY:,} (as a spec's concurrency), got {value:,}")
    return value


def _non_negative(text: str) -> float:
    value = float(text)
    if not value >= 0:  # NaN too
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {text}")
    return value


def _workers(text: str) -> int:
    value, most = _at_least_one(text), WORKERS_PER_CORE * (os.cpu_count() or 1)
    if value > most:
        raise argparse.ArgumentTypeError(f"at most {most} on this machine ({WORKERS_PER_CORE} per core), got {value:,}")
    return value


def _port(text: str) -> int:
    value = int(text)
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"a port is from 1 to 65535, got {value}")
    return value


def _refresh_ratings(db: Path) -> bool:
    """Replay the new matches into the saved ratings and compute the default views' tables now, so the dashboard's
    first view does not wait for them (engine/present/default_views.py). The matches are stored by then: a failure
    here is said in one line (False), and the dashboard computes them later."""
    from engine.present.default_views import refresh

    start = time.perf_counter()
    try:
        refreshed = refresh(db)
    except Exception as exc:  # noqa: BLE001 - whatever failed, the stored matches stand: one line, not a traceback
        print(f"error: the ratings could not be brought up to date ({failure(exc)}); every match is stored, "
              "the dashboard computes the ratings when it opens", file=sys.stderr)
        return False
    print(f"ratings brought up to date ({count(len(refreshed), 'view')}) in {time.perf_counter() - start:.1f} s")
    return True


def _cmd_games(args: argparse.Namespace) -> int:
    from engine.agents.bots import bot_names
    from engine.agents.prompting import versions
    from engine.games import all_games

    for name, cls in all_games().items():
        defaults = cls.resolve_params({})
        print(f"{name}  -  {cls.title} ({cls.paper}), {count(cls.n_seats(defaults), 'seat')}")
        print(f"  presets: {', '.join(cls.presets)}")
        for pname, param in cls.params.items():
            print(f"  {pname} = {param.default!r} ({_bounds(param)}): {param.help}")
        print(f"  bots: {', '.join('bot:' + b for b in bot_names(name))}")
        print(f"  prompt versions: {', '.join(versions(name))}")
    return 0


def _bounds(param) -> str:
    """The values a game parameter accepts (`Param.validate`), in words."""
    from engine.games.base import MAX_PARAM

    if param.choices is not None:
        return "one of " + ", ".join(repr(c) for c in param.choices)
    if param.kind is bool:
        return "true or false"
    if param.kind not in (int, float):
        return "text" if param.kind is str else "any value"
    number, limit = "whole number" if param.kind is int else "number", f"{MAX_PARAM:,.0f}"
    if param.lo is not None and param.hi is not None:
        return f"{number}, {param.lo:g} to {param.hi:g}"
    if param.lo is not None:
        return f"{number}, {param.lo:g} to {limit}"
    if param.hi is not None:
        return f"{number}, -{limit} to {param.hi:g}"
    return f"{number}, -{limit} to {limit}"


def _cmd_scores(args: argparse.Namespace) -> int:
    from engine.papers import published
    from engine.papers.registry import get_suite
    from engine.present import queries
    from engine.present.suite_tables import own_table_numbers, own_table_view
    from engine.score.precision import fixed
    from engine.store.selection import Selection

    try:
        suite = get_suite(args.suite)
        table = suite.leaderboard(Path(args.db), Selection(without_fallbacks=args.without_fallbacks))
        paper = queries.published_rows(Path(args.db), suite.name) if args.format == "table" else None
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except store.DatabaseError:
        raise  # said by main(), as for every command
    except Exception as exc:  # noqa: BLE001 - one line saying what failed, never a traceback
        print(f"error: the {args.suite} table could not be computed ({failure(exc)})", file=sys.stderr)
        return EXIT_SCORING
    # the page's table (engine/present/suite_tables.py: its headers with their units, its order, its partial marks);
    # as CSV
    # or JSON its numbers, the same data printing the same digits (engine/score/precision.py)
    if args.format == "csv":
        print(fixed(own_table_numbers(table, suite.layout)).to_csv(index=False), end="")
    elif args.format == "json":
        print(fixed(own_table_numbers(table, suite.layout)).to_json(orient="records", indent=2))
    elif table.empty:
        print(f"no {args.suite} results in {args.db}")
    else:  # the page's cells, the paper's published rows of the models we played right under ours as there
        print(own_table_view(published.interleave_published(table, paper), suite.layout).to_string(index=False))
    return 0


def _printed(numbers, text, fmt: str) -> None:
    """A table as `fmt` asks: its numbers as CSV or JSON (the page's download: engine/score/precision.py's digits),
    else the
    page's text."""
    from engine.score.precision import fixed

    if fmt == "csv":
        print(fixed(numbers).to_csv(index=False), end="")
    elif fmt == "json":
        print(fixed(numbers).to_json(orient="records", indent=2))
    else:
        print(text.to_string(index=False))


def _readable_db(db: str) -> str | None:
    """Why `db` cannot be compared or ranked (absent, or holding no match), or None."""
    if not Path(db).exists():
        return f"no database at {db}: pass --db (or set ARENA_DB) to a database a run or an import has written"
    if store.count_matches(db) == 0:
        return f"{db} holds no match: play a run first"
    return None


def _cmd_headline(args: argparse.Namespace) -> int:
    """A suite's headline table: `headline.headline`, the function the Leaderboards page calls."""
    from engine.papers.headline import headline
    from engine.papers.registry import get_suite
    from engine.present.numbers import on_one_scale
    from engine.present.suite_tables import headline_view

    if reason := _readable_db(args.db):
        print(f"error: {reason}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if args.suite == ALL_SUITES:
        return _cross_game(args)
    measure = get_suite(args.suite).headline
    table = headline(Path(args.db), args.suite)
    if table.empty and args.format == "table":
        print(f"no {args.suite} results in {args.db}")
        return 0
    _printed(on_one_scale(table, measure.units), headline_view(table, measure), args.format)
    return 0


ALL_SUITES = "all"


def _cross_game(args: argparse.Namespace) -> int:
    """`headline --suite all`: one rating across every game and its fragility (engine/score/cross_game.py)."""
    from engine.papers import headline
    from engine.score import cross_game

    rated = headline.across_games(Path(args.db))
    if rated.ratings.empty and args.format == "table":
        print(f"no contested match to rate in {args.db}")
        return 0
    _printed(rated.ratings, cross_game.view(rated.ratings), args.format)
    if args.format == "table":
        print(f"\nFragility: {cross_game.fragility_sentence(rated.fragility)}")
    return 0


def _cmd_compare(args: argparse.Namespace) -> int:
    """A versus B (engine/score/compare.py), as the Leaderboards page's section shows it."""
    from engine.present.numbers import on_one_scale
    from engine.present.suite_tables import versus_view
    from engine.score.compare import compare

    if reason := _readable_db(args.db):
        print(f"error: {reason}", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        table = compare(Path(args.db), args.a, args.b)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    _printed(on_one_scale(table), versus_view(table), args.format)
    return 0


def _cmd_rescore(args: argparse.Namespace) -> int:
    from engine.papers.registry import get_suite
    from engine.present import queries
    from engine.store.selection import Selection
    from engine.study.rescore import rescore

    if not Path(args.db).exists():
        print(f"error: no database at {args.db}", file=sys.stderr)
        return 2
    if missing := queries.missing_runs(Path(args.db), tuple(args.run or ())):
        print(f"error: {missing}", file=sys.stderr)
        return EXIT_BAD_INPUT
    selection = Selection(run_ids=tuple(args.run or ()))
    if args.suite:
        selection = selection.within(get_suite(args.suite).variants)
    summary = rescore(Path(args.db), selection)
    print(summary)
    for line in summary.failed[:10]:
        print(f"  kept {line}", file=sys.stderr)
    if summary.rescored and not _refresh_ratings(Path(args.db)):
        return EXIT_SCORING
    return EXIT_ERRORS if summary.failed else 0


def _cmd_import(args: argparse.Namespace) -> int:
    from engine.papers.registry import import_records

    try:
        if args.source == PROMPTS:
            print(_import_prompts(args.dir, args.prompt_dir))
        elif args.prompt_dir is not None:
            raise ValueError(f"import {args.source} takes one folder, got {args.dir} and {args.prompt_dir}")
        else:
            print(import_records(args.source, args.dir, args.db, progress=not args.quiet))
    except (ValueError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


PROMPTS = "prompts"  # `import prompts PAPER DIR`: a paper's own prompts, not records
PROMPT_PAPERS = ("gamabench",)


def _import_prompts(paper: str, folder: str | None) -> str:
    """`import prompts gamabench DIR`: the authors' prompt folder as prompt versions `authors-v1`.. (outside the
    repository, engine/papers/gamabench/authors_prompts.py)."""
    if paper not in PROMPT_PAPERS or folder is None:
        raise ValueError(f"import prompts takes a paper ({', '.join(PROMPT_PAPERS)}) and its authors' prompt folder: "
                         "python -m engine import prompts gamabench DIR")
    from engine.papers.gamabench.authors_prompts import import_prompts

    return import_prompts(folder)


def _interrupt_on_stop_signals() -> None:
    """Ctrl-C and the dashboard's Cancel (SIGINT, even from a shell that started the run in the background with
    SIGINT ignored), `kill`, docker stop or systemd (SIGTERM) and a closed terminal (SIGHUP) all stop a run the same
    way: its finished matches saved, the run marked cancelled, to resume with the same command."""
    for stop in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(stop, signal.default_int_handler)


def _cmd_tournament(args: argparse.Namespace) -> int:
    from engine.play.spec import SpecError
    from engine.study.tournament import load_tournament, play_tournament, standings_text

    _interrupt_on_stop_signals()
    try:
        tournament = load_tournament(args.spec)
        if args.max_matches:  # a try before the full tournament: the same rounds, fewer of them
            tournament = replace(tournament, max_matches=min(tournament.max_matches, args.max_matches),
                                 min_matches=min(tournament.min_matches, args.max_matches))
        results = asyncio.run(play_tournament(tournament, Path(args.db), progress=not args.quiet))
    except SpecError as exc:
        print(f"error in {args.spec}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted: finished matches are saved; run the same command again to resume", file=sys.stderr)
        return EXIT_INTERRUPTED
    for result in results:
        print(f"{result.game}: {count(result.rounds, 'round')}, {count(result.matches, 'match')}, "
              f"{count(result.errors, 'error')}, "
              f"stopped by {result.stopped_by}")
        print(standings_text(result.ratings))
    return 1 if any(r.errors for r in results) else 0


def _cmd_export(args: argparse.Namespace) -> int:
    from engine.present.export import ExportError, export_site

    try:
        print(export_site(args.db, args.site_dir, tuple(args.run or ()), progress=not args.quiet))
    except ExportError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    return 0


def _cmd_serve(args: argparse.Namespace) -> int:
    """Serve the dashboard: Streamlit running app.py, reading `--db` (engine/serve/serving.py)."""
    from engine.serve.serving import ServeError, serve

    try:
        return serve(Path(args.db), args.address, args.port, args.allowed_host)
    except ServeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT


DB_HELP = "the study's DuckDB file (default: $ARENA_DB, else results.duckdb at the repository root)"
FORMAT_HELP = "table: aligned text to read; csv or json: the same rows for a spreadsheet or a program (default: table)"


def _suite_names() -> list[str]:
    from engine.papers.registry import all_suites

    return list(all_suites())


def _suites_help(what: str) -> str:
    """Each suite a `--suite` accepts, and what it holds."""
    from engine.papers.registry import all_suites

    entries = [f"{s.name}: {s.title}, the games of {s.paper}" if s.paper
            else f"{s.name}: {s.title}, the games no paper's suite plays (win rates per game)"
            for s in all_suites().values()]
    return f"{what} ({'; '.join(entries)})"


def _importers_help() -> str:
    """Each source of published records, with its importer's first docstring line."""
    from engine.papers.registry import RECORD_IMPORTERS

    entries = [f"{name}: {(module.__doc__ or 'no description').splitlines()[0]}" for name, module in
    RECORD_IMPORTERS.items()]
    return "which benchmark's records DIR holds: " + "; ".join(entries)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m engine",
        description="Play and score LLM game matches. `python -m engine COMMAND --help` explains a command's options.",
        epilog="exit codes: " + "; ".join(f"{code} {meaning}" for code, meaning in EXIT_CODES.items()))
    sub = parser.add_subparsers(dest="command", required=True)

    def command(name: str, help: str, **kwargs) -> argparse.ArgumentParser:  # noqa: A002 - argparse's own word
        """A command, its one line said both in the list of commands and atop its own --help."""
        return sub.add_parser(name, help=help, description=help[0].upper() + help[1:] + ".", **kwargs)

    run = command("run", help="play a run spec (re-running resumes it)",
                         epilog="exit codes: " + "; ".join(f"{code} {meaning}" for code, meaning in EXIT_CODES.items()))
    run.add_argument("spec", help="path to a run spec (YAML)")
    run.add_argument("--db", default=str(store.default_db()), help=DB_HELP)
    run.add_argument("--concurrency", type=_concurrency, default=None,
                     help="matches played at once (overrides the spec)")
    run.add_argument("--if-empty", action="store_true", help="play only if the database holds no match yet")
    run.add_argument("--executor", choices=["local", "ray"], default=None,
                     help="where the matches are played: local, on this machine (in --workers processes), or ray, on a "
                          "Ray cluster (overrides the spec)")
    run.add_argument("--address", default=None,
                     help="the Ray cluster to play on (implies --executor ray; default: $RAY_ADDRESS, "
                          "else a local cluster for this run)")
    run.add_argument("--workers", type=_workers, default=None,
                     help="processes of this machine the local executor plays in (default: one per core when a "
                          "seat calls a model over the network, else 1: this process)")
    run.add_argument("--quiet", action="store_true", help="no progress bar")
    run.add_argument("--progress-file", help="turns, tokens and dollars so far, kept in this JSON file")
    run.add_argument("--until-separated", action="store_true",
                     help="play the spec's agents and two-seat games as an adaptive, paired study: batches of deals "
                          "(a match and its mirror on one seed) where adjacent ranks are not yet separated, until they "
                          "all are, its looks are spent or the budget ends; the same command resumes it "
                          "(docs/METRICS.md)")
    budget = run.add_mutually_exclusive_group()
    budget.add_argument("--budget-usd", type=_non_negative, default=None,
                        help="with --until-separated: stop before a batch would pass this many expected dollars")
    budget.add_argument("--budget-matches", type=_at_least_one, default=None,
                        help="with --until-separated: stop before a batch would pass this many matches")
    run.set_defaults(func=_cmd_run)

    games = command("games", help="list every game, its presets, parameters (defaults and bounds), bots and "
                                         "prompt versions")
    games.set_defaults(func=_cmd_games)

    scores = command("scores", help="a suite's leaderboard as its paper defines it")
    scores.add_argument("--suite", required=True, choices=list(_suite_names()), help=_suites_help("the table to print"))
    scores.add_argument("--db", default=str(store.default_db()), help=DB_HELP)
    scores.add_argument("--format", choices=["table", "csv", "json"], default="table", help=FORMAT_HELP)
    scores.add_argument("--without-fallbacks", action="store_true",
                        help="leave out every match in which the engine played a fallback move for some seat (its "
                             "answer did not parse or was illegal, so a random or fixed move stood in): the table "
                             "then counts only the agents' own moves (default: every match)")
    scores.set_defaults(func=_cmd_scores)

    head = command("headline", help="a suite's headline table, one row per agent (the Leaderboards page's)")
    head.add_argument("--suite", required=True, choices=[*_suite_names(), ALL_SUITES],
                      help=_suites_help("the table to print") + f"; {ALL_SUITES}: one rating across every game, each "
                      "game weighing the same, with each game's effect on the ranks and the ranking's fragility")
    head.add_argument("--db", default=str(store.default_db()), help=DB_HELP)
    head.add_argument("--format", choices=["table", "csv", "json"], default="table", help=FORMAT_HELP)
    head.set_defaults(func=_cmd_headline)

    versus = command("compare", help="agent A versus agent B, per game and overall: their matches against each other "
                                     "and their scores against the same opponents, paired by seed "
                                     "(paired t-test, Holm across games)")
    versus.add_argument("a", metavar="A", help="an agent, named as the tables name it")
    versus.add_argument("b", metavar="B", help="another agent")
    versus.add_argument("--db", default=str(store.default_db()), help=DB_HELP)
    versus.add_argument("--format", choices=["table", "csv", "json"], default="table", help=FORMAT_HELP)
    versus.set_defaults(func=_cmd_compare)

    rescore = command("rescore", help="recompute the stored metrics from the turn log (no agent is asked)")
    rescore.add_argument("--suite", choices=list(_suite_names()),
                         help=_suites_help("only the matches of this suite's games (default: every game)"))
    rescore.add_argument("--run", action="append", metavar="RUN_ID",
                         help="only this run's matches (repeatable; default: every run)")
    rescore.add_argument("--db", default=str(store.default_db()), help=DB_HELP)
    rescore.set_defaults(func=_cmd_rescore)

    imp = command("import", help="ingest another benchmark's published records")
    imp.add_argument("source", help=_importers_help() + f"; or '{PROMPTS}': a paper's own prompts "
                     "(`import prompts gamabench DIR`, DIR the authors' prompt folder)")
    imp.add_argument("dir", help="the folder of records, as that benchmark publishes them (after 'prompts': the "
                                 "paper)")
    imp.add_argument("prompt_dir", nargs="?", metavar="PROMPT_DIR",
                     help="after 'prompts PAPER': the authors' prompt folder, imported as prompt versions "
                          "authors-v1, authors-v2, ... outside the repository ($ARENA_PROMPTS, else "
                          "~/.local/share/arena/prompts)")
    imp.add_argument("--db", default=str(store.default_db()), help=DB_HELP)
    imp.add_argument("--quiet", action="store_true", help="no progress bar (for logs and scripts)")
    imp.set_defaults(func=_cmd_import)

    tour = command("tournament", help="a round robin played until the TrueSkill ratings settle")
    tour.add_argument("spec", help="path to a tournament (YAML), e.g. runs/llmarena_round_robin.yaml")
    tour.add_argument("--db", default=str(store.default_db()), help=DB_HELP)
    tour.add_argument("--max-matches", type=_at_least_one, default=None, metavar="N",
                      help="stop every game by N matches (lowers the spec's max_matches and min_matches; its first "
                           "round always plays)")
    tour.add_argument("--quiet", action="store_true", help="no progress bar")
    tour.set_defaults(func=_cmd_tournament)

    export = command("export", help="the study (or the selected runs) as a static site that opens from disk")
    export.add_argument("site_dir", metavar="SITE_DIR", help="a new or empty folder (an earlier export's is replaced)")
    export.add_argument("--run", action="append", help="only this run's matches (repeatable)")
    export.add_argument("--db", default=str(store.default_db()), help=DB_HELP)
    export.add_argument("--quiet", action="store_true", help="no progress bar (the summary line is still printed)")
    export.set_defaults(func=_cmd_export)

    serve = command("serve", help="serve the dashboard (Streamlit) on 127.0.0.1:8501")
    serve.add_argument("--db", default=str(store.default_db()), help=DB_HELP)
    serve.add_argument("--address", default="127.0.0.1",
                       help="interface to listen on (default 127.0.0.1: this machine only; beyond it, Launch needs "
                            "ARENA_ADMIN_TOKEN)")
    serve.add_argument("--port", type=_port, default=8501, help="port to listen on (default 8501)")
    serve.add_argument("--allowed-host", action="append", default=[], metavar="NAME",
                       help="a host name browsers use to reach the dashboard, besides localhost (repeatable; "
                            "'*.example.com' for subdomains)")
    serve.set_defaults(func=_cmd_serve)

    args = parser.parse_args(argv)
    try:
        # the dashboard shows a bad database on its pages; a run checks its own, waiting while it is busy
        if args.func not in (_cmd_games, _cmd_serve, _cmd_run):
            store.check_db(args.db)
        # a typo in --db, not "no results"
        if args.func in (_cmd_scores, _cmd_rescore, _cmd_export) and not Path(args.db).exists():
            raise store.DatabaseError(f"{args.db} does not exist: pass --db (or set ARENA_DB) to a database a run "
                                      f"or an import has written")
        if args.func is _cmd_serve:  # the file only: a run may hold the database while the dashboard starts
            store.check_file(args.db)
        if args.func in (_cmd_rescore, _cmd_import, _cmd_tournament):  # a read-only folder before any work
            check_path(Path(args.db), read_only=False)
        return args.func(args)
    except store.DatabaseError as exc:  # one line that says what to do, not a traceback
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_CANNOT_WRITE if isinstance(exc, CannotWrite) else EXIT_BAD_INPUT
    except OSError as exc:  # a file beside the database or an export's page: a full disk is one line too
        if (reason := write_refused(exc)) is None:
            raise
        print(f"error: {cannot_write(exc.filename or 'a file', reason)}", file=sys.stderr)
        return EXIT_CANNOT_WRITE


def run() -> None:
    """`python -m engine`: exit with `main`'s code."""
    try:
        sys.exit(main())
    except BrokenPipeError:  # the reader closed the pipe (`... | head`): stop quietly, as other commands do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(141)
