"""Lexical-engine benchmark: which BM25 store should replace the hand-written postings tables?

Every engine is fed the same pre-split tokens (`wherein.ranking.tokens.document_terms` for
chunks, `query_tokens` for queries) of the CPython standard library, chunked as `wherein index`
chunks it, so only the storage and scoring differ. Engines:

- `postings`: today's schema (terms + postings WITHOUT ROWID + postings_by_chunk) written the
  way `Store.write_file` writes it, scored in numpy by `wherein.ranking.bm25` (the baseline).
- `fts5`: SQLite FTS5 in Python's own sqlite3, a contentless table of space-joined tokens,
  `ORDER BY bm25(t) LIMIT 100` (k1=1.2, b=0.75 fixed). Two tokenizers are checked for keeping
  our tokens whole (fts5vocab terms against our token set): `unicode61 remove_diacritics 0
  tokenchars '_'` and `ascii tokenchars '_'`. Variants: detail=column, detail=none.
- `fts5_vocab`: the same detail=full table, but postings per query term read from an
  fts5vocab 'instance' table and scored exactly as Okapi in numpy.
- `tantivy`: official bindings, whitespace tokenizer, freq-only postings, u64 id/file fields,
  BooleanQuery of Should TermQuery.
- `bm25s`: built from `Tokenized(ids, vocab)`, method robertson (k1=1.5, b=0.75), saved and
  loaded with mmap; it has no incremental update, so its update cost is a full rebuild + save.
- `resident`: a numpy term-major CSR (term -> chunk positions, tf) built in memory from the
  token lists, scored exactly as Okapi: the option for a long-running server.

Per engine: build time for all chunks (median of --repeats), on-disk size, cold open in a fresh
process (engine import + open + first query answered, Python start excluded; median of
--cold-runs), warm query p50/p95 (every query --query-repeats times in process), the cost of
replacing one file's chunks (--update-file) and committing, and rank agreement with
`rank_bm25.BM25Okapi` (k1=1.5, b=0.75, epsilon=0.25; and k1=1.2 for the engines whose k1 is
fixed at 1.2): mean top-10 / top-100 set overlap, and the share of queries whose terms all have
positive idf on which the engine's ranked scores equal the oracle's (tie-safe: the oracle's
score at each rank must match). The machine is shared and noisy: every ratio is against the
`postings` baseline of the same run.

The tokenized corpus is cached (--cache) so repeated runs skip copying and chunking; oracle
rankings are cached beside it.

Run (in a venv holding wherein, tantivy, bm25s, scipy and rank_bm25):
    python scripts/bench_lexical.py [--repeats 3] [--cold-runs 5] [--query-repeats 5]
        [--engines postings,fts5,...] [--cache /tmp/wherein-lexbench-corpus.pkl] [--out FILE]
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import importlib.util
import json
import math
import os
import pickle
import shutil
import sqlite3
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections import Counter
from pathlib import Path

DEFAULT_CACHE = Path(tempfile.gettempdir()) / "wherein-lexbench-corpus.pkl"
DEFAULT_UPDATE_FILE = "json/encoder.py"
SEMBLE_QUERIES = Path("/work/shared/bench/semble_python.jsonl")
SEMBLE_QUERY_COUNT = 30
TOP = 100
# tantivy's smallest writer arena: an update writes a few dozen documents.
UPDATE_WRITER_HEAP = 15_000_000
# Files written per SQLite transaction while building (refresh batches files the same way).
FILES_PER_TRANSACTION = 100
# Relative tolerance for "the same score": bm25s keeps float32 scores.
SCORE_RTOL = 1e-4
ORACLE_K1 = 1.5
FIXED_K1 = 1.2  # FTS5's bm25() and tantivy
ENGINES = (
    "postings",
    "fts5",
    "fts5_unicode61",
    "fts5_column",
    "fts5_none",
    "fts5_vocab",
    "tantivy",
    "bm25s",
    "resident",
)
FTS5_TOKENIZERS = {
    "ascii": "ascii tokenchars '_'",
    "unicode61": "unicode61 remove_diacritics 0 tokenchars '_'",
}
# engine -> (FTS5 tokenizer, detail)
FTS5_VARIANTS = {
    "fts5": ("ascii", "full"),
    "fts5_unicode61": ("unicode61", "full"),
    "fts5_column": ("ascii", "column"),
    "fts5_none": ("ascii", "none"),
    "fts5_vocab": ("ascii", "full"),
}
# The k1 each engine scores with: the oracle it must match exactly.
ENGINE_K1 = {
    "postings": ORACLE_K1,
    "fts5_vocab": ORACLE_K1,
    "bm25s": ORACLE_K1,
    "resident": ORACLE_K1,
    "tantivy": FIXED_K1,
    **{name: FIXED_K1 for name in FTS5_VARIANTS if name != "fts5_vocab"},
}


# -- corpus -----------------------------------------------------------------------------------


def _load_measure_queries() -> tuple[str, ...]:
    spec = importlib.util.spec_from_file_location("measure", Path(__file__).with_name("measure.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("measure", module)  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module.QUERIES


def query_texts() -> list[str]:
    """The 15 scale-benchmark queries, then SEMBLE_QUERY_COUNT semble queries spread evenly."""
    texts = list(_load_measure_queries())
    if SEMBLE_QUERIES.exists():
        lines = [json.loads(line) for line in SEMBLE_QUERIES.read_text().splitlines() if line]
        step = max(1, len(lines) // SEMBLE_QUERY_COUNT)
        texts += [row["query"] for row in lines[::step][:SEMBLE_QUERY_COUNT]]
    return list(dict.fromkeys(texts))


def build_corpus(scratch: Path) -> dict:
    """Copy the stdlib, walk it as `wherein index` does, and tokenize every chunk."""
    from wherein.chunking import chunk_source, skip_reason
    from wherein.config import KEYS
    from wherein.ranking.tokens import document_terms
    from wherein.workspace import Root, SourceSkipped, WalkReport, read_source, walk_root

    source = Path(sysconfig.get_paths()["stdlib"])

    def ignore(directory: str, names: list[str]) -> list[str]:
        top = Path(directory) == source
        return [n for n in names if n == "__pycache__" or (top and n == "site-packages")]

    target = scratch / source.name
    shutil.copytree(source, target, symlinks=True, ignore=ignore)
    max_bytes = KEYS["walk.max_file_bytes"].default
    paths: list[str] = []
    file_of: list[int] = []
    docs: list[list[str]] = []
    started = time.perf_counter()
    for entry in walk_root(Root(target), max_bytes, WalkReport()):
        text = read_source(entry, max_bytes)
        if isinstance(text, SourceSkipped) or skip_reason(entry.rel, text.text) is not None:
            continue
        _, pieces = chunk_source(entry.rel, text.text)
        if not pieces:
            continue
        paths.append(entry.display_path)
        for piece in pieces:
            file_of.append(len(paths) - 1)
            docs.append(document_terms(entry.display_path, piece.header, piece.text))
    return {
        "source": str(source),
        "paths": paths,
        "file_of": file_of,
        "docs": docs,
        "chunk_s": time.perf_counter() - started,
    }


def load_corpus(cache: Path) -> dict:
    if cache.exists():
        with cache.open("rb") as f:
            return pickle.load(f)
    with tempfile.TemporaryDirectory(prefix="lexbench-copy-") as scratch:
        corpus = build_corpus(Path(scratch))
    with cache.open("wb") as f:
        pickle.dump(corpus, f, protocol=pickle.HIGHEST_PROTOCOL)
    return corpus


def corpus_key(corpus: dict) -> str:
    digest = hashlib.sha256()
    for doc in corpus["docs"]:
        digest.update(" ".join(doc).encode("utf-8", "surrogatepass") + b"\n")
    return digest.hexdigest()[:16]


def files_of(corpus: dict) -> list[list[int]]:
    """Chunk positions of each file, in file order."""
    out: list[list[int]] = [[] for _ in corpus["paths"]]
    for position, file_index in enumerate(corpus["file_of"]):
        out[file_index].append(position)
    return out


def joined(doc: list[str]) -> str:
    return " ".join(doc)


# -- oracle -----------------------------------------------------------------------------------


def oracle_rankings(corpus: dict, queries: list[list[str]], cache: Path) -> dict:
    """Per k1, per query: (top positions, their scores, scores of every matched chunk)."""
    key = corpus_key(corpus) + "-" + hashlib.sha256(repr(queries).encode()).hexdigest()[:12]
    path = cache.with_name(cache.stem + f"-oracle-{key}.pkl")
    if path.exists():
        with path.open("rb") as f:
            return pickle.load(f)
    import numpy as np
    from rank_bm25 import BM25Okapi

    model = BM25Okapi(corpus["docs"], k1=ORACLE_K1, b=0.75, epsilon=0.25)
    out: dict = {}
    for k1 in (ORACLE_K1, FIXED_K1):
        model.k1 = k1
        per_query = []
        for terms in queries:
            scores = model.get_scores(terms) if terms else np.zeros(len(corpus["docs"]))
            matched = np.flatnonzero(scores > 0)
            order = matched[np.lexsort((matched, -scores[matched]))][:TOP]
            per_query.append((order, scores[order], scores))
        out[k1] = per_query
    # Okapi idf before rank_bm25's epsilon floor: positive when a term is in under half.
    n_docs = len(corpus["docs"])
    df = Counter(t for doc in corpus["docs"] for t in set(doc))
    out["positive_idf"] = [
        all(math.log(n_docs - df[t] + 0.5) > math.log(df[t] + 0.5) for t in terms if t in df)
        for terms in queries
    ]
    with path.open("wb") as f:
        pickle.dump(out, f, protocol=pickle.HIGHEST_PROTOCOL)
    return out


def agreement(results: list[list[int]], oracle: dict, k1: float) -> dict:
    """Top-10/top-100 overlap with the oracle, and exact (tie-safe) agreement on positive-idf
    queries: at every rank the engine's chunk has the oracle's score for that rank."""
    import numpy as np

    overlaps: dict[int, list[float]] = {10: [], TOP: []}
    exact = []
    for n, found in enumerate(results):
        order, top_scores, all_scores = oracle[k1][n]
        for k in overlaps:
            want = set(order[:k].tolist())
            if want:
                overlaps[k].append(len(want & set(found[:k])) / len(want))
        if oracle["positive_idf"][n]:
            got = all_scores[np.asarray(found[: len(order)], dtype=np.int64)]
            same = len(found[: len(order)]) == len(order) and bool(
                np.allclose(got, top_scores, rtol=SCORE_RTOL, atol=0.0)
            )
            exact.append(same)
    return {
        "overlap_top10": statistics.fmean(overlaps[10]) if overlaps[10] else None,
        "overlap_top100": statistics.fmean(overlaps[TOP]) if overlaps[TOP] else None,
        "exact_queries": sum(exact),
        "positive_idf_queries": len(exact),
        "oracle_k1": k1,
    }


# -- shared helpers ---------------------------------------------------------------------------


def top_positions(scores, candidates):
    """Up to TOP candidate positions by score, best first, ties by position."""
    import numpy as np

    if len(candidates) == 0:
        return []
    picked = candidates[np.lexsort((candidates, -scores[candidates]))][:TOP]
    return picked.tolist()


def dir_size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def sqlite_size(db: Path) -> int:
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return sum(dir_size(p) for p in (db, Path(f"{db}-wal")) if p.exists())


def open_sqlite(db: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(str(db), isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    return conn


def chunk_rows(corpus: dict, positions: list[int]) -> list[tuple[int, int, int]]:
    """(chunk id, file id, n_tokens): the slice of the chunks table BM25 reads."""
    docs, file_of = corpus["docs"], corpus["file_of"]
    return [(p + 1, file_of[p] + 1, len(docs[p])) for p in positions]


def mean_idf_of(document_frequencies, n_docs: int) -> float:
    from wherein.ranking.bm25 import average_idf

    return average_idf(document_frequencies, n_docs)


class Timer(contextlib.ContextDecorator):
    def __enter__(self):
        self.start = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.elapsed = time.perf_counter() - self.start
        return False


# -- engine: today's postings -----------------------------------------------------------------

POSTINGS_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE chunks (id INTEGER PRIMARY KEY, file_id INTEGER NOT NULL, n_tokens INTEGER NOT NULL);
CREATE INDEX chunks_by_file ON chunks(file_id);
CREATE INDEX chunks_lengths ON chunks(id, n_tokens);
CREATE TABLE terms (id INTEGER PRIMARY KEY, term TEXT NOT NULL UNIQUE);
CREATE TABLE postings (
    term_id INTEGER NOT NULL,
    chunk_id INTEGER NOT NULL,
    tf INTEGER NOT NULL,
    PRIMARY KEY (term_id, chunk_id)
) WITHOUT ROWID;
CREATE INDEX postings_by_chunk ON postings(chunk_id);
"""


