"""`python -m engine`: the command line (engine/cli/main.py)."""

from engine.cli.main import run

run()
