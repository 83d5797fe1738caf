"""One model served by several endpoints: a seat lists several `api_base`s, litellm's Router spreads the calls
over them, and when one endpoint dies mid-run its calls fail over to the others: no match is lost."""

from __future__ import annotations

import asyncio
import re
import threading

import pytest

from engine import store
from engine.play.runner import run_spec
from engine.play.spec import SpecError, parse_spec
from engine.testing import StubReply, StubServer

pytestmark = pytest.mark.slow

STOP_AFTER = 40  # calls the first endpoint answers before it dies


def test_calls_are_balanced_over_the_endpoints_and_fail_over_when_one_dies(db_path):
    reply = StubReply('{"chosen_number": 33}', delay=0.01)
    with StubServer(lambda req: reply) as second, StubServer() as first:
        def first_then_dead(req):
            if len(first.requests) == STOP_AFTER:
                threading.Thread(target=first.stop).start()  # a crash: listener gone, open connections cut
            return reply
        first.responder = first_then_dead
        seat = {"agent": "openai/pooled", "api_base": [first.url, second.url], "max_tokens": 8}
        raw = {"name": "pool", "seed": 0, "repeats": 12, "concurrency": 6,
               "games": [{"game": "guessing_game", "params": {"players": 3, "rounds": 5}, "lineups": [{"all": seat}]}]}
        summary = asyncio.run(run_spec(parse_spec(raw), db_path, progress=False))
        served = len(first.requests), len(second.requests)
    assert summary.errors == 0 and summary.played == 12
    decisions = store.query(db_path, """
        SELECT count(*) AS n, count(*) FILTER (WHERE fallback) AS fallbacks FROM turns WHERE seat IS NOT NULL""")
    assert decisions["n"][0] == 12 * 3 * 5 and decisions["fallbacks"][0] == 0
    assert served[0] >= STOP_AFTER, "the first endpoint took its share until it died"
    # the second took its share from the start, and every call after the crash
    assert served[1] >= 12 * 3 * 5 - served[0] and served[1] > 12 * 3 * 5 // 4
    assert store.query(db_path, "SELECT count(*) AS n FROM matches WHERE status = 'ok'")["n"][0] == 12


@pytest.mark.parametrize("bad, says", [([], "api_base: List should have at least 1 item"),
                                       ([""], "api_base[0]: '' is not a URL"), ("  ", "api_base[0]: '  ' is not a URL"),
                                       ([3], "api_base[0]: Input should be a valid string, got 3")])
def test_a_bad_endpoint_list_is_refused_naming_where(bad, says):
    raw = {"name": "x", "games": [{"game": "guessing_game",
                                   "lineups": [{"all": {"agent": "openai/m", "api_base": bad}}]}]}
    with pytest.raises(SpecError, match=re.escape(f"games[0].lineups[0].all.{says}")):
        parse_spec(raw)


@pytest.mark.parametrize("bad", ["localhost:8000/v1", "ftp://host/v1", ["http://gpu1:8000/v1", "gpu2:8000"],
                                 "http:///v1", "http://my host/v1"])
def test_an_endpoint_that_is_no_url_is_refused_naming_it(bad):
    """A spec took any text as an endpoint (`localhost:8000/v1` without its scheme): every call of the run failed.
    The Launch form's endpoint field says the same (engine.serve.launch.form.endpoint_problem)."""
    raw = {"name": "x", "games": [{"game": "guessing_game",
                                   "lineups": [{"all": {"agent": "openai/m", "api_base": bad}}]}]}
    wrong = bad[-1] if isinstance(bad, list) else bad
    with pytest.raises(SpecError, match=r"api_base\[\d\]: " + re.escape(f"{wrong!r} is not a URL; write it as http://host")):
        parse_spec(raw)
