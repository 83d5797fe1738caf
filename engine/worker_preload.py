"""Imported for its effect, by the server that forks the local executor's worker processes
(`engine.local_workers`): litellm loaded once there, as `load_litellm` loads it, so every worker starts
with it in memory instead of spending seconds importing it."""

from engine.agents.llm import load_litellm

load_litellm()
