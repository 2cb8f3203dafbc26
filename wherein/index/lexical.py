"""The lexical engine: SQLite FTS5 over each chunk's identifier-aware terms.

Terms are split by `wherein.ranking.tokens` before they reach SQLite and stored
space-joined, so FTS5 only has to cut at spaces. The `ascii` tokenizer with `_` as a
token character keeps every one of our tokens whole: they are `\\w` runs, already
lower-cased, and it passes non-ASCII characters through untouched. `unicode61` does
not: it folds `µ` into `μ` and splits a few others (19 of the standard library's
217,588 terms were lost; scripts/bench_lexical.py counts them). FTS5 lives in the
index file itself, so it shares the write transactions of the files and chunks it
describes: a crash leaves both at the same committed state, and a damaged engine is
a damaged index file.

Scores are FTS5's built-in `bm25()`: Okapi BM25 with k1 = 1.2 and b = 0.75 (the
values SQLite fixes), idf = ln((N - n + 0.5) / (n + 0.5)) floored at 1e-6 for a
term in more than half the chunks (sqlite.org/fts5.html, "The bm25() function";
the formula is Robertson and Zaragoza 2009, eq. 3.2). tests/index/test_lexical.py
checks it against `rank_bm25.BM25Okapi` with the same k1 and b.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence

__all__ = [
    "CREATE_LEXICAL_TABLE",
    "check_lexical",
    "delete_chunk_terms",
    "lexical_order",
    "matches_any",
    "write_chunk_terms",
]

CREATE_LEXICAL_TABLE = (
    "CREATE VIRTUAL TABLE lexical USING fts5(terms, tokenize = \"ascii tokenchars '_'\")"
)
SQL_VARIABLE_BATCH = 500


def write_chunk_terms(conn: sqlite3.Connection, rows: Iterable[tuple[int, Sequence[str]]]) -> None:
    """Store (chunk id, terms with repeats) rows; the chunk id is the FTS5 rowid."""
    conn.executemany(
        "INSERT INTO lexical(rowid, terms) VALUES (?, ?)",
        ((chunk_id, " ".join(terms)) for chunk_id, terms in rows),
    )


def delete_chunk_terms(conn: sqlite3.Connection, file_ids: Sequence[int]) -> None:
    """Drop the terms of every chunk of these files (call before the chunks are deleted)."""
    for start in range(0, len(file_ids), SQL_VARIABLE_BATCH):
        batch = list(file_ids[start : start + SQL_VARIABLE_BATCH])
        marks = ",".join("?" * len(batch))
        conn.execute(
            "DELETE FROM lexical WHERE rowid IN "
            f"(SELECT id FROM chunks WHERE file_id IN ({marks}))",
            batch,
        )


def _match_expression(terms: Sequence[str]) -> str:
    """An OR of the terms, each quoted so FTS5 reads none of them as an operator."""
    return " OR ".join('"' + term.replace('"', '""') + '"' for term in terms)


def lexical_order(
    conn: sqlite3.Connection,
    terms: Sequence[str],
    limit: int,
    scope_sql: str | None = None,
    scope_params: Sequence[str] = (),
) -> list[tuple[int, float]]:
    """(chunk id, BM25 score) of chunks holding any of `terms`, best first.

    Membership, not a positive score, decides, as before: in a collection of one or two
    chunks every idf is at its floor and the only match must still be found.

    Args:
        scope_sql: a `SELECT id FROM chunks ...` restricting the chunks ranked; the
            collection statistics stay those of the whole index.
    """
    if not terms:
        return []
    sql = "SELECT rowid, bm25(lexical) FROM lexical WHERE lexical MATCH ?"
    params: list = [_match_expression(terms)]
    if scope_sql is not None:
        # `+rowid`: a plain `rowid IN (...)` makes FTS5 run the MATCH once per id in scope
        # (2.3-3.0 s for `--path test` on the stdlib); the unary plus keeps it a filter on
        # the one MATCH (16 ms there), with the same rows.
        sql += f" AND +rowid IN ({scope_sql})"
        params.extend(scope_params)
    # bm25() is negative, better matches more so (FTS5's convention for ORDER BY rank).
    sql += " ORDER BY bm25(lexical), rowid LIMIT ?"
    params.append(limit)
    return [(int(rowid), -float(score)) for rowid, score in conn.execute(sql, params)]


def matches_any(
    conn: sqlite3.Connection, terms: Sequence[str], scope_sql: str | None = None, scope_params=()
) -> bool:
    """Whether any chunk (in scope, when given) holds one of `terms`."""
    return bool(lexical_order(conn, terms, 1, scope_sql, scope_params))


def check_lexical(conn: sqlite3.Connection) -> bool:
    """Check FTS5's own structures (SQLite's quick_check does not look inside them).

    A damaged index is rebuilt from the terms FTS5 stores beside it; returns True then.

    Raises:
        sqlite3.DatabaseError: the stored terms are damaged too (the caller moves the
            file aside and starts again).
    """
    try:
        conn.execute("INSERT INTO lexical(lexical) VALUES ('integrity-check')")
        return False
    except sqlite3.DatabaseError:
        pass
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute("INSERT INTO lexical(lexical) VALUES ('rebuild')")
        conn.execute("INSERT INTO lexical(lexical) VALUES ('integrity-check')")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return True
