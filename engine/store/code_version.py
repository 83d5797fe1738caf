"""The version of the code that computes derived data: a hash of its Python source. The summaries in the database
are keyed on the source of the modules that compute them (`code_version(summaries.py)`: those modules and every
engine module they import), the tables kept beside a database (`<db>.tables/`) on the whole engine's
(`code_version()`). So a changed scorer shows on the next view of an existing database after a `git pull`, with no
version constant to remember.

A process keys on the code as it was when it first asked (the summaries ask as they are imported): a served
dashboard never reloads a module (`.streamlit/config.toml`), so it runs the code it imported until restarted."""

from __future__ import annotations

import functools
import hashlib
import re
from pathlib import Path

ENGINE = Path(__file__).resolve().parent.parent

# an import of an engine module, at module level or inside a function: `from engine.x import a, b` or `import engine.x`
_IMPORT = re.compile(r"^[ \t]*(?:from[ \t]+(engine(?:\.\w+)*)[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)"
                     r"|import[ \t]+(engine(?:\.\w+)*))", re.MULTILINE)


@functools.cache
def code_version(*roots: Path) -> str:
    """A short hash of the source, by path and content, of the modules in files `roots` and of every engine module
    they import, transitively; with no root, of every `.py` file of the engine."""
    files = sorted(imported_files(roots) if roots else ENGINE.rglob("*.py"))
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.relative_to(ENGINE).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def imported_files(roots: tuple[Path, ...]) -> set[Path]:
    """The files of `roots` and of every engine module they import, transitively (read from their import
    statements: `from engine.store import summaries` names the module `summaries` as well as the package)."""
    found: set[Path] = set()
    todo = [Path(root).resolve() for root in roots]
    while todo:
        path = todo.pop()
        if path in found:
            continue
        found.add(path)
        for package, names, module in _IMPORT.findall(path.read_text()):
            dotted = [module] if module else [package, *(f"{package}.{name}" for name in re.findall(r"\w+", names))]
            todo += [file for name in dotted if (file := _module_file(name)) is not None]
    return found


def _module_file(dotted: str) -> Path | None:
    """The file of engine module `dotted` (a package's `__init__.py`); None for a name that is no module (a function
    imported from one)."""
    base = ENGINE.joinpath(*dotted.split(".")[1:])
    for file in (base.with_suffix(".py"), base / "__init__.py"):
        if file.is_file():
            return file
    return None
