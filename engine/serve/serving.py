"""`python -m engine serve`: the dashboard (Streamlit running app.py, served by dashboard.py behind `OwnOrigin`) over
one study's database, started so that only this machine reaches it unless the user says otherwise, and only pages
of its own origin talk to it. The only engine module that imports Streamlit."""

from __future__ import annotations

import errno
import os
import signal
import socket
import sys
from fnmatch import fnmatch
from pathlib import Path
from urllib.parse import urlsplit

from engine import store
from engine.store import connections

LOOPBACK = {"127.0.0.1", "localhost", "::1"}
ALLOWED_HOSTS_ENV = "ARENA_ALLOWED_HOSTS"  # the --allowed-host names, for `OwnOrigin` in the server's process


class OwnOrigin:
    """ASGI middleware: a request (HTTP or the WebSocket every page and Launch go through) that a browser sent from
    another origin is refused (403). Streamlit's own check lets in any port of localhost, 127.0.0.1 and 0.0.0.0:
    a page served on another local port could open a session and start a run whose endpoint receives the key.
    An origin is the dashboard's own when it names the Host the request was sent to, or a host name the user
    allowed (`--allowed-host`: a proxy may pass another Host on). A request without an Origin (not sent by a
    page's script: a link followed, curl) is let through: no other page can read its answer."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] in ("http", "websocket") and not own_origin(dict(scope["headers"])):
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1008})  # before the handshake: a 403 answer
            else:
                await send({"type": "http.response.start", "status": 403,
                            "headers": [(b"content-type", b"text/plain; charset=utf-8")]})
                await send({"type": "http.response.body", "body": b"another origin: refused\n"})
            return
        await self.app(scope, receive, send)


def own_origin(headers: dict[bytes, bytes]) -> bool:
    """Whether the request's Origin header (absent, or naming its Host or an allowed host name) is the dashboard's."""
    origin = headers.get(b"origin")
    if origin is None:
        return True
    parts = urlsplit(origin.decode("latin-1"))
    if parts.scheme not in ("http", "https") or not parts.netloc:  # "null" (a sandboxed page, a file opened)
        return False
    if parts.netloc.lower() == headers.get(b"host", b"").decode("latin-1").lower():
        return True
    return any(fnmatch(parts.hostname or "", allowed) for allowed in _allowed_hosts())


def _allowed_hosts() -> list[str]:
    return [host for host in os.environ.get(ALLOWED_HOSTS_ENV, "").split(",") if host]


class ServeError(ValueError):
    """The dashboard cannot start as asked (the port is taken): one line for the user."""


def serve(db: Path, address: str, port: int, allowed_hosts: list[str]) -> int:
    """Run Streamlit in this process until it stops; returns its exit code."""
    sys.stdout, sys.stderr = OutputOrNothing(sys.stdout), OutputOrNothing(sys.stderr)
    if taken := port_taken(address, port):
        if taken.errno == errno.EADDRINUSE:
            raise ServeError(f"cannot listen on {address}:{port} ({taken.strerror}): another dashboard may be "
                             f"serving there; pass --port with a free one")
        raise ServeError(f"cannot listen on {address}:{port} ({taken.strerror or taken}): pass --address with an "
                         f"address of this machine (default 127.0.0.1)")
    if not db.exists():  # a typo in --db shows an empty dashboard: say which file it waits for
        print(f"note: {db} does not exist yet: the pages show no matches until a run or an import writes it",
              file=sys.stderr)
    from streamlit.runtime.pages_manager import PagesManager
    from streamlit.web import cli as streamlit_cli

    from engine.serve.launch import form

    # app.py lists its pages with st.navigation. Streamlit only learns that by running app.py: until someone opens
    # the home page it would take pages/ for an old-style page folder, and a shared link such as /leaderboard
    # would run that page alone, without the app's navigation and layout.
    PagesManager.uses_pages_directory = False
    os.environ["ARENA_DB"] = str(db.resolve())
    os.environ[ALLOWED_HOSTS_ENV] = ",".join(allowed_hosts)
    # the pages' reads bounded tighter than a batch reader's: the process holds Streamlit and pandas too
    os.environ[connections.READER_MEMORY_ENV] = connections.PAGES_READER_MEMORY
    os.chdir(store.ROOT)  # Streamlit reads .streamlit/config.toml (no file watcher, minimal toolbar) from its cwd
    if address not in LOOPBACK or allowed_hosts:  # other machines reach it (a proxy names it otherwise)
        os.environ[form.PUBLIC_ENV] = "1"  # Launch then needs ARENA_ADMIN_TOKEN
        if form.admin_token() is None:
            reached = address + (f" as {', '.join(allowed_hosts)}" if allowed_hosts else "")
            print(f"serving beyond localhost ({reached}): Launch is refused until ARENA_ADMIN_TOKEN is set",
                  file=sys.stderr)
    sys.argv = serve_argv(address, port, allowed_hosts)
    before = {stop: signal.signal(stop, _stopped) for stop in (signal.SIGINT, signal.SIGTERM)}
    try:
        with store.serving_pages():
            return streamlit_cli.main()
    except _Stopped:
        return 0
    finally:  # stopped: a page's thread still reading would abort the interpreter's exit
        store.stop_reads()
        for stop, handler in before.items():
            signal.signal(stop, handler)


class _Stopped(Exception):
    """SIGTERM or Ctrl-C: the dashboard was asked to stop."""


def _stopped(signum: int, frame: object) -> None:
    """The server (uvicorn) shuts down on SIGTERM and Ctrl-C, then raises the signal again for the handler it found:
    this one, so that a stop asked for ends the command with 0 (not killed by the signal, nor Ctrl-C's 1)."""
    raise _Stopped


class OutputOrNothing:
    """A console stream whose reader may go away (`serve | head`, a closed SSH session): once its pipe is broken,
    what is written goes nowhere. Streamlit prints "Stopping..." before it stops: on a broken pipe that raised,
    the stop never happened, and SIGTERM and Ctrl-C left the dashboard serving."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            self._to_nowhere()
            return len(text)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            self._to_nowhere()

    def _to_nowhere(self) -> None:
        nowhere = os.open(os.devnull, os.O_WRONLY)
        os.dup2(nowhere, self._stream.fileno())
        os.close(nowhere)

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


def serve_argv(address: str, port: int, allowed_hosts: list[str]) -> list[str]:
    """Streamlit's command line for the dashboard (dashboard.py: app.py behind `OwnOrigin`). Its WebSocket (which
    every page and Launch go through) accepts only the listed Host names, so a page elsewhere cannot reach it by DNS
    rebinding."""
    hosts = list(dict.fromkeys(["localhost", "127.0.0.1", *([address] if address not in ("0.0.0.0", "::") else []),
                                *allowed_hosts]))
    argv = ["streamlit", "run", str(store.ROOT / "dashboard.py"), "--server.address", address,
            "--server.port", str(port), "--server.headless", "true", "--browser.gatherUsageStats", "false",
            "--server.enableXsrfProtection", "true", "--server.enableCORS", "true"]
    for host in hosts:
        argv += ["--server.allowedHosts", host]
    return argv


def port_taken(address: str, port: int) -> OSError | None:
    """Why the dashboard could not listen on `address:port` (a port in use, an address not this machine's or no
    address at all), or None when it can: Streamlit itself only logs "Port N is not available" and exits 1.
    Bound as Streamlit's server binds (address reuse on)."""
    try:
        family, kind, proto, _, where = socket.getaddrinfo(address, port, type=socket.SOCK_STREAM)[0]
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind(where)
    except OSError as exc:
        return exc
    return None
