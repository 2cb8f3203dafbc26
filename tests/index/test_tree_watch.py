"""The inotify watch over a walk's folders: it sees every change at once, or says why not."""

from __future__ import annotations

import contextlib
import os
import sys

import pytest

from tests.helpers import resident_searcher, write_tree
from wherein.index import tree_watch
from wherein.index.change_check import TreeStamp
from wherein.index.refresh import refresh_index
from wherein.index.store import open_store
from wherein.index.tree_watch import TreeWatch, WatchRefused
from wherein.workspace import Root

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify is Linux's")

FILES = {
    "app/retry.py": "def retry_with_backoff(call):\n    return call()\n",
    "app/deep/cookies.py": "def parse_cookie(header):\n    return dict(header)\n",
    "empty/.keep": "",
}


@pytest.fixture
def repo(tmp_path):
    return write_tree(tmp_path / "repo", FILES)


@pytest.fixture
def stamp(repo, tmp_path):
    store = open_store(tmp_path / "home" / "index.db")
    try:
        return refresh_index(store, [Root(repo)], max_file_bytes=1 << 20).stamp
    finally:
        store.close()


@pytest.fixture
def watch(stamp):
    watch = TreeWatch(stamp)
    yield watch
    watch.close()


def _inotify_fds() -> int:
    folder = "/proc/self/fd"
    count = 0
    for name in os.listdir(folder):
        with contextlib.suppress(OSError):  # the listing's own descriptor is gone already
            count += os.readlink(os.path.join(folder, name)) == "anon_inode:inotify"
    return count


def test_nothing_changed_means_unchanged(watch):
    assert not watch.changed()
    assert not watch.changed()


@pytest.mark.parametrize(
    "change",
    [
        lambda repo: (repo / "app/retry.py").write_text("def retry():\n    pass\n"),
        lambda repo: (repo / "app/deep/new.py").write_text("x = 1\n"),
        lambda repo: (repo / "app/deep/cookies.py").unlink(),
        lambda repo: (repo / "app/retry.py").rename(repo / "app/again.py"),
        lambda repo: (repo / "app/retry.py").chmod(0),
        lambda repo: (repo / "empty/first.py").write_text("x = 1\n"),  # a folder with no source
        lambda repo: (repo / ".gitignore").write_text("app/\n"),
        lambda repo: os.mkdir(repo / "app/deep/more"),
        lambda repo: os.utime(repo / "app/retry.py", ns=(0, 0)),  # same size, other time
    ],
    ids=[
        "edit",
        "new",
        "remove",
        "rename",
        "chmod",
        "empty-folder",
        "ignore-file",
        "mkdir",
        "touch",
    ],
)
def test_each_kind_of_change_is_seen_the_moment_it_returns(repo, watch, change):
    change(repo)
    assert watch.changed()  # no sleep: the kernel queued the event before the call returned
    assert watch.changed()  # and it stays changed


def test_a_change_between_the_walk_and_the_watch_is_seen(repo, stamp):
    (repo / "app/retry.py").write_text("def retry():\n    return 2\n")
    watch = TreeWatch(stamp)
    try:
        assert watch.changed()
    finally:
        watch.close()


def test_a_folder_gone_before_the_watch_means_changed(repo, stamp):
    (repo / "app/deep/cookies.py").unlink()
    (repo / "app/deep").rmdir()
    watch = TreeWatch(stamp)
    try:
        assert watch.changed()
    finally:
        watch.close()


def test_a_network_file_system_is_refused_by_name(repo, stamp, tmp_path, monkeypatch):
    device = os.stat(repo).st_dev
    mountinfo = tmp_path / "mountinfo"
    mountinfo.write_text(
        "22 1 0:21 / /proc rw,nosuid - proc proc rw\n"
        f"36 22 {os.major(device)}:{os.minor(device)} / {tmp_path} rw,relatime shared:1 "
        "- nfs4 server:/export rw,vers=4.2\n"
    )
    monkeypatch.setattr(tree_watch, "MOUNTINFO", mountinfo)
    before = _inotify_fds()
    with pytest.raises(WatchRefused, match="network file system \\(nfs4\\)"):
        TreeWatch(stamp)
    assert _inotify_fds() == before