class TermIds:
    """As `wherein.index.store.TermIds`: the vocabulary is read on the first write."""

    def __init__(self) -> None:
        self._ids: dict[str, int] | None = None

    def id_for(self, conn: sqlite3.Connection, term: str) -> int:
        if self._ids is None:
            self._ids = dict(conn.execute("SELECT term, id FROM terms"))
        term_id = self._ids.get(term)
        if term_id is None:
            term_id = conn.execute("INSERT INTO terms(term) VALUES (?)", (term,)).lastrowid
            self._ids[term] = term_id
        return term_id


def postings_write_file(conn, corpus: dict, positions: list[int], term_ids: TermIds) -> None:
    docs = corpus["docs"]
    rows = chunk_rows(corpus, positions)
    conn.executemany("INSERT INTO chunks(id, file_id, n_tokens) VALUES (?, ?, ?)", rows)
    postings = []
    for position in positions:
        for term, count in Counter(docs[position]).items():
            postings.append((term_ids.id_for(conn, term), position + 1, count))
    conn.executemany("INSERT INTO postings(term_id, chunk_id, tf) VALUES (?, ?, ?)", postings)


def postings_build(corpus: dict, where: Path) -> Path:
    db = where / "postings.sqlite"
    conn = open_sqlite(db)
    conn.executescript(POSTINGS_SCHEMA)
    term_ids = TermIds()
    groups = files_of(corpus)
    for start in range(0, len(groups), FILES_PER_TRANSACTION):
        conn.execute("BEGIN IMMEDIATE")
        for positions in groups[start : start + FILES_PER_TRANSACTION]:
            postings_write_file(conn, corpus, positions, term_ids)
        conn.execute("COMMIT")
    dfs = [r[0] for r in conn.execute("SELECT count(*) FROM postings GROUP BY term_id")]
    import numpy as np

    value = mean_idf_of(np.array(dfs), len(corpus["docs"]))
    conn.execute("INSERT INTO meta VALUES ('mean_idf', ?)", (repr(value),))
    conn.close()
    return db


