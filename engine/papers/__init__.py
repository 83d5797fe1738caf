"""The papers, a folder each (registry.py lists them), and what every paper shares: a suite's shape (base.py),
the headline table (headline.py), the published tables (published.py), the games outside the papers (other.py)."""
