"""Scorers and statistics. Which scorer a suite uses is declared in engine/suites/."""
