"""Presenting: the dashboard's queries, tables, captions, numbers and charts, and the static site."""
