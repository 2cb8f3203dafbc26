"""WordLlama's token ids for a text, each distinct piece of code tokenized once.

WordLlama's tokenizer (Llama's BPE: spaces become `▁`, one `▁` is prepended, no
pre-tokenizer) runs the merges over a whole chunk as one word, so nothing it learns
about `self` or `return` is reused: tokenizing was 40% of preparing the standard
library's files for the fast tier. But no merge of this vocabulary crosses the
boundaries that `unicode_piece()` cuts at (a run of letters, of digits or of other characters,
with the `▁`s before it), because no token of the vocabulary spans one
(`boundaries_hold`, checked by tests/embedding/test_static_tokens.py). BPE on each
piece alone therefore gives the same ids as BPE on the whole text, and code repeats
its pieces: the standard library's 47,500 chunks hold 145,000 distinct ones, and
their ids took half the CPU time of the tokenizer's own batch encode.

A text holding one of the tokenizer's added tokens (`<s>`, `</s>`, `<unk>` written
out) goes to the tokenizer whole: it matches those before any merge.

Most code is ASCII, where a letter is `[A-Za-z]` and a decimal digit `[0-9]`: such a
text is cut by `ASCII_PIECE`, the same cuts by the standard `re`, faster than `regex`
with its Unicode classes (0.11-0.15 s against 0.19-0.22 s to cut pydantic's 2,257 chunks),
and a fresh search whose query is ASCII never imports `regex` (8 ms).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from itertools import chain

__all__ = [
    "ASCII_PIECE",
    "QUERY_PIECE",
    "PieceTokenizer",
    "boundaries_hold",
    "cut_pieces",
    "unicode_piece",
]

SPACE = "\u2581"  # SentencePiece's visible space, as the normalizer writes it
# `unicode_piece()` on a text whose only non-ASCII character is `▁` (an ASCII text, spaces
# replaced).
ASCII_PIECE = re.compile(
    rf"{SPACE}+(?:[A-Za-z]+|[^A-Za-z0-9{SPACE}]+)?|[A-Za-z]+|[^A-Za-z0-9{SPACE}]+|[0-9]"
)
# Distinct pieces remembered; past it the memory starts again (~30 MB at the bound).
CACHE_LIMIT = 400_000
# The pieces a question can hold: a word after at most one space, a short run of
# punctuation, a space, a digit. Indexing passes these on (`take_learned`), so that a
# fresh search can embed a query from them (`wherein.index.query_vectors`); runs of
# indentation and long runs of symbols are code's own.
QUERY_PIECE = re.compile(rf"{SPACE}?(?:[A-Za-z]{{1,32}}|[^A-Za-z0-9{SPACE}]{{1,3}})?|[0-9]")
# Learned pieces held until taken; a process that never takes them stops adding there.
LEARNED_LIMIT = 100_000


class PieceTokenizer:
    """Token ids of texts through one `tokenizers.Tokenizer` and a cache of pieces."""

    def __init__(self, tokenizer) -> None:
        self.tokenizer = tokenizer
        self.model = tokenizer.model
        added = getattr(tokenizer, "get_added_tokens_decoder", None)
        # Without the list of added tokens, every text goes to the tokenizer whole.
        self.added: tuple[str, ...] | None = (
            tuple(token.content for token in added().values()) if added else None
        )
        # tokenizers 0.21 and later: the same ids without character offsets, 25% faster.
        self._encode = getattr(tokenizer, "encode_batch_fast", tokenizer.encode_batch)
        self._pieces: dict[str, list[int]] = {}
        self._learned: dict[str, list[int]] = {}

    def ids(self, texts: Sequence[str]) -> list[list[int]]:
        """The ids `tokenizer.encode_batch(texts, add_special_tokens=False)` gives."""
        out: list[list[int] | None] = [None] * len(texts)
        whole: list[int] = []
        for number, text in enumerate(texts):
            if self.added is None or any(token in text for token in self.added):
                whole.append(number)
            else:
                out[number] = self._by_pieces(text)
        if whole:
            encodings = self._encode([texts[n] for n in whole], add_special_tokens=False)
            for number, encoding in zip(whole, encodings, strict=True):
                out[number] = encoding.ids
        return out  # type: ignore[return-value]  # every slot is filled above

    def take_learned(self) -> dict[str, list[int]]:
        """The query pieces first tokenized since the last call, with their ids."""
        learned, self._learned = self._learned, {}
        return learned

    def _by_pieces(self, text: str) -> list[int]:
        if not text:  # the normalizer prepends its `▁` only to a text with something in it
            return []
        pieces = self._pieces
        if len(pieces) > CACHE_LIMIT:
            pieces.clear()
        parts = cut_pieces(text)
        # The new pieces, found in C rather than by a Python loop over every piece of a text
        # that holds one (each text of a new process's first files does).
        for piece in set(parts).difference(pieces):
            ids = pieces[piece] = [token.id for token in self.model.tokenize(piece)]
            self._learn(piece, ids)
        return list(chain.from_iterable(map(pieces.__getitem__, parts)))

    def _learn(self, piece: str, ids: list[int]) -> None:
        if len(self._learned) < LEARNED_LIMIT and QUERY_PIECE.fullmatch(piece):
            self._learned[piece] = ids


@cache
def unicode_piece():  # -> regex.Pattern
    """The cut: letters, decimal digits (one token each in this vocabulary) and everything
    else, each run taking the `▁`s before it (the vocabulary has `▁▁▁▁` and `▁def`)."""
    import regex

    return regex.compile(
        rf"{SPACE}+(?:\p{{L}}+|[^\p{{L}}\p{{Nd}}{SPACE}]+)?|\p{{L}}+|[^\p{{L}}\p{{Nd}}{SPACE}]+|\p{{Nd}}"
    )


def cut_pieces(text: str) -> list[str]:
    """`text`'s pieces, as the tokenizer's normalizer sees it (one `▁` first, spaces as `▁`)."""
    cut = ASCII_PIECE if text.isascii() else unicode_piece()
    return cut.findall(SPACE + text.replace(" ", SPACE))


def boundaries_hold(vocabulary: Sequence[str], byte_tokens_prefix: str = "<0x") -> bool:
    """Whether every token a merge can make lies inside one piece, so no merge crosses a cut.

    Byte-fallback tokens (`<0x0A>`) stand for one character each and are never merged.
    """
    piece = unicode_piece()
    return all(
        len(piece.findall(token)) == 1 and piece.fullmatch(token) is not None
        for token in vocabulary
        if token and not token.startswith(byte_tokens_prefix)
    )
