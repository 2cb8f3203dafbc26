from __future__ import annotations

from wherein.ranking.tokens import identifier_parts, query_tokens, tokenize


def test_tokenize_splits_camel_and_snake_case_and_keeps_the_whole():
    tokens = tokenize("getHTTPResponse parse_url")
    assert {"gethttpresponse", "get", "http", "response", "parse_url", "parse", "url"} <= set(
        tokens
    )


def test_tokenize_adds_stems_beside_words():
    tokens = tokenize("routes handled")
    assert {"routes", "route", "handled", "handl"} & set(tokens) >= {"routes", "handled"}
    assert set(tokenize("route")) & set(tokens)


def test_identifier_parts_of_acronyms():
    assert identifier_parts("XMLHttpRequest") == ("xml", "http", "request")


def test_query_tokens_drop_stopwords_unless_nothing_is_left():
    assert "how" not in query_tokens("how are routes registered")
    assert query_tokens("the") == ["the"]
