"""Two references computed in the same run, so a score means something on its own.

- `bm25`: Okapi BM25 with whole files as the documents, over wherein's identifier-aware terms
  (a file's text plus its name and folders), ranked by the same FTS5 engine the index uses
  (`wherein.storage.lexical`) in a database that lives in memory only.
- `grep`: what an agent does without a search tool: grep for each word of the question (case
  ignored, stopwords and words under 3 letters left out) and read the files that match the
  most of them, ties broken by how often they match, then by path.

Both return whole files, so their context cost is the files themselves.
"""

from __future__ import annotations

import re
import sqlite3

from wherein.evaluation.corpus import Corpus
from wherein.ranking.tokens import STOPWORDS, path_terms, query_tokens, tokenize
from wherein.storage.lexical import (
    CREATE_LEXICAL_TABLE,
    joined_terms,
    lexical_order,
    write_terms,
)

__all__ = ["BASELINES", "Bm25Files", "GrepFiles"]

MIN_GREP_WORD = 3
_WORD = re.compile(r"\w+")


class Bm25Files:
    """BM25 over whole files."""

    name = "bm25"
    label = "BM25 over files"

    def __init__(self, corpus: Corpus) -> None:
        self.paths = [path for path in corpus.paths if corpus.text(path) is not None]
        self._conn = sqlite3.connect(":memory:")
        self._conn.execute(CREATE_LEXICAL_TABLE)
        write_terms(
            self._conn,
            (
                (row, joined_terms(tokenize(corpus.text(path) or "") + path_terms(path)))
                for row, path in enumerate(self.paths, start=1)
            ),
        )

    def search(self, query: str, limit: int) -> list[str]:
        order = lexical_order(self._conn, query_tokens(query), limit)
        return [self.paths[row - 1] for row, _ in order]

    def close(self) -> None:
        self._conn.close()


class GrepFiles:
    """Files by how many of the question's words they contain (like `grep -ic` per word).

    A word of the question is a run of word characters, so wherever grep would find it in
    a file it lies inside one of the file's own word runs: matching the question's words
    against each file's distinct runs finds what grep finds, without reading every file
    again for every word.
    """

    name = "grep"
    label = "grep for the words"

    def __init__(self, corpus: Corpus) -> None:
        postings: dict[str, list[tuple[int, int]]] = {}
        self.paths = []
        for path in corpus.paths:
            text = corpus.text(path)
            if text is None:
                continue
            counts: dict[str, int] = {}
            for word in _WORD.findall(text.lower()):
                counts[word] = counts.get(word, 0) + 1
            for word, count in counts.items():
                postings.setdefault(word, []).append((len(self.paths), count))
            self.paths.append(path)
        self._postings = postings
        self._vocabulary = "\n".join(postings)
        self._found: dict[str, dict[int, int]] = {}

    def _matches(self, word: str) -> dict[int, int]:
        """File index -> how often `word` occurs inside that file's words (cached per word)."""
        found = self._found.get(word)
        if found is None:
            found = {}
            for match in re.finditer(rf"(?m)^.*{re.escape(word)}.*$", self._vocabulary):
                for index, count in self._postings[match.group(0)]:
                    found[index] = found.get(index, 0) + count
            self._found[word] = found
        return found

    def search(self, query: str, limit: int) -> list[str]:
        words = [
            w
            for w in dict.fromkeys(_WORD.findall(query.lower()))
            if len(w) >= MIN_GREP_WORD and w not in STOPWORDS
        ]
        files: dict[int, list[int]] = {}
        for word in words:
            for index, count in self._matches(word).items():
                tally = files.setdefault(index, [0, 0])
                tally[0] += 1
                tally[1] += count
        ranked = sorted(files.items(), key=lambda kv: (-kv[1][0], -kv[1][1], self.paths[kv[0]]))
        return [self.paths[index] for index, _ in ranked[:limit]]

    def close(self) -> None:
        self._postings, self._found = {}, {}


BASELINES = (Bm25Files, GrepFiles)
