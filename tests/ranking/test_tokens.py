from __future__ import annotations

from tests.helpers import ascii_texts
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


def _reference_tokenize(text: str) -> list[str]:
    """The tokenizer before its fast path, kept to prove the output did not change."""
    import re

    from wherein.ranking.tokens import _stem

    out: list[str] = []
    for word in re.findall(r"[^\W\d]\w*", text):
        tokens = [word.lower()]
        parts = identifier_parts(word)
        if len(parts) > 1:
            tokens.extend(parts)
        stems = {_stem(t) for t in tokens}
        out.extend(tokens + [s for s in stems if s not in tokens])
    return out


VARIED_TEXT = """
def getHTTPResponse(self, parse_url, routes_handled=None):  # café naïve Straße
    return XMLHttpRequest.handleRoutes(__dunder__, x1y2, _private, ALLCAPS, snake_Case_Mixed)
    // 日本語 identifiersÄÖ running runner ran 123abc abc123 a_b_c Ünïcödé_naming
    handledRoutesForUsers parsedHeaders HTTPServerErrors __init__ mañana ĳssel
"""


def test_tokenize_output_equals_the_reference_implementation():
    from collections import Counter

    new, old = tokenize(VARIED_TEXT), _reference_tokenize(VARIED_TEXT)
    assert Counter(new) == Counter(old)
    # Word by word, the same tokens; only the stems of one word may come in another order
    # (the reference took a set's order, which changes with the hash seed).
    words = __import__("re").findall(r"[^\W\d]\w*", VARIED_TEXT)
    assert [sorted(tokenize(w)) for w in words] == [sorted(_reference_tokenize(w)) for w in words]
    assert [tokenize(w)[0] for w in words] == [w.lower() for w in words]


def test_tokenize_order_does_not_depend_on_the_hash_seed():
    import os
    import subprocess
    import sys

    code = (
        "from wherein.ranking.tokens import tokenize; "
        "print(tokenize('handledRoutesForUsers parsedHeaders HTTPServerErrors'))"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": str(seed)},
        ).stdout
        for seed in range(4)
    }
    assert len(outputs) == 1, outputs


def test_the_ascii_words_are_the_unicode_words_on_ascii_texts():
    from wherein.ranking.tokens import _ASCII_WORD, _WORD

    for text in ["abc123def 456__x _9 9_ a1_b2\t\n", *ascii_texts(11, "aZ_09 ")]:
        assert _ASCII_WORD.findall(text) == _WORD.findall(text), text
    # Unicode letters are words only to the Unicode pattern: why only ASCII texts take it.
    assert _ASCII_WORD.findall("naïve") != _WORD.findall("naïve")


def _parts_then_stems(word: str) -> list[str]:
    """One word's tokens as `identifier_parts` defines them: the whole, its parts when it has
    several, then each stem not already there, in the order of the tokens they come from."""
    from wherein.ranking.tokens import _stem

    tokens = [word.lower()]
    parts = identifier_parts(word)
    if len(parts) > 1:
        tokens.extend(parts)
    for stem in [_stem(token) for token in tokens]:
        if stem not in tokens:
            tokens.append(stem)
    return tokens


def test_an_ascii_word_is_cut_in_one_pass_into_the_parts_its_underscores_would_give():
    import re

    words = {
        word
        for text in ascii_texts(13, "aZ_09Hx")
        for word in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text)
    }
    words |= {"ABC_Def", "HTTP_2Server", "__x__", "a__B", "getHTTP_response2XML", "Running_Tests"}
    assert len(words) > 1000
    for word in sorted(words):
        assert tokenize(word) == _parts_then_stems(word), word
