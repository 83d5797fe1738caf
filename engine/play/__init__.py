"""Playing: a run spec read into match plans, matches played by an executor, written to the store."""
