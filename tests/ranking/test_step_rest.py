"""A chat model that made a search wait for nothing is not asked again at once, by any search.

Counted on the server: a step that failed at once and a step that never asked look alike to
the caller, so each test reads how many connections the server saw.
"""

from __future__ import annotations

import json

from tests.embedding.fake_server import Reply
from tests.ranking.chat_server import FakeChatServer
from tests.ranking.conftest import model_settings
from wherein.endpoint import rest
from wherein.ranking.chat import rest_key
from wherein.ranking.expansion import expand_query
from wherein.ranking.rerank import rerank
from wherein.storage.paths import data_home

QUERY = "retry after failure"
ITEMS = ["a", "b", "c"]
PASSAGES = ["def retry(): ...", "class Router: ...", "def parse_cookie(header): ..."]


def _expire_rests() -> None:
    """Move every kept rest's end into the past, as the clock would."""
    path = data_home() / rest.REST_FILE_NAME
    entries = json.loads(path.read_text())
    for entry in entries.values():
        entry["until"] = entry["at"]
    path.write_text(json.dumps(entries))


def test_a_wedged_model_is_waited_for_once_then_rests_for_both_steps(step_settings):
    with FakeChatServer(wedged=True) as chat:
        settings = step_settings(**model_settings(chat.url, "expansion", "rerank", timeout_s=1.0))
        _, first = expand_query(QUERY, settings)
        assert first.status == "timed_out"
        seen = chat.connections
        assert seen == 1

        queries, again = expand_query(QUERY, settings)
        order, reranked = rerank(QUERY, ITEMS, PASSAGES, settings)
        assert chat.connections == seen  # neither step asked
    assert queries == [QUERY] and order == ITEMS
    for status in (again, reranked):
        assert status.status == "failed"
        assert status.ms < 500
        assert "no answer within 1 s" in status.reason
        assert "not asked again for" in status.reason
        assert "wherein status" not in status.reason  # status does not ask a chat model


def test_an_answer_after_the_rest_ends_it(step_settings):
    with FakeChatServer(wedged=True) as chat:
        settings = step_settings(**model_settings(chat.url, "expansion", timeout_s=1.0))
        expand_query(QUERY, settings)
        assert rest.resting(rest_key(settings, "expansion")) is not None
        _expire_rests()
        chat.wedged = False
        queries, status = expand_query(QUERY, settings)
    assert status.status == "used" and len(queries) > 1
    assert json.loads((data_home() / rest.REST_FILE_NAME).read_text()) == {}


def test_a_longer_deadline_asks_at_once(step_settings):
    with FakeChatServer(wedged=True) as chat:
        expand_query(QUERY, step_settings(**model_settings(chat.url, "expansion", timeout_s=1.0)))
        chat.wedged = False
        longer = step_settings(**model_settings(chat.url, "expansion", timeout_s=2.0))
        _, status = expand_query(QUERY, longer)
        assert chat.connections == 2
    assert status.status == "used"


def test_a_short_wait_or_an_error_answer_starts_no_rest(step_settings):
    with FakeChatServer(wedged=True) as chat:
        quick = step_settings(**model_settings(chat.url, "expansion", timeout_s=0.3))
        assert expand_query(QUERY, quick)[1].status == "timed_out"
        assert expand_query(QUERY, quick)[1].status == "timed_out"
        assert chat.connections == 2
    with SlowError() as slow:
        settings = step_settings(**model_settings(slow.url, "expansion", timeout_s=3.0))
        _, status = expand_query(QUERY, settings)
        assert status.status == "failed" and "HTTP 500" in status.reason
        assert status.ms >= 1000  # it made the search wait, but it answered
        assert expand_query(QUERY, settings)[1].status == "failed"
        assert slow.connections == 2


class SlowError(FakeChatServer):
    """Answers every chat request with an error, late."""

    def answer(self, path: str, request: object) -> Reply:
        self.stopping.wait(1.2)
        return Reply(500, {"error": "out of memory"})
