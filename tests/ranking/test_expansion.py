"""Query expansion against a real loopback chat server: the original query always comes first."""

from __future__ import annotations

import io
import json
import math
import socket
import threading

import pytest

from tests.embedding.fake_server import TRICKLE, Reply
from tests.ranking.chat_server import CHAT_MODEL, OLLAMA_CHAT, OPENAI_CHAT, FakeChatServer
from tests.ranking.conftest import model_settings, places
from wherein.config import load_settings
from wherein.endpoint import guard
from wherein.present import print_results, result_notes
from wherein.ranking.expansion import MAX_PHRASINGS, expand_query, parse_phrasings
from wherein.ranking.step import clamp_timeout

QUERY = "retry after failure"


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# parse_phrasings: what a model may say


def test_parse_phrasings_reads_the_queries_object_inside_fences_and_prose():
    answer = 'Sure! ```json\n{"queries": ["backoff retry loop", "retry_with_backoff"]}\n```'
    assert parse_phrasings(answer, QUERY) == ["backoff retry loop", "retry_with_backoff"]


def test_parse_phrasings_accepts_a_bare_list():
    assert parse_phrasings('["call again", "retry"]', QUERY) == ["call again", "retry"]


def test_parse_phrasings_drops_the_query_repeats_blanks_and_non_strings():
    answer = json.dumps({"queries": ["Retry  after FAILURE", "", 7, None, "backoff", "BACKOFF"]})
    assert parse_phrasings(answer, QUERY) == ["backoff"]


def test_parse_phrasings_keeps_at_most_the_cap():
    answer = json.dumps({"queries": [f"phrasing {n}" for n in range(10)]})
    assert parse_phrasings(answer, QUERY) == [f"phrasing {n}" for n in range(MAX_PHRASINGS)]


@pytest.mark.parametrize(
    "answer",
    [
        "I would search for retries.",
        "",
        '{"queries": "retry"}',
        "[[[[[[" * 2000,
        "[1, 2, 3]",
        '{"other": ["x"]}',
    ],
    ids=["prose", "empty", "not-a-list", "deeply-nested", "numbers", "unknown-key"],
)
def test_parse_phrasings_finds_nothing_usable_in_malformed_answers(answer):
    assert parse_phrasings(answer, QUERY) == []


# expand_query against the server


def test_a_good_answer_adds_phrasings_after_the_original(chat, step_settings):
    settings = step_settings(**model_settings(chat.url, "expansion"))
    queries, status = expand_query(QUERY, settings)
    assert queries[0] == QUERY
    assert queries[1:] == [
        f"{QUERY} implementation",
        f"where is {QUERY} handled",
        "retry_after_failure",
    ]
    assert status.status == "used" and status.reason is None and status.ms > 0
    [request] = chat.chat_requests("expansion")
    assert request.path == OLLAMA_CHAT
    assert request.body["model"] == CHAT_MODEL and request.body["stream"] is False
    assert request.body["messages"][-1]["content"] == QUERY


def test_a_v1_base_speaks_the_openai_dialect(chat, step_settings):
    settings = step_settings(**model_settings(f"{chat.url}/v1", "expansion"))
    queries, status = expand_query(QUERY, settings)
    assert status.status == "used" and len(queries) == 4
    assert [r.path for r in chat.requests] == [OPENAI_CHAT]


def test_off_sends_nothing(chat, step_settings):
    overrides = model_settings(chat.url, "expansion", **{"expansion.enabled": False})
    settings = step_settings(**overrides)
    queries, status = expand_query(QUERY, settings)
    assert queries == [QUERY]
    assert status.to_json() == {"status": "off", "reason": None, "ms": 0.0}
    assert chat.connections == 0


FAILURES = {
    "not-json": (Reply(200, b"<html>oops</html>"), "failed", "not JSON"),
    "prose": (
        Reply(200, {"message": {"role": "assistant", "content": "Try grep."}}),
        "failed",
        "no usable phrasing",
    ),
    "no-content": (Reply(200, {"done": True}), "failed", "without the message content"),
    "http-500": (Reply(500, {"error": "out of memory"}), "failed", "HTTP 500: out of memory"),
    "trickle": (TRICKLE, "timed_out", "within"),
}


