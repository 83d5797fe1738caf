"""Any litellm model string plays (OpenAI, vLLM, Anthropic and Ollama wire formats, served by the
local stub); keys come only from the environment or `.env` and never reach the database; tokens and
dollar cost per turn from litellm's usage and price map."""

from __future__ import annotations

import asyncio
import json
import os

import duckdb
import pytest

from engine import store
from engine.agents import AgentSpec
from engine.agents.base import AgentError
from engine.agents.llm import LLMAgent, load_litellm
from engine.play.runner import run_spec
from engine.play.spec import SpecError, parse_spec
from engine.secrets import load_dotenv, redact
from engine.testing import StubReply


def one_match(seat: dict, players: int = 2, rounds: int = 1) -> dict:
    return {"name": "providers", "seed": 5, "games": [{
        "game": "guessing_game", "params": {"players": players, "rounds": rounds},
        "lineups": [[seat] + ["bot:random"] * (players - 1)]}]}


def play(raw: dict, db) -> None:
    summary = asyncio.run(run_spec(parse_spec(raw), db, progress=False))
    assert summary.errors == 0, summary.error_messages


def llm_turns(db):
    return store.query(db, "SELECT * FROM turns WHERE seat = 0 ORDER BY turn")


@pytest.mark.parametrize("model, base, path", [
    ("openai/any-model", "url", "/v1/chat/completions"),
    ("hosted_vllm/meta-llama/Llama-3.1-8B-Instruct", "url", "/v1/chat/completions"),
    ("anthropic/claude-haiku-4-5", "root", "/v1/messages"),
    ("ollama/llama3", "root", "/api/generate"),
    ("ollama_chat/llama3", "root", "/api/chat"),
])
def test_every_provider_string_plays_through_litellm(stub, db_path, monkeypatch, model, base, path):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "anthropic-test-credential")
    stub.responder = lambda req: StubReply('{"chosen_number": 17}', prompt_tokens=40, completion_tokens=6)
    play(one_match({"agent": model, "api_base": getattr(stub, base), "temperature": 0.3}), db_path)
    assert stub.paths == [path]
    sent = json.dumps(stub.requests[0])
    assert "2/3" in sent and "0.3" in sent  # our prompt and temperature, in the provider's own format
    turn = llm_turns(db_path).iloc[0]
    assert json.loads(turn["action"])["action"] == 17 and turn["response"] == '{"chosen_number": 17}'
    assert (turn["tokens_in"], turn["tokens_out"]) == (40, 6)
    if model.startswith("anthropic/"):
        assert stub.headers[0]["x-api-key"] == "anthropic-test-credential"  # the key from the environment
        price = load_litellm().model_cost["claude-haiku-4-5"]
        expected = 40 * price["input_cost_per_token"] + 6 * price["output_cost_per_token"]
        assert turn["cost_usd"] == pytest.approx(expected)
        assert turn["cost_usd"] > 0


def test_cost_comes_from_the_price_map_and_is_null_for_an_unpriced_model(stub, db_path):
    stub.responder = lambda req: StubReply('{"chosen_number": 9}', prompt_tokens=1000, completion_tokens=100)
    priced = {"agent": "openai/gpt-4o-mini", "api_base": stub.url}
    unpriced = {"agent": "openai/my-finetune", "api_base": stub.url}
    raw = {"name": "cost", "games": [{"game": "guessing_game", "params": {"players": 3, "rounds": 1},
                                      "lineups": [[priced, unpriced, "bot:random"]]}]}
    play(raw, db_path)
    rows = store.query(db_path, "SELECT seat, cost_usd, tokens_in FROM turns WHERE seat IS NOT NULL ORDER BY seat")
    price = load_litellm().model_cost["gpt-4o-mini"]
    expected = 1000 * price["input_cost_per_token"] + 100 * price["output_cost_per_token"]
    assert rows["cost_usd"][0] == pytest.approx(expected)
    assert rows["cost_usd"][0] > 0 and pd_isnull(rows["cost_usd"][1])
    assert rows["cost_usd"][2] == 0.0 and rows["tokens_in"][2] == 0  # a bot is free


def pd_isnull(value) -> bool:
    return value is None or value != value


