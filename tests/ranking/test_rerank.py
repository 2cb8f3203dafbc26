"""Reranking: no opinion (None) is not zero, and every failure keeps the fused order."""

from __future__ import annotations

import json
import threading

import pytest

from tests.embedding.fake_server import TRICKLE, Reply
from tests.ranking.chat_server import FakeChatServer
from tests.ranking.conftest import model_settings, places
from wherein.endpoint import guard
from wherein.present import result_notes
from wherein.ranking.rerank import MAX_PASSAGE_CHARS, parse_scores, reorder, rerank, rerank_prompt

QUERY = "parse cookie header"
ITEMS = ["a", "b", "c", "d", "e"]
PASSAGES = [f"app/{name}.py:1-3\ndef {name}(): pass" for name in ITEMS]


def scores_reply(scores):
    """A model that always answers with `scores` for a rerank."""
    return lambda step, user: json.dumps(scores) if step == "rerank" else "{}"


# parse_scores


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ('{"1": 7, "2": 0, "3": 10}', [7.0, 0.0, 10.0]),
        ('Here you go:\n```json\n{"candidate 2": 4.5, "3": "8"}\n```', [None, 4.5, 8.0]),
        ('{"scores": {"1": 1, "3": 2}}', [1.0, None, 2.0]),
        ('{"scores": [3, 2, 1]}', [3.0, 2.0, 1.0]),
        ("[5, 6, 7]", [5.0, 6.0, 7.0]),
        ('[{"id": 3, "score": 9}, {"id": 1, "score": 2}]', [2.0, None, 9.0]),
    ],
    ids=["object", "prose-fence-and-strings", "scores-object", "scores-list", "list", "id-objects"],
)
def test_parse_scores_reads_the_shapes_a_model_may_use(answer, expected):
    assert parse_scores(answer, 3) == expected


@pytest.mark.parametrize(
    "answer",
    [
        "Candidate 1 is the best match.",
        "",
        "[9, 8]",
        "[9, 8, 7, 6]",
        '{"scores": [1]}',
        '{"1": "high", "2": true, "3": null}',
        '{"1": NaN, "2": Infinity, "3": -1}',
        '{"1": 11, "2": "NaN", "3": [5]}',
        '{"0": 5, "4": 5, "x": 5}',
    ],
    ids=[
        "prose",
        "empty",
        "too-few",
        "too-many",
        "scores-wrong-count",
        "non-numeric",
        "non-finite-and-negative",
        "out-of-range",
        "unknown-numbers",
    ],
)
def test_malformed_scores_are_no_opinion_not_zero(answer):
    assert parse_scores(answer, 3) == [None, None, None]


# reorder: the exact interleaving


def test_an_unscored_candidate_keeps_its_slot_and_scored_ones_fill_the_rest():
    assert reorder(ITEMS, [None, 1.0, None, 9.0, 5.0]) == ["a", "d", "c", "e", "b"]


def test_no_opinion_is_not_zero():
    # With None, the scored candidate can only move within the scored slots: here, nowhere.
    assert reorder(ITEMS, [None, None, 3.0]) == ITEMS
    # With zeros, the same candidate rises above the two the model rated lowest.
    assert reorder(ITEMS, [0.0, 0.0, 3.0]) == ["c", "a", "b", "d", "e"]


def test_ties_keep_the_fused_order_and_the_rest_follow_unchanged():
    assert reorder(ITEMS, [2.0, 2.0, 2.0]) == ITEMS
    assert reorder(ITEMS, [1.0, 2.0]) == ["b", "a", "c", "d", "e"]


def test_the_prompt_numbers_the_candidates_and_cuts_long_ones():
    prompt = rerank_prompt(QUERY, ["short", "x" * (MAX_PASSAGE_CHARS + 50)])
    assert prompt.startswith(f"Query: {QUERY}\n")
    assert "Candidate 1:\nshort\n" in prompt
    assert "x" * MAX_PASSAGE_CHARS + "\n" in prompt and "x" * (MAX_PASSAGE_CHARS + 1) not in prompt


# rerank against the server


def test_a_good_answer_reorders_the_window(step_settings):
    with FakeChatServer(scores_reply({"1": 2, "2": 9, "3": 5, "4": 0, "5": 1})) as chat:
        settings = step_settings(**model_settings(chat.url, "rerank", **{"rerank.candidates": 4}))
        ordered, status = rerank(QUERY, ITEMS, PASSAGES, settings)
    assert ordered == ["b", "c", "a", "d", "e"]  # only the first four were asked about
    assert status.status == "used" and status.reason is None
    [request] = chat.chat_requests("rerank")
    prompt = request.body["messages"][-1]["content"]
    assert "Candidate 4:" in prompt and "Candidate 5:" not in prompt


