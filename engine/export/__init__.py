"""`python -m engine export SITE_DIR [--run R ...]`: a whole study (or the selected runs) as a static site that
any web server, or a browser opening index.html from disk, shows: every suite's headline table, the agents x
games grid and the paper's own table, the papers' per-game figures, and the transcript of every match a number
links to (engine/export/site.py says what pages there are; html.py escapes and lays them out; charts.py draws;
transcript.py writes a match).

The site is built beside SITE_DIR and moved into place when whole: a failed export leaves the last one as it
was. SITE_DIR must be new, empty, or a site an export wrote (it holds `MARKER`, which lists what the export wrote),
with nothing added since: nothing else is overwritten."""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from plotly.offline import get_plotlyjs

from engine import store
from engine.export.html import PLOTLY_JS, STYLE, STYLE_CSS
from engine.export.site import Site, build
from engine.selection import Selection
from engine.wording import count

MARKER = ".arena-site"  # written in every site: the folder an export may replace, and the names it wrote there
MARKER_HEADING = "written by python -m engine export; the next export replaces it. It wrote:"


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
    if site.is_dir() and any(site.iterdir()) and not (site / MARKER).is_file():
        raise ExportError(f"{site} holds files an export did not write: give a new or empty folder (an earlier "
                          "export's folder is replaced)")
    if added := _added_since_export(site):
        raise ExportError(f"{site} holds {', '.join(added[:5])}{' and more' if len(added) > 5 else ''}, which no "
                          f"export wrote: move them out first (the folder is replaced whole) or give a new folder")
    if not site.parent.is_dir():
        raise ExportError(f"{site.parent} does not exist: make it first, or give a folder inside an existing one")


def _added_since_export(site: Path) -> list[str]:
    """The entries of an earlier export's folder that its marker does not list (a `.git`, a CNAME, notes): the
    export replaces the folder whole, so they would go with it. A marker without a list predates the lists."""
    if not (site / MARKER).is_file():
        return []
    lines = (site / MARKER).read_text(encoding="utf-8", errors="replace").splitlines()
    if lines[:1] != [MARKER_HEADING]:
        return []
    return sorted(entry.name for entry in site.iterdir() if entry.name not in {MARKER, *lines[1:]})


def check_runs(db: Path, run_ids: tuple[str, ...]) -> None:
    known = {row[0] for row in store.rows(db, "SELECT run_id FROM runs")}
    unknown = [r for r in run_ids if r not in known]
    if unknown:
        raise ExportError(f"no run {', '.join(unknown)} in {db} (its runs: {', '.join(sorted(known)) or 'none'})")


def export_site(db: str | Path, site: str | Path, run_ids: tuple[str, ...] = (), progress: bool = False) -> Exported:
    """The study in `db` (only the runs `run_ids`, when given) as a static site in the folder `site`; `progress`:
    a bar (a line every few seconds off a terminal) while the match transcripts are written."""
    db, site = Path(db), Path(os.path.abspath(site))  # `..` taken away by name: `site/x/..` is `site` itself
    check_target(site)
    check_runs(db, run_ids)
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
        written = sorted(entry.name for entry in building.iterdir())
        (building / MARKER).write_text("\n".join([MARKER_HEADING, *written]) + "\n", encoding="utf-8")
        if site.exists():
            shutil.rmtree(site)
        building.rename(site)
    except BaseException:
        shutil.rmtree(building, ignore_errors=True)
        raise
    return Exported(site, made.pages, len(made.matches), _folder_size(site), _folder_size(site / "matches")
                    if (site / "matches").is_dir() else 0)


__all__ = ["MARKER", "ExportError", "Exported", "export_site"]