def test_a_key_echoed_by_a_failing_provider_never_reaches_the_database(stub, db_path, monkeypatch):
    secret = "sk-live-Zq81fakefakefake9931x"
    monkeypatch.setenv("OPENAI_API_KEY", secret)

    def echo_auth(req):  # a badly behaved provider that puts the key it got into its error
        return StubReply(f"refused: {stub.headers[-1].get('authorization')}", status=401)

    stub.responder = echo_auth
    summary = asyncio.run(run_spec(parse_spec(one_match({"agent": "openai/echo", "api_base": stub.url})),
                                   db_path, progress=False))
    assert summary.errors == 1 and all(secret not in m for m in summary.error_messages)
    assert stub.headers[0]["authorization"] == f"Bearer {secret}"  # it was sent...
    stub.responder = lambda req: StubReply(f"my key is {stub.headers[-1].get('authorization')}", status=400)
    asyncio.run(run_spec(parse_spec(one_match({"agent": "openai/echo", "api_base": stub.url})), db_path,
                         progress=False))
    con = duckdb.connect(str(db_path), read_only=True)
    try:
        for table in ("runs", "matches", "seats", "turns", "metrics"):
            for row in con.execute(f"SELECT * FROM {table}").fetchall():
                assert secret not in json.dumps(row, default=str), table  # ...and stored nowhere
        errors = [e for (e,) in con.execute("SELECT error FROM matches").fetchall()]
    finally:
        con.close()
    assert errors and all("***" in e for e in errors)


def test_dotenv_fills_missing_keys_without_overriding_the_environment(tmp_path, monkeypatch):
    env = tmp_path / ".env"
    env.write_text('# keys\nexport GROQ_API_KEY="gsk-from-file"\nOPENAI_API_KEY=from-file # comment\n'
                   "not a line\nEMPTY=\n", encoding="utf-8")
    monkeypatch.setenv("OPENAI_API_KEY", "from-environment")
    monkeypatch.delenv("GROQ_API_KEY", raising=False)
    monkeypatch.delenv("EMPTY", raising=False)
    assert sorted(load_dotenv(env)) == ["EMPTY", "GROQ_API_KEY"]
    assert os.environ["EMPTY"] == ""
    assert os.environ["OPENAI_API_KEY"] == "from-environment" and os.environ["GROQ_API_KEY"] == "gsk-from-file"
    assert load_dotenv(tmp_path / "missing.env") == []
    assert redact("key gsk-from-file and from-environment") == "key *** and ***"


def test_dotenv_is_git_ignored():
    ignored = (store.ROOT / ".gitignore").read_text().split()
    assert ".env" in ignored and ".cache/" in ignored


def test_api_base_and_seat_settings_are_in_the_spec_never_a_key():
    with pytest.raises(Exception, match="api_key: holds a key.*never in a spec"):
        parse_spec(one_match({"agent": "openai/gpt-4o", "api_key": "sk-in-spec-is-refused"}))


KEY = "sk-live-SpecKey9f8e7d6c5b4a3"


