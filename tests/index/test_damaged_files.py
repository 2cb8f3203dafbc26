"""Every file under the data home is checked as it is opened, through the real commands.

A damaged cache is rebuilt from the index; a database that cannot be opened, or anything but
a regular file where one of ours belongs (a folder, a FIFO, a link), is moved aside, kept,
and said in one message naming it. The answer afterwards is the one an undamaged index gives.
A FIFO would hang a reader that opens it as a file, so those runs are child processes: a hang
fails the test at the child's timeout instead of wedging the suite.
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from tests.helpers import DEMO_REPO, write_tree
from tests.index.processes import assert_one_sentence, run_wherein
from wherein.cli import main
from wherein.index.location import INDEX_FILE_NAME, LOCK_FILE_NAME, data_home, index_dir
from wherein.index.store import open_store

REPO = DEMO_REPO
QUERY = "call again after a failure"


@pytest.fixture(autouse=True)
def static(monkeypatch) -> None:
    """The in-process static model: the files around the vectors are the point, not the model."""
    monkeypatch.setenv("WHEREIN_EMBEDDING_PROVIDER", "static")


@pytest.fixture
def repo(tmp_path) -> Path:
    return write_tree(tmp_path / "repo", REPO).resolve()


def cli(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def search(capsys, repo: Path) -> dict:
    code, out, err = cli(capsys, "search", QUERY, "--json", "--workspace", str(repo))
    assert code == 0, err
    return json.loads(out)


def answers(payload: dict) -> list[tuple]:
    """What a search found, and how near each chunk was by meaning."""
    return [(r["path"], r["start_line"], r["similarity"]) for r in payload["results"]]


def recalled(result: dict) -> list[tuple]:
    """What a recall search found, as `answers` gives it: the similarity is read off each
    result's title, which shows it to two places."""
    found = []
    for (path, start, end), title in zip(result["results"], _titles(result["text"]), strict=True):
        assert title.startswith(f"{path}:{start}-{end}"), title
        similarity = re.search(r"  similarity (-?\d\.\d\d)", title)
        found.append((path, start, similarity and float(similarity.group(1))))
    return found


def _titles(text: str) -> list[str]:
    return [line.split(". ", 1)[1] for line in text.splitlines() if re.match(r"\d+\. \S", line)]


def rounded(found: list[tuple]) -> list[tuple]:
    return [(path, start, None if sim is None else round(sim, 2)) for path, start, sim in found]


def indexed(capsys, repo: Path) -> list[tuple]:
    """Index `repo`, search it once (which writes the vector cache); the undamaged answer."""
    code, _, err = cli(capsys, "index", "--workspace", str(repo))
    assert code == 0, err
    found = answers(search(capsys, repo))
    assert found[0][0] == "app/retry.py" and found[0][2] is not None
    return found


def cache_files(repo: Path) -> dict[str, Path]:
    files = {p.name.split(".")[1]: p for p in index_dir(repo).glob("vectors-full-*.npy")}
    assert set(files) == {"ids", "matrix"}, files
    return files


def assert_cache_is(files: dict[str, Path], arrays: dict[str, np.ndarray]) -> None:
    """The cache on disk is regular files holding exactly `arrays` (dtype and shape included)."""
    for name, path in files.items():
        assert stat.S_ISREG(os.lstat(path).st_mode), path
        again = np.load(path, allow_pickle=False)
        assert again.dtype == arrays[name].dtype and again.shape == arrays[name].shape
        np.testing.assert_array_equal(again, arrays[name])


def asides(path: Path) -> list[Path]:
    """What was moved aside from `path` (a database's moved `-wal` and `-shm` not counted)."""
    found = path.parent.glob(f"{path.name}.broken-*")
    return sorted(p for p in found if not p.name.endswith(("-wal", "-shm")))


# -- what is planted where one of our files belongs ----------------------------------------


def plant_folder(path: Path, tmp_path: Path) -> Callable[[Path], None]:
    _remove(path)
    path.mkdir()
    (path / "keep.txt").write_text("mine")
    return lambda aside: _assert_text(aside / "keep.txt", "mine")


def plant_fifo(path: Path, tmp_path: Path) -> Callable[[Path], None]:
    _remove(path)
    os.mkfifo(path)
    return lambda aside: _assert_kind(aside, stat.S_ISFIFO)


