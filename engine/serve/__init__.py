"""Serving: the dashboard over one database, and runs launched from it."""