def postings_update(db: Path, corpus: dict, positions: list[int]) -> None:
    """`Store.delete_files` + `write_file` for one file, with a fresh TermIds as a refresh has."""
    conn = open_sqlite(db)
    conn.execute("BEGIN IMMEDIATE")
    file_id = corpus["file_of"][positions[0]] + 1
    conn.execute(
        "DELETE FROM postings WHERE chunk_id IN (SELECT id FROM chunks WHERE file_id = ?)",
        (file_id,),
    )
    conn.execute("DELETE FROM chunks WHERE file_id = ?", (file_id,))
    postings_write_file(conn, corpus, positions, TermIds())
    conn.execute("COMMIT")
    conn.close()


class NumpySearcher:
    """Exact Okapi over (positions, tf) postings, as `wherein.search._bm25_order` scores."""

    def __init__(self, ids, lengths, mean_idf: float, fetch) -> None:
        self.ids, self.lengths, self.mean_idf, self.fetch = ids, lengths, mean_idf, fetch

    def search(self, terms: list[str]) -> list[int]:
        import numpy as np

        from wherein.ranking.bm25 import bm25_scores

        postings = {}
        matched = np.zeros(len(self.ids), dtype=bool)
        for term in terms:
            chunk_ids, counts = self.fetch(term)
            positions = np.searchsorted(self.ids, chunk_ids)
            postings[term] = (positions, counts)
            matched[positions] = True
        scores = bm25_scores(terms, postings, self.lengths, self.mean_idf)
        return [int(self.ids[p]) - 1 for p in top_positions(scores, np.flatnonzero(matched))]


