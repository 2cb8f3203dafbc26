"""`wherein indexes`, `forget` and `gc`: every index listed with its workspace, and only what is
safe removed (a gone workspace, never an unknown one, never one in use, never through a link)."""

from __future__ import annotations

import json
import os
import pty
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers import cli, write_tree
from tests.index.processes import assert_one_sentence, run_wherein
from wherein.index.location import data_home, index_dir
from wherein.index.owner import OWNER_FILE_NAME
from wherein.index.refresh import index_lock

SOURCE = {"app/retry.py": "def retry_with_backoff(call):\n    return call()\n"}


@pytest.fixture(autouse=True)
def static(monkeypatch) -> None:
    monkeypatch.setenv("WHEREIN_EMBEDDING_PROVIDER", "static")


def indexed(capsys, folder: Path) -> Path:
    """A workspace at `folder` with a built index; returns its resolved path."""
    write_tree(folder, SOURCE)
    code, _, err = cli(capsys, "index", "--workspace", str(folder))
    assert code == 0, err
    return folder.resolve()


def listing(capsys) -> dict[str, dict]:
    code, out, err = cli(capsys, "indexes", "--json")
    assert code == 0, err
    return {entry["name"]: entry for entry in json.loads(out)["indexes"]}


def test_indexes_lists_each_index_with_its_workspace_size_tiers_and_last_use(capsys, tmp_path):
    one = indexed(capsys, tmp_path / "one")
    two = indexed(capsys, tmp_path / "two")
    entries = listing(capsys)
    assert set(entries) == {index_dir(one).name, index_dir(two).name}
    entry = entries[index_dir(one).name]
    assert entry["workspace"] == str(one)
    assert entry["workspace_from"] == "record"
    assert entry["workspace_state"] == "present"
    assert entry["files"] == 1 and entry["chunks"] == 1
    assert entry["tiers"]["full"]["chunks"] == 1
    assert entry["tiers"]["full"]["model"].startswith("static:")
    assert entry["size_bytes"] > 0
    assert entry["last_used"] is not None and entry["last_written"] is not None
    assert entry["path"] == str(index_dir(one))

    code, text, _ = cli(capsys, "list")  # the alias
    assert code == 0
    lines = text.splitlines()
    assert lines[0].split() == "SIZE CHUNKS FAST FULL LAST USED FOLDER WORKSPACE".split()
    assert [line.split()[-1] for line in lines[1:3]] == [str(one), str(two)]
    assert all(" present " in line for line in lines[1:3])
    assert lines[-1].startswith("2 indexes, ")


def test_with_no_index_the_listing_says_so(capsys):
    code, out, _ = cli(capsys, "indexes")
    assert code == 0
    assert out == f"No index under {data_home() / 'workspaces'}.\n"
    assert listing(capsys) == {}


def test_an_index_from_before_records_is_matched_by_its_files_or_is_unknown(capsys, tmp_path):
    old = indexed(capsys, tmp_path / "old")
    (index_dir(old) / OWNER_FILE_NAME).unlink()
    # An index directory with no database: nothing says whose it is.
    bare = data_home() / "workspaces" / f"bare-{'0' * 16}"
    bare.mkdir()
    entries = listing(capsys)
    assert entries[index_dir(old).name]["workspace"] == str(old)
    assert entries[index_dir(old).name]["workspace_from"] == "index"
    assert entries[index_dir(old).name]["last_used"] is None
    unknown = entries[bare.name]
    assert (unknown["workspace"], unknown["workspace_state"]) == (None, "unknown")
    assert "no index.db" in unknown["error"]
    # gc never removes an index for not knowing whose it is.
    code, out, _ = cli(capsys, "gc", "--yes")
    assert code == 0
    assert "1 index of an unknown workspace kept; 'wherein forget NAME' removes one." in out
    assert bare.is_dir()


def test_a_record_naming_another_folder_or_not_a_small_file_is_not_believed(capsys, tmp_path):
    ws = indexed(capsys, tmp_path / "ws")
    elsewhere = write_tree(tmp_path / "elsewhere", {"x.py": "X = 1\n"})
    record = index_dir(ws) / OWNER_FILE_NAME
    record.write_text(json.dumps({"format": 1, "workspace": str(elsewhere)}))
    entry = listing(capsys)[index_dir(ws).name]
    assert (entry["workspace"], entry["workspace_from"]) == (str(ws), "index")
    for planted in ("/dev/zero", str(tmp_path / "big")):
        (tmp_path / "big").write_bytes(b" " * (1 << 20))
        record.unlink()
        record.symlink_to(planted)
        entry = listing(capsys)[index_dir(ws).name]
        assert (entry["workspace"], entry["workspace_from"]) == (str(ws), "index")
    # A search leaves a planted link alone rather than writing through it.
    code, _, err = cli(capsys, "search", "retry", "--workspace", str(ws))
    assert code == 0, err
    assert record.is_symlink()