@pytest.mark.parametrize("script", list(FAILURES), ids=list(FAILURES))
def test_every_failure_keeps_only_the_original(chat, step_settings, script):
    scripted, expected, words = FAILURES[script]
    chat.queue.append(scripted)
    settings = step_settings(**model_settings(chat.url, "expansion", timeout_s=0.3))
    queries, status = expand_query(QUERY, settings)
    assert queries == [QUERY]
    assert status.status == expected
    assert words in status.reason


def test_a_wedged_server_times_out_at_the_step_deadline(step_settings):
    with FakeChatServer(wedged=True) as chat:
        settings = step_settings(**model_settings(chat.url, "expansion", timeout_s=0.2))
        queries, status = expand_query(QUERY, settings)
        assert chat.arrived.is_set()  # the request was sent and is still unanswered
    assert queries == [QUERY]
    assert status.status == "timed_out"
    assert "0.2 s" in status.reason and "expansion.timeout_s" in status.reason


def test_a_late_answer_is_not_waited_for(step_settings):
    with FakeChatServer(delay_s=2.0) as chat:
        settings = step_settings(**model_settings(chat.url, "expansion", timeout_s=0.2))
        queries, status = expand_query(QUERY, settings)
    assert (queries, status.status) == ([QUERY], "timed_out")


def test_a_missing_model_and_a_down_server_fail_with_what_to_do(chat, step_settings):
    settings = step_settings(
        **model_settings(chat.url, "expansion", **{"expansion.model": "absent"})
    )
    queries, status = expand_query(QUERY, settings)
    assert (queries, status.status) == ([QUERY], "failed")
    assert "'absent'" in status.reason and "expansion.model" in status.reason
    down = step_settings(**model_settings(f"http://127.0.0.1:{_closed_port()}", "expansion"))
    queries, status = expand_query(QUERY, down)
    assert (queries, status.status) == ([QUERY], "failed")
    assert "cannot be reached" in status.reason and "expansion.api_base" in status.reason


def test_no_model_configured_fails_without_a_request(chat, step_settings):
    settings = step_settings(**model_settings(chat.url, "expansion", **{"expansion.model": None}))
    queries, status = expand_query(QUERY, settings)
    assert (queries, status.status) == ([QUERY], "failed")
    assert "expansion.model is not set" in status.reason
    assert chat.connections == 0


def test_the_embedding_api_base_is_used_when_expansion_has_none(chat, step_settings):
    overrides = model_settings(
        chat.url, "expansion", **{"expansion.api_base": None, "embedding.api_base": chat.url}
    )
    queries, status = expand_query(QUERY, step_settings(**overrides))
    assert status.status == "used" and len(chat.chat_requests()) == 1


# the endpoint guard


def test_an_off_device_url_is_refused_and_never_contacted(monkeypatch, step_settings, canary):
    # Were the name let through, it would "resolve" to the canary: no real lookup, ever.
    monkeypatch.setattr(guard, "resolve_host", lambda host, port: [canary.host])
    settings = step_settings(**model_settings(f"http://evil.example:{canary.port}", "expansion"))
    queries, status = expand_query(QUERY, settings)
    assert (queries, status.status) == ([QUERY], "failed")
    assert "expansion.api_base" in status.reason and "refused" in status.reason
    assert canary.connections == 0


def test_a_redirect_to_the_canary_is_not_followed(chat, step_settings, canary):
    chat.queue.append(Reply(307, b"", {"Location": f"{canary.url}/api/chat"}))
    queries, status = expand_query(QUERY, step_settings(**model_settings(chat.url, "expansion")))
    assert (queries, status.status) == ([QUERY], "failed")
    assert "redirect" in status.reason
    assert canary.connections == 0


def test_proxy_variables_pointing_at_the_canary_are_ignored(
    monkeypatch, chat, step_settings, canary
):
    for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY"):
        monkeypatch.setenv(name, canary.url)
    queries, status = expand_query(QUERY, step_settings(**model_settings(chat.url, "expansion")))
    assert status.status == "used"
    assert canary.connections == 0


# timeouts that are not numbers of seconds


