"""The HTTP client litellm calls the providers with: its own transport, reading at most `limit` bytes of a reply.

A reply is cut while it is read, so a flood costs what the cap allows, not what the endpoint sends. Before, a
huge answer was read whole before its size was checked, and a body missing the usual fields kept litellm's
parsing busy past every deadline. The limit holds for error bodies (a 5xx, a 429) too. A reply is asked
for unencoded (`Accept-Encoding: identity`): a compressed one would be inflated after its bytes were counted, so
one that comes compressed anyway is refused.

OpenAI-style routes take this client through litellm's own HTTP handler (its `EXPERIMENTAL_OPENAI_BASE_LLM_HTTP_HANDLER`
switch, on whenever a client is made): the OpenAI SDK's route would want an SDK client instead. The handler
also costs less CPU for each call than the SDK's route.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import ssl
import weakref
from collections.abc import AsyncIterator
from typing import Any

import httpx


class ReplyTooLarge(httpx.ReadError):
    """More bytes than the cap (a transport error: retried like a dropped connection)."""


class _CappedStream(httpx.AsyncByteStream):
    def __init__(self, stream: httpx.AsyncByteStream, limit: int):
        self._stream = stream
        self._limit = limit

    async def __aiter__(self) -> AsyncIterator[bytes]:
        read = 0
        async for chunk in self._stream:
            read += len(chunk)
            if read > self._limit:
                raise ReplyTooLarge(f"a reply of more than {self._limit:,} bytes (the cap on an answer)")
            yield chunk

    async def aclose(self) -> None:
        await self._stream.aclose()


class CappedTransport(httpx.AsyncBaseTransport):
    """Another transport (litellm's default) whose replies are read `limit` bytes at most."""

    def __init__(self, inner: httpx.AsyncBaseTransport, limit: int):
        self._inner = inner
        self._limit = limit

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        request.headers["Accept-Encoding"] = "identity"
        response = await self._inner.handle_async_request(request)
        encoding = response.headers.get("Content-Encoding", "identity").strip().lower()
        declared = response.headers.get("Content-Length", "")
        refused = None
        if encoding not in ("", "identity"):
            refused = f"a reply encoded as {encoding[:40]!r}, which was not asked for"
        elif declared.isdigit() and int(declared) > self._limit:
            refused = f"a reply of {int(declared):,} bytes (the cap on an answer is {self._limit:,})"
        if refused:
            await response.aclose()
            raise ReplyTooLarge(refused, request=request)
        return httpx.Response(response.status_code, headers=response.headers,
                              stream=_CappedStream(response.stream, self._limit), extensions=response.extensions,
                              request=request)

    async def aclose(self) -> None:
        """Nothing: litellm retries a refused connection through a client of its own over this transport and closes
        that client after, which would close the connections every call of the loop shares (a pooled endpoint's
        death then cut the calls in flight to the others). They are closed at exit (`_close_all`)."""

    async def close_connections(self) -> None:
        await self._inner.aclose()


OWN_HANDLER_ENV = "EXPERIMENTAL_OPENAI_BASE_LLM_HTTP_HANDLER"
_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[int, Any]] = weakref.WeakKeyDictionary()
_made: list[CappedTransport] = []  # the transport of every client made, closed at exit


def capped_client(limit: int) -> Any:
    """litellm's HTTP handler (`AsyncHTTPHandler`) over a CappedTransport of its default transport (aiohttp: a call
    costs less CPU than through httpx's own), shared by every call of this event loop with this limit (its
    connections belong to the loop)."""
    from litellm.llms.custom_httpx.http_handler import AsyncHTTPHandler, get_ssl_configuration

    os.environ[OWN_HANDLER_ENV] = "True"  # read by litellm on every call
    per_loop = _clients.setdefault(asyncio.get_running_loop(), {})
    if limit not in per_loop:
        tls = get_ssl_configuration()  # litellm's own settings (SSL_VERIFY, SSL_CERT_FILE...), as its client takes them
        inner = AsyncHTTPHandler.create_async_transport(ssl_context=tls if isinstance(tls, ssl.SSLContext) else None,
                                                        ssl_verify=tls if isinstance(tls, bool) else None)
        inner = inner or httpx.AsyncHTTPTransport(verify=tls)
        transport = CappedTransport(inner, limit)
        per_loop[limit] = AsyncHTTPHandler(transport=transport)
        if not _made:
            atexit.register(_close_all)
        _made.append(transport)
    return per_loop[limit]


def _close_all() -> None:
    """Close every client's connections on a loop of its own, as litellm does for the clients it makes: theirs has
    ended, and aiohttp would complain of each session left open while the interpreter shuts down."""
    async def close() -> None:
        for transport in _made:
            with contextlib.suppress(Exception):  # a session its ended loop closed already
                await transport.close_connections()

    with contextlib.suppress(Exception):
        asyncio.run(close())
