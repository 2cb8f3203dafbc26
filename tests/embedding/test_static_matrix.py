"""The fast model's float32 copy: made by the first widening, mapped after, made again if bad."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from wherein.embedding.minilm import _package_dir
from wherein.embedding.static import TENSOR_KEY, StaticEmbedder, _weights_file
from wherein.embedding.static_matrix import CHECKED_ROWS, float32_path

TEXTS = [f"def handle_{i}(request):\n    return route_{i % 7}(request.path)\n" for i in range(80)]


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    """A cache of this test's own, so the run's shared one neither helps nor is damaged."""
    folder = tmp_path / "xdg-cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(folder))
    return folder


def _copy() -> Path:
    return float32_path(_weights_file(_package_dir("wordllama")), TENSOR_KEY)


def _indexing(model: StaticEmbedder) -> np.ndarray:
    """Embed as an indexing worker does: the first batch widens the matrix."""
    model.expect_indexing()
    return model.embed(TEXTS)


def _without_copy() -> np.ndarray:
    """The vectors of a model that pools from the float16 rows (no copy, no widening)."""
    model = StaticEmbedder()
    return np.stack([model.embed([text])[0] for text in TEXTS])


def test_the_first_widening_writes_the_copy_and_later_models_map_it(cache):
    expected = _without_copy()
    assert not _copy().exists()  # a search embedding one text at a time writes nothing
    first = _indexing(StaticEmbedder())
    made = _copy().stat()
    later = StaticEmbedder()
    assert later._wide is not None and not later._wide.flags.writeable  # mapped, read-only
    assert np.array_equal(first, expected)
    assert np.array_equal(_indexing(later), expected)
    assert np.array_equal(np.stack([later.embed([t])[0] for t in TEXTS]), expected)
    assert (_copy().stat().st_ino, _copy().stat().st_mtime_ns) == (made.st_ino, made.st_mtime_ns)


def _truncated(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[:-4096])


def _row_changed(path: Path) -> None:
    """A row inside the first block the open compares: the header's 128 bytes, then row 0."""
    with path.open("r+b") as handle:
        handle.seek(128 + 4 * 7)
        handle.write(np.float32(12.5).tobytes())


def _other_shape(path: Path) -> None:
    np.save(path, np.zeros((CHECKED_ROWS, 256), dtype=np.float32))


def _garbage(path: Path) -> None:
    path.write_bytes(os.urandom(4096))


@pytest.mark.parametrize("damage", [_truncated, _row_changed, _other_shape, _garbage])
def test_a_damaged_copy_is_not_mapped_and_the_next_widening_makes_it_again(cache, damage):
    expected = _without_copy()
    _indexing(StaticEmbedder())
    damage(_copy())
    model = StaticEmbedder()
    assert model._wide is None  # not mapped: the float16 rows, as without a copy
    assert np.array_equal(_indexing(model), expected)
    again = StaticEmbedder()
    assert again._wide is not None and not again._wide.flags.writeable
    assert np.array_equal(_indexing(again), expected)


def test_a_link_at_the_copys_name_is_neither_followed_nor_written_through(cache, tmp_path):
    _indexing(StaticEmbedder())
    good = tmp_path / "elsewhere.npy"
    _copy().rename(good)
    before = good.read_bytes()
    _copy().symlink_to(good)  # a copy that would check out, reached through a link
    model = StaticEmbedder()
    assert model._wide is None
    _indexing(model)
    assert not _copy().is_symlink() and _copy().is_file()
    assert good.read_bytes() == before
    assert [p for p in cache.rglob("*.broken-*") if p.is_symlink()]  # moved aside, kept


def test_a_fifo_at_the_copys_name_neither_hangs_nor_is_written_through(cache):
    _copy().parent.mkdir(parents=True)
    os.mkfifo(_copy())
    model = StaticEmbedder()  # would wait for ever if the FIFO were opened blocking
    assert model._wide is None
    expected = _without_copy()
    assert np.array_equal(_indexing(model), expected)
    assert _copy().is_file()


def test_a_cache_that_cannot_be_written_costs_only_speed(tmp_path, monkeypatch):
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the cache folder would go")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    expected = _without_copy()
    model = StaticEmbedder()
    assert np.array_equal(_indexing(model), expected)
    assert model._wide is not None and model._wide.flags.writeable  # widened in memory
    assert blocked.read_text() == "a file where the cache folder would go"
