"""Readers of other benchmarks' published records: each source is a module `<name>.py` that defines
`import_dir(path, db, progress) -> str` (a one-line summary; `progress`: a bar of the records read) and writes
runs with source `import:<name>`; its parts live beside it as `<name>_<part>.py` (no `import_dir`: no source)."""

from __future__ import annotations

import importlib
from pathlib import Path


def import_records(name: str, path: str | Path, db: str | Path, progress: bool = False) -> str:
    try:
        module = importlib.import_module(f"engine.importers.{name}")
    except ModuleNotFoundError as exc:
        if exc.name == f"engine.importers.{name}":
            raise ValueError(f"no importer named '{name}'") from None
        raise
    if not hasattr(module, "import_dir"):
        raise ValueError(f"no importer named '{name}' (it is a part of one)")
    return module.import_dir(Path(path), Path(db), progress)
