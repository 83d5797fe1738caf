"""What a litellm call costs us in CPU: its success logging runs only when someone listens (without a callback
its payload, a quarter of a call's CPU, is not built; a callback registered later hears every call again), and
the request is prepared in the event loop's thread where that needs no network."""

from __future__ import annotations

import asyncio

import pytest

from engine.agents.base import AgentSpec
from engine.agents.llm import LLMAgent, load_litellm
from engine.testing import StubReply

pytestmark = pytest.mark.slow


def ask(stub, n: int) -> None:
    agent = LLMAgent(AgentSpec(agent="openai/stub-model", api_base=stub.url, max_tokens=8), use_cache=False)

    async def calls():
        for _ in range(n):
            await agent.call([{"role": "user", "content": "hi"}], {"temperature": 0.0, "max_tokens": 8})
        await asyncio.sleep(0.2)  # litellm logs in a task of its own, after the answer is returned

    asyncio.run(calls())


def test_the_logging_payload_is_built_only_for_a_listener(stub, monkeypatch):
    litellm = load_litellm()
    from litellm.integrations.custom_logger import CustomLogger
    from litellm.litellm_core_utils.litellm_logging import Logging

    built = []
    handler = Logging.async_success_handler

    async def counted(self, *args, **kwargs):
        built.append(self.model)
        return await handler(self, *args, **kwargs)

    monkeypatch.setattr(Logging, "async_success_handler", counted)
    for listeners in ("callbacks", "success_callback", "_async_success_callback"):  # a Router of an earlier
        monkeypatch.setattr(litellm, listeners, [])  # test leaves its health tracking registered in the process
    stub.responder = lambda req: StubReply("42")
    ask(stub, 3)
    assert built == [], "no callback registered: nothing to log"

    heard = []

    class Listener(CustomLogger):
        async def async_log_success_event(self, kwargs, response_obj, start_time, end_time):
            heard.append(response_obj.choices[0].message.content)

    monkeypatch.setattr(litellm, "callbacks", [Listener()])
    ask(stub, 2)
    assert len(built) == 2 and heard == ["42", "42"], "a listener hears every call"


def test_requests_are_prepared_in_the_loops_thread_only_for_providers_that_need_no_credential_fetch():
    """litellm.acompletion hands `completion` (the request's preparation) to the loop's default executor: ours runs
    it in place for OpenAI-compatible routes and leaves the rest (Vertex AI may fetch a token) to a thread."""
    import threading
    from functools import partial

    from engine.agents import llm

    litellm = load_litellm()
    ran_in = []

    def run(prepared):  # stands where litellm puts contextvars' Context.run
        ran_in.append(threading.get_ident())
        return prepared()

    executor = llm._PreparedInline()
    for model in ("openai/my-model", "vertex_ai/gemini-pro"):
        prepared = partial(litellm.main.completion, model=model, messages=[{"role": "user", "content": "hi"}],
                           mock_response="ok")
        assert executor.submit(partial(run, prepared)).result(timeout=60).choices[0].message.content == "ok"
    executor.shutdown()
    assert ran_in[0] == threading.get_ident() != ran_in[1]
