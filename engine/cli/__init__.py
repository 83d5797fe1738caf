"""The command line: `python -m engine ...` (main.py)."""
