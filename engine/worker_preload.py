"""Imported for its effect, by the server that forks the local executor's worker processes
(`engine.local_workers`): litellm loaded once there, as `load_litellm` loads it, so every worker starts
with it in memory instead of spending seconds importing it. Nothing that starts a thread happens here (a
warm-up call would run a stub server and litellm's HTTP client): a process forked from one that ran threads
can inherit a lock some thread held, and a worker then dies or hangs at random. Each worker warms its own
call path (`engine.agents.llm.warm_up`, from `engine.runner.play_here`)."""

from engine.agents.llm import load_litellm

load_litellm()