def _sqlite_numpy_searcher(db: Path, sql: str) -> NumpySearcher:
    import numpy as np

    conn = sqlite3.connect(str(db), isolation_level=None)
    data = np.array(
        conn.execute("SELECT id, n_tokens FROM chunks ORDER BY id").fetchall(), dtype=np.int64
    ).reshape(-1, 2)
    (mean_idf,) = conn.execute("SELECT value FROM meta WHERE key = 'mean_idf'").fetchone()

    def fetch(term: str):
        rows = np.array(conn.execute(sql, (term,)).fetchall(), dtype=np.int64).reshape(-1, 2)
        return rows[:, 0], rows[:, 1]

    return NumpySearcher(data[:, 0], data[:, 1], float(mean_idf), fetch)


def postings_open(db: Path):
    return _sqlite_numpy_searcher(
        db,
        "SELECT p.chunk_id, p.tf FROM postings p JOIN terms t ON t.id = p.term_id WHERE t.term = ?",
    )


# -- engine: FTS5 -----------------------------------------------------------------------------


def fts5_schema(tokenizer: str, detail: str) -> str:
    tokenize = FTS5_TOKENIZERS[tokenizer].replace("'", "''")
    return (
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
        "CREATE TABLE chunks (id INTEGER PRIMARY KEY, file_id INTEGER NOT NULL, "
        "n_tokens INTEGER NOT NULL);"
        "CREATE INDEX chunks_by_file ON chunks(file_id);"
        "CREATE INDEX chunks_lengths ON chunks(id, n_tokens);"
        f"CREATE VIRTUAL TABLE t USING fts5(body, content='', tokenize='{tokenize}', "
        f"detail={detail});"
        "CREATE VIRTUAL TABLE t_row USING fts5vocab(t, 'row');"
        "CREATE VIRTUAL TABLE t_inst USING fts5vocab(t, 'instance');"
    )


def fts5_write_file(conn, corpus: dict, positions: list[int]) -> None:
    docs = corpus["docs"]
    conn.executemany(
        "INSERT INTO chunks(id, file_id, n_tokens) VALUES (?, ?, ?)", chunk_rows(corpus, positions)
    )
    conn.executemany(
        "INSERT INTO t(rowid, body) VALUES (?, ?)", [(p + 1, joined(docs[p])) for p in positions]
    )


def fts5_build(corpus: dict, where: Path, tokenizer: str, detail: str) -> Path:
    db = where / f"fts5-{tokenizer}-{detail}.sqlite"
    conn = open_sqlite(db)
    conn.executescript(fts5_schema(tokenizer, detail))
    groups = files_of(corpus)
    for start in range(0, len(groups), FILES_PER_TRANSACTION):
        conn.execute("BEGIN IMMEDIATE")
        for positions in groups[start : start + FILES_PER_TRANSACTION]:
            fts5_write_file(conn, corpus, positions)
        conn.execute("COMMIT")
    import numpy as np

    dfs = np.array([r[0] for r in conn.execute("SELECT doc FROM t_row")], dtype=np.int64)
    value = mean_idf_of(dfs, len(corpus["docs"]))
    conn.execute("INSERT INTO meta VALUES ('mean_idf', ?)", (repr(value),))
    conn.close()
    return db


