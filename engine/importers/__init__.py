"""Readers of other benchmarks' published records: each module `<name>.py` defines
`import_dir(path, db, progress) -> str` (a one-line summary; `progress`: a bar of the records read) and writes
runs with source `import:<name>`."""

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
    return module.import_dir(Path(path), Path(db), progress)
