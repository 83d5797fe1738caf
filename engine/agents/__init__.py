"""Players: scripted bots and the LLM agent, built from a seat of a run spec by `make_agent`."""

from __future__ import annotations

import os

# litellm fetches its price map from the network when it is first imported unless told not to; every module that
# imports it (llm.py lazily, local_model.py at its top) sits in this package, so the switch is set here, before any.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from engine.agents.base import Agent, AgentSpec, Decision, TurnContext


def make_agent(spec: AgentSpec, **llm_options) -> Agent:
    """`bot:<name>[:<arg>]` is a scripted bot; anything else is a litellm model string."""
    if spec.agent.startswith("bot:"):
        from engine.agents.bots import BotAgent

        return BotAgent(spec)
    from engine.agents.llm import LLMAgent

    return LLMAgent(spec, **llm_options)


__all__ = ["Agent", "AgentSpec", "Decision", "TurnContext", "make_agent"]
