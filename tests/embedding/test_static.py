"""The fast tier's static model: the same vectors WordLlama's own `embed` computes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import wordllama as wordllama_package

from wherein.embedding.base import normalize_rows
from wherein.embedding.static import (
    ADDED_TOKEN_MARK,
    CONFIG,
    PIECES_AFTER_TEXTS,
    POOL_BATCH,
    StaticEmbedder,
    query_from_pieces,
)
from wherein.embedding.static_tokens import QUERY_PIECE, PieceTokenizer

TEXTS = [
    "def parse_cookie(header):\n    return dict(p.split('=') for p in header)\n",
    "class Session:\n    '''Persist cookies and pool connections.'''\n" * 30,
    "",
    "x",
    "naïve ünïcode — 中文 😀 \t\x00 control",
    "   \n\n   ",
]


def test_vectors_equal_wordllamas_own_embedding():
    from wordllama import WordLlama

    embedder = StaticEmbedder()
    texts = TEXTS * (POOL_BATCH // len(TEXTS) + 2)  # more than one pooling batch
    ours = embedder.embed(texts)
    package_dir = Path(wordllama_package.__file__).parent
    model = WordLlama.load(config=CONFIG, cache_dir=package_dir, dim=256, disable_download=True)
    reference = normalize_rows(model.embed(list(texts)))
    assert ours.shape == (len(texts), 256) and ours.dtype == np.float32
    np.testing.assert_allclose(ours, reference, atol=1e-6)


def test_rows_are_unit_length_or_zero_for_an_empty_text():
    vectors = StaticEmbedder().embed(TEXTS)
    norms = np.linalg.norm(vectors, axis=1)
    empty = [i for i, text in enumerate(TEXTS) if not text]
    assert np.allclose(np.delete(norms, empty), 1.0, atol=1e-5)
    assert np.all(norms[empty] == 0)


def test_a_query_alone_gets_the_vector_a_batch_gives_it():
    """One text pools from the stored float16 rows, a batch from the widened matrix: the
    same float32 values either way, so a query meets the vectors the index holds."""
    texts = [text for text in TEXTS if text] * 4
    alone = StaticEmbedder()
    one_by_one = np.stack([alone.embed([text])[0] for text in texts])
    batched = StaticEmbedder().embed(texts)
    assert np.array_equal(one_by_one, batched)


QUERY_SHAPES = [
    "where is the retry backoff handled",
    "parse_HTTPHeader and getHTTPResponse",
    "  two  spaces, a tab\tand a trailing space ",
    "self.session.get(url, timeout=30)",
    "error 429: too many requests!",
    "x",
    "__init__",
    "a" * 200,
]


def _all_known(queries):
    """Every piece of `queries` with its ids, as indexing would have learned them."""
    embedder = StaticEmbedder()
    pieces = PieceTokenizer(embedder.tokenizer)
    pieces.ids(list(queries))
    return dict(pieces._pieces)


def test_a_query_from_known_pieces_is_the_models_own_vector():
    known = _all_known(QUERY_SHAPES)
    model = StaticEmbedder()
    for query in QUERY_SHAPES:
        vector = query_from_pieces(query, lambda wanted: {p: known[p] for p in wanted})
        assert vector is not None, query
        assert np.array_equal(vector, model.embed([query])[0]), query


def test_a_query_with_a_piece_indexing_never_met_needs_the_model():
    known = _all_known(["where is the retry handled"])
    asked = []

    def lookup(wanted):
        asked.append(list(wanted))
        return {p: known[p] for p in wanted if p in known}

    assert query_from_pieces("where is the retry handled", lookup) is not None
    assert query_from_pieces("where is the frobnication handled", lookup) is None
    assert "\u2581frobnication" in asked[-1]
    # Texts the pieces cannot cut as the tokenizer does are not even looked up.
    for text in ("", "naïve retry", "where is <s> handled"):
        assert query_from_pieces(text, lookup) is None
    assert len(asked) == 2


def test_every_added_token_holds_the_mark_a_query_is_checked_for():
    added = StaticEmbedder().tokenizer.get_added_tokens_decoder().values()
    assert {token.content for token in added} == {"<unk>", "<s>", "</s>"}
    assert all(ADDED_TOKEN_MARK in token.content for token in added)


def test_indexing_passes_on_only_the_pieces_a_query_can_hold():
    embedder = StaticEmbedder()
    code = "def retry(call):\n        return call()  # ==== wait 30s ====\n"
    embedder.embed([code] * (PIECES_AFTER_TEXTS + 1))  # a batch: indexing
    learned = embedder.take_learned_pieces()
    assert {"\u2581retry", "call", "\u2581wait", "3", "0", "s", "()"} <= set(learned)
    assert "\u2581" * 8 + "return" not in learned  # indentation is code's own
    assert "\u2581====" not in learned
    assert all(QUERY_PIECE.fullmatch(piece) for piece in learned)
    assert embedder.take_learned_pieces() == {}  # taken once
    embedder.embed([code, code])
    assert embedder.take_learned_pieces() == {}  # nothing new


def test_the_matrix_is_widened_once_indexing_has_pooled_a_few_batches():
    """A resident session's one-file edit pools a few dozen chunks: not worth widening the
    whole matrix for (36-136 ms); an index of thousands is."""
    embedder = StaticEmbedder()
    texts = [f"def handler_{n}(request):\n    return request.retry({n})\n" for n in range(40)]
    edited = embedder.embed(texts)
    assert embedder._wide is None
    embedder.embed([f"def other_{n}(value):\n    return value * {n}\n" for n in range(300)])
    assert embedder._wide is not None
    assert np.array_equal(embedder.embed(texts), edited)  # the same vectors either way


def test_a_worker_preparing_an_index_widens_at_its_first_batch():
    embedder = StaticEmbedder()
    embedder.expect_indexing()
    embedder.embed([f"def handler_{n}(request):\n    return {n}\n" for n in range(20)])
    assert embedder._wide is not None