def fts5_update(db: Path, corpus: dict, positions: list[int]) -> None:
    """A contentless table (SQLite 3.40 has no contentless_delete) deletes a row by
    re-supplying its old tokens: the chunk's text is in the chunks table to recompute them."""
    docs = corpus["docs"]
    conn = open_sqlite(db)
    conn.execute("BEGIN IMMEDIATE")
    file_id = corpus["file_of"][positions[0]] + 1
    old = [r[0] for r in conn.execute("SELECT id FROM chunks WHERE file_id = ?", (file_id,))]
    conn.executemany(
        "INSERT INTO t(t, rowid, body) VALUES ('delete', ?, ?)",
        [(cid, joined(docs[cid - 1])) for cid in old],
    )
    conn.execute("DELETE FROM chunks WHERE file_id = ?", (file_id,))
    fts5_write_file(conn, corpus, positions)
    conn.execute("COMMIT")
    conn.close()


def fts5_match(terms: list[str]) -> str:
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)


class Fts5Searcher:
    def __init__(self, db: Path) -> None:
        self.conn = sqlite3.connect(str(db), isolation_level=None)

    def search(self, terms: list[str]) -> list[int]:
        if not terms:
            return []
        rows = self.conn.execute(
            "SELECT rowid FROM t WHERE t MATCH ? ORDER BY bm25(t), rowid LIMIT ?",
            (fts5_match(terms), TOP),
        )
        return [r[0] - 1 for r in rows]


def fts5_vocab_open(db: Path):
    return _sqlite_numpy_searcher(
        db, "SELECT doc, count(*) FROM t_inst WHERE term = ? GROUP BY doc ORDER BY doc"
    )


def fts5_token_check(db: Path, corpus: dict) -> dict:
    """Does the tokenizer keep our tokens whole? fts5vocab terms against our token set, and
    per-chunk token counts (FTS5's document length) against ours."""
    conn = sqlite3.connect(str(db))
    theirs = {r[0] for r in conn.execute("SELECT term FROM t_row")}
    ours = set()
    for doc in corpus["docs"]:
        ours.update(doc)
    # fts5vocab's 'instance' count per doc is FTS5's document length for a one-column table.
    lengths = dict(conn.execute("SELECT doc, count(*) FROM t_inst GROUP BY doc"))
    conn.close()
    differing = sum(1 for p, doc in enumerate(corpus["docs"]) if lengths.get(p + 1, 0) != len(doc))
    missing, extra = sorted(ours - theirs), sorted(theirs - ours)
    return {
        "our_terms": len(ours),
        "fts5_terms": len(theirs),
        "ours_not_in_fts5": len(missing),
        "fts5_not_in_ours": len(extra),
        "examples_ours_not_in_fts5": missing[:8],
        "examples_fts5_not_in_ours": extra[:8],
        "chunks_with_other_length": differing,
    }


# -- engine: tantivy --------------------------------------------------------------------------


def tantivy_schema():
    import tantivy

    builder = tantivy.SchemaBuilder()
    builder.add_unsigned_field("id", stored=True, indexed=True, fast=True)
    builder.add_unsigned_field("file", indexed=True)
    builder.add_text_field("body", tokenizer_name="whitespace", index_option="freq")
    return builder.build()


def tantivy_add(writer, corpus: dict, positions: list[int]) -> None:
    import tantivy

    docs, file_of = corpus["docs"], corpus["file_of"]
    for p in positions:
        doc = tantivy.Document()  # Document(id=...) would make the ints i64, not u64
        doc.add_unsigned("id", p + 1)
        doc.add_unsigned("file", file_of[p] + 1)
        doc.add_text("body", joined(docs[p]))
        writer.add_document(doc)


def tantivy_build(corpus: dict, where: Path) -> Path:
    import tantivy

    path = where / "tantivy"
    path.mkdir()
    index = tantivy.Index(tantivy_schema(), path=str(path))
    writer = index.writer()
    tantivy_add(writer, corpus, list(range(len(corpus["docs"]))))
    writer.commit()
    writer.wait_merging_threads()
    return path


def tantivy_update(path: Path, corpus: dict, positions: list[int]) -> None:
    """Open a writer (as each `wherein index` run would), delete by file, re-add, commit."""
    import tantivy

    index = tantivy.Index.open(str(path))
    writer = index.writer(heap_size=UPDATE_WRITER_HEAP, num_threads=1)
    writer.delete_documents_by_term("file", corpus["file_of"][positions[0]] + 1)
    tantivy_add(writer, corpus, positions)
    writer.commit()
    writer.wait_merging_threads()


