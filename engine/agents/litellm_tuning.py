"""What litellm imports on a process's first call, imported ahead by the local workers' fork server.

litellm's private functions are no longer replaced here: each change had to save at least 10% on a realistic run
to stay, and none did (docs/RUNNING.md has the figures).
"""

from __future__ import annotations

import contextlib
import importlib
from typing import Any


def import_first_call_modules(litellm: Any) -> None:
    """What litellm imports on its first call in a process (the proxy's file-id helpers, the default tokenizer),
    imported now, by the fork server's preload (engine.play.worker_preload), so each local worker starts with them."""
    with contextlib.suppress(ImportError):
        importlib.import_module("litellm.proxy.openai_files_endpoints.common_utils")
    with contextlib.suppress(AttributeError):
        litellm.main.encoding  # noqa: B018 - the lazy attribute's load is the point