def test_a_partial_answer_is_used_and_says_how_many_had_no_opinion(step_settings):
    with FakeChatServer(scores_reply({"1": 1, "3": "n/a", "4": 8})) as chat:
        ordered, status = rerank(
            QUERY, ITEMS, PASSAGES, step_settings(**model_settings(chat.url, "rerank"))
        )
    assert ordered == ["d", "b", "c", "a", "e"]
    assert status.status == "used"
    assert "3 of 5 candidates got no usable score" in status.reason


FAILURES = {
    "prose": (scores_reply("The second one."), "failed", "no usable score"),
    "wrong-count": (scores_reply([9, 1]), "failed", "no usable score"),
    "non-numeric": (scores_reply({"1": "best", "2": None}), "failed", "no usable score"),
    "http-500": (Reply(500, b"boom"), "failed", "HTTP 500"),
    "trickle": (TRICKLE, "timed_out", "within"),
}


@pytest.mark.parametrize("case", list(FAILURES), ids=list(FAILURES))
def test_every_failure_keeps_the_fused_order(step_settings, case):
    script, expected, words = FAILURES[case]
    with FakeChatServer(script if callable(script) else None) as chat:
        if not callable(script):
            chat.queue.append(script)
        settings = step_settings(**model_settings(chat.url, "rerank", timeout_s=0.3))
        ordered, status = rerank(QUERY, ITEMS, PASSAGES, settings)
    assert ordered == ITEMS
    assert status.status == expected and words in status.reason


def test_off_or_too_few_candidates_ask_nothing(chat, step_settings):
    off = step_settings(**model_settings(chat.url, "rerank", **{"rerank.enabled": False}))
    assert rerank(QUERY, ITEMS, PASSAGES, off)[1].status == "off"
    on = step_settings(**model_settings(chat.url, "rerank"))
    ordered, status = rerank(QUERY, ITEMS[:1], PASSAGES[:1], on)
    assert ordered == ITEMS[:1] and status.status == "off" and "fewer than two" in status.reason
    assert chat.connections == 0


def test_an_off_device_url_is_refused_and_never_contacted(monkeypatch, step_settings, canary):
    monkeypatch.setattr(guard, "resolve_host", lambda host, port: [canary.host])
    settings = step_settings(
        **model_settings(f"http://localhost.evil.example:{canary.port}", "rerank")
    )
    ordered, status = rerank(QUERY, ITEMS, PASSAGES, settings)
    assert ordered == ITEMS and status.status == "failed" and "refused" in status.reason
    assert canary.connections == 0


def test_a_cancelled_rerank_returns_at_once_with_the_fused_order(step_settings):
    with FakeChatServer(wedged=True) as chat:
        settings = step_settings(**model_settings(chat.url, "rerank", timeout_s=30.0))
        cancel = threading.Event()
        threading.Thread(target=lambda: chat.arrived.wait(30) and cancel.set(), daemon=True).start()
        ordered, status = rerank(QUERY, ITEMS, PASSAGES, settings, cancel)
    assert ordered == ITEMS and status.status == "cancelled"


# in the search


def test_a_wedged_reranker_gives_up_and_the_search_returns_fused_results(step_settings, search):
    plain = search(QUERY, step_settings())
    with FakeChatServer(wedged=True) as chat:
        settings = step_settings(**model_settings(chat.url, "rerank", timeout_s=0.3))
        result = search(QUERY, settings)
        assert chat.arrived.is_set()  # asked, still unanswered when the search returned
    assert result.rerank.status == "timed_out" and "rerank.timeout_s" in result.rerank.reason
    assert result.expansion.status == "off"
    assert places(result) == places(plain) and len(result.hits) == len(plain.hits) > 0
    payload = result.to_json()["rerank"]
    assert payload["status"] == "timed_out" and payload["ms"] >= 300
    (note,) = [n for n in result_notes(result) if n.startswith("Reranking timed out after")]
    assert "the results keep the fused order" in note
    assert not any(n.startswith(("Reranking", "Query expansion")) for n in result_notes(plain))
    assert not any(n.startswith("Query expansion") for n in result_notes(result))


def test_the_search_follows_the_model_scores(step_settings, search):
    plain = search(QUERY, step_settings())
    assert plain.hits[0].path == "app/cookies.py"

    def reply(step, user):
        # Rate the session file highest, have no opinion on the rest.
        blocks = user.split("Candidate ")[1:]
        number = next(b.split(":", 1)[0] for b in blocks if "app/session.py" in b)
        return json.dumps({number: 10, "1": 1})

    with FakeChatServer(reply) as chat:
        result = search(QUERY, step_settings(**model_settings(chat.url, "rerank")))
    assert result.rerank.status == "used"
    assert [h.path for h in result.hits][:1] == ["app/session.py"]
    moved = {"app/session.py", "app/cookies.py"}
    # Everything the model had no opinion on kept its fused place.
    assert [p for p in places(result) if p[0] not in moved] == [
        p for p in places(plain) if p[0] not in moved
    ]
    assert [h.rank for h in result.hits] == list(range(1, len(result.hits) + 1))