def test_searches_move_last_used_at_most_once_a_minute(capsys, tmp_path):
    ws = indexed(capsys, tmp_path / "ws")
    record = index_dir(ws) / OWNER_FILE_NAME
    an_hour_ago = time.time() - 3600
    os.utime(record, (an_hour_ago, an_hour_ago))
    assert cli(capsys, "search", "retry", "--workspace", str(ws))[0] == 0
    moved = record.stat().st_mtime
    assert moved > an_hour_ago + 3000
    recent = moved - 10  # ten seconds ago: within the minute, so no write
    os.utime(record, (recent, recent))
    assert cli(capsys, "search", "retry", "--workspace", str(ws))[0] == 0
    assert record.stat().st_mtime == recent


def test_gc_is_a_dry_run_until_told_and_removes_only_gone_workspaces(capsys, tmp_path):
    kept = indexed(capsys, tmp_path / "kept")
    gone = indexed(capsys, tmp_path / "gone")
    shutil.rmtree(gone)
    code, out, _ = cli(capsys, "gc")
    assert code == 0
    assert f"  {gone}  " in out and str(kept) not in out
    assert out.endswith("Dry run: nothing removed. Run 'wherein gc --yes' to remove them.\n")
    assert index_dir(gone).is_dir()

    code, out, _ = cli(capsys, "gc", "--json")
    payload = json.loads(out)
    assert payload["dry_run"] is True and payload["removed"] == []
    assert [entry["workspace"] for entry in payload["indexes"]] == [str(gone)]
    assert index_dir(gone).is_dir()

    code, out, _ = cli(capsys, "gc", "--yes", "--json")
    payload = json.loads(out)
    assert code == 0
    assert payload["removed"] == [index_dir(gone).name]
    assert payload["freed_bytes"] == payload["indexes"][0]["size_bytes"] > 0
    assert not index_dir(gone).exists() and index_dir(kept).is_dir()
    assert os.listdir(data_home() / "workspaces") == [index_dir(kept).name]

    code, out, _ = cli(capsys, "gc")
    assert out == "No index to remove: every known workspace folder is still there (1 index).\n"


def run_on_a_terminal(args: list[str], answer: bytes) -> str:
    """`wherein ARGS` with a pseudo-terminal for stdin and stdout, typing `answer`."""
    controller, terminal = pty.openpty()
    command = [sys.executable, "-m", "wherein.cli", *args]
    child = subprocess.Popen(command, stdin=terminal, stdout=terminal, stderr=terminal)
    os.close(terminal)
    seen = b""
    try:
        while b"[y/N]" not in seen:
            ready, _, _ = select.select([controller], [], [], 60)
            assert ready, seen
            seen += os.read(controller, 4096)
        os.write(controller, answer)
        while True:
            ready, _, _ = select.select([controller], [], [], 60)
            assert ready, seen
            try:
                chunk = os.read(controller, 4096)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            seen += chunk
    finally:
        assert child.wait(timeout=60) == 0
        os.close(controller)
    return seen.decode()


@pytest.mark.parametrize(("answer", "removed"), [(b"y\n", True), (b"\n", False)])
def test_gc_on_a_terminal_asks_first(capsys, tmp_path, answer, removed):
    gone = indexed(capsys, tmp_path / "gone")
    shutil.rmtree(gone)
    shown = run_on_a_terminal(["gc"], answer)
    assert "Remove these 1 indexes? [y/N]" in shown
    assert index_dir(gone).exists() is not removed
    assert ("Removed the index of" in shown) is removed


