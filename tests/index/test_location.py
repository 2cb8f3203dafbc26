"""Where a workspace's index lives: the same folder each time it is asked, per data home."""

from __future__ import annotations

from pathlib import Path

from wherein.index.location import WORKSPACES_DIR_NAME, index_dir, workspace_digest


def test_a_workspace_gets_the_folder_of_its_resolved_path_under_the_data_home(
    tmp_path, monkeypatch
):
    real = tmp_path / "repos" / "app"
    real.mkdir(parents=True)
    (tmp_path / "link").symlink_to(real, target_is_directory=True)
    monkeypatch.setenv("WHEREIN_HOME", str(tmp_path / "home"))
    expected = tmp_path / "home" / WORKSPACES_DIR_NAME / f"app-{workspace_digest(str(real))}"
    assert index_dir(real) == expected
    assert index_dir(real) == expected  # asked again: the same answer
    linked = index_dir(tmp_path / "link")  # named by the link, keyed by where it leads
    assert linked.name == f"link-{workspace_digest(str(real))}"


def test_another_data_home_or_working_folder_gets_its_own_answer(tmp_path, monkeypatch):
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    monkeypatch.setenv("WHEREIN_HOME", str(tmp_path / "home-a"))
    first = index_dir(one)
    monkeypatch.setenv("WHEREIN_HOME", str(tmp_path / "home-b"))
    assert index_dir(one) == tmp_path / "home-b" / WORKSPACES_DIR_NAME / first.name
    assert index_dir(one, {"WHEREIN_HOME": str(tmp_path / "home-c")}).parent.parent == (
        tmp_path / "home-c"
    )
    monkeypatch.chdir(one)
    here = index_dir(Path("."))
    monkeypatch.chdir(two)
    assert index_dir(Path(".")) != here  # "." is wherever the process stands
    assert index_dir(Path(".")).name.endswith(workspace_digest(str(two)))


def test_the_default_data_home_follows_this_processs_home(tmp_path, monkeypatch):
    monkeypatch.delenv("WHEREIN_HOME", raising=False)
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    workspace = tmp_path / "app"
    workspace.mkdir()
    for home in ("alice", "bob"):
        monkeypatch.setenv("HOME", str(tmp_path / home))
        expected = tmp_path / home / ".local" / "share" / "wherein" / WORKSPACES_DIR_NAME
        assert index_dir(workspace).parent == expected
        assert index_dir(workspace, {}).parent == expected  # a mapping without HOME too
