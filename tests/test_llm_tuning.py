"""The litellm tuning (engine.agents.litellm_tuning): the private names it relies on are where the pinned litellm
has them (a test that names the litellm version when one moves), its success logging runs only when someone
listens (a callback registered later hears every call again), every change can be left off to measure it, and no
production path imports engine.testing."""

from __future__ import annotations

import ast
import asyncio
import importlib.metadata
import os
import re
import subprocess
import sys
import types
from pathlib import Path

import pytest

from engine.agents import litellm_tuning
from engine.agents.base import AgentSpec
from engine.agents.litellm_tuning import Hook, moved_hooks
from engine.agents.llm import LLMAgent, load_litellm
from engine.testing import StubReply

ROOT = Path(__file__).resolve().parent.parent


def ask(stub, n: int) -> None:
    agent = LLMAgent(AgentSpec(agent="openai/stub-model", api_base=stub.url, max_tokens=8), use_cache=False)

    async def calls():
        for _ in range(n):
            await agent.call([{"role": "user", "content": "hi"}], {"temperature": 0.0, "max_tokens": 8})
        await asyncio.sleep(0.2)  # litellm logs in a task of its own, after the answer is returned

    asyncio.run(calls())


@pytest.mark.slow
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


def test_the_pinned_litellm_has_every_private_name_the_tuning_relies_on():
    litellm = load_litellm()
    version = importlib.metadata.version("litellm")
    pinned = re.search(r"^litellm==(\S+)", (ROOT / "requirements.txt").read_text(), re.M)
    assert pinned and pinned.group(1) == version, f"litellm {version} installed, requirements.txt pins {pinned}"
    moved = moved_hooks(litellm)
    assert not moved, (f"litellm {version} moved what engine/agents/litellm_tuning.py relies on: {moved}. Adapt the "
                       "change or drop it, and measure it again (docs/RUNNING.md)")
    assert litellm_tuning._APPLIED == set(litellm_tuning.TUNINGS)


def test_a_moved_hook_is_named_and_its_change_left_out(monkeypatch):
    """The check above can fail: a name gone or a statement changed is reported per change, and `tune` leaves that
    change out (the call works as litellm made it)."""
    litellm = load_litellm()
    assert Hook("litellm.utils._client_async_logging_helper", "logging_obj").moved(litellm) is None
    assert Hook("litellm.utils._client_async_logging_helper", "no such text").moved(litellm) == \
        "litellm.utils._client_async_logging_helper no longer holds `no such text`"
    gone = moved_hooks(types.SimpleNamespace())
    assert gone["log_only_when_listened"][0] == "litellm.utils._client_async_logging_helper is gone"
    assert set(gone) == set(litellm_tuning.TUNINGS)

    fake = types.SimpleNamespace(response_cost_calculator="litellm's own")
    monkeypatch.setattr(litellm_tuning, "_APPLIED", set())
    monkeypatch.setattr(litellm_tuning, "TUNINGS", {"remember_unpriced": litellm_tuning.TUNINGS["remember_unpriced"]})
    litellm_tuning.tune(fake)
    assert fake.response_cost_calculator == "litellm's own" and litellm_tuning._APPLIED == set()


def test_no_production_module_imports_the_test_stub():
    """engine.testing (the stub provider) is for tests and benchmarks: no module of the engine, the pages or the app
    imports it, at module level or inside a function."""
    found = []
    for path in [*sorted((ROOT / "engine").rglob("*.py")), *sorted((ROOT / "pages").rglob("*.py")), ROOT / "app.py"]:
        if path == ROOT / "engine" / "testing.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [f"{node.module}.{a.name}" for a in node.names] if isinstance(node, ast.ImportFrom) else []
            found += [f"{path.relative_to(ROOT)}: {name}" for name in names if name.startswith("engine.testing")]
    assert not found


def run_probe(code: str, **env: str) -> list[str]:
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                         env=os.environ | {"LITELLM_LOCAL_MODEL_COST_MAP": "True"} | env)
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


TUNED_PROBE = """
import sys
import litellm.utils
from engine.agents import litellm_tuning
helper = litellm.utils._client_async_logging_helper
from engine.agents.llm import load_litellm
load_litellm()
print(litellm.utils._client_async_logging_helper is helper, ",".join(sorted(litellm_tuning._APPLIED)) or "-")
"""


@pytest.mark.slow
def test_every_change_can_be_left_off_to_measure_it_again():
    """ARENA_LITELLM_UNTUNED=all: litellm as it comes (how docs/RUNNING.md's figures are measured A/B)."""
    assert run_probe(TUNED_PROBE) == ["False", ",".join(sorted(litellm_tuning.TUNINGS))]
    assert run_probe(TUNED_PROBE, ARENA_LITELLM_UNTUNED="all") == ["True", "-"]
    changed = run_probe(TUNED_PROBE, ARENA_LITELLM_UNTUNED="remember_unpriced, nothing_by_that_name")[-1].split(",")
    assert set(changed) == set(litellm_tuning.TUNINGS) - {"remember_unpriced"}
