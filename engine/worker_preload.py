"""Imported for its effect, by the server that forks the local executor's worker processes
(`engine.local_workers`): litellm loaded once there, as `load_litellm` loads it, and its first call made
(`warm_up`), so every worker starts with litellm and the modules of its call path in memory instead of
spending seconds importing them."""

import asyncio

from engine.agents.llm import load_litellm, warm_up

load_litellm()
asyncio.run(warm_up())