@pytest.mark.parametrize("seat, where", [
    ({"agent": "openai/m", "api_base": f"http://user:{KEY}@127.0.0.1:9/v1"}, "api_base"),
    ({"agent": "openai/m", "api_base": "http://127.0.0.1:9/v1?api-key=abcdef123"}, "api_base"),
    ({"agent": "openai/m", "label": "SpecKey9f8e7d6c5b4a3"}, "label"),  # the env's key without its prefix
    ({"agent": "openai/m", "label": "sk-proj-abcdefghijklmnop"}, "label"),  # key-shaped
    ({"agent": "openai/m", "label": "SK-PROJ-ABCDEFGHIJKLMNOP1234"}, "label"),  # in capitals
    ({"agent": "openai/m", "label": "SpecKey9f8e7d"}, "label"),  # the env key's first part
    ({"agent": "openai/m", "label": "AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"}, "label"),  # Google's shape
    ({"agent": "openai/m", "label": "ghp_R2d9abcdefghijklmnopqrstuvwxyz012345"}, "label"),  # GitHub's
    ({"agent": "openai/m", "strategy": "AKIAIOSFODNN7EXAMPLE is my AWS key"}, "strategy"),  # AWS's
    ({"agent": "openai/m", "label": "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNH"},
     "label"),  # a bearer token (a JSON Web Token)
])
def test_a_key_anywhere_in_a_spec_is_refused_naming_where(seat, where, monkeypatch):
    """An attack: only an `api_key:` field was refused; a key in an endpoint's URL, a label or the description
    was stored with the run (runs.spec, seats.label, the summaries, the exported pages and their file names)."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with pytest.raises(SpecError, match=rf"lineups\[0\]\[0\]\.{where}: holds .*never in a spec"):
        parse_spec(one_match(seat))
    with pytest.raises(SpecError, match="description: holds a key"):
        parse_spec(one_match({"agent": "openai/m"}) | {"description": f"my key is {KEY}"})
    assert parse_spec(one_match({"agent": "openai/m", "api_base": "http://127.0.0.1:9/v1", "label": "mine"}))


def test_an_unpriced_model_costs_null_and_a_price_registered_later_counts(stub, monkeypatch):
    """An unpriced model's cost stays NULL, a priced model is priced on every call, and a price registered later
    is used."""
    litellm = load_litellm()
    import litellm.cost_calculator as cost_calculator

    lookups = []
    real = cost_calculator.completion_cost

    def counted(*args, **kwargs):
        lookups.append(kwargs.get("model"))
        return real(*args, **kwargs)

    monkeypatch.setattr(cost_calculator, "completion_cost", counted)
    stub.responder = lambda req: StubReply('{"chosen_number": 17}', prompt_tokens=1000, completion_tokens=100)

    async def costs(model: str, n: int) -> list:
        replies = [await litellm.acompletion(model=model, messages=[{"role": "user", "content": f"hi {i}"}],
                                             api_base=stub.url) for i in range(n)]
        return [r._hidden_params.get("response_cost") for r in replies]

    model = f"openai/unpriced-{os.getpid()}"
    assert asyncio.run(costs(model, 3)) == [None] * 3
    lookups.clear()
    price = litellm.model_cost["gpt-4o-mini"]
    expected = 1000 * price["input_cost_per_token"] + 100 * price["output_cost_per_token"]
    assert asyncio.run(costs("openai/gpt-4o-mini", 2)) == [pytest.approx(expected)] * 2
    assert len(lookups) == 2, "a priced model is priced on every call"
    try:
        litellm.register_model({model: {"input_cost_per_token": 1e-6, "output_cost_per_token": 2e-6,
                                        "litellm_provider": "openai", "mode": "chat"}})
        assert asyncio.run(costs(model, 1)) == [pytest.approx(1000 * 1e-6 + 100 * 2e-6)]
    finally:
        litellm.model_cost.pop(model, None)  # the process's price map as it was


@pytest.mark.parametrize("first_import", [
    "import engine.agents.local_model",
    "from engine.agents.model_names import model_problem; model_problem('local/smollm2')",
    "from engine.agents.llm import load_litellm; load_litellm()",
])
def test_litellms_price_map_is_never_fetched_whichever_module_imports_it_first(first_import):
    """litellm fetches its price map on import unless told not to: the Launch form's model check imported it through
    local_model before the switch was set (a stall, warnings, and prices that change with the day)."""
    import socket
    import subprocess
    import sys
    import threading

    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        listener.settimeout(30)
        fetched = []

        def accept() -> None:
            try:
                fetched.append(listener.accept()[0])
            except OSError:
                pass

        waiter = threading.Thread(target=accept, daemon=True)
        waiter.start()
        env = {k: v for k, v in os.environ.items() if k != "LITELLM_LOCAL_MODEL_COST_MAP"}
        env["LITELLM_MODEL_COST_MAP_URL"] = f"http://127.0.0.1:{listener.getsockname()[1]}/prices.json"
        done = subprocess.run([sys.executable, "-c", first_import], env=env, capture_output=True, text=True,
                              timeout=120, cwd=store.ROOT)
        assert done.returncode == 0, done.stderr
        assert fetched == [] and "cost map" not in done.stderr.lower(), done.stderr


def test_a_dead_endpoints_error_reads_without_object_addresses():
    """A new user's report: Start against a dead endpoint showed "Cannot connect to host 127.0.0.1:9
    ssl:<ssl.SSLContext object at 0x7f...>": an object's address, and SSL named for an http:// URL."""
    import asyncio
    import socket

    from engine.agents.base import AgentError, AgentSpec
    from engine.agents.llm import LLMAgent

    with socket.socket() as probe:  # a port nothing listens on once it is closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    agent = LLMAgent(AgentSpec("openai/dead", api_base=f"http://127.0.0.1:{port}/v1", max_tokens=1),
                     use_cache=False, transport_retries=0, timeout=10)
    with pytest.raises(AgentError) as failed:
        asyncio.run(agent.call([{"role": "user", "content": "hi"}], {"max_tokens": 1}))
    said = str(failed.value)
    assert f"127.0.0.1:{port}" in said or "Connection" in said, said
    assert " object at 0x" not in said and "ssl:" not in said, said


@pytest.mark.parametrize(("reply", "said"), [
    (StubReply("x", flood=3_000_000), "a reply of more than 1,265,536 bytes"),  # no length told: cut while read
    (StubReply("x" * 1_300_000), "a reply of 1,300,"),  # its length told: refused before it is read
    (StubReply("oops", status=503, flood=3_000_000), "a reply of more than 1,265,536 bytes"),  # an error's body
    (StubReply("x", headers={"Content-Encoding": "gzip"}), "encoded as 'gzip', which was not asked for"),
])
def test_a_reply_is_read_up_to_its_cap_and_asked_for_unencoded(stub, reply, said):
    stub.responder = lambda request: reply
    agent = LLMAgent(AgentSpec("openai/m", api_base=stub.url), transport_retries=0, use_cache=False)
    with pytest.raises(AgentError, match="failed after 1 attempt") as failed:
        asyncio.run(agent.call([{"role": "user", "content": "hi"}], {}))
    assert said in str(failed.value) and stub.headers[-1]["accept-encoding"] == "identity"
