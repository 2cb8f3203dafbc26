"""The fast tier's static model: the same vectors WordLlama's own `embed` computes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import wordllama as wordllama_package

from wherein.embedding.base import normalize_rows
from wherein.embedding.static import CONFIG, POOL_BATCH, StaticEmbedder

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
