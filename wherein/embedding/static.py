"""The instant embedder: WordLlama's bundled 256-d static token vectors (no network)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np

from wherein.embedding.base import EmbedderIdentity, normalize_rows
from wherein.embedding.minilm import _package_dir
from wherein.embedding.static_matrix import cached_float32, float32_path, keep_float32
from wherein.errors import EmbedderError

__all__ = ["StaticEmbedder", "query_from_pieces"]

CONFIG = "l2_supercat"
DIMENSION = 256
TENSOR_KEY = "embedding.weight"  # as wordllama 0.4 names it in its safetensors file
# Texts pooled at once: their token rows (~300 a chunk, 1 KB each) stay a few tens of MB.
POOL_BATCH = 64
# Once this many texts were pooled in calls of WIDEN_AT_TEXTS or more (indexing, not a
# query and its phrasings), the whole float16 matrix is widened to float32, for the rest of
# the model's life: 36-136 ms here, which a session's one-file edit (a few dozen chunks)
# should not pay, and an index of thousands of chunks repays.
WIDEN_AT_TEXTS = 16
WIDEN_AFTER_TEXTS = 256
# Once this many texts have been embedded in calls of more than one (indexing: a file's
# chunks), token ids come from the cache of pieces (`static_tokens`); until then the
# tokenizer's own, so a search skips importing `regex` (13 ms). A query, and each of its
# phrasings, is embedded alone and not counted: counting them made a server's 33rd query
# pay for that import (54 ms on a loaded machine).
PIECES_AFTER_TEXTS = 32
# Every added token of this tokenizer (`<unk>`, `<s>`, `</s>`) holds it: a query that does
# not is cut into pieces like any text (tests/embedding/test_static.py checks the list).
ADDED_TOKEN_MARK = "<"


class StaticEmbedder:
    """Averaged static token vectors: about 50x faster than MiniLM, and weaker on meaning."""

    identity = EmbedderIdentity("static", f"wordllama-{CONFIG}", DIMENSION)

    def __init__(self) -> None:
        # The two files WordLlama.load would find in its wheel, read directly: importing
        # the wordllama package costs 0.2 s (it imports requests and its trainers), more
        # than a whole search on a small repository.
        from safetensors import safe_open
        from tokenizers import Tokenizer

        package_dir = _package_dir("wordllama")
        weights = _weights_file(package_dir)
        tokenizer = package_dir / "tokenizers" / f"{CONFIG}_tokenizer_config.json"
        wide = matrix = None
        try:
            # The float32 copy this machine keeps (`static_matrix`), mapped if it checks out.
            self._copy = float32_path(weights, TENSOR_KEY)
            with safe_open(str(weights), framework="np", device="cpu") as handle:
                stored = handle.get_slice(TENSOR_KEY)
                shape = tuple(stored.get_shape())
                if len(shape) == 2 and shape[1] == DIMENSION:
                    wide = cached_float32(self._copy, stored)
                if wide is None:
                    matrix = np.ascontiguousarray(handle.get_tensor(TENSOR_KEY))
            self.tokenizer = Tokenizer.from_file(str(tokenizer))
        except Exception as err:  # safetensors and tokenizers raise their own error types
            raise EmbedderError(
                f"Cannot load WordLlama's bundled model from {package_dir}: {err}. "
                "Reinstall it: pip install --force-reinstall wordllama."
            ) from err
        if len(shape) != 2 or shape[1] != DIMENSION:
            raise EmbedderError(
                f"WordLlama's weights in {weights} have shape {shape}, not "
                f"(vocabulary, {DIMENSION}). Reinstall it: pip install --force-reinstall "
                "wordllama==0.4.0.post1."
            )
        self._rows = shape[0]
        # Without the copy, kept as stored (float16) until indexing has pooled a few
        # batches: widening all 32,000 rows costs 20-40 ms (up to 136 ms on a machine slow
        # to fault in new memory), more than a query or a one-file edit needs, while
        # widening each text's rows as it is pooled made indexing's pooling 2-3x slower.
        # Same float32 values. The widening writes the copy for the processes after it.
        self.matrix = matrix
        self._wide: np.ndarray | None = wide
        self._pooled_in_batches = 0
        # `_pool` averages each text's own tokens, so a batch is never padded.
        self.tokenizer.no_padding()
        self.tokenizer.no_truncation()
        # tokenizers 0.21 and later: the same ids without character offsets, 25% faster.
        self._encode = getattr(self.tokenizer, "encode_batch_fast", self.tokenizer.encode_batch)
        self._pieces = None  # a PieceTokenizer, from PIECES_AFTER_TEXTS on
        self._texts_seen = 0

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, DIMENSION), dtype=np.float32)
        out = np.empty((len(texts), DIMENSION), dtype=np.float32)
        for start in range(0, len(texts), POOL_BATCH):
            batch = list(texts[start : start + POOL_BATCH])
            out[start : start + len(batch)] = self._pool(self._token_ids(batch))
        return normalize_rows(out)

    def expect_indexing(self) -> None:
        """Widen the matrix at the next batch: this process pools thousands of texts (a
        worker preparing an index), so waiting for WIDEN_AFTER_TEXTS gains nothing."""
        self._pooled_in_batches = max(self._pooled_in_batches, WIDEN_AFTER_TEXTS)

    def take_learned_pieces(self) -> dict[str, list[int]]:
        """The query pieces this model first tokenized since the last call (indexing's)."""
        return {} if self._pieces is None else self._pieces.take_learned()

    def _token_ids(self, texts: list[str]) -> list[list[int]]:
        if len(texts) > 1:
            self._texts_seen += len(texts)
        if self._pieces is None and self._texts_seen < PIECES_AFTER_TEXTS:
            if len(texts) == 1:  # a query: the batch call's thread pool costs it 25-35 us
                return [self.tokenizer.encode(texts[0], add_special_tokens=False).ids]
            return [e.ids for e in self._encode(texts, add_special_tokens=False)]
        if self._pieces is None:
            from wherein.embedding.static_tokens import PieceTokenizer

            self._pieces = PieceTokenizer(self.tokenizer)
        return self._pieces.ids(texts)

    def _pool(self, token_ids: list[list[int]]) -> np.ndarray:
        """The mean token vector of each text, as WordLlama's `embed` computes it.

        WordLlama gathers a (texts x tokens x 256) array padded to the longest text and
        multiplies it by the mask; code repeats its tokens, so summing each distinct
        token's row once, times its count, is the same mean with a fraction of the
        memory traffic (15x faster on flask's chunks; tests/embedding/test_static.py
        compares the two).
        """
        if self._wide is None and len(token_ids) >= WIDEN_AT_TEXTS:
            self._pooled_in_batches += len(token_ids)
            if self._pooled_in_batches > WIDEN_AFTER_TEXTS:
                self._wide = keep_float32(self._copy, self.matrix)
        wide = self._wide
        if wide is None:
            matrix = self.matrix

            def rows_of(distinct: np.ndarray) -> np.ndarray:
                return matrix[distinct].astype(np.float32, copy=False)
        else:
            rows_of = wide.__getitem__
        out = np.zeros((len(token_ids), DIMENSION), dtype=np.float32)
        last = self._rows - 1
        for row, ids in enumerate(token_ids):
            if ids:
                out[row] = _mean_row(ids, rows_of, last)
        return out


def query_from_pieces(
    text: str, known: Callable[[list[str]], Mapping[str, Sequence[int]]]
) -> np.ndarray | None:
    """`StaticEmbedder().embed([text])[0]`, from token ids `known` keeps for its pieces.

    Neither the tokenizer (60-90 ms to load) nor the whole matrix (15 ms) is read: only
    the rows of the query's own tokens. None when some piece is not known, or the text
    is one the pieces cannot cut exactly (not ASCII, or holding an added token): then
    the model must load.
    """
    from wherein.embedding.static_tokens import cut_pieces

    if not text or not text.isascii() or ADDED_TOKEN_MARK in text:
        return None
    pieces = cut_pieces(text)
    found = known(pieces)
    if not all(found.get(piece) for piece in pieces):
        return None
    ids = [token for piece in pieces for token in found[piece]]
    try:
        from safetensors import safe_open

        with safe_open(str(_weights_file(_package_dir("wordllama"))), "np", "cpu") as handle:
            stored = handle.get_slice(TENSOR_KEY)
            shape = stored.get_shape()
            if len(shape) != 2 or shape[1] != DIMENSION:
                return None

            def rows_of(distinct: np.ndarray) -> np.ndarray:
                rows = [stored[int(i) : int(i) + 1] for i in distinct]
                return np.concatenate(rows).astype(np.float32, copy=False)

            vector = _mean_row(ids, rows_of, shape[0] - 1)
    except Exception:  # a missing or damaged model: the caller loads it, and says why
        return None
    return normalize_rows(vector[None, :])[0]


def _mean_row(ids: list[int], rows_of: Callable[[np.ndarray], np.ndarray], last: int) -> np.ndarray:
    """The mean of the token rows `ids` name (ids past the matrix read its last row)."""
    tokens = np.minimum(np.asarray(ids, dtype=np.int64), last)
    distinct, counts = np.unique(tokens, return_counts=True)
    return (counts.astype(np.float32) @ rows_of(distinct)) / len(ids)


def _weights_file(package_dir: Path) -> Path:
    return package_dir / "weights" / f"{CONFIG}_{DIMENSION}.safetensors"
