"""The index file: damaged, foreign, newer, full, or opened by several processes at once."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from tests.helpers import HashingEmbedder, write_tree
from wherein.config import load_settings
from wherein.errors import IndexBusy, IndexError_, IndexUnwritable
from wherein.index.location import INDEX_FILE_NAME, index_dir
from wherein.index.migrations import MIGRATIONS
from wherein.index.refresh import RefreshReport, embed_pending, refresh_index
from wherein.index.store import Store, open_store
from wherein.index.tiers import FAST
from wherein.search import run_search
from wherein.storage import database as store_module
from wherein.workspace import Root

LIMIT = 1_048_576
PAGE = 4096


def snapshot(store: Store) -> dict[str, list]:
    """Everything a search reads, in a comparable form."""
    queries = {
        "files": "SELECT path, size, mtime_ns, sha256 FROM files ORDER BY path",
        "chunks": "SELECT file_id, start_line, text_hash, text FROM chunks ORDER BY id",
        "lexical": "SELECT rowid, terms FROM lexical ORDER BY rowid",
        "vectors": "SELECT text_hash, vector FROM vectors ORDER BY 1",
    }
    return {name: store.conn.execute(sql).fetchall() for name, sql in queries.items()}


@pytest.fixture
def repo(tmp_path) -> Path:
    files = {f"pkg/mod{i}.py": f"def handler_{i}(request):\n    return {i}\n" for i in range(40)}
    return write_tree(tmp_path / "repo", files)


@pytest.fixture
def index_path(tmp_path) -> Path:
    return tmp_path / "home" / "index.db"


def build(index_path: Path, repo: Path) -> Store:
    store = open_store(index_path)
    refresh_index(store, [Root(repo)], max_file_bytes=LIMIT)
    embed_pending(store, HashingEmbedder(), budget_s=None)
    return store


def _back_to_schema(store: Store, version: int) -> None:
    """Mark the index as schema `version` wrote it (before 8, without the column schema 8
    added), and close it: the next open migrates it."""
    if version < 8:
        store.conn.execute("ALTER TABLE chunks DROP COLUMN prototypes")
    store.conn.execute(f"PRAGMA user_version = {version}")
    store.close()


def _refreshed_from_schema_7(
    index_path: Path, root: Path, files: dict[str, str], stale: str | None = None
) -> tuple[Store, RefreshReport]:
    """`files` indexed, put back to schema 7 (after the `stale` statement, what the chunker
    then wrote), opened again (which migrates it) and refreshed."""
    repo = write_tree(root, files)
    store = build(index_path, repo)
    if stale is not None:
        store.conn.execute(stale)
    _back_to_schema(store, 7)
    store = open_store(index_path)
    return store, refresh_index(store, [Root(repo)], max_file_bytes=LIMIT)


def test_new_index_is_created_with_its_directory(index_path):
    store = open_store(index_path)
    assert store.notice is None
    assert store.conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
    store.close()


def test_garbage_at_the_index_path_is_moved_aside_and_rebuilt(index_path, repo):
    index_path.parent.mkdir(parents=True)
    garbage = b"this is not a database\n" * 500
    index_path.write_bytes(garbage)
    store = open_store(index_path)
    assert store.notice is not None and str(index_path) in store.notice
    aside = Path(store.notice.split("moved it to ")[1].split(" and started")[0])
    assert aside.read_bytes() == garbage  # nothing lost: the old file is kept as it was
    refresh_index(store, [Root(repo)], max_file_bytes=LIMIT)
    assert store.counts()["files"] == 40


def test_a_foreign_sqlite_file_is_moved_aside_untouched(index_path):
    index_path.parent.mkdir(parents=True)
    foreign = sqlite3.connect(index_path)
    foreign.execute("CREATE TABLE notes (body TEXT)")
    foreign.execute("INSERT INTO notes VALUES ('keep me')")
    foreign.commit()
    foreign.close()
    before = index_path.read_bytes()
    store = open_store(index_path)
    assert "moved it to" in store.notice
    (aside,) = index_path.parent.glob("index.db.broken-*")
    assert aside.read_bytes() == before
    assert sqlite3.connect(aside).execute("SELECT body FROM notes").fetchall() == [("keep me",)]
    assert store.counts() == {"files": 0, "chunks": 0, "vectors": 0, "fast_vectors": 0}


def test_damaged_pages_are_detected_and_the_index_rebuilt(index_path, repo):
    build(index_path, repo).close()
    data = bytearray(index_path.read_bytes())
    assert len(data) > 8 * PAGE
    # Leave the header page intact so the file still looks like a wherein index.
    data[3 * PAGE : 6 * PAGE] = b"\x5a" * (3 * PAGE)
    index_path.write_bytes(bytes(data))
    store = open_store(index_path, verify=True)
    assert store.notice is not None and "integrity check failed" in store.notice
    assert "\n" not in store.notice
    refresh_index(store, [Root(repo)], max_file_bytes=LIMIT)
    assert store.counts()["files"] == 40


def test_two_broken_files_in_one_second_are_both_kept(index_path):
    index_path.parent.mkdir(parents=True)
    for body in (b"first broken file" * 200, b"second broken file" * 200):
        index_path.write_bytes(body)
        open_store(index_path).close()
    kept = sorted(p.read_bytes()[:6] for p in index_path.parent.glob("index.db.broken-*"))
    assert kept == [b"first ", b"second"]


def test_a_schema_from_a_newer_version_is_refused_and_left_alone(index_path, repo):
    build(index_path, repo).close()
    conn = sqlite3.connect(index_path)
    conn.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 1}")
    conn.close()
    before = index_path.read_bytes()
    with pytest.raises(IndexError_) as caught:
        open_store(index_path)
    message = str(caught.value)
    assert str(index_path) in message and "newer wherein" in message and "Upgrade" in message
    assert index_path.read_bytes() == before
    assert not list(index_path.parent.glob("*.broken-*"))


def test_disk_full_during_a_refresh_keeps_the_previous_state(index_path, repo):
    store = build(index_path, repo)
    before = snapshot(store)
    # Cap the file at its current size: the next write that needs a page fails with
    # SQLITE_FULL, as on a full disk (sqlite.org/pragma.html#pragma_max_page_count).
    (pages,) = store.conn.execute("PRAGMA page_count").fetchone()
    store.conn.execute(f"PRAGMA max_page_count = {pages}")
    for i in range(40):
        (repo / f"pkg/mod{i}.py").write_text(f"def grown_{i}(r):\n    return '{'x' * 400}'\n")
    with pytest.raises(IndexUnwritable) as caught:
        refresh_index(store, [Root(repo)], max_file_bytes=LIMIT)
    message = str(caught.value)
    assert str(index_path) in message and "disk is full" in message
    assert "Free some disk space" in message
    assert not store.conn.in_transaction
    assert snapshot(store) == before
    store.close()

    # Space is back: the same index opens clean and takes the change.
    store = open_store(index_path)
    assert store.notice is None
    assert snapshot(store) == before
    report = refresh_index(store, [Root(repo)], max_file_bytes=LIMIT)
    assert report.files_changed == 40
    assert "grown_7" in store.conn.execute("SELECT group_concat(text) FROM chunks").fetchone()[0]


def test_an_error_inside_a_transaction_rolls_it_back_and_propagates(index_path):
    store = open_store(index_path)
    with pytest.raises(ZeroDivisionError), store.transaction() as conn:
        store.set_meta(conn, "half", "written")
        raise ZeroDivisionError
    assert store.get_meta("half") is None
    assert not store.conn.in_transaction


def test_many_openers_of_a_fresh_index_all_get_the_same_one(tmp_path):
    """A search beside `wherein index` on a new workspace must not move the new index aside."""
    openers = 6
    for attempt in range(10):
        path = tmp_path / f"round{attempt}" / "index.db"
        path.parent.mkdir()
        barrier = threading.Barrier(openers)
        notices: list[str | None] = []
        errors: list[BaseException] = []

        def open_one(path=path, barrier=barrier, notices=notices, errors=errors) -> None:
            barrier.wait()
            try:
                store = open_store(path)
            except BaseException as err:  # collected and asserted on below
                errors.append(err)
                return
            notices.append(store.notice)
            store.close()

        threads = [threading.Thread(target=open_one) for _ in range(openers)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert errors == []
        assert notices == [None] * openers
        assert [p.name for p in path.parent.iterdir() if "broken" in p.name] == []


def test_a_locked_index_is_reported_busy_not_moved_aside(index_path, monkeypatch):
    monkeypatch.setattr(store_module, "BUSY_TIMEOUT_S", 0.2)
    index_path.parent.mkdir(parents=True)
    holder = sqlite3.connect(index_path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(IndexBusy, match="locked by another process"):
            open_store(index_path)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert [p.name for p in index_path.parent.iterdir()] == ["index.db"]


def test_a_search_that_finds_a_broken_index_says_so_once(tmp_path):
    root = write_tree(tmp_path / "repo", {"app.py": "def zebra_crossing():\n    return 1\n"})
    path = index_dir(root) / INDEX_FILE_NAME
    path.parent.mkdir(parents=True)
    path.write_bytes(b"not sqlite at all" * 300)
    result = run_search(
        "zebra_crossing",
        workspace=root,
        settings=load_settings(root),
        fast_embedder=HashingEmbedder(),
    )
    assert [w for w in result.warnings if "moved it to" in w] == [result.warnings[0]]
    assert result.hits[0].path == "app.py"


def test_pending_counts_match_a_plain_count_in_every_state(index_path, repo):
    """Not started, part done, done: the counted (files, chunks) are the plain ones."""
    store = open_store(index_path)
    refresh_index(store, [Root(repo)], max_file_bytes=LIMIT)

    def plain() -> tuple[int, int]:
        sql = "SELECT count(DISTINCT file_id), count(*) FROM chunks WHERE has_vector = 0"
        return tuple(store.conn.execute(sql).fetchone())

    assert store.pending_count() == plain() == (40, 40)
    embed_pending(store, HashingEmbedder(), budget_s=None, batch=15)
    assert store.pending_count() == plain() == (0, 0)
    with store.transaction() as conn:
        conn.execute("UPDATE chunks SET has_vector = 0 WHERE id % 3 = 0")
    assert store.pending_count() == plain() == (13, 13)
    assert store.chunk_count() == 40 and store.has_vectors() and not store.has_vectors(FAST)
    store.close()


def test_an_index_of_the_previous_schema_keeps_its_vectors_in_the_new_tables(index_path, repo):
    store = build(index_path, repo)
    before = snapshot(store)
    fast_rows = store.conn.execute("SELECT text_hash, vector FROM fast_vectors").fetchall()
    store.close()
    # Put the vector tables back as schema 5 wrote them: WITHOUT ROWID, keyed by hash.
    conn = sqlite3.connect(index_path, isolation_level=None)
    for table in ("vectors", "fast_vectors"):
        rows = conn.execute(f"SELECT text_hash, vector FROM {table}").fetchall()
        conn.execute(f"DROP TABLE {table}")
        columns = "text_hash TEXT PRIMARY KEY, vector BLOB NOT NULL"
        conn.execute(f"CREATE TABLE {table} ({columns}) WITHOUT ROWID")
        conn.executemany(f"INSERT INTO {table} VALUES (?, ?)", rows)
    conn.execute("ALTER TABLE chunks DROP COLUMN prototypes")  # added by schema 8
    conn.execute("PRAGMA user_version = 5")
    conn.close()

    store = open_store(index_path, verify=True)
    assert store.conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
    after = snapshot(store)
    assert after.pop("files") != before["files"]  # m007 marked the Python files changed
    assert after == {k: v for k, v in before.items() if k != "files"} and before["vectors"]
    refresh_index(store, [Root(repo)], max_file_bytes=LIMIT)
    after = snapshot(store)
    assert after["files"] == before["files"] and after["vectors"] == before["vectors"]
    assert sorted(store.conn.execute("SELECT text_hash, vector FROM fast_vectors")) == sorted(
        fast_rows
    )
    for table in ("vectors", "fast_vectors"):
        sql = store.conn.execute(
            "SELECT sql FROM sqlite_master WHERE name = ?", (table,)
        ).fetchone()[0]
        assert "WITHOUT ROWID" not in sql and "UNIQUE" in sql
    ids, matrix = store.vectors()
    assert len(ids) == len(before["chunks"]) and matrix.shape[0] == len(ids)


def test_an_index_of_schema_6_chunks_its_code_and_scripts_again(index_path, tmp_path, monkeypatch):
    files = {
        "gfx.h": "namespace gfx {\nclass Widget {\n public:\n  void draw();\n};\n}\n",
        "gfx.cpp": "void gfx::Widget::draw() {}\n",
        "bin/deploy": "#!/bin/sh\nship() {\n  echo shipped\n}\n",
        "main.py": "def main():\n    pass\n",
        "notes.txt": "Ship on Fridays.\n",
        "Widget.m": "#import <Cocoa/Cocoa.h>\n@implementation Widget\n- (void)draw {}\n@end\n",
        "shapes.dart": "class Circle {\n  void draw() {}\n}\n",
        "completions/gzip": "# -*- shell-script -*-\n_gzip() {\n  :\n}\n",
        "tool.conf": "deploy() {\n  :\n}\n# vim: ft=sh\n",
        "config.ru": "def app\n  1\nend\n",
        "README.md": "# Shapes\n",
        "pubspec.lock": "packages:\n  http:\n    version: 1.2.0\n",
        "lib/user.g.dart": "// GENERATED CODE - DO NOT MODIFY BY HAND\npart of 'user.dart';\n",
    }
    repo = write_tree(tmp_path / "repo", files)
    # Before schema 7 neither the lockfile's name nor the Dart generator's mark was known.
    with monkeypatch.context() as before:  # undoes this patch alone, not the conftest's
        before.setattr("wherein.index.prepare.skip_reason", lambda path, text: None)
        store = build(index_path, repo)
    skipped = {"pubspec.lock": "text", "lib/user.g.dart": "dart"}
    languages = {
        "gfx.h": "cpp",
        "gfx.cpp": "cpp",
        "bin/deploy": "bash",
        "main.py": "python",
        "notes.txt": "text",
        "Widget.m": "objc",
        "shapes.dart": "dart",
        "completions/gzip": "bash",
        "tool.conf": "bash",
        "config.ru": "ruby",
        "README.md": "markdown",
    }
    assert dict(store.conn.execute("SELECT path, language FROM files")) == languages | skipped
    # As the chunker before schema 7 left them: the header read as C, the scripts as text,
    # under stats that hold.
    store.conn.execute("UPDATE files SET language = 'c' WHERE path = 'gfx.h'")
    for path in ("bin/deploy", "Widget.m", "completions/gzip", "tool.conf", "config.ru"):
        store.conn.execute("UPDATE files SET language = 'text' WHERE path = ?", (path,))
    store.conn.execute("UPDATE chunks SET symbols = '[]'")
    _back_to_schema(store, 6)

    store = open_store(index_path)
    report = refresh_index(store, [Root(repo)], max_file_bytes=LIMIT)
    # Every file but Markdown: any plain-text file may name its language in a mode line.
    assert report.files_changed == len(files) - 1
    assert dict(store.conn.execute("SELECT path, language FROM files")) == languages | {
        path: "" for path in skipped
    }
    sql = "SELECT DISTINCT f.path FROM chunks c JOIN files f ON f.id = c.file_id"
    assert {path for (path,) in store.conn.execute(sql)} == set(languages)
    symbols = {s for (s,) in store.conn.execute("SELECT symbols FROM chunks")}
    restored = {'["gfx.Widget", "gfx.Widget.draw"]', '["Widget.draw"]', '["ship"]'}
    restored |= {'["Circle", "Circle.draw"]', '["_gzip"]', '["deploy"]', '["app"]'}
    assert restored | {'["Widget", "Widget.draw"]', "[]"} <= symbols


def test_an_index_of_schema_7_chunks_every_file_but_markdown_again(index_path, tmp_path):
    files = {"main.py": "def main():\n    pass\n", "notes.txt": "Ship.\n", "README.md": "# Hi\n"}
    store = build(index_path, write_tree(tmp_path / "repo", files))
    _back_to_schema(store, 7)

    store = open_store(index_path)
    changed = {p for (p,) in store.conn.execute("SELECT path FROM files WHERE sha256 = ''")}
    store.close()
    assert changed == {"main.py", "notes.txt"}


def test_an_index_of_schema_7_chunks_its_namespaced_languages_again(index_path, tmp_path):
    files = {
        "Mailer.php": "<?php\nnamespace Acme;\nclass Mailer {}\n",
        "mailer.rb": "module Acme\n  class Mailer; end\nend\n",
        "mailer.py": "class Mailer:\n    pass\n",
    }
    # As the chunker before schema 8 left them: each namespace a name, under stats that hold.
    stale = """UPDATE chunks SET symbols = '["Acme", "Mailer"]'"""
    store, report = _refreshed_from_schema_7(index_path, tmp_path / "repo", files, stale)
    assert report.files_changed == 3  # every file but markdown
    symbols = sorted(
        store.conn.execute(
            "SELECT f.path, c.symbols FROM chunks c JOIN files f ON f.id = c.file_id"
        )
    )
    assert symbols == [
        ("Mailer.php", '["Mailer"]'),
        ("mailer.py", '["Mailer"]'),
        ("mailer.rb", '["Acme.Mailer"]'),
    ]


def test_an_index_of_schema_7_learns_which_names_its_c_family_chunks_declare_without_a_body(
    index_path, tmp_path
):
    files = {
        "ring.h": "int ring_push(int v);\n",
        "ring.c": "int ring_push(int v) { return v; }\n",
        "ring.py": "def ring_push(v):\n    return v\n",
    }
    store, _ = _refreshed_from_schema_7(index_path, tmp_path / "repo", files)
    assert store.pending_count() == (0, 0)  # the same text keeps its vectors
    rows = store.chunk_rows([cid for (cid,) in store.conn.execute("SELECT id FROM chunks")])
    assert sorted((row.path, row.prototypes) for row in rows.values()) == [
        ("ring.c", ()),
        ("ring.h", ("ring_push",)),
        ("ring.py", ()),
    ]


def test_an_index_of_schema_8_chunks_documented_and_newly_named_code_again(index_path, tmp_path):
    files = {
        "Lexer.java": "interface Lexer {\n    Token next();\n}\n",
        "slug.nim": "proc slugify*(s: string): string =\n  result = s\n",
        "ops.ts": "/** Runs the op. */\nexport function run(): void {}\n",
        "README.md": "# Lexer\n",
    }
    repo = write_tree(tmp_path / "repo", files)
    store = build(index_path, repo)
    # As the chunker before schema 9 left them: no prototypes, Nim plain text, and the doc
    # comment a part of its own, under stats that hold.
    store.conn.execute("UPDATE chunks SET symbols = '[]', prototypes = '[]'")
    store.conn.execute("UPDATE files SET language = 'text' WHERE path = 'slug.nim'")
    _back_to_schema(store, 8)

    store = open_store(index_path)
    report = refresh_index(store, [Root(repo)], max_file_bytes=LIMIT)
    assert report.files_changed == 3  # every file but markdown
    rows = store.chunk_rows([cid for (cid,) in store.conn.execute("SELECT id FROM chunks")])
    named = sorted((row.path, row.symbols, row.prototypes, row.start_line) for row in rows.values())
    assert named == [
        ("Lexer.java", ("Lexer", "Lexer.next"), ("Lexer.next",), 1),
        ("README.md", (), (), 1),
        ("ops.ts", ("run",), (), 1),
        ("slug.nim", ("slugify",), (), 1),
    ]
    assert dict(store.conn.execute("SELECT path, language FROM files"))["slug.nim"] == "nim"
