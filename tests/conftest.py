"""Every test gets its own data and config directories and no proxy variables."""

from __future__ import annotations

import pytest

PROXY_VARIABLES = (
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
    "no_proxy",
)


# An agent running the tests (Claude Code sets these) must not name the tests' sessions.
HOST_SESSION = ("CLAUDE_CODE_SESSION_ID", "CLAUDE_SESSION_ID")


@pytest.fixture(scope="session")
def model_cache(tmp_path_factory):
    """One XDG cache for the whole run: the default model's int8 graph is made once (3-5 s),
    not by every test that loads the model (tests/embedding/test_int8_graph.py makes its own)."""
    return tmp_path_factory.mktemp("xdg-cache")


@pytest.fixture(autouse=True)
def clean_environ(tmp_path, monkeypatch, model_cache):
    """Point WHEREIN_HOME and XDG_CONFIG_HOME at tmp_path and XDG_CACHE_HOME at the run's;
    drop proxies, WHEREIN_* vars and a host agent's session id."""
    import os

    for name in list(os.environ):
        if name.startswith("WHEREIN_") or name in PROXY_VARIABLES or name in HOST_SESSION:
            monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("WHEREIN_HOME", str(tmp_path / "wherein-home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(model_cache))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    yield


@pytest.fixture(autouse=True)
def close_connections_left_open(monkeypatch):
    """Close, when a test ends, each SQLite connection it opened and left to the collector.

    Many tests open an index (`open_store`) or a bare connection and drop it unclosed. The
    collector closes it later, and from Python 3.13 on it warns then (ResourceWarning, an
    error here) in whichever test happens to be running: a test of `wherein doctor`, say,
    failed for a store a test of the index left behind. Each connection is closed at the end
    of the test that opened it instead; one still in use past the test is a bug to see, and
    closing it makes that bug fail loudly in the next test that touches it.
    """
    import contextlib
    import sqlite3

    opened: list[sqlite3.Connection] = []  # held: Python 3.11's connections take no weakref
    connect = sqlite3.connect

    def connect_and_remember(*args, **kwargs):
        conn = connect(*args, **kwargs)
        opened.append(conn)
        return conn

    monkeypatch.setattr(sqlite3, "connect", connect_and_remember)
    yield
    for conn in opened:
        # One opened by another thread (the MCP server's) may be closed only there.
        with contextlib.suppress(sqlite3.ProgrammingError):
            conn.close()
