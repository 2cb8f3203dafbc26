"""An extra source root is named as its results are labelled: `--path deps`, `--focus deps/x`,
and the tool's `path` and `focus`, but never a folder outside the root; its results show where
they are on disk."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import write_tree
from tests.index.processes import assert_one_sentence, run_wherein
from tests.plugin.conftest import run_session
from wherein.cli import main

STATIC = {"WHEREIN_EMBEDDING_PROVIDER": "static"}


MAIN = "from widgets import render_widget\n\ndef main():\n    render_widget()\n"
RENDER = 'def render_widget(size):\n    """Draw a widget."""\n    return 1\n'


@pytest.fixture
def workspace(tmp_path):
    return write_tree(tmp_path / "ws", {"app/main.py": MAIN}).resolve()


@pytest.fixture
def library(tmp_path):
    files = {
        "widgets/render.py": RENDER,
        "widgets/shapes/circle.py": "def draw_circle_widget(r):\n    return r\n",
        "other/thing.py": "def render_other_widget():\n    return 2\n",
    }
    return write_tree(tmp_path / "env" / "site-packages", files).resolve()


@pytest.fixture
def roots(monkeypatch, library):
    monkeypatch.setenv("WHEREIN_EMBEDDING_PROVIDER", "static")
    monkeypatch.setenv("WHEREIN_SCOPE_SOURCE_ROOTS", f"deps={library}")


def search_json(capsys, workspace: Path, *args: str) -> tuple[int, dict | None, str]:
    code = main(["search", "render widget", "--workspace", str(workspace), "--json", *args])
    captured = capsys.readouterr()
    return code, json.loads(captured.out) if code == 0 else None, captured.err


@pytest.mark.usefixtures("roots")
@pytest.mark.parametrize("flag", ["--path", "--focus"])
def test_a_roots_label_narrows_a_search_to_that_root(capsys, workspace, flag):
    code, whole, err = search_json(capsys, workspace)
    assert code == 0, err
    assert {"app/main.py", "deps/widgets/render.py"} <= {r["path"] for r in whole["results"]}
    code, narrowed, err = search_json(capsys, workspace, flag, "deps")
    assert code == 0, err
    paths = {r["path"] for r in narrowed["results"]}
    assert "deps/widgets/render.py" in paths and "deps/other/thing.py" in paths
    assert all(p.startswith("deps/") for p in paths)
    assert narrowed["warnings"] == []
    code, inner, err = search_json(capsys, workspace, flag, "deps/widgets/shapes")
    assert code == 0, err
    assert {r["path"] for r in inner["results"]} == {"deps/widgets/shapes/circle.py"}
    if flag == "--focus":
        assert inner["scope"] == {"focus": "deps/widgets/shapes", "resolved_by": "explicit"}


@pytest.mark.usefixtures("roots")
def test_the_roots_own_folder_names_it_too_and_focus_and_path_combine(capsys, workspace, library):
    code, result, err = search_json(
        capsys, workspace, "--path", str(library / "widgets"), "--focus", "deps"
    )
    assert code == 0, err
    assert {r["path"] for r in result["results"]} == {
        "deps/widgets/render.py",
        "deps/widgets/shapes/circle.py",
    }


@pytest.mark.usefixtures("roots")
@pytest.mark.parametrize("value", ["deps/missing", "deps/../../..", "deps/widgets/render.py"])
def test_a_folder_that_is_not_inside_the_root_is_refused_in_one_sentence(workspace, value):
    done = run_wherein("search", "widget", "--workspace", str(workspace), "--path", value)
    assert done.returncode == 2
    line = assert_one_sentence(done.stderr)
    assert "--path" in line


@pytest.mark.usefixtures("roots")
def test_a_link_in_the_root_that_leads_out_of_it_is_refused(workspace, library, tmp_path):
    outside = write_tree(tmp_path / "outside", {"secret.py": "def render_secret(): pass\n"})
    (library / "escape").symlink_to(outside, target_is_directory=True)
    done = run_wherein("search", "widget", "--workspace", str(workspace), "--focus", "deps/escape")
    assert done.returncode == 2
    assert "is not a folder in the source root 'deps'" in assert_one_sentence(done.stderr)


def test_a_label_that_is_no_root_is_still_not_a_folder(workspace):
    done = run_wherein("search", "x", "--workspace", str(workspace), "--path", "deps", env=STATIC)
    assert done.returncode == 2
    assert "is not a folder in" in assert_one_sentence(done.stderr)


@pytest.mark.usefixtures("roots")
def test_the_text_output_shows_where_a_root_result_is_on_disk(capsys, workspace, library):
    assert main(["search", "render_widget", "--workspace", str(workspace), "--path", "deps"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith(f"deps/widgets/render.py:1-3  ({library}/widgets/render.py:1)")
    assert main(["search", "def main", "--workspace", str(workspace), "--path", "app"]) == 0
    assert capsys.readouterr().out.splitlines()[0].startswith("app/main.py:1-4  similarity")


@pytest.mark.usefixtures("roots")
def test_the_tool_takes_a_roots_label_as_path_and_focus(workspace, library):
    async def steps(rc):
        by_path = await rc.recall(query="render widget", path="deps/widgets")
        by_focus = await rc.recall(query="render widget", focus="deps")
        by_folder = await rc.recall(query="render widget", path=str(library / "other"))
        refused = await rc.recall(query="render widget", path="deps/nope")
        return by_path, by_focus, by_folder, refused

    by_path, by_focus, by_folder, refused = run_session(workspace, steps)
    assert {r[0] for r in by_path["results"]} == {
        "deps/widgets/render.py",
        "deps/widgets/shapes/circle.py",
    }
    assert by_focus["scope"] == {"focus": "deps", "resolved_by": "explicit"}
    assert all(r[0].startswith("deps/") for r in by_focus["results"])
    # [path, start, end, source_path]: a root's result says where it is on disk.
    assert by_focus["results"][0][3].startswith(str(library))
    assert {r[0] for r in by_folder["results"]} == {"deps/other/thing.py"}
    assert refused["ok"] is False
    assert "is not a folder in the source root 'deps'" in refused["error"]["message"]
