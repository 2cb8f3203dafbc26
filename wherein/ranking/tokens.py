"""Identifier-aware tokens for BM25: `getHTTPResponse` is found by "http response".

Each identifier yields itself (lower-cased) and, when it has parts, its
snake_case or camelCase parts; each word of four letters or more also yields its
Snowball (Porter 2) stem, so "routes" meets "route" and "handled" meets "handle".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from itertools import chain

import snowballstemmer

__all__ = [
    "STOPWORDS",
    "document_terms",
    "identifier_parts",
    "path_terms",
    "query_tokens",
    "tokenize",
]

_WORD = re.compile(r"[^\W\d]\w*")
# _WORD on an ASCII text, where `\w` is [A-Za-z0-9_]: the explicit classes are about twice
# as fast as the Unicode ones (tests/ranking/test_tokens.py holds the two to the same words).
_ASCII_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
# Stems are added beside the words, never instead of them: exact matches still win.
MIN_STEM_INPUT = 4
_STEMMER = snowballstemmer.stemmer("english")
# English words that carry no meaning in a "where is this handled?" question.
STOPWORDS = frozenset(
    (
        "a an and are as at be been being by can could do does did for from has have how "
        "i if in into is it its of on or should so that the their them then there these "
        "this those to was we were what when where which while who why will with would "
        "you your"
    ).split()
)


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    if len(word) < MIN_STEM_INPUT or not word.isalpha():
        return word
    return _STEMMER.stemWord(word)


@lru_cache(maxsize=65536)
def identifier_parts(word: str) -> tuple[str, ...]:
    """The lower-case parts of one identifier: `parse_HTTPHeader` -> parse, http, header."""
    parts: list[str] = []
    for piece in word.split("_"):
        if piece:
            parts.extend(p.lower() for p in _CAMEL.findall(piece) or [piece])
    return tuple(parts)


@lru_cache(maxsize=65536)
def _word_tokens(word: str) -> tuple[str, ...]:
    whole = word.lower()
    if word.isascii():
        if whole == word and word.isalpha():
            # The common case (`self`, `return`): one part, itself. Same result as below.
            stem = _stem(whole)
            return (whole,) if stem == whole else (whole, stem)
        # No `_CAMEL` match spans or looks past an underscore, and every ASCII letter or
        # digit lies in one: the same parts as `identifier_parts`, in one call (a miss here
        # costs indexing a worker's CPU for each of the standard library's 190,000 words).
        parts: Sequence[str] = [part.lower() for part in _CAMEL.findall(word)]
    else:
        parts = identifier_parts(word)
    tokens = [whole, *parts] if len(parts) > 1 else [whole]
    # Stems in the order of the tokens they come from (not a set's order, which
    # changes with the process's hash seed): worker processes must agree.
    for token in tokens[:]:
        stem = _stem(token)
        if stem not in tokens:
            tokens.append(stem)
    return tuple(tokens)


def tokenize(text: str) -> list[str]:
    """Document tokens, with repeats (BM25 counts them)."""
    words = (_ASCII_WORD if text.isascii() else _WORD).findall(text)
    return list(chain.from_iterable(map(_word_tokens, words)))


def query_tokens(text: str) -> list[str]:
    """Distinct query tokens, without English stopwords unless nothing else is left."""
    tokens = list(dict.fromkeys(tokenize(text)))
    kept = [t for t in tokens if t not in STOPWORDS]
    return kept or tokens


def path_terms(path: str) -> list[str]:
    """Tokens a path lends its chunks: the file stem twice, the nearest folders once.

    A file named for the concept ("sessions.py", "routing.go") is strong evidence;
    the folders around it are weaker.
    """
    return list(_path_terms(path))


@lru_cache(maxsize=1024)
def _path_terms(path: str) -> tuple[str, ...]:
    """`path_terms`, kept while a file's chunks are tokenized one after another."""
    parts = path.split("/")
    stem = parts[-1].split(".")[0]
    return tuple(tokenize(stem) * 2 + tokenize(" ".join(parts[-4:-1])))


def document_terms(path: str, header: str, text: str) -> list[str]:
    """The BM25 document of a chunk: its text, its enclosing header, and its path."""
    terms = tokenize(text)
    terms += tokenize(header)
    terms += _path_terms(path)
    return terms
