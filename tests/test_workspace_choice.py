"""The workspace is the project around the current folder (.git or .wherein.toml), else it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.helpers import write_tree
from wherein.cli import main
from wherein.index.location import data_home

FILES = {
    "src/ranking/fusion.py": "def reciprocal_rank_fusion(orders):\n    return orders\n",
    "src/app.py": "def start():\n    return 1\n",
}


@pytest.fixture(autouse=True)
def static_model(monkeypatch):
    monkeypatch.setenv("WHEREIN_EMBEDDING_PROVIDER", "static")


def _search(capsys, *extra: str) -> dict:
    assert main(["search", "reciprocal rank fusion", "--json", *extra]) == 0
    return json.loads(capsys.readouterr().out)


def _indexes() -> list[str]:
    folder = data_home() / "workspaces"
    return sorted(os.listdir(folder)) if folder.exists() else []


@pytest.mark.parametrize("marker", ["git-dir", "git-file", "wherein-toml"])
def test_a_subfolder_searches_the_enclosing_project(tmp_path, monkeypatch, capsys, marker):
    repo = write_tree(tmp_path / "project", FILES).resolve()
    if marker == "git-dir":
        (repo / ".git").mkdir()
    elif marker == "git-file":  # a worktree or a submodule
        (repo / ".git").write_text("gitdir: /elsewhere/.git/worktrees/project\n")
    else:
        (repo / ".wherein.toml").write_text("[search]\nlimit = 5\n")
    monkeypatch.chdir(repo / "src" / "ranking")
    answer = _search(capsys)
    assert answer["workspace"] == str(repo)
    assert answer["results"][0]["path"] == "src/ranking/fusion.py"
    monkeypatch.chdir(repo / "src")
    assert _search(capsys)["workspace"] == str(repo)
    assert len(_indexes()) == 1, "one index for the project, none per subfolder"


def test_without_a_marker_the_current_folder_is_the_workspace(tmp_path, monkeypatch, capsys):
    folder = write_tree(tmp_path / "loose", FILES).resolve()
    monkeypatch.chdir(folder / "src")
    answer = _search(capsys)
    assert answer["workspace"] == str(folder / "src")
    assert answer["results"][0]["path"] == "ranking/fusion.py"


def test_the_flag_wins_over_the_marker(tmp_path, monkeypatch, capsys):
    repo = write_tree(tmp_path / "project", FILES).resolve()
    (repo / ".git").mkdir()
    monkeypatch.chdir(repo / "src")
    answer = _search(capsys, "--workspace", str(repo / "src" / "ranking"))
    assert answer["workspace"] == str(repo / "src" / "ranking")


def test_status_says_which_rule_chose_the_workspace(tmp_path, monkeypatch, capsys):
    repo = write_tree(tmp_path / "project", FILES).resolve()
    (repo / ".git").mkdir()
    monkeypatch.chdir(repo / "src")
    assert main(["status", "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["workspace"] == str(repo)
    assert status["workspace_chosen_by"] == {"chosen_by": "marker", "marker": ".git"}
    assert main(["status"]) == 0
    assert "the nearest folder above holding .git" in capsys.readouterr().out


def test_the_home_folder_is_refused_unless_named(tmp_path, monkeypatch, capsys):
    home = write_tree(Path(os.environ["HOME"]), FILES).resolve()
    monkeypatch.chdir(home)
    assert main(["search", "reciprocal rank fusion"]) == 1
    err = capsys.readouterr().err
    assert "home folder" in err and f"--workspace {home}" in err
    assert _indexes() == []
    assert _search(capsys, "--workspace", str(home))["workspace"] == str(home)


def test_a_dotfiles_repository_in_home_does_not_swallow_folders_below(
    tmp_path, monkeypatch, capsys
):
    home = Path(os.environ["HOME"])
    (home / ".git").mkdir(parents=True)
    scratch = write_tree(home / "scratch", FILES).resolve()
    monkeypatch.chdir(scratch / "src")
    assert _search(capsys)["workspace"] == str(scratch / "src")


def test_the_file_system_root_is_refused(monkeypatch, capsys):
    monkeypatch.chdir("/")
    assert main(["status"]) == 1
    assert "file system root" in capsys.readouterr().err