class TantivySearcher:
    def __init__(self, path: Path) -> None:
        import tantivy

        self.tantivy = tantivy
        self.index = tantivy.Index.open(str(path))
        self.schema = self.index.schema
        self.searcher = self.index.searcher()

    def search(self, terms: list[str]) -> list[int]:
        if not terms:
            return []
        t = self.tantivy
        query = t.Query.boolean_query(
            [(t.Occur.Should, t.Query.term_query(self.schema, "body", term)) for term in terms]
        )
        hits = self.searcher.search(query, TOP, count=False).hits
        ids = self.searcher.fast_field_values("id", [address for _, address in hits])
        return [int(i) - 1 for i in ids]


# -- engine: bm25s ----------------------------------------------------------------------------


def bm25s_build(corpus: dict, where: Path) -> Path:
    import bm25s
    from bm25s.tokenization import Tokenized

    vocab: dict[str, int] = {}
    ids = [[vocab.setdefault(t, len(vocab)) for t in doc] for doc in corpus["docs"]]
    retriever = bm25s.BM25(method="robertson", k1=ORACLE_K1, b=0.75)
    retriever.index(Tokenized(ids=ids, vocab=vocab), show_progress=False)
    path = where / "bm25s"
    retriever.save(str(path))
    return path


class Bm25sSearcher:
    def __init__(self, path: Path) -> None:
        import bm25s

        self.retriever = bm25s.BM25.load(str(path), mmap=True, show_progress=False)
        self.vocab = self.retriever.vocab_dict

    def search(self, terms: list[str]) -> list[int]:
        known = [t for t in terms if t in self.vocab]
        if not known:
            return []
        docs, scores = self.retriever.retrieve([known], k=TOP, show_progress=False)
        return [int(d) for d, s in zip(docs[0], scores[0], strict=True) if s > 0]


# -- resident numpy CSR -----------------------------------------------------------------------


class Resident:
    """Term-major CSR in memory: indptr per term into (chunk positions, tf)."""

    def __init__(self, docs: list[list[str]]) -> None:
        import numpy as np

        vocab: dict[str, int] = {}
        term_col, tf_col, lengths, doc_counts = [], [], [], []
        for doc in docs:
            counts = Counter(doc)
            term_col.extend(vocab.setdefault(t, len(vocab)) for t in counts)
            tf_col.extend(counts.values())
            doc_counts.append(len(counts))
            lengths.append(len(doc))
        terms = np.array(term_col, dtype=np.int32)
        doc_col = np.repeat(np.arange(len(docs), dtype=np.int32), doc_counts)
        order = np.argsort(terms, kind="stable")
        self.positions = doc_col[order]
        self.tf = np.array(tf_col, dtype=np.int32)[order]
        self.indptr = np.zeros(len(vocab) + 1, dtype=np.int64)
        np.cumsum(np.bincount(terms, minlength=len(vocab)), out=self.indptr[1:])
        self.vocab = vocab
        self.lengths = np.array(lengths, dtype=np.int64)
        self.mean_idf = mean_idf_of(np.diff(self.indptr), len(docs))

    def nbytes(self) -> int:
        arrays = self.positions.nbytes + self.tf.nbytes + self.indptr.nbytes + self.lengths.nbytes
        strings = sum(sys.getsizeof(t) for t in self.vocab)
        return arrays + sys.getsizeof(self.vocab) + strings

    def search(self, terms: list[str]) -> list[int]:
        import numpy as np

        from wherein.ranking.bm25 import bm25_scores

        postings = {}
        hit = []
        for term in terms:
            i = self.vocab.get(term)
            if i is None:
                continue
            lo, hi = self.indptr[i], self.indptr[i + 1]
            postings[term] = (self.positions[lo:hi], self.tf[lo:hi])
            hit.append(self.positions[lo:hi])
        if not hit:
            return []
        scores = bm25_scores(terms, postings, self.lengths, self.mean_idf)
        return top_positions(scores, np.unique(np.concatenate(hit)))


# -- engine table -----------------------------------------------------------------------------


def build(engine: str, corpus: dict, where: Path) -> Path:
    if engine == "postings":
        return postings_build(corpus, where)
    if engine in FTS5_VARIANTS:
        return fts5_build(corpus, where, *FTS5_VARIANTS[engine])
    if engine == "tantivy":
        return tantivy_build(corpus, where)
    if engine == "bm25s":
        return bm25s_build(corpus, where)
    raise ValueError(engine)


def open_engine(engine: str, path: Path):
    if engine == "postings":
        return postings_open(path)
    if engine == "fts5_vocab":
        return fts5_vocab_open(path)
    if engine in FTS5_VARIANTS:
        return Fts5Searcher(path)
    if engine == "tantivy":
        return TantivySearcher(path)
    if engine == "bm25s":
        return Bm25sSearcher(path)
    raise ValueError(engine)


def update(engine: str, path: Path, corpus: dict, positions: list[int], where: Path) -> None:
    if engine == "postings":
        postings_update(path, corpus, positions)
    elif engine in FTS5_VARIANTS:
        fts5_update(path, corpus, positions)
    elif engine == "tantivy":
        tantivy_update(path, corpus, positions)
    elif engine == "bm25s":  # no incremental update: rebuild everything and save
        shutil.rmtree(path)
        bm25s_build(corpus, where)
    else:
        raise ValueError(engine)