@pytest.mark.parametrize(
    ("written", "used"),
    [("nan", 5.0), ("inf", 600.0), ("-1", 0.1), ("-inf", 0.1), ("0", 0.1)],
)
def test_a_non_finite_or_negative_timeout_is_clamped_with_a_warning(tmp_path, written, used):
    config = tmp_path / "config" / "wherein" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(f"[expansion]\ntimeout_s = {written}\n[rerank]\ntimeout_s = {written}\n")
    settings = load_settings(None)
    assert settings["expansion.timeout_s"] == used and settings["rerank.timeout_s"] == used
    assert sum("out of range" in w and "timeout_s" in w for w in settings.warnings) == 2
    env = load_settings(None, environ={"WHEREIN_EXPANSION_TIMEOUT_S": written})
    assert env["expansion.timeout_s"] == used


@pytest.mark.parametrize(("given", "used"), [(math.nan, 5.0), (math.inf, 600.0), (-3, 0.1)])
def test_a_timeout_passed_directly_is_clamped_too(given, used):
    assert clamp_timeout(given, "expansion.timeout_s") == used


def test_a_negative_timeout_becomes_a_short_deadline_not_no_deadline(step_settings, tmp_path):
    config = tmp_path / "config" / "wherein" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text("[expansion]\ntimeout_s = -1\n")
    with FakeChatServer(wedged=True) as chat:
        loaded = load_settings(None)
        settings = step_settings(
            **{
                **model_settings(chat.url, "expansion"),
                "expansion.timeout_s": loaded["expansion.timeout_s"],
            }
        )
        queries, status = expand_query(QUERY, settings)
    assert (queries, status.status) == ([QUERY], "timed_out")
    assert "0.1 s" in status.reason


# in the search


def test_the_search_with_a_failing_expansion_equals_the_search_without(chat, step_settings, search):
    plain = search(QUERY, step_settings())
    for scripted in (Reply(200, b"garbage"), Reply(503, b""), TRICKLE):
        chat.queue.append(scripted)
        result = search(
            QUERY, step_settings(**model_settings(chat.url, "expansion", timeout_s=0.3))
        )
        assert result.expansion.status in ("failed", "timed_out")
        assert places(result) == places(plain)
        (note,) = [n for n in result_notes(result) if n.startswith("Query expansion ")]
        assert "the results rank the query as written" in note
        text = io.StringIO()
        print_results(result, text)  # results only: the note goes to stderr
        assert "Query expansion" not in text.getvalue()
        assert [h.score for h in result.hits] == [h.score for h in plain.hits]
    assert plain.to_json()["expansion"] == {"status": "off", "reason": None, "ms": 0.0}


def test_phrasings_bring_in_what_only_they_match(step_settings, search):
    plain = search("failure", step_settings(), limit=2)
    assert "app/session.py" not in [path for path, _ in places(plain)]

    def reply(step, user):
        return json.dumps({"queries": ["adapter send request"]})

    with FakeChatServer(reply) as chat:
        result = search("failure", step_settings(**model_settings(chat.url, "expansion")), limit=2)
    assert result.expansion.status == "used"
    paths = [path for path, _ in places(result)]
    assert paths[0] == places(plain)[0][0]  # the query's own best match is still first
    assert "app/session.py" in paths
    payload = result.to_json()["expansion"]
    assert payload["status"] == "used" and payload["reason"] is None and payload["ms"] > 0


def test_cancelling_during_expansion_stops_both_steps(step_settings, search):
    with FakeChatServer(wedged=True) as chat:
        settings = step_settings(**model_settings(chat.url, "expansion", "rerank", timeout_s=30.0))
        cancel = threading.Event()
        threading.Thread(target=lambda: chat.arrived.wait(30) and cancel.set(), daemon=True).start()
        result = search(QUERY, settings, cancel=cancel)
        requests = len(chat.chat_requests())
    assert result.expansion.status == "cancelled"
    assert result.rerank.status == "cancelled"
    assert requests == 1  # the wedged expansion; rerank never asked
    assert places(result) == places(search(QUERY, step_settings()))


def test_cancelled_before_the_search_no_model_is_asked(chat, step_settings, search):
    cancel = threading.Event()
    cancel.set()
    result = search(
        QUERY, step_settings(**model_settings(chat.url, "expansion", "rerank")), cancel=cancel
    )
    assert (result.expansion.status, result.rerank.status) == ("cancelled", "cancelled")
    assert chat.connections == 0
    assert result.hits
