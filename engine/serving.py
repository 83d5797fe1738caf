"""`python -m engine serve`: the dashboard (Streamlit running app.py) over one study's database, started so that
only this machine reaches it unless the user says otherwise. The only engine module that imports Streamlit."""

from __future__ import annotations

import atexit
import errno
import gc
import os
import socket
import sys
import threading
from pathlib import Path

from engine import store

LOOPBACK = {"127.0.0.1", "localhost", "::1"}


_SETTLED = threading.Lock()  # held for good once the heap is settled


def settle_heap() -> None:
    """Once per process, after the dashboard's first page has run: collect, then freeze what is alive (the modules
    Streamlit, pandas, plotly and the pages loaded: most of the process's objects), so that the collector's full
    passes no longer walk them. Such a pass, run whenever enough new objects have piled up, took 60-90 ms in the
    middle of a page's call (bench/dashboard.py: half of that call's budget at 50,000 matches)."""
    if _SETTLED.acquire(blocking=False):
        gc.collect()
        gc.freeze()
        atexit.register(gc.unfreeze)  # at exit, all of it collectable again: the bindings count what is left as leaked


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

    from engine.launch import form

    # app.py lists its pages with st.navigation. Streamlit only learns that by running app.py: until someone opens
    # the home page it would take pages/ for an old-style page folder, and a shared link such as /leaderboard
    # would run that page alone, without the app's navigation and layout.
    PagesManager.uses_pages_directory = False
    os.environ["ARENA_DB"] = str(db.resolve())
    os.chdir(store.ROOT)  # Streamlit reads .streamlit/config.toml (no file watcher, minimal toolbar) from its cwd
    if address not in LOOPBACK or allowed_hosts:  # other machines reach it (a proxy names it otherwise)
        os.environ[form.PUBLIC_ENV] = "1"  # Launch then needs ARENA_ADMIN_TOKEN
        if form.admin_token() is None:
            reached = address + (f" as {', '.join(allowed_hosts)}" if allowed_hosts else "")
            print(f"serving beyond localhost ({reached}): Launch is refused until ARENA_ADMIN_TOKEN is set",
                  file=sys.stderr)
    sys.argv = serve_argv(address, port, allowed_hosts)
    try:
        with store.serving_pages():  # the pages' reads bounded tighter: the process holds Streamlit and pandas too
            return streamlit_cli.main()
    finally:  # stopped: a page's thread still reading would abort the interpreter's exit
        store.stop_reads()


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
    """Streamlit's command line for the dashboard. Its WebSocket (which every page and Launch go through)
    accepts only the listed Host names, so a page elsewhere cannot reach it by DNS rebinding."""
    hosts = list(dict.fromkeys(["localhost", "127.0.0.1", *([address] if address not in ("0.0.0.0", "::") else []),
                                *allowed_hosts]))
    argv = ["streamlit", "run", str(store.ROOT / "app.py"), "--server.address", address, "--server.port", str(port),
            "--server.headless", "true", "--browser.gatherUsageStats", "false",
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
