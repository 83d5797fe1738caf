"""Players: scripted bots and the LLM agent, built from a seat of a run spec by `make_agent`."""

from __future__ import annotations

from engine.agents.base import Agent, AgentSpec, Decision, TurnContext


def make_agent(spec: AgentSpec, **llm_options) -> Agent:
    """`bot:<name>[:<arg>]` is a scripted bot; anything else is a litellm model string."""
    if spec.agent.startswith("bot:"):
        from engine.agents.bots import BotAgent

        return BotAgent(spec)
    from engine.agents.llm import LLMAgent

    return LLMAgent(spec, **llm_options)


__all__ = ["Agent", "AgentSpec", "Decision", "TurnContext", "make_agent"]