def test_forget_by_folder_gone_or_not_by_name_and_by_the_current_workspace(
    capsys, tmp_path, monkeypatch
):
    here = indexed(capsys, tmp_path / "here")
    gone = indexed(capsys, tmp_path / "gone")
    named = indexed(capsys, tmp_path / "named")
    shutil.rmtree(gone)
    code, out, _ = cli(capsys, "forget", str(gone))
    assert code == 0 and out.startswith(f"Removed the index of {gone} (")
    code, out, _ = cli(capsys, "forget", index_dir(named).name, "--json")
    assert code == 0 and json.loads(out)["removed"] == [index_dir(named).name]
    (here / ".git").mkdir()
    monkeypatch.chdir(here / "app")  # the project around the current folder, as search has it
    code, out, _ = cli(capsys, "forget")
    assert code == 0 and out.startswith(f"Removed the index of {here} (")
    assert listing(capsys) == {}


def test_forget_of_a_folder_without_an_index_is_one_sentence(tmp_path):
    done = run_wherein("forget", str(tmp_path / "never-indexed"))
    assert done.returncode == 1
    line = assert_one_sentence(done.stderr)
    assert "No index for" in line and "'wherein indexes' lists the indexes" in line


def test_an_index_in_use_is_skipped_and_said_so(capsys, tmp_path):
    gone = indexed(capsys, tmp_path / "gone")
    shutil.rmtree(gone)
    with index_lock(index_dir(gone), wait=False) as locked:
        assert locked
        done = run_wherein("gc", "--yes")
        forgot = run_wherein("forget", str(gone), "--json")
    assert done.returncode == 1
    assert "kept the index of" in done.stderr.decode()
    assert "another wherein process" in done.stderr.decode()
    assert forgot.returncode == 1
    assert json.loads(forgot.stdout)["skipped"][0]["kind"] == "busy"
    assert index_dir(gone).is_dir()


def test_removal_never_follows_a_link(capsys, tmp_path):
    gone = indexed(capsys, tmp_path / "gone")
    shutil.rmtree(gone)
    precious = write_tree(tmp_path / "precious", {"keep.txt": "mine\n", "dir/also.txt": "x\n"})
    (index_dir(gone) / "a-link").symlink_to(precious / "keep.txt")
    (index_dir(gone) / "a-folder-link").symlink_to(precious / "dir", target_is_directory=True)
    # A link with an index's name in the folder of indexes is not an index of ours.
    planted = data_home() / "workspaces" / f"planted-{'1' * 16}"
    planted.symlink_to(precious, target_is_directory=True)
    assert index_dir(gone).name in listing(capsys) and planted.name not in listing(capsys)
    assert cli(capsys, "gc", "--yes")[0] == 0
    code, _, err = cli(capsys, "forget", planted.name)
    assert code == 1 and "No index for" in err
    assert not index_dir(gone).exists()
    assert (precious / "keep.txt").read_text() == "mine\n"
    assert (precious / "dir" / "also.txt").is_file()
    assert planted.is_symlink()


def test_nothing_is_removed_through_a_linked_folder_of_indexes(capsys, tmp_path, monkeypatch):
    gone = indexed(capsys, tmp_path / "gone")
    shutil.rmtree(gone)
    elsewhere = tmp_path / "elsewhere"
    (data_home() / "workspaces").rename(elsewhere)
    (data_home() / "workspaces").symlink_to(elsewhere, target_is_directory=True)
    code, _, err = cli(capsys, "gc", "--yes")
    assert code == 1
    assert "is a link, and wherein removes nothing through it" in err
    assert (elsewhere / index_dir(gone).name).is_dir()


def test_nothing_is_removed_through_a_linked_folder_of_package_indexes(capsys, tmp_path):
    """`packages/` linked elsewhere: a folder there named like a shared index is not ours."""
    victim = tmp_path / "victim"
    (victim / "pypi" / "thesis-2024").mkdir(parents=True)
    (victim / "pypi" / "thesis-2024" / "draft.txt").write_text("mine")
    data_home().mkdir(parents=True, exist_ok=True)
    (data_home() / "packages").symlink_to(victim, target_is_directory=True)
    code, _, err = cli(capsys, "gc", "--yes")
    assert "is a link, and wherein removes nothing through it" in err, err
    assert (victim / "pypi" / "thesis-2024" / "draft.txt").read_text() == "mine"


def test_a_workspace_name_cannot_forge_a_line_of_the_listing(capsys, tmp_path):
    ws = indexed(capsys, tmp_path / "evil\x1b[2J\nfake")
    code, out, _ = cli(capsys, "indexes")
    assert code == 0
    assert "\x1b" not in out and "evil\\x1b[2J\\x0afake" in out
    assert len(out.splitlines()) == 3
    assert listing(capsys)[index_dir(ws).name]["workspace"] == str(ws)
