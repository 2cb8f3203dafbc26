"""BM25 in memory, scored as SQLite FTS5's `bm25()` scores the index, for a resident search.

FTS5 carries the durable, incremental side of the lexical index, but every query scores
every matching row through SQLite's virtual-table machinery: 2.6 ms a query on
pydantic's 2,257 chunks and 3.7 ms on the standard library's 47,534, most of a warm
search's budget. A long-lived process (`wherein serve`) can afford to hold the same
terms as arrays, one slice of (chunk, term frequency) per term, as `bm25s` holds its
sparse matrix: a query then sums a few slices into one score per chunk (tenths of a
millisecond).

The scores are FTS5's (sqlite.org/fts5.html, "The bm25() function"): k1 = 1.2, b =
0.75, idf = ln((N - n + 0.5) / (n + 0.5)) floored at 1e-6, document length the
chunk's token count, summed in float64 term by term in query order as FTS5 sums its
phrases. Ties go to the lower chunk id, as `ORDER BY bm25(lexical), rowid` orders them.
tests/ranking/test_postings.py holds it to FTS5's own order.
"""

from __future__ import annotations

import array
from collections.abc import Iterable, Sequence

import numpy as np

from wherein.retrieval.selection import top_k

__all__ = ["B", "IDF_FLOOR", "K1", "Postings"]

K1 = 1.2
B = 0.75
IDF_FLOOR = 1e-6
# Scores are kept for the rows holding a query term alone while their (term, chunk) pairs
# are fewer than one in this many rows: then a sort of those beats a pass over every row
# (the standard library's queries: 0.14 ms against 0.21 ms a query).
SPARSE_SHARE = 8


class Postings:
    """The lexical index as arrays: for each term, the chunks holding it and how often."""

    def __init__(self, rows: Iterable[tuple[int, str]]) -> None:
        """`rows`: (chunk id, its terms space-joined as the lexical table stores them), in
        ascending chunk id order, as `ORDER BY rowid` reads them.

        Raises:
            ValueError: the chunk ids are not ascending.
        """
        vocabulary: dict[str, int] = {}
        term_ids = array.array("q")  # 8 bytes a token, not a list's 8 plus an object's
        chunk_ids: list[int] = []
        lengths: list[int] = []
        number = vocabulary.setdefault
        for chunk_id, text in rows:
            terms = text.split()
            chunk_ids.append(chunk_id)
            lengths.append(len(terms))
            term_ids.extend([number(term, len(vocabulary)) for term in terms])
        self.vocabulary = vocabulary
        self.chunk_ids = np.asarray(chunk_ids, dtype=np.int64)
        if len(chunk_ids) > 1 and not bool(np.all(self.chunk_ids[1:] > self.chunk_ids[:-1])):
            # `order` breaks ties by position, which must be FTS5's order by rowid.
            raise ValueError("Postings needs its rows in ascending chunk id order.")
        self.lengths = np.asarray(lengths, dtype=np.float64)
        docs = len(chunk_ids)
        # One key per (term, chunk): sorted, the chunks of each term lie together, and the
        # run length of a key is the term's frequency in that chunk.
        doc_of_token = np.repeat(np.arange(docs, dtype=np.int64), lengths)
        keys = np.frombuffer(term_ids, dtype=np.int64) * max(docs, 1) + doc_of_token
        pairs, counts = np.unique(keys, return_counts=True)
        self.docs = (pairs % max(docs, 1)).astype(np.int32)
        terms_of_pairs = pairs // max(docs, 1)
        self.starts = np.searchsorted(terms_of_pairs, np.arange(len(vocabulary) + 1))
        mean_length = self.lengths.mean() if docs else 1.0
        norm = K1 * (1 - B + B * self.lengths / (mean_length or 1.0))
        # Each (term, chunk)'s share of a score depends on nothing a query brings: computed
        # here once, by the same operations in the same order as a query did them, so a
        # query only adds slices (p50 0.72 ms before, 0.48 ms after, on the stdlib).
        holding = np.diff(self.starts)
        idf = np.log((docs - holding + 0.5) / (holding + 0.5))
        idf[idf <= 0.0] = IDF_FLOOR
        tf = counts.astype(np.float64)
        self.shares = idf[terms_of_pairs] * ((tf * (K1 + 1)) / (tf + norm[self.docs]))

    def __len__(self) -> int:
        return len(self.chunk_ids)

    def order(
        self, terms: Sequence[str], limit: int, within: np.ndarray | None = None
    ) -> list[tuple[int, float]]:
        """(chunk id, BM25 score) of the chunks holding any of `terms`, best first.

        `within` (sorted or not) keeps only those chunk ids; the collection statistics
        stay the whole index's, as FTS5's do under a filter.
        """
        n = len(self.chunk_ids)
        if limit <= 0 or not n:
            return []
        numbers = [self.vocabulary.get(term) for term in dict.fromkeys(terms)]
        cuts = [slice(self.starts[k], self.starts[k + 1]) for k in numbers if k is not None]
        if not cuts:
            return []
        # Every (term, chunk) share in query order: `bincount` adds each chunk's in that
        # order, as a loop over the terms did, so the sums are the same to the bit.
        docs = np.concatenate([self.docs[cut] for cut in cuts])
        shares = np.concatenate([self.shares[cut] for cut in cuts])
        if within is not None:
            kept = np.isin(self.chunk_ids[docs], within)
            docs, shares = docs[kept], shares[kept]
        held = None  # the rows scored, when only those holding a term are (the usual case)
        if len(docs) * SPARSE_SHARE < n:
            held, docs = np.unique(docs, return_inverse=True)
        scores = np.bincount(docs, weights=shares, minlength=n if held is None else len(held))
        # Every term adds more than nothing (idf is floored above 0), so a chunk scores
        # above 0 exactly when it holds one; ties go to the earlier row, the lower chunk id
        # (`held` is in row order).
        ranked = top_k(scores, limit)
        ranked = ranked[scores[ranked] > 0.0]
        rows = ranked if held is None else held[ranked]
        return list(zip(self.chunk_ids[rows].tolist(), scores[ranked].tolist(), strict=True))
