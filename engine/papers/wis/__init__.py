"""Who-is-Spy: its suite and scores."""
