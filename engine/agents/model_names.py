"""Which model strings the arena can call, told without the network: `provider/model` with a provider litellm
knows (or `local/<name>` of an embedded model), or a bare name litellm's price map knows. A spec and the launch
form refuse any other before a match is played: an unknown provider failed every match of the run instead."""

from __future__ import annotations

from functools import cache

WRITTEN_AS = "a litellm model string is provider/model, e.g. openai/gpt-4o-mini"


@cache
def _providers() -> frozenset[str]:
    from engine.agents.llm import load_litellm

    return frozenset(str(getattr(p, "value", p)) for p in load_litellm().provider_list)


def model_problem(model: str) -> str | None:
    """Why `model` is not a model string the arena can call, or None."""
    from engine.agents.llm import load_litellm
    from engine.agents.local_model import LOCAL_MODELS, PROVIDER

    provider, slash, rest = model.partition("/")
    if slash and not rest.strip():
        return f"no model named after '{provider}/' ({WRITTEN_AS})"
    if provider == PROVIDER:
        return None if rest in LOCAL_MODELS else (
            f"unknown local model '{model}' (known: {', '.join(f'{PROVIDER}/{n}' for n in LOCAL_MODELS)})")
    if slash:
        return None if provider in _providers() else (
            f"unknown provider '{provider}' in '{model}' ({WRITTEN_AS})")
    if not model.strip():
        return "no model named: write it as provider/model, e.g. openai/gpt-4o-mini"
    return None if model in load_litellm().model_cost else (
        f"'{model}' is not a model litellm knows by bare name: write it as provider/model")
