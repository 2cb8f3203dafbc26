"""A model file is hashed once per version; any change, or a doubtful stamp, hashes it again."""

from __future__ import annotations

import hashlib
import json
import os
import stat

import pytest

from wherein.embedding import minilm, stamp
from wherein.errors import EmbedderError


@pytest.fixture
def hashes(monkeypatch):
    """The paths hashed, in order."""
    seen = []
    real = stamp.sha256_file

    def counting(path):
        seen.append(path)
        return real(path)

    monkeypatch.setattr(stamp, "sha256_file", counting)
    return seen


@pytest.fixture
def model(tmp_path):
    path = tmp_path / "model.bin"
    path.write_bytes(b"weights " * 1000)
    return path, hashlib.sha256(path.read_bytes()).hexdigest()


def _stamp_file():
    return stamp._stamp_path()


def test_a_verified_file_is_not_hashed_again_while_its_stat_is_unchanged(model, hashes):
    path, expected = model
    assert minilm._verified(path, expected) == path
    assert minilm._verified(path, expected) == path
    assert hashes == [path.resolve()]
    entry = json.loads(_stamp_file().read_text())["files"][str(path.resolve())]
    assert entry["sha256"] == expected and entry["size"] == path.stat().st_size


def test_a_modified_file_of_the_same_size_is_hashed_again_and_refused(model, hashes):
    path, expected = model
    minilm._verified(path, expected)
    before = path.stat()
    path.write_bytes(b"WEIGHTS " * 1000)  # same size, other bytes
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000_000))
    with pytest.raises(EmbedderError, match="has sha256"):
        minilm._verified(path, expected)
    assert len(hashes) == 2
    with pytest.raises(EmbedderError, match="has sha256"):  # a refusal records nothing
        minilm._verified(path, expected)
    assert len(hashes) == 3


def test_a_file_changed_behind_a_restored_mtime_is_hashed_again(model, hashes):
    path, expected = model
    minilm._verified(path, expected)
    before = path.stat()
    path.write_bytes(b"WEIGHTS " * 1000)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # ctime still moves
    with pytest.raises(EmbedderError, match="has sha256"):
        minilm._verified(path, expected)
    assert len(hashes) == 2


def test_another_expected_hash_is_not_vouched_for_by_the_stamp(model, hashes):
    path, expected = model
    minilm._verified(path, expected)
    with pytest.raises(EmbedderError, match="has sha256"):
        minilm._verified(path, "0" * 64)
    assert len(hashes) == 2


@pytest.mark.parametrize(
    "content",
    [
        "{not json",
        "[]",
        '{"format": "something-else", "files": {}}',
        '{"format": "wherein-verified-models-1", "files": []}',
        "\udcff",
    ],
)
def test_a_malformed_or_foreign_stamp_means_hashing_again(model, hashes, content):
    path, expected = model
    minilm._verified(path, expected)
    _stamp_file().write_bytes(content.encode("utf-8", "surrogateescape"))
    assert minilm._verified(path, expected) == path
    assert len(hashes) == 2
    assert minilm._verified(path, expected) == path  # and the stamp is good again
    assert len(hashes) == 2


@pytest.mark.parametrize("kind", ["folder", "link"])
def test_a_folder_or_link_at_the_stamp_is_moved_aside_for_a_new_stamp(model, tmp_path, kind):
    path, expected = model
    stamp_file = _stamp_file()
    stamp_file.parent.mkdir(parents=True)
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes")
    if kind == "folder":
        stamp_file.mkdir()
        (stamp_file / "keep.txt").write_text("mine")
    else:
        stamp_file.symlink_to(notes)
    assert minilm._verified(path, expected) == path
    assert stat.S_ISREG(os.lstat(stamp_file).st_mode)
    entry = json.loads(stamp_file.read_text())["files"][str(path.resolve())]
    assert entry["sha256"] == expected  # the next start is vouched for again
    (aside,) = stamp_file.parent.glob("verified.json.broken-*")
    if kind == "folder":
        assert (aside / "keep.txt").read_text() == "mine"
    else:
        assert os.readlink(aside) == str(notes) and notes.read_text() == "my notes"


def test_a_forged_entry_for_another_file_vouches_for_nothing(model, hashes, tmp_path):
    path, expected = model
    other = tmp_path / "other.bin"
    other.write_bytes(b"weights " * 1000)
    minilm._verified(other, expected)
    data = json.loads(_stamp_file().read_text())
    data["files"][str(path.resolve())] = data["files"].pop(str(other.resolve()))
    _stamp_file().write_text(json.dumps(data))
    assert minilm._verified(path, expected) == path
    assert len(hashes) == 2


def test_an_unwritable_home_still_verifies_by_hashing(model, hashes, monkeypatch, tmp_path):
    path, expected = model
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    monkeypatch.setenv("WHEREIN_HOME", str(blocker))
    assert minilm._verified(path, expected) == path
    assert minilm._verified(path, expected) == path
    assert len(hashes) == 2


def test_a_missing_file_is_an_embedder_error(tmp_path):
    with pytest.raises(EmbedderError, match="Cannot read the model file"):
        minilm._verified(tmp_path / "absent.onnx", "0" * 64)