# -- measurement ------------------------------------------------------------------------------


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def warm_latency(searcher, queries: list[list[str]], repeats: int) -> tuple[dict, list]:
    results = [searcher.search(q) for q in queries]  # warm-up, and the rankings compared
    times = []
    for _ in range(repeats):
        for q in queries:
            with Timer() as t:
                searcher.search(q)
            times.append(t.elapsed)
    return {
        "p50_ms": 1e3 * percentile(times, 0.5),
        "p95_ms": 1e3 * percentile(times, 0.95),
    }, results


def cold_open(engine: str, path: Path, query: list[str], runs: int) -> dict:
    samples = []
    for _ in range(runs):
        proc = subprocess.run(
            [
                sys.executable,
                __file__,
                "--driver",
                engine,
                "--path",
                str(path),
                "--query",
                " ".join(query),
            ],
            capture_output=True,
            text=True,
            check=True,
            cwd=Path(__file__).parent.parent,
        )
        samples.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    return {key: statistics.median(s[key] for s in samples) for key in samples[0]}


def driver(engine: str, path: Path, query: list[str]) -> int:
    """In a fresh process: import the engine, open the index, answer one query."""
    started = time.perf_counter()
    if engine == "tantivy":
        import tantivy  # noqa: F401
    elif engine == "bm25s":
        import bm25s  # noqa: F401
    elif engine in ("postings", "fts5_vocab"):
        import numpy  # noqa: F401

        import wherein.ranking.bm25  # noqa: F401
    imported = time.perf_counter()
    searcher = open_engine(engine, path)
    opened = time.perf_counter()
    searcher.search(query)
    done = time.perf_counter()
    print(
        json.dumps(
            {
                "import_ms": 1e3 * (imported - started),
                "open_ms": 1e3 * (opened - imported),
                "first_query_ms": 1e3 * (done - opened),
                "total_ms": 1e3 * (done - started),
            }
        )
    )
    return 0


def measure_engine(engine: str, corpus: dict, queries, oracle, args, scratch: Path) -> dict:
    update_positions = _update_positions(corpus, args.update_file)
    build_times = []
    for n in range(args.repeats):
        where = scratch / f"{engine}-{n}"
        where.mkdir()
        with Timer() as t:
            path = build(engine, corpus, where)
        build_times.append(t.elapsed)
        if n < args.repeats - 1:
            shutil.rmtree(where)
    out: dict = {"build_s": statistics.median(build_times), "build_runs_s": build_times}
    out["size_mb"] = (sqlite_size(path) if path.suffix == ".sqlite" else dir_size(path)) / 1e6
    if engine in ("fts5", "fts5_unicode61"):
        out["token_check"] = fts5_token_check(path, corpus)
    out["cold"] = cold_open(engine, path, queries[0], args.cold_runs)
    searcher = open_engine(engine, path)
    out["warm"], results = warm_latency(searcher, queries, args.query_repeats)
    del searcher
    out["agreement"] = agreement(results, oracle, ENGINE_K1[engine])
    if engine in ("fts5", "tantivy"):
        out["agreement_vs_k1_1.5"] = agreement(results, oracle, ORACLE_K1)
    update_times = []
    for _ in range(1 if engine == "bm25s" else args.update_repeats):
        with Timer() as t:
            update(engine, path, corpus, update_positions, path.parent)
        update_times.append(t.elapsed)
    out["update_s"] = statistics.median(update_times)
    out["update_runs_s"] = update_times
    if engine != "bm25s":  # rankings unchanged after replacing a file with itself
        out["size_after_updates_mb"] = (
            sqlite_size(path) if path.suffix == ".sqlite" else dir_size(path)
        ) / 1e6
    return out


def measure_resident(corpus: dict, queries, oracle, args) -> dict:
    times = []
    for _ in range(args.repeats):
        with Timer() as t:
            resident = Resident(corpus["docs"])
        times.append(t.elapsed)
    warm, results = warm_latency(resident, queries, args.query_repeats)
    return {
        "build_s": statistics.median(times),
        "build_runs_s": times,
        "memory_mb": resident.nbytes() / 1e6,
        "warm": warm,
        "agreement": agreement(results, oracle, ORACLE_K1),
    }


def _update_positions(corpus: dict, rel: str) -> list[int]:
    index = corpus["paths"].index(rel)
    return [p for p, f in enumerate(corpus["file_of"]) if f == index]


# -- report -----------------------------------------------------------------------------------


