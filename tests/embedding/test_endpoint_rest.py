"""A wedged endpoint makes one search wait, not every search: the miss is kept for all runs."""

from __future__ import annotations

import json
import os
import socket

import pytest

from tests.embedding.fake_server import WEDGE
from tests.helpers import write_tree
from wherein.cli import main
from wherein.config import load_settings
from wherein.endpoint import rest
from wherein.storage.paths import data_home

REPO = {
    "app/routing.py": "class Router:\n    def add_route(self, path, handler):\n"
    "        self.routes[path] = handler\n",
    "app/cookies.py": "def parse_cookie(header):\n    return dict(p.split('=') for p in header)\n",
    "app/session.py": "class Session:\n    def close(self):\n        self.open = False\n",
}
# Over `rest.WORTH_RESTING_S`, so a wedged probe is a miss worth keeping.
TIMEOUT_S = "1.5"


@pytest.fixture
def repo(tmp_path):
    return write_tree(tmp_path / "repo", REPO)


@pytest.fixture
def endpoint(monkeypatch, server):
    monkeypatch.setenv("WHEREIN_EMBEDDING_PROVIDER", "ollama")
    monkeypatch.setenv("WHEREIN_EMBEDDING_API_BASE", server.url)
    monkeypatch.setenv("WHEREIN_EMBEDDING_TIMEOUT_S", TIMEOUT_S)
    return server


def _search(repo, query: str, capsys) -> dict:
    assert main(["search", query, "--json", "--workspace", str(repo)]) == 0
    return json.loads(capsys.readouterr().out)


def test_searches_after_a_wedged_probe_do_not_ask_again_until_status_or_index_does(
    repo, endpoint, capsys
):
    assert main(["index", "--workspace", str(repo)]) == 0
    capsys.readouterr()
    endpoint.queue.extend([WEDGE] * 3)
    asked = endpoint.connections

    first = _search(repo, "parse a cookie header", capsys)
    assert endpoint.connections == asked + 1
    assert any("did not answer within 1.5 s" in w for w in first["warnings"])
    assert first["results"][0]["path"] == "app/cookies.py"  # keywords and the fast tier

    second = _search(repo, "add a route", capsys)
    assert endpoint.connections == asked + 1  # never asked
    (said,) = [w for w in second["warnings"] if "not asked again" in w]
    assert "did not answer within 1.5 s" in said and "'wherein status'" in said
    assert not second["tiers"]["full"]["used"]
    assert second["results"][0]["path"] == "app/routing.py"

    assert main(["status", "--workspace", str(repo)]) == 0  # asks now, and is wedged again
    assert endpoint.connections == asked + 2
    assert main(["index", "--workspace", str(repo)]) == 0  # asks now too
    assert endpoint.connections == asked + 3
    capsys.readouterr()

    # The queue is empty: the endpoint answers again, and an answer ends the rest.
    assert main(["status", "--workspace", str(repo)]) == 0
    assert "answered" in capsys.readouterr().out
    answered = _search(repo, "close the session", capsys)
    assert answered["tiers"]["full"]["used"]
    assert not any("not asked again" in w for w in answered["warnings"])


def test_a_refused_connection_is_not_kept(repo, monkeypatch, capsys):
    """Nothing listening fails in milliseconds: the next search asks again, in case the
    server has just started."""
    with socket.create_server(("127.0.0.1", 0)) as sock:
        port = sock.getsockname()[1]
    monkeypatch.setenv("WHEREIN_EMBEDDING_PROVIDER", "ollama")
    monkeypatch.setenv("WHEREIN_EMBEDDING_API_BASE", f"http://127.0.0.1:{port}")
    assert main(["index", "--workspace", str(repo)]) == 0
    capsys.readouterr()
    assert rest.resting(rest.rest_key(load_settings(repo))) is None
    assert not (data_home() / rest.REST_FILE_NAME).exists()


def test_the_rest_doubles_to_its_ceiling_and_survives_no_clock_trick():
    key = "ollama:m:http://127.0.0.1:1"
    assert rest.note_miss(key, "first", now=1000.0) == rest.FIRST_REST_S
    assert rest.note_miss(key, "second", now=1001.0) == 2 * rest.FIRST_REST_S
    kept = rest.resting(key, now=1011.0)
    assert kept is not None and kept.said == "second"
    assert kept.ago_s == pytest.approx(10.0) and kept.left_s == pytest.approx(20.0)
    assert rest.resting(key, now=1031.0) is None
    for _ in range(20):
        wait = rest.note_miss(key, "again", now=2000.0)
    assert wait == rest.REST_CEILING_S
    # A clock set back a day: the rest still ends within its ceiling.
    assert rest.resting(key, now=2000.0 - 86400).left_s == rest.REST_CEILING_S
    # A miss long after the last rest ended is not one in a row: the first rest again.
    assert rest.note_miss(key, "a day later", now=2000.0 + 86400) == rest.FIRST_REST_S
    rest.note_answer(key)
    assert rest.resting(key, now=2000.0) is None
    assert rest.resting("another", now=2000.0) is None


@pytest.mark.parametrize(
    "content",
    [b"not json", b"[1, 2]", b'{"k": {"at": "x", "until": null, "said": 3}}', b"{" * 70_000],
)
def test_a_damaged_rest_file_is_ignored_and_replaced(content):
    path = data_home() / rest.REST_FILE_NAME
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    assert rest.resting("k") is None
    rest.note_miss("k", "wedged")
    assert rest.resting("k").said == "wedged"


def test_the_rest_file_is_never_written_through_a_link(tmp_path):
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text("{}")
    path = data_home() / rest.REST_FILE_NAME
    path.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(elsewhere, path)
    rest.note_miss("k", "wedged")  # a hint: not kept, and no error
    assert elsewhere.read_text() == "{}"
    assert rest.resting("k") is None


def test_what_a_rest_says_reaches_the_terminal_without_control_characters():
    rest.note_miss("k", "wedged \x1b[31mred\x1b[0m\nnext line")
    said = rest.resting("k").message()
    assert "\x1b" not in said and "\n" not in said


def test_a_sessions_answer_ends_a_rest_another_process_started(endpoint, http_settings):
    """A serve session's embedder keeps getting answers while a CLI search, meanwhile, timed
    out: its next answer (checked every few seconds) ends the rest for every process."""
    from wherein.embedding.ollama import OllamaEmbedder

    settings = http_settings(api_base=endpoint.url, provider="ollama", timeout_s=1.5)
    embedder = OllamaEmbedder(settings)
    key = rest.rest_key(settings)
    rest.note_miss(key, "Another process's search waited.")
    embedder._rest_checked_at = 0.0  # as SHARED_REST_CHECK_S after its last look
    embedder.embed(["def f(): pass"])
    assert rest.resting(key) is None
