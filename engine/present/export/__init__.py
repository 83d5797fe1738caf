"""`python -m engine export SITE_DIR [--run R ...]`: a whole study (or the selected runs) as a static site that
any web server, or a browser opening index.html from disk, shows: every suite's headline table, the agents x
games grid and the paper's own table, the papers' per-game figures, and the transcript of every match a number
links to (engine/present/export/site.py says what pages there are; html.py escapes and lays them out; charts.py draws;
transcript.py writes a match).

The site is built beside SITE_DIR and moved into place when whole: a failed export leaves the last one as it
was. SITE_DIR must be new, empty, or a site an export wrote (it holds `MARKER`, which lists every file the export
wrote), with nothing added since, in any of its folders: nothing else is overwritten."""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from plotly.offline import get_plotlyjs

from engine.present import queries
from engine.present.export.html import GLOSSARY_HTML, PLOTLY_JS, STYLE, STYLE_CSS
from engine.present.export.site import Site, build
from engine.store.selection import Selection
from engine.wording import count

MARKER = ".arena-site"  # written in every site: the folder an export may replace, and every file it wrote there
MARKER_HEADING = "written by python -m engine export; the next export replaces it. It wrote these files:"


class ExportError(ValueError):
    """Bad input to an export (a folder it must not overwrite, an unknown run): one line for the user."""


@dataclass(frozen=True)
class Exported:
    """What an export wrote: pages, match transcripts, bytes in all and of the transcripts."""

    site: Path
    pages: int
    matches: int
    size: int
    transcripts: int

    def __str__(self) -> str:
        per_match = f" ({self.transcripts / self.matches / 1e3:,.1f} KB a match)" if self.matches else ""
        return (f"exported {count(self.pages, 'page')} ({count(self.matches, 'match transcript')}) to {self.site}: "
                f"{self.size / 1e6:,.1f} MB, of which transcripts {self.transcripts / 1e6:,.1f} MB{per_match}")


def _folder_size(folder: Path) -> int:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())


def check_target(site: Path) -> None:
    """SITE_DIR is new, an empty folder, or an earlier export; anything else is refused (ExportError). A symbolic
    link is refused too, even to an earlier export: the site replaces the folder whole, which would replace the
    link and leave the folder it names behind."""
    if site.is_symlink():
        raise ExportError(f"{site} is a symbolic link: give the folder it names ({site.resolve()}) or a new one")
    if site.exists() and not site.is_dir():
        raise ExportError(f"{site} is a file, not a folder: give a new folder for the site")
    if not site.parent.is_dir():
        nearest = next(folder for folder in site.parents if folder.exists())
        if not nearest.is_dir():
            raise ExportError(f"{nearest} is a file, not a folder: give a site folder inside an existing folder")
        raise ExportError(f"{site.parent} does not exist: make it first, or give a folder inside an existing one")
    if site.is_dir() and any(site.iterdir()) and not (site / MARKER).is_file():
        raise ExportError(f"{site} holds files an export did not write: give a new or empty folder (an earlier "
                          "export's folder is replaced)")
    if foreign := _not_written_by_export(site):
        raise ExportError(f"{site} holds {', '.join(foreign[:5])}{' and more' if len(foreign) > 5 else ''}, which no "
                          f"export wrote: move them out first (the folder is replaced whole) or give a new folder")


# the files of a site, by kind (engine/present/export/site.py lays them out): what a marker without a list may replace
SITE_FILE = re.compile(rf"index\.html|{re.escape(GLOSSARY_HTML)}|{re.escape(PLOTLY_JS)}|{re.escape(STYLE_CSS)}"
                       r"|(matches|lists|suites|games)/[A-Za-z0-9_.-]+\.html")
SITE_FOLDERS = {"assets", "matches", "lists", "suites", "games"}


def _written(site: Path) -> tuple[set[str], set[str]] | None:
    """(the files, the folders) an earlier export's marker lists, as paths relative to `site`; None for a marker
    without a list of files (an export made before the lists, or one that listed the top level only)."""
    lines = (site / MARKER).read_text(encoding="utf-8", errors="replace").splitlines()
    if lines[:1] != [MARKER_HEADING]:
        return None
    files = set(lines[1:])
    return files, {str(folder) for path in files for folder in PurePosixPath(path).parents}