def report(results: dict, meta: dict) -> None:
    base = results.get("postings")
    print(
        f"corpus: {meta['chunks']} chunks in {meta['files']} files, {meta['queries']} queries "
        f"({meta['positive_idf_queries']} with every term of positive idf); update file "
        f"{meta['update_file']} ({meta['update_chunks']} chunks)"
    )
    header = (
        f"{'engine':<15}{'build s':>9}{'x base':>7}{'MB':>8}{'cold ms':>9}{'x base':>7}"
        f"{'p50 ms':>8}{'p95 ms':>8}{'x base':>7}{'update ms':>10}{'x base':>7}"
        f"{'top10':>7}{'top100':>7}{'exact':>7}{'k1':>5}"
    )
    print(header)

    def ratio(value, key):
        if base is None or key not in base:
            return "-"
        ref = base[key] if not isinstance(base[key], dict) else None
        return f"{value / ref:.2f}" if ref else "-"

    for engine, r in results.items():
        a = r["agreement"]
        cold = r.get("cold", {}).get("total_ms")
        size = r.get("size_mb", r.get("memory_mb"))
        update_ms = 1e3 * r["update_s"] if "update_s" in r else None
        base_cold = base["cold"]["total_ms"] if base else None
        base_p50 = base["warm"]["p50_ms"] if base else None
        cells = [
            f"{engine:<15}",
            f"{r['build_s']:>9.2f}",
            f"{ratio(r['build_s'], 'build_s'):>7}",
            f"{size:>8.1f}",
            f"{cold:>9.1f}" if cold is not None else f"{'-':>9}",
            f"{cold / base_cold:>7.2f}" if cold is not None and base_cold else f"{'-':>7}",
            f"{r['warm']['p50_ms']:>8.2f}",
            f"{r['warm']['p95_ms']:>8.2f}",
            f"{r['warm']['p50_ms'] / base_p50:>7.2f}" if base_p50 else f"{'-':>7}",
            f"{update_ms:>10.1f}" if update_ms is not None else f"{'-':>10}",
            f"{update_ms / (1e3 * base['update_s']):>7.2f}"
            if update_ms is not None and base
            else f"{'-':>7}",
            f"{a['overlap_top10']:>7.3f}",
            f"{a['overlap_top100']:>7.3f}",
            f"{a['exact_queries']:>3}/{a['positive_idf_queries']:<3}",
            f"{a['oracle_k1']:>5}",
        ]
        print("".join(cells))
    for engine, r in results.items():
        if "token_check" in r:
            print(f"{engine} tokens: {json.dumps(r['token_check'], ensure_ascii=False)}")
        if "agreement_vs_k1_1.5" in r:
            a = r["agreement_vs_k1_1.5"]
            print(
                f"{engine} vs BM25Okapi(k1=1.5): top10 {a['overlap_top10']:.3f} "
                f"top100 {a['overlap_top100']:.3f} exact {a['exact_queries']}/"
                f"{a['positive_idf_queries']}"
            )
        if "cold" in r:
            c = r["cold"]
            print(
                f"{engine} cold: import {c['import_ms']:.0f} ms, open {c['open_ms']:.1f} ms, "
                f"first query {c['first_query_ms']:.1f} ms"
            )


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--engines", default=",".join(ENGINES))
    parser.add_argument("--repeats", type=int, default=3, help="builds per engine (median)")
    parser.add_argument("--cold-runs", type=int, default=5, help="fresh processes per engine")
    parser.add_argument("--query-repeats", type=int, default=5)
    parser.add_argument("--update-repeats", type=int, default=5)
    parser.add_argument("--update-file", default=DEFAULT_UPDATE_FILE)
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--out", type=Path, help="write every figure as JSON here")
    parser.add_argument("--driver", help=argparse.SUPPRESS)
    parser.add_argument("--path", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--query", help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.driver:
        return driver(args.driver, args.path, args.query.split())
    from wherein.ranking.tokens import query_tokens

    corpus = load_corpus(args.cache)
    texts = query_texts()
    queries = [query_tokens(text) for text in texts]
    oracle = oracle_rankings(corpus, queries, args.cache)
    engines = [e for e in args.engines.split(",") if e]
    unknown = set(engines) - set(ENGINES)
    if unknown:
        raise SystemExit(f"unknown engines: {', '.join(sorted(unknown))}")
    results: dict = {}
    scratch = Path(tempfile.mkdtemp(prefix="lexbench-"))
    try:
        for engine in engines:
            if engine == "resident":
                results[engine] = measure_resident(corpus, queries, oracle, args)
            else:
                results[engine] = measure_engine(engine, corpus, queries, oracle, args, scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    meta = {
        "chunks": len(corpus["docs"]),
        "files": len(corpus["paths"]),
        "queries": len(queries),
        "positive_idf_queries": sum(oracle["positive_idf"]),
        "update_file": args.update_file,
        "update_chunks": len(_update_positions(corpus, args.update_file)),
        "sqlite": sqlite3.sqlite_version,
        "python": sys.version.split()[0],
        "cpus": os.cpu_count(),
    }
    report(results, meta)
    if args.out:
        args.out.write_text(
            json.dumps({"meta": meta, "queries": texts, "results": results}, indent=2, default=str)
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
