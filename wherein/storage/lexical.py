"""The lexical engine: SQLite FTS5 over the identifier-aware terms of each row of a corpus.

One engine for both corpora: a code index keeps a chunk's terms under the chunk's id, the
history index a message's under the message's id; the table is named `lexical` in each file.

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
    "delete_terms",
    "joined_terms",
    "lexical_order",
    "matches_any",
    "matching_rows",
    "write_terms",
]

CREATE_LEXICAL_TABLE = (
    "CREATE VIRTUAL TABLE lexical USING fts5(terms, tokenize = \"ascii tokenchars '_'\")"
)


def joined_terms(terms: Sequence[str]) -> str:
    """A row's terms (with repeats) as the engine stores them: cut at spaces only.

    Indexing joins them in its worker processes, where one string pickles back to the
    writer in half the time of a tuple of a few hundred words.
    """
    return " ".join(terms)


def write_terms(conn: sqlite3.Connection, rows: Iterable[tuple[int, str]]) -> None:
    """Store (row id, `joined_terms`) rows; the corpus row's id is the FTS5 rowid."""
    conn.executemany("INSERT INTO lexical(rowid, terms) VALUES (?, ?)", rows)


def delete_terms(conn: sqlite3.Connection, ids_sql: str, params: Sequence[object]) -> None:
    """Drop the terms of the rows `ids_sql` selects (call before those rows are deleted).

    The caller binds at most `storage.database.SQL_VARIABLE_BATCH` values in `params`.
    """
    conn.execute(f"DELETE FROM lexical WHERE rowid IN ({ids_sql})", params)


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
    """(row id, BM25 score) of rows holding any of `terms`, best first.

    Membership, not a positive score, decides, as before: in a collection of one or two
    chunks every idf is at its floor and the only match must still be found.

    Args:
        scope_sql: a `SELECT id FROM ...` restricting the rows ranked; the collection
            statistics stay those of the whole corpus.
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
    """Whether any row (in scope, when given) holds one of `terms`."""
    return bool(lexical_order(conn, terms, 1, scope_sql, scope_params))


def matching_rows(conn: sqlite3.Connection, terms: Sequence[str]) -> set[int]:
    """Ids of every row holding one of `terms`, unranked."""
    if not terms:
        return set()
    sql = "SELECT rowid FROM lexical WHERE lexical MATCH ?"
    return {int(rowid) for (rowid,) in conn.execute(sql, (_match_expression(terms),))}


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
