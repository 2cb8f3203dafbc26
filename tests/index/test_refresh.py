"""Incremental refresh: what is re-read, re-chunked and re-embedded, and what survives a race."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from tests.helpers import HashingEmbedder, write_tree
from wherein import source_files as workspace_module
from wherein.config import load_settings
from wherein.embedding.base import EmbedderIdentity
from wherein.index import prepare as prepare_module
from wherein.index import refresh as refresh_module
from wherein.index.location import INDEX_FILE_NAME, index_dir
from wherein.index.refresh import embed_pending, refresh_index
from wherein.index.store import Store, open_store
from wherein.search import run_search
from wherein.workspace import Root

LIMIT = 1_048_576
ROUTER = "def add_route(path, handler):\n    routes[path] = handler\n"
RETRY = "def retry_call(call):\n    return call()\n"


class CountingEmbedder(HashingEmbedder):
    """HashingEmbedder that remembers every text it was asked to embed."""

    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []

    def embed(self, texts):
        self.texts.extend(texts)
        return super().embed(texts)


class OtherEmbedder(HashingEmbedder):
    """A different vector space: same texts, another identity and width."""

    identity = EmbedderIdentity("test-other", "bag-of-tokens-32", 32)

    def embed(self, texts):
        return super().embed(texts)[:, :32] + 0.001


@pytest.fixture
def repo(tmp_path) -> Path:
    return write_tree(
        tmp_path / "repo",
        {
            "app/router.py": ROUTER,
            "app/retry.py": RETRY,
            "README.md": "# Demo\n\nRoutes and retries.\n",
        },
    )


@pytest.fixture
def store(repo) -> Store:
    opened = open_store(index_dir(repo) / INDEX_FILE_NAME)
    yield opened
    opened.close()


@pytest.fixture
def reads(monkeypatch) -> list[str]:
    """Every file the refresh opens, by display path."""
    seen: list[str] = []
    real = prepare_module.read_source

    def counting(entry, limit):
        seen.append(entry.display_path)
        return real(entry, limit)

    monkeypatch.setattr(prepare_module, "read_source", counting)
    return seen


def refresh(store: Store, repo: Path):
    return refresh_index(store, [Root(repo)], max_file_bytes=LIMIT)


def chunk_rows(store: Store) -> list[tuple]:
    return store.conn.execute(
        "SELECT c.id, f.path, c.text_hash FROM chunks c JOIN files f ON f.id = c.file_id "
        "ORDER BY c.id"
    ).fetchall()


def test_empty_repository_indexes_and_searches_to_nothing(tmp_path):
    root = tmp_path / "empty"
    root.mkdir()
    result = run_search(
        "anything at all",
        workspace=root,
        settings=load_settings(root),
        fast_embedder=HashingEmbedder(),
    )
    assert result.hits == [] and result.pending_chunks == 0


def test_unchanged_file_is_not_read_again(store, repo, reads):
    refresh(store, repo)
    assert sorted(reads) == ["README.md", "app/retry.py", "app/router.py"]
    reads.clear()
    report = refresh(store, repo)
    assert reads == [] and report.files_changed == 0
    (repo / "app/retry.py").write_text(RETRY + "# more\n")
    refresh(store, repo)
    assert reads == ["app/retry.py"]


def test_same_content_with_a_new_mtime_is_not_rechunked(store, repo, reads, monkeypatch):
    refresh(store, repo)
    before = chunk_rows(store)
    chunked = []
    real_chunk = prepare_module.chunk_source
    monkeypatch.setattr(
        prepare_module,
        "chunk_source",
        lambda rel, text: chunked.append(rel) or real_chunk(rel, text),
    )
    path = repo / "app/router.py"
    info = path.stat()
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns + 5_000_000_000))
    reads.clear()
    refresh(store, repo)
    assert reads == ["app/router.py"] and chunked == []
    assert chunk_rows(store) == before
    # The new mtime was recorded, so the next refresh takes the fast path again.
    reads.clear()
    refresh(store, repo)
    assert reads == []


def test_a_chunk_whose_text_is_unchanged_keeps_its_vector(store, repo):
    embedder = CountingEmbedder()
    refresh(store, repo)
    embed_pending(store, embedder, budget_s=None)
    vectors_before = dict(store.conn.execute("SELECT text_hash, vector FROM vectors"))
    embedder.texts.clear()

    (repo / "app/router.py").write_text(
        ROUTER + "\n\ndef drop_route(path):\n    del routes[path]\n"
    )
    refresh(store, repo)
    assert embed_pending(store, embedder, budget_s=None) == 1
    assert len(embedder.texts) == 1 and "drop_route" in embedder.texts[0]
    vectors_after = dict(store.conn.execute("SELECT text_hash, vector FROM vectors"))
    for text_hash, vector in vectors_before.items():
        assert vectors_after[text_hash] == vector


def test_deleted_files_drop_out(store, repo):
    refresh(store, repo)
    (repo / "app/retry.py").unlink()
    report = refresh(store, repo)
    assert report.files_deleted == 1
    assert "app/retry.py" not in store.file_states()
    assert all(path != "app/retry.py" for _, path, _ in chunk_rows(store))


def test_files_deleted_or_rewritten_between_walk_and_read(store, repo, reads, monkeypatch):
    refresh(store, repo)
    # Changed since the last refresh, so the refresh will read them after the walk.
    write_tree(
        repo,
        {
            "app/new.py": "def brand_new(): pass\n",
            "app/retry.py": RETRY + "# edited\n",
            "app/router.py": ROUTER + "# e\n",
        },
    )
    real_walk = refresh_module.walk_root

    def racing_walk(root, max_file_bytes, report):
        yield from real_walk(root, max_file_bytes, report)
        # The walk has listed and stat'ed every file; now the tree changes under the refresh.
        (repo / "app/retry.py").unlink()  # indexed before
        (repo / "app/new.py").unlink()  # never indexed
        (repo / "README.md").unlink()  # unchanged: the walk's stat stands for it this time
        (repo / "app/router.py").write_text("def rewritten_router():\n    return 'a new body'\n")

    monkeypatch.setattr(refresh_module, "walk_root", racing_walk)
    report = refresh(store, repo)
    assert report.unreadable == []
    assert set(store.file_states()) == {"README.md", "app/router.py"}
    texts = [row[0] for row in store.conn.execute("SELECT text FROM chunks")]
    assert any("rewritten_router" in text for text in texts)
    assert not any("add_route" in text or "brand_new" in text for text in texts)

    # What was stored describes the file as read, so the next refresh trusts it, and the
    # file deleted behind the fast path drops out now.
    monkeypatch.setattr(refresh_module, "walk_root", real_walk)
    reads.clear()
    report = refresh(store, repo)
    assert reads == []
    assert report.files_deleted == 1
    assert set(store.file_states()) == {"app/router.py"}


class _OsDuringRead:
    """The `os` module as `read_source` sees it, with a hook run when reading `path` hits EOF."""

    def __init__(self, path: Path, on_eof) -> None:
        self.inode = path.stat().st_ino
        self.on_eof = on_eof
        self.fired = False

    def __getattr__(self, name):
        return getattr(os, name)

    def read(self, fd, n):
        block = os.read(fd, n)
        if not block and not self.fired and os.fstat(fd).st_ino == self.inode:
            self.fired = True
            self.on_eof()
        return block


def test_a_file_that_grows_while_it_is_hashed_is_read_again(store, repo, reads, monkeypatch):
    path = repo / "app/retry.py"
    grow = _OsDuringRead(path, lambda: path.write_text(RETRY + "\ndef appended_late(): pass\n"))
    monkeypatch.setattr(workspace_module, "os", grow)
    refresh(store, repo)
    assert grow.fired
    monkeypatch.setattr(workspace_module, "os", os)
    reads.clear()
    refresh(store, repo)
    assert reads == ["app/retry.py"]
    texts = [row[0] for row in store.conn.execute("SELECT text FROM chunks")]
    assert any("appended_late" in text for text in texts)


def test_a_same_size_rewrite_while_hashed_is_read_again(store, repo, reads, monkeypatch):
    """Size equal, mtime moved: only the changed-while-reading stamp catches it."""
    path = repo / "app/retry.py"
    swapped = RETRY.replace("retry_call", "swap_calls")
    assert len(swapped) == len(RETRY)

    def rewrite() -> None:
        mtime = path.stat().st_mtime_ns
        with open(path, "r+") as handle:
            handle.write(swapped)
        os.utime(path, ns=(mtime, mtime + 3_000_000_000))

    swap = _OsDuringRead(path, rewrite)
    monkeypatch.setattr(workspace_module, "os", swap)
    refresh(store, repo)
    assert swap.fired
    monkeypatch.setattr(workspace_module, "os", os)
    reads.clear()
    refresh(store, repo)
    assert "app/retry.py" in reads
    texts = [row[0] for row in store.conn.execute("SELECT text FROM chunks")]
    assert any("swap_calls" in text for text in texts)


def test_embedder_change_discards_vectors_with_a_message(store, repo):
    refresh(store, repo)
    embed_pending(store, HashingEmbedder(), budget_s=None)
    count = store.counts()["vectors"]
    assert count > 0
    other = OtherEmbedder()
    embed_pending(store, other, budget_s=None)
    assert store.notice is not None
    assert HashingEmbedder.identity.key() in store.notice
    assert other.identity.key() in store.notice
    assert f"discarded {count} vectors" in store.notice
    widths = {len(row[0]) for row in store.conn.execute("SELECT vector FROM vectors")}
    assert widths == {32 * np.dtype(np.float32).itemsize}
    assert store.get_meta("embedder") == other.identity.key()


def test_search_with_a_new_embedder_warns_once_and_ranks_with_it(repo):
    settings = load_settings(repo)
    run_search("route handler", workspace=repo, settings=settings, fast_embedder=HashingEmbedder())
    result = run_search(
        "route handler", workspace=repo, settings=settings, fast_embedder=OtherEmbedder()
    )
    changed = [w for w in result.warnings if "embedder changed" in w]
    assert len(changed) == 1
    assert result.hits[0].similarity is not None


def test_an_error_mid_refresh_keeps_what_was_committed_and_nothing_after(tmp_path, monkeypatch):
    """A Ctrl-C mid-refresh leaves the files of the last commit, and none prepared after."""
    monkeypatch.setattr(refresh_module, "COMMIT_EVERY_FILES", 4)
    monkeypatch.setattr(refresh_module, "COMMIT_MIN_FILES", 4)
    files = {
        f"app/f{n:02d}.py": f"def func_{n}(value):\n    return value + {n}\n" for n in range(9)
    }
    repo = write_tree(tmp_path / "repo", files)
    store = open_store(index_dir(repo) / INDEX_FILE_NAME)

    def stop_at_the_seventh(stage: str, done: int, total: int) -> None:
        if done == 7:  # files 5-7 are prepared, not committed (the commit comes at 8)
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        refresh_index(
            store, [Root(repo)], max_file_bytes=LIMIT, workers=0, progress=stop_at_the_seventh
        )
    assert not store.conn.in_transaction
    kept = [path for (path,) in store.conn.execute("SELECT path FROM files ORDER BY path")]
    assert kept == [f"app/f{n:02d}.py" for n in range(4)]
    assert len(chunk_rows(store)) == 4
    report = refresh(store, repo)  # the next refresh writes the rest
    assert report.files_changed == 5
    assert len(chunk_rows(store)) == 9
    store.close()


def test_a_batch_below_the_commit_size_is_committed_an_eighth_at_a_time(tmp_path, monkeypatch):
    """40 changed files, 200 a commit at most: each eighth (5 files) is committed as it is
    prepared, so little is left to write once the last file is ready."""
    monkeypatch.setattr(refresh_module, "COMMIT_MIN_FILES", 2)
    files = {f"app/f{n:02d}.py": f"def func_{n}(value):\n    return {n}\n" for n in range(40)}
    repo = write_tree(tmp_path / "repo", files)
    store = open_store(index_dir(repo) / INDEX_FILE_NAME)

    def stop_at_the_twelfth(stage: str, done: int, total: int) -> None:
        if done == 12:  # commits came at 5 and 10
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        refresh_index(
            store, [Root(repo)], max_file_bytes=LIMIT, workers=0, progress=stop_at_the_twelfth
        )
    kept = [path for (path,) in store.conn.execute("SELECT path FROM files ORDER BY path")]
    assert kept == [f"app/f{n:02d}.py" for n in range(10)]
    store.close()