def plant_link(path: Path, tmp_path: Path) -> Callable[[Path], None]:
    """A link to a file of the user's: it must neither be written nor read as ours."""
    target = tmp_path / "notes.txt"
    target.write_text("my notes")
    _remove(path)
    path.symlink_to(target)

    def check(aside: Path) -> None:
        assert os.readlink(aside) == str(target)
        _assert_text(target, "my notes")

    return check


PLANTS = {"folder": plant_folder, "fifo": plant_fifo, "link": plant_link}
SAID = {"folder": "a folder", "fifo": "a FIFO", "link": "a symbolic link"}


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        path.rmdir()
    else:
        path.unlink(missing_ok=True)


def _assert_text(path: Path, text: str) -> None:
    assert path.read_text() == text


def _assert_kind(path: Path, is_kind) -> None:
    assert is_kind(os.lstat(path).st_mode), path


def the_aside(path: Path) -> Path:
    (aside,) = asides(path)
    return aside


# -- the vector caches -----------------------------------------------------------------------


def _truncate(path: Path, tmp_path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _garbage(path: Path, tmp_path: Path) -> None:
    path.write_bytes(bytes(range(256)) * 8)


def _empty(path: Path, tmp_path: Path) -> None:
    path.write_bytes(b"")


def _narrower(path: Path, tmp_path: Path) -> None:
    """One column or one row short: a header of the wrong shape, consistent with its bytes."""
    array = np.load(path)
    np.save(path, array[:, :-1] if array.ndim == 2 else array[:-1])


def _other_dtype(path: Path, tmp_path: Path) -> None:
    array = np.load(path)
    np.save(path, array.astype(np.float64 if array.dtype == np.float32 else np.int32))


def _reordered(path: Path, tmp_path: Path) -> None:
    np.save(path, np.load(path)[::-1].copy())


def _link_to_a_lookalike(path: Path, tmp_path: Path) -> None:
    """A link to a valid array of the right shape and dtype that is not the index's."""
    array = np.load(path)
    target = tmp_path / "lookalike.npy"
    np.save(target, np.zeros_like(array) if array.dtype == np.float32 else array[::-1].copy())
    path.unlink()
    path.symlink_to(target)


def _folder(path: Path, tmp_path: Path) -> None:
    plant_folder(path, tmp_path)


CACHE_DAMAGE = {
    "truncated": _truncate,
    "garbage": _garbage,
    "empty": _empty,
    "wrong_shape": _narrower,
    "wrong_dtype": _other_dtype,
    "reordered": _reordered,
    "link": _link_to_a_lookalike,
    "folder": _folder,
}


@pytest.mark.parametrize("damage", sorted(CACHE_DAMAGE))
@pytest.mark.parametrize("which", ["ids", "matrix"])
def test_a_damaged_vector_cache_is_rebuilt_and_the_search_answers_as_before(
    capsys, repo, tmp_path, which, damage
):
    before = indexed(capsys, repo)
    files = cache_files(repo)
    arrays = {name: np.load(path) for name, path in files.items()}
    CACHE_DAMAGE[damage](files[which], tmp_path)
    payload = search(capsys, repo)
    assert answers(payload) == before
    assert_cache_is(files, arrays)
    moved = [w for w in payload["warnings"] if "moved it to" in w]
    if damage in ("link", "folder"):  # not a file of ours: kept beside, and said
        aside = the_aside(files[which])
        (warning,) = moved
        assert str(files[which]) in warning and str(aside) in warning
        if damage == "folder":
            _assert_text(aside / "keep.txt", "mine")
        else:
            assert os.readlink(aside) == str(tmp_path / "lookalike.npy")
    else:  # our own file, damaged: rebuilt without a word
        assert moved == [] and asides(files[which]) == []


def _rows_overwritten(path: Path, value: float) -> None:
    """Every row of a cached matrix but the first and the last (which are checked against
    the index when it is opened) overwritten with `value`, header and size untouched."""
    matrix = np.load(path, mmap_mode="r+")
    matrix[1:-1] = value
    matrix.flush()
    del matrix


@pytest.mark.parametrize("value", [np.nan, 3.0e20, -3.0e20, 7.0])
def test_rows_damaged_inside_a_vector_cache_are_caught_moved_aside_and_read_again(
    capsys, repo, value
):
    before = indexed(capsys, repo)
    files = cache_files(repo)
    arrays = {name: np.load(path) for name, path in files.items()}
    _rows_overwritten(files["matrix"], value)
    payload = search(capsys, repo)
    assert answers(payload) == before
    (said,) = [w for w in payload["warnings"] if "not unit vectors" in w]
    assert files["matrix"].name in said and "read again from the index" in said
    assert len(asides(files["matrix"])) == 1
    assert_cache_is(files, arrays)  # written again from the index
    again = search(capsys, repo)
    assert answers(again) == before and not again["warnings"]


def test_rows_damaged_inside_a_vector_cache_are_caught_by_a_resident_search(capsys, repo, tmp_path):
    """`recall` reads the cache once and keeps it: the damage is caught as a fresh search
    catches it, and the session's next search answers from what was read again."""
    from tests.plugin.conftest import run_session

    before = indexed(capsys, repo)
    files = cache_files(repo)
    _rows_overwritten(files["matrix"], np.nan)

    async def steps(rc):
        return [await rc.recall(query=QUERY), await rc.recall(query=QUERY)]

    first, second = run_session(repo, steps)
    assert rounded(recalled(first)) == rounded(before) == rounded(recalled(second))
    assert any("not unit vectors" in w for w in first["warnings"])
    assert not any("not unit vectors" in w for w in second.get("warnings", []))


def test_wherein_index_mends_rows_damaged_inside_a_vector_cache(capsys, repo):
    indexed(capsys, repo)
    files = cache_files(repo)
    arrays = {name: np.load(path) for name, path in files.items()}
    _rows_overwritten(files["matrix"], 0.5)  # sums that stay small: only a full check sees it
    code, _, err = cli(capsys, "index", "--workspace", str(repo))
    assert code == 0
    assert "not unit vectors" in err and len(asides(files["matrix"])) == 1
    assert_cache_is(files, arrays)


def test_wherein_index_mends_rows_zeroed_inside_a_vector_cache(capsys, repo):
    indexed(capsys, repo)
    files = cache_files(repo)
    arrays = {name: np.load(path) for name, path in files.items()}
    _rows_overwritten(files["matrix"], 0.0)  # a zeroed block: rows no check of sums sees
    code, _, err = cli(capsys, "index", "--workspace", str(repo))
    assert code == 0
    assert "zeros the index does not hold" in err and len(asides(files["matrix"])) == 1
    assert_cache_is(files, arrays)


def _rows_rewritten(repo: Path, damage: Callable[[bytes], bytes], limit: int = -1) -> None:
    """The full tier's vectors inside the index (the first `limit`, -1 for all) replaced by
    what `damage` makes of each."""
    store = open_store(index_dir(repo) / INDEX_FILE_NAME)
    try:
        select = "SELECT rowid, vector FROM vectors LIMIT ?"
        rows = store.conn.execute(select, (limit,)).fetchall()
        with store.transaction() as conn:
            for rowid, blob in rows:
                conn.execute(
                    "UPDATE vectors SET vector = ? WHERE rowid = ?", (damage(bytes(blob)), rowid)
                )
    finally:
        store.close()


def test_wherein_index_embeds_again_the_vectors_damaged_inside_the_index(capsys, repo):
    before = indexed(capsys, repo)
    # The first half of each of three vectors zeroed in place.
    _rows_rewritten(repo, lambda blob: bytes(len(blob) // 2) + blob[len(blob) // 2 :], limit=3)
    code, out, err = cli(capsys, "index", "--workspace", str(repo))
    assert code == 0, err
    assert "3 of the full tier's vectors" in err and "3 chunks embedded" in out
    assert answers(search(capsys, repo)) == before
    code, out, err = cli(capsys, "index", "--workspace", str(repo))
    assert "damaged" not in err and "0 chunks embedded" in out


def test_a_search_ranks_without_vectors_damaged_inside_the_index_and_index_mends_them(capsys, repo):
    # The search stopped with exit 1 telling the user to forget the index and build it all
    # again, where `wherein index` re-embeds the damaged rows in a moment.
    before = indexed(capsys, repo)
    _rows_rewritten(repo, lambda blob: np.full(len(blob) // 4, np.nan, np.float32).tobytes())
    for path in cache_files(repo).values():
        path.unlink()
    payload = search(capsys, repo)
    assert payload["results"]
    (said,) = [w for w in payload["warnings"] if "ranked without them" in w]
    assert "full tier's vectors in the index" in said and "wherein index" in said
    code, _, err = cli(capsys, "index", "--workspace", str(repo))
    assert code == 0, err
    again = search(capsys, repo)
    assert answers(again) == before and not again["warnings"]


def test_wherein_index_mends_a_vector_cache_of_the_wrong_shape(capsys, repo, tmp_path):
    indexed(capsys, repo)
    files = cache_files(repo)
    arrays = {name: np.load(path) for name, path in files.items()}
    _narrower(files["matrix"], tmp_path)
    code, out, err = cli(capsys, "index", "--workspace", str(repo))
    assert code == 0, err
    assert out.startswith("3 files seen, 0 changed")
    assert_cache_is(files, arrays)


@pytest.mark.parametrize("which", ["ids", "matrix"])
def test_a_fifo_in_place_of_a_vector_cache_is_moved_aside_not_waited_on(
    capsys, repo, tmp_path, which
):
    before = indexed(capsys, repo)
    files = cache_files(repo)
    arrays = {name: np.load(path) for name, path in files.items()}
    plant_fifo(files[which], tmp_path)
    done = run_wherein("search", QUERY, "--json", "--workspace", str(repo))
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    assert answers(payload) == before
    assert_cache_is(files, arrays)
    aside = the_aside(files[which])
    _assert_kind(aside, stat.S_ISFIFO)
    assert any(f"{files[which]} was a FIFO" in w and str(aside) in w for w in payload["warnings"])


# -- the index database and its -wal and -shm ------------------------------------------------


@pytest.mark.parametrize("suffix", ["", "-wal", "-shm"])
@pytest.mark.parametrize("kind", sorted(PLANTS))
def test_a_folder_fifo_or_link_in_place_of_the_index_is_moved_aside_and_rebuilt(
    capsys, repo, tmp_path, kind, suffix
):
    before = indexed(capsys, repo)
    path = index_dir(repo) / INDEX_FILE_NAME
    planted = Path(f"{path}{suffix}")
    check = PLANTS[kind](planted, tmp_path)

    code, out, _ = cli(capsys, "status", "--workspace", str(repo))
    assert code == 1
    assert f"unreadable: {planted.name} is {SAID[kind]}, not a regular file" in out
    assert "run 'wherein index'" in out
    assert not asides(path)  # status looks, touches nothing

    code, out, err = cli(capsys, "index", "--workspace", str(repo))
    assert code == 0, err
    assert out.startswith("3 files seen, 3 changed")
    aside = the_aside(path)
    (line,) = err.splitlines()
    assert line == (
        f"wherein: The index at {path} was unreadable ({planted.name} is {SAID[kind]}, not a "
        f"regular file); moved it to {aside} and started a new one."
    )
    check(Path(f"{aside}{suffix}"))
    assert answers(search(capsys, repo)) == before
    code, out, _ = cli(capsys, "status", "--workspace", str(repo))
    assert code == 0 and "files      3 indexed" in out


def test_a_link_to_another_workspaces_index_is_never_written_through(capsys, repo, tmp_path):
    other = write_tree(tmp_path / "other", {"lib/cookies.py": "def parse_cookie(h):\n    pass\n"})
    assert cli(capsys, "index", "--workspace", str(other))[0] == 0
    theirs = index_dir(other) / INDEX_FILE_NAME
    their_bytes = theirs.read_bytes()
    ours = index_dir(repo) / INDEX_FILE_NAME
    ours.parent.mkdir(parents=True)
    ours.symlink_to(theirs)
    code, out, err = cli(capsys, "index", "--workspace", str(repo))
    assert code == 0, err
    assert out.startswith("3 files seen, 3 changed")
    assert f"{ours.name} is a symbolic link" in err and "moved it to" in err
    assert theirs.read_bytes() == their_bytes
    assert answers(search(capsys, repo))[0][0] == "app/retry.py"


# -- the lock file ---------------------------------------------------------------------------


@pytest.mark.parametrize("kind", sorted(PLANTS))
def test_a_folder_fifo_or_link_in_place_of_the_lock_file_is_moved_aside(
    capsys, repo, tmp_path, kind
):
    before = indexed(capsys, repo)
    lock = index_dir(repo) / LOCK_FILE_NAME
    if kind == "link":
        target = tmp_path / "elsewhere.lock"  # missing: following the link would create it
        lock.unlink()
        lock.symlink_to(target)

        def check(aside: Path) -> None:
            assert os.readlink(aside) == str(target) and not os.path.lexists(target)

    else:
        check = PLANTS[kind](lock, tmp_path)
    payload = search(capsys, repo)
    assert answers(payload) == before
    aside = the_aside(lock)
    (warning,) = [w for w in payload["warnings"] if "moved it to" in w]
    assert warning == (
        f"The lock file {lock} was {SAID[kind]}, not a regular file; moved it to {aside} and "
        "made a new one."
    )
    check(aside)
    assert stat.S_ISREG(os.lstat(lock).st_mode)
    code, _, err = cli(capsys, "index", "--workspace", str(repo))
    assert (code, err) == (0, "")


# -- the walk stamp --------------------------------------------------------------------------

STAMP_DAMAGE = {
    "list": b"[1, 2, 3]",
    "garbage": b"\x00\xffnot json at all",
    "empty": b"",
}


def stamp_path(repo: Path) -> Path:
    return index_dir(repo) / "walk-stamp.json"


def assert_fresh_stamp(repo: Path) -> None:
    """The stamp is a regular file again, and describes the tree as it is now."""
    path = stamp_path(repo)
    assert stat.S_ISREG(os.lstat(path).st_mode)
    payload = json.loads(path.read_text())
    assert isinstance(payload, dict) and str(repo / "app" / "later.py") in payload["paths"]


@pytest.mark.parametrize("damage", sorted(STAMP_DAMAGE))
def test_a_walk_stamp_that_is_not_a_stamp_means_a_walk_and_a_new_stamp(capsys, repo, damage):
    indexed(capsys, repo)
    stamp_path(repo).write_bytes(STAMP_DAMAGE[damage])
    (repo / "app" / "later.py").write_text("def call_again_after_a_failure():\n    pass\n")
    payload = search(capsys, repo)
    assert "app/later.py" in [path for path, _, _ in answers(payload)]
    assert payload["warnings"] == []
    assert_fresh_stamp(repo)


@pytest.mark.parametrize("kind", ["folder", "link"])
def test_a_folder_or_link_in_place_of_the_walk_stamp_is_moved_aside(capsys, repo, tmp_path, kind):
    indexed(capsys, repo)
    check = PLANTS[kind](stamp_path(repo), tmp_path)
    (repo / "app" / "later.py").write_text("def call_again_after_a_failure():\n    pass\n")
    payload = search(capsys, repo)
    assert "app/later.py" in [path for path, _, _ in answers(payload)]
    aside = the_aside(stamp_path(repo))
    check(aside)
    assert any(f"{stamp_path(repo)} was {SAID[kind]}" in w for w in payload["warnings"])
    assert_fresh_stamp(repo)


def test_a_fifo_in_place_of_the_walk_stamp_is_moved_aside_not_waited_on(capsys, repo, tmp_path):
    indexed(capsys, repo)
    plant_fifo(stamp_path(repo), tmp_path)
    (repo / "app" / "later.py").write_text("def call_again_after_a_failure():\n    pass\n")
    done = run_wherein("search", QUERY, "--json", "--workspace", str(repo))
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    assert "app/later.py" in [path for path, _, _ in answers(payload)]
    _assert_kind(the_aside(stamp_path(repo)), stat.S_ISFIFO)
    assert any(f"{stamp_path(repo)} was a FIFO" in w for w in payload["warnings"])
    assert_fresh_stamp(repo)


# -- the model's verified stamp --------------------------------------------------------------


def test_a_fifo_in_place_of_the_model_stamp_is_moved_aside_not_waited_on(repo, monkeypatch):
    monkeypatch.setenv("WHEREIN_EMBEDDING_PROVIDER", "minilm")
    stamp = data_home() / "models" / "verified.json"
    stamp.parent.mkdir(parents=True)
    os.mkfifo(stamp)
    done = run_wherein("index", "--workspace", str(repo))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(b"3 files seen, 3 changed, 0 removed, 3 chunks embedded")
    _assert_kind(the_aside(stamp), stat.S_ISFIFO)
    payload = json.loads(stamp.read_text())
    assert len(payload["files"]) == 3  # the model, its int8 graph and the tokenizer, again


# -- through the agent tool ------------------------------------------------------------------


def test_recall_mends_the_index_and_its_cache_and_says_so(capsys, repo, tmp_path):
    from tests.plugin.conftest import run_session

    before = indexed(capsys, repo)
    files = cache_files(repo)
    plant_folder(files["matrix"], tmp_path)

    async def one(rc):
        return await rc.recall(query=QUERY)

    result = run_session(repo, one)
    assert result["ok"] and recalled(result) == rounded(before)
    (warning,) = result["warnings"]
    assert f"{files['matrix']} was a folder" in warning
    assert f"Note: {warning}" in result["text"]

    path = index_dir(repo) / INDEX_FILE_NAME
    plant_folder(path, tmp_path)
    result = run_session(repo, one)
    assert result["ok"] and recalled(result) == rounded(before)
    assert any(f"The index at {path} was unreadable" in w for w in result["warnings"])
    _assert_text(the_aside(path) / "keep.txt", "mine")


# Runs the command after it with files limited to 16 KiB: writes past that fail with EFBIG,
# as on a full disk (Python ignores SIGXFSZ, and the exec keeps it ignored).
FULL_DISK = [
    sys.executable,
    "-c",
    "import os, resource, sys; resource.setrlimit(resource.RLIMIT_FSIZE, (16384, 16384)); "
    "os.execv(sys.argv[1], sys.argv[1:])",
]


def test_on_a_full_disk_a_healthy_index_is_read_as_it_was_never_moved_aside(capsys, repo):
    undamaged = indexed(capsys, repo)
    directory = index_dir(repo)
    for name in (f"{INDEX_FILE_NAME}-wal", f"{INDEX_FILE_NAME}-shm"):  # as a clean close leaves
        (directory / name).unlink(missing_ok=True)
    before = sorted(p.name for p in directory.iterdir())
    expected = json.loads(run_wherein("status", "--json", "--workspace", str(repo)).stdout)

    searched = run_wherein("search", QUERY, "--json", "--workspace", str(repo), prefix=FULL_DISK)
    assert searched.returncode == 0, searched.stderr.decode()
    payload = json.loads(searched.stdout)
    assert rounded(answers(payload)) == rounded(undamaged)
    assert any(w.startswith("Cannot write the index at") for w in payload["warnings"])
    status = run_wherein("status", "--json", "--workspace", str(repo), prefix=FULL_DISK)
    assert status.returncode == 0, status.stderr.decode()
    counted = json.loads(status.stdout)
    assert "error" not in counted and counted["chunks"] == expected["chunks"] > 0
    refused = run_wherein("index", "--workspace", str(repo), prefix=FULL_DISK)
    assert refused.returncode == 1
    assert assert_one_sentence(refused.stderr).startswith("wherein: Cannot write the index at")
    assert not [p.name for p in directory.iterdir() if ".broken-" in p.name]
    assert {INDEX_FILE_NAME} <= set(before) <= {p.name for p in directory.iterdir()}


def test_an_index_file_with_nothing_committed_is_no_index_to_status_not_a_failure(capsys, repo):
    # Zero bytes (or a lost write-ahead log): SQLite reads an empty database, which status
    # called unreadable (exit 1, "no such table: files") while a search just built it.
    indexed(capsys, repo)
    path = index_dir(repo) / INDEX_FILE_NAME
    path.write_bytes(b"")
    for name in (f"{INDEX_FILE_NAME}-wal", f"{INDEX_FILE_NAME}-shm"):
        (path.parent / name).unlink(missing_ok=True)
    code, out, err = cli(capsys, "status", "--json", "--workspace", str(repo))
    assert code == 0, err
    assert json.loads(out)["exists"] is False
    assert search(capsys, repo)["results"]
    code, out, _ = cli(capsys, "status", "--json", "--workspace", str(repo))
    assert code == 0 and json.loads(out)["exists"] is True