def test_a_local_file_system_in_the_same_table_is_watched(repo, stamp, tmp_path, monkeypatch):
    device = os.stat(repo).st_dev
    mountinfo = tmp_path / "mountinfo"
    mountinfo.write_text(
        f"36 22 {os.major(device)}:{os.minor(device)} / / rw - ext4 /dev/vda1 rw\n"
        "37 22 0:99 / /mnt/share rw - nfs4 server:/export rw\n"
    )
    monkeypatch.setattr(tree_watch, "MOUNTINFO", mountinfo)
    watch = TreeWatch(stamp)
    watch.close()


def test_too_many_folders_are_refused_and_nothing_is_left_open(stamp, monkeypatch):
    monkeypatch.setattr(tree_watch, "MAX_WATCHED_FOLDERS", 2)
    before = _inotify_fds()
    with pytest.raises(WatchRefused, match="more than the 2 it watches"):
        TreeWatch(stamp)
    assert _inotify_fds() == before


def test_a_tree_that_would_take_a_quarter_of_the_users_watches_is_refused(stamp, monkeypatch):
    monkeypatch.setattr(tree_watch, "_read_user_limit", lambda kind: "unknown")
    monkeypatch.setattr(tree_watch, "_read_limit", lambda name: "8")  # 4 folders here
    with pytest.raises(WatchRefused, match="max_user_watches = 8"):
        TreeWatch(stamp)
    monkeypatch.setattr(tree_watch, "_read_limit", lambda name: "16")
    TreeWatch(stamp).close()
    monkeypatch.setattr(tree_watch, "_read_user_limit", lambda kind: "8")  # a container's own
    with pytest.raises(WatchRefused, match="this user namespace allows 8"):
        TreeWatch(stamp)


def test_a_reached_watch_limit_names_the_one_that_bit(monkeypatch):
    import errno

    full = OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(tree_watch, "_read_limit", lambda name: "192914")
    monkeypatch.setattr(tree_watch, "_read_user_limit", lambda kind: "192914")
    assert "namespace" not in tree_watch._limit_reason(full)
    monkeypatch.setattr(tree_watch, "_read_user_limit", lambda kind: "20")  # a container's own
    reason = tree_watch._limit_reason(full)
    assert "max_user_watches = 192914" in reason
    assert "this user namespace allows 20 (user.max_inotify_watches)" in reason


def test_close_releases_the_kernel_queue(stamp):
    before = _inotify_fds()
    watch = TreeWatch(stamp)
    assert _inotify_fds() == before + 1
    watch.close()
    watch.close()
    assert _inotify_fds() == before


@pytest.fixture
def resident_search(repo):
    search, resident = resident_searcher(repo)
    yield search, resident
    resident.drop_store()


def test_a_watched_resident_search_does_not_stat_the_tree(repo, resident_search, monkeypatch):
    search, _ = resident_search
    assert search("parse_cookie").hits[0].path == "app/deep/cookies.py"

    def no_stat(self):
        raise AssertionError("the stamp was checked by stat while the watch said nothing changed")

    with monkeypatch.context() as watched:  # undoes this patch alone, not the conftest's
        watched.setattr(TreeStamp, "unchanged", no_stat)
        assert search("parse_cookie").hits[0].path == "app/deep/cookies.py"
    # An edit right before the next search, with no sleep between, is found by it.
    (repo / "app/deep/cookies.py").write_text("def parse_biscuit(header):\n    return header\n")
    hits = search("parse_biscuit").hits
    assert hits[0].path == "app/deep/cookies.py" and "parse_biscuit" in hits[0].excerpt
    assert all("parse_cookie" not in hit.excerpt for hit in search("parse_cookie").hits)


def test_a_refused_watch_is_said_once_and_the_stat_check_goes_on(
    repo, resident_search, monkeypatch
):
    monkeypatch.setattr(tree_watch, "MAX_WATCHED_FOLDERS", 1)
    search, _ = resident_search
    first = search("parse_cookie")
    notices = [w for w in first.warnings if "Not watching the tree" in w]
    assert len(notices) == 1 and "folders are more than the 1 it watches" in notices[0]
    (repo / "app/router.py").write_text("def add_route_handler(path):\n    return path\n")
    again = search("add_route_handler")
    assert again.hits[0].path == "app/router.py"  # found by the stat of the stamp
    assert not [w for w in again.warnings if "Not watching" in w]


def test_dropping_the_resident_store_closes_its_watch(repo, resident_search):
    search, resident = resident_search
    before = _inotify_fds()
    search("parse_cookie")
    assert _inotify_fds() == before + 1
    resident.drop_store()
    assert _inotify_fds() == before
