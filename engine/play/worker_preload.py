"""Imported for its effect, by the server that forks the local executor's worker processes
(`engine.play.local_workers`): what a worker runs is loaded once there, so every worker starts with it in memory
instead of importing it on its own: the match loop, the games and the store, litellm as
`load_litellm` loads it, and what litellm imports only on a process's first call.

Nothing that starts a Python thread happens here (a call would start litellm's HTTP client): a process forked
from one that ran Python threads can inherit a lock some thread held, and a worker then dies or hangs at random.
The native threads of numpy's BLAS and pyarrow's allocator register fork handlers."""

import engine.play.local_workers  # noqa: F401 - the worker's own code and what it imports
from engine.agents.litellm_tuning import import_first_call_modules
from engine.agents.llm import load_litellm

import_first_call_modules(load_litellm())
