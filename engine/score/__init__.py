"""Scoring every paper shares: outcomes, ratings, statistics, the per-agent figures, A versus B."""
