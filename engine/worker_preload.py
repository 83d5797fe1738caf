"""Imported for its effect, by the server that forks the local executor's worker processes
(`engine.local_workers`): what a worker runs is loaded once there, so every worker starts with it in memory
instead of spending half a second importing it: the match loop, the games and the store, litellm as
`load_litellm` loads it, and what litellm imports only on a process's first call.

Nothing that starts a Python thread happens here (a warm-up call would run a stub server and litellm's HTTP
client): a process forked from one that ran Python threads can inherit a lock some thread held, and a worker
then dies or hangs at random. The native threads of numpy's BLAS and pyarrow's allocator register fork
handlers. Each worker warms its own call path (`engine.agents.llm.warm_up`, from `engine.playing.play_here`)."""

import contextlib
import importlib

import engine.local_workers  # noqa: F401 - the worker's own code and what it imports
from engine.agents.llm import load_litellm

litellm = load_litellm()
# litellm's first call imports the proxy's file-id helpers and builds the default tokenizer (~0.2 s); a
# litellm without one of these names only costs that part again, in each worker
with contextlib.suppress(ImportError):
    importlib.import_module("litellm.proxy.openai_files_endpoints.common_utils")
with contextlib.suppress(AttributeError):
    litellm.main.encoding  # noqa: B018 - the lazy attribute's load is the point
