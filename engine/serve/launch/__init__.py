"""Launching a run from the dashboard, one module per job:

- `form`: the form's fields -> a run spec, each wrong field refused with its reason (the spec's own rules);
- `cost`: what the run will cost, from a rehearsal of its matches and litellm's price map;
- `preflight`: before starting, each model has its key and answers a one-token request;
- `processes`: the run played as its own process (`python -m engine run`), watched, cancelled, resumed;
- `live`: inside that process, the turn-level progress (turns, tokens, dollars) the page reads while it plays.

The Streamlit server never plays a match nor writes the database.
"""