def _not_written_by_export(site: Path) -> list[str]:
    """Every path under an earlier export's folder that the export did not write (a `.git`, a CNAME, notes in
    `matches/`; a folder none of its files is in, by its name alone), sorted: the export replaces the folder whole,
    so they would go with it. An export writes no symbolic link. Under a marker without a list, only the files of
    the site's own kinds (`SITE_FILE`) are taken as the export's."""
    if not (site / MARKER).is_file():
        return []
    listed = _written(site)
    files, folders = listed if listed is not None else (set(), SITE_FOLDERS)
    wrote = files.__contains__ if listed is not None else SITE_FILE.fullmatch
    foreign = []
    for here, subfolders, names in os.walk(site):
        inside = Path(here).relative_to(site)
        for name in sorted(subfolders):
            path = (inside / name).as_posix()
            if path not in folders or (Path(here) / name).is_symlink():
                foreign.append(path)
                subfolders.remove(name)  # named whole, not entered
        foreign += [path for name in names if (path := (inside / name).as_posix()) != MARKER
                    and (not wrote(path) or (Path(here) / name).is_symlink())]
    return sorted(foreign)


def check_runs(db: Path, run_ids: tuple[str, ...]) -> None:
    if missing := queries.missing_runs(db, run_ids):
        raise ExportError(missing)


def export_site(db: str | Path, site: str | Path, run_ids: tuple[str, ...] = (), progress: bool = False) -> Exported:
    """The study in `db` (only the runs `run_ids`, when given) as a static site in the folder `site`; `progress`:
    a bar (a line every few seconds off a terminal) while the match transcripts are written."""
    db, site = Path(db), Path(os.path.abspath(site))  # `..` taken away by name: `site/x/..` is `site` itself
    check_target(site)
    check_runs(db, run_ids)
    with one_export_at_a_time(site):
        return _export(db, site, run_ids, progress)


@contextmanager
def one_export_at_a_time(site: Path) -> Iterator[None]:
    """Two exports replacing the same folder at once would delete each other's work: the second is refused while
    the first holds a lock on the folder they are written in (released with the process, however it ends)."""
    try:
        folder = os.open(site.parent, os.O_RDONLY)
    except OSError as exc:
        raise ExportError(f"cannot write in {site.parent}: {exc.strerror}") from None
    try:
        try:
            fcntl.flock(folder, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise ExportError(f"another export is writing in {site.parent}: wait for it to end") from None
        yield
    finally:
        os.close(folder)


def _killed_builds(site: Path) -> list[Path]:
    """The build folders of exports of `site` killed before they were moved into place (named as `mkdtemp` names
    them); no export builds beside `site` now but the caller's (`one_export_at_a_time`)."""
    named = re.compile(rf"\.{re.escape(site.name)}\.[a-z0-9_]{{8}}")
    return [left for left in site.parent.iterdir() if named.fullmatch(left.name) and left.is_dir()
            and not left.is_symlink()]


def _export(db: Path, site: Path, run_ids: tuple[str, ...], progress: bool) -> Exported:
    for left in _killed_builds(site):
        shutil.rmtree(left, ignore_errors=True)
    try:
        building = Path(tempfile.mkdtemp(prefix=f".{site.name}.", dir=site.parent))
    except OSError as exc:
        raise ExportError(f"cannot write in {site.parent}: {exc.strerror}") from None
    try:
        building.chmod(0o755)  # mkdtemp's folder is private: a web server must read the site
        (building / "assets").mkdir()
        (building / PLOTLY_JS).write_text(get_plotlyjs(), encoding="utf-8")  # once, for every page's charts
        (building / STYLE_CSS).write_text(STYLE, encoding="utf-8")
        made = Site(db=db, root=building, selection=Selection(run_ids=tuple(run_ids)))
        build(made, progress)
        written = sorted(path.relative_to(building).as_posix() for path in building.rglob("*") if path.is_file())
        (building / MARKER).write_text("\n".join([MARKER_HEADING, *written]) + "\n", encoding="utf-8")
        check_target(site)  # again: a file the user put there while the site was built is not deleted either
        if site.exists():
            shutil.rmtree(site)
        building.rename(site)
    except BaseException:
        shutil.rmtree(building, ignore_errors=True)
        raise
    return Exported(site, made.pages, len(made.matches), _folder_size(site), _folder_size(site / "matches")
                    if (site / "matches").is_dir() else 0)


__all__ = ["MARKER", "ExportError", "Exported", "export_site"]
