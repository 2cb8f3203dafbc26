"""What the grep-style modes cost on a large index: the SQL behind them, then whole searches.

On the standard library (a copy, as scripts/bench_speed.py --stdlib makes) indexed with the
static embedder:

- exact mode's two ways to find chunks holding a literal: `instr` over every chunk's text, and
  FTS5 first (the chunks holding the literal's bounded words) then `instr`; LIKE beside them
  for scale (it folds ASCII case, so exact mode cannot use it);
- BM25 restricted to a list of ids: `rowid IN (...)`, which FTS5 turns into one full-text
  query per id, against `+rowid IN (...)`, one query whose rows are checked against the list;
  the same for the folder scope `--path` has today (`Store.lexical_order`);
- whole searches in one process (index warm, nothing changed on disk): plain, filtered,
  exact, regex and related, best and median of `--runs`.

    python scripts/bench_grep.py --runs 5 --out /tmp/grep.json
    python scripts/bench_grep.py --corpus /tmp/grep-bench/corpus/python3.11 --home /tmp/h
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

from measure import copy_stdlib

LITERALS = ("def __init__(self", "raise ValueError(", "os.path.join(", "getaddrinfo", "=>")
QUERY = "retry after a failure"


def _time(work, runs: int) -> dict:
    walls = []
    for _ in range(runs):
        started = time.perf_counter()
        value = work()
        walls.append(time.perf_counter() - started)
    return {
        "best_ms": round(min(walls) * 1000, 1),
        "median_ms": round(statistics.median(walls) * 1000, 1),
        "result": value,
    }


def _rows(conn, sql: str, params: tuple) -> int:
    return len(conn.execute(sql, params).fetchall())


def _sql_figures(store, runs: int) -> dict:
    from wherein.narrowing import lexical_within
    from wherein.ranking.tokens import query_tokens
    from wherein.text_match import bounded_words

    conn = store.conn
    out: dict = {"chunks": conn.execute("SELECT count(*) FROM chunks").fetchone()[0]}
    out["text_mb"] = round(
        conn.execute("SELECT sum(length(text)) FROM chunks").fetchone()[0] / 1e6, 1
    )
    for literal in LITERALS:
        row: dict = {"bounded_words": bounded_words(literal)}
        scan = "SELECT id FROM chunks WHERE instr(text, ?) > 0"
        row["instr"] = _time(partial(_rows, conn, scan, (literal,)), runs)
        like = "SELECT id FROM chunks WHERE text LIKE '%' || ? || '%'"
        row["like"] = _time(partial(_rows, conn, like, (literal,)), runs)
        if row["bounded_words"]:
            match = " AND ".join(f'"{w}"' for w in row["bounded_words"])
            both = (
                "SELECT c.id FROM chunks c WHERE c.id IN "
                "(SELECT rowid FROM lexical WHERE lexical MATCH ?) AND instr(c.text, ?) > 0"
            )
            row["fts_then_instr"] = _time(partial(_rows, conn, both, (match, literal)), runs)
        out[literal] = row
    terms = query_tokens(QUERY)
    match = " OR ".join(f'"{t}"' for t in terms)
    ids, _ = store.chunk_table()
    some = ids[::2]
    listed = json.dumps(some.tolist())
    plain = (
        "SELECT rowid FROM lexical WHERE lexical MATCH ? AND rowid IN "
        "(SELECT value FROM json_each(?)) ORDER BY bm25(lexical), rowid LIMIT 100"
    )
    out["bm25_in_ids"] = {
        "ids": len(some),
        "rowid_in": _time(partial(_rows, conn, plain, (match, listed)), runs),
        "plus_rowid_in": _time(lambda: len(lexical_within(store, terms, 100, some)), runs),
    }
    folder = "test"
    out["bm25_folder_scope"] = {
        "folder": folder,
        "store_lexical_order": _time(lambda: len(store.lexical_order(terms, 100, [folder])), runs),
    }
    return out


def _search_figures(workspace: Path, runs: int) -> dict:
    from wherein.config import load_settings
    from wherein.file_filter import file_filter
    from wherein.search import run_related, run_search
    from wherein.text_match import exact_match, regex_match

    settings = load_settings(workspace)
    cases = {
        "plain": lambda: run_search(QUERY, workspace=workspace, settings=settings),
        "--exclude test/": lambda: run_search(
            QUERY, workspace=workspace, settings=settings, files=file_filter((), (), ["test/"])
        ),
        "--lang text": lambda: run_search(
            QUERY, workspace=workspace, settings=settings, files=file_filter(["text"])
        ),
        "--glob '*.py' --exclude test_*": lambda: run_search(
            QUERY,
            workspace=workspace,
            settings=settings,
            files=file_filter((), ["*.py"], ["test_*"]),
        ),
        "-F getaddrinfo": lambda: run_search(
            "", workspace=workspace, settings=settings, match=exact_match("getaddrinfo")
        ),
        "-F 'raise ValueError('": lambda: run_search(
            "", workspace=workspace, settings=settings, match=exact_match("raise ValueError(")
        ),
        "query -F self.sock": lambda: run_search(
            "socket connection",
            workspace=workspace,
            settings=settings,
            match=exact_match("self.sock"),
        ),
        "--regex 'def \\w+_with\\w*\\('": lambda: run_search(
            "", workspace=workspace, settings=settings, match=regex_match(r"def \w+_with\w*\(")
        ),
        "related asyncio/base_events.py:400": lambda: run_related(
            "asyncio/base_events.py:400", workspace=workspace, settings=settings
        ),
    }
    cases["plain"]()  # the first search of a process loads the model and maps the vectors
    out = {}
    for name, work in cases.items():
        figure = _time(lambda w=work: len(w().hits), runs)
        out[name] = figure
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, help="a folder to index (default: a stdlib copy)")
    parser.add_argument("--home", type=Path, help="WHEREIN_HOME (default: a temporary one)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--out", type=Path, help="also write the figures as JSON")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-grep-") as scratch:
        corpus = args.corpus or copy_stdlib(Path(scratch) / "corpus")
        os.environ["WHEREIN_HOME"] = str(args.home or Path(scratch) / "home")
        os.environ["WHEREIN_EMBEDDING_PROVIDER"] = "static"
        from wherein.cli import main as wherein

        workspace = corpus.resolve()
        if wherein(["index", "--workspace", str(workspace)]) != 0:
            return 1
        from wherein.index.location import INDEX_FILE_NAME, index_dir
        from wherein.index.store import open_store

        store = open_store(index_dir(workspace) / INDEX_FILE_NAME)
        try:
            figures = {"corpus": str(workspace), "sql": _sql_figures(store, args.runs)}
        finally:
            store.close()
        figures["searches"] = _search_figures(workspace, args.runs)
        figures["loadavg"] = os.getloadavg()
    text = json.dumps(figures, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
