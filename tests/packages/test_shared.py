"""Shared package indexes: built once per version, fused into each workspace's search, never
written by a workspace whose copy was edited, and collected once no workspace names them."""

from __future__ import annotations

import json
import sqlite3

import pytest

from tests.embedding.fake_server import FakeEmbeddingServer
from tests.index.processes import run_wherein
from tests.packages.sites import SITE, add_distribution, widgets_workspace
from wherein.config import load_settings
from wherein.index.location import data_home
from wherein.packages.adding import add_packages
from wherein.packages.catalog import list_package_indexes
from wherein.packages.shared import COMPLETE_FILE_NAME
from wherein.search import run_search

SHARED = "packages/pypi/widgetlib-1.2.0"


@pytest.fixture
def server(monkeypatch):
    """The configured model is an embedding server on loopback, counting what it embeds."""
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    with FakeEmbeddingServer() as running:
        monkeypatch.setenv("WHEREIN_EMBEDDING_PROVIDER", "ollama")
        monkeypatch.setenv("WHEREIN_EMBEDDING_API_BASE", running.url)
        monkeypatch.setenv("WHEREIN_EMBEDDING_MODEL", "nomic-embed-text")
        yield running


def embedded_texts(server: FakeEmbeddingServer) -> int:
    return sum(len(r.body["input"]) for r in server.requests if r.path == "/api/embed")


def search(workspace, query, **kwargs):
    return run_search(query, workspace=workspace, settings=load_settings(workspace), **kwargs)


@pytest.fixture
def two_workspaces(tmp_path, server):
    first = widgets_workspace(tmp_path / "first").resolve()
    second = widgets_workspace(tmp_path / "second").resolve()
    return first, second


def test_a_second_workspace_reuses_the_shared_index_and_embeds_nothing(two_workspaces, server):
    first, second = two_workspaces
    built = add_packages(first, ["widgetlib"]).builds[0]
    assert built.built and built.chunks_embedded > 0
    assert (built.directory / COMPLETE_FILE_NAME).is_file()
    assert built.directory == data_home() / SHARED
    before = embedded_texts(server)
    assert before >= built.chunks_embedded  # (and the identity probe)
    again = add_packages(second, ["widgetlib"])
    assert [b.built for b in again.builds] == [False]
    assert embedded_texts(server) == before  # not one chunk embedded again
    assert json.loads(json.dumps(again.to_json()))["packages"][0]["label"] == "widgetlib@1.2.0"
    # Both workspace files name it, so both resolve it in their own .venv.
    assert "widgetlib" in (second / ".wherein.toml").read_text()


def test_results_from_a_package_say_where_they_come_from(two_workspaces):
    first, second = two_workspaces
    add_packages(first, ["widgetlib"])
    add_packages(second, ["widgetlib"])
    result = search(second, "draw a widget on the canvas with a border")
    top = result.hits[0]
    assert (top.path, top.root) == ("widgetlib@1.2.0/widgetlib/render.py", "widgetlib@1.2.0")
    assert top.source_path == str(second / SITE / "widgetlib/render.py")  # this one's copy
    assert top.stale is False
    assert "paintlib" not in {h.path.split("/")[1] for h in result.hits if "@" in h.path}
    # The workspace's own chunks rank in the same fusion: its own function comes first here.
    own = search(second, "main function")
    assert own.hits[0].path == "app.py"
    assert {h.root for h in own.hits} >= {str(second), "widgetlib@1.2.0"}


@pytest.mark.parametrize("path", ["widgetlib", "widgetlib@1.2.0", "widgetlib@1.2.0/widgetlib"])
def test_path_narrows_to_a_package_by_its_name_or_label(two_workspaces, path):
    first, _ = two_workspaces
    add_packages(first, ["widgetlib"])
    result = search(first, "main render widget", path=path)
    assert result.hits and all(h.path.startswith("widgetlib@1.2.0/") for h in result.hits)


def test_an_edited_package_file_is_stale_and_overlaid_never_written_to_the_shared_index(
    two_workspaces,
):
    first, second = two_workspaces
    add_packages(first, ["widgetlib"])
    add_packages(second, ["widgetlib"])
    shared = data_home() / SHARED / "index.db"
    rows_before = sqlite3.connect(shared).execute("SELECT path, sha256 FROM files").fetchall()
    render = second / SITE / "widgetlib/render.py"
    render.write_text(render.read_text() + "\ndef patched_zebra_stripes():\n    return 7\n")
    result = search(second, "patched zebra stripes")
    top = result.hits[0]
    assert top.path == "widgetlib@1.2.0/widgetlib/render.py"
    assert "patched_zebra_stripes" in top.excerpt
    assert (top.root, top.stale) == ("widgetlib@1.2.0", True)
    assert any("1 installed file differs from its shared index" in w for w in result.warnings)
    rows_after = sqlite3.connect(shared).execute("SELECT path, sha256 FROM files").fetchall()
    assert rows_after == rows_before
    # The first workspace still sees the code as installed, and nothing stale.
    theirs = search(first, "patched zebra stripes")
    assert all("patched_zebra" not in h.excerpt for h in theirs.hits)
    assert not any("differs" in w for w in theirs.warnings)


def test_a_half_built_shared_index_is_never_searched(two_workspaces):
    first, _ = two_workspaces
    add_packages(first, ["widgetlib"])
    (data_home() / SHARED / COMPLETE_FILE_NAME).unlink()
    result = search(first, "draw a widget on the canvas with a border")
    assert all(not h.path.startswith("widgetlib@") for h in result.hits)
    assert any("has no shared index yet" in w and "'wherein index'" in w for w in result.warnings)
    rebuilt = add_packages(first, ["widgetlib"]).builds[0]
    assert rebuilt.built and rebuilt.chunks_embedded == 0  # resumed: every vector was kept


def test_a_version_change_moves_to_the_new_index_and_the_old_one_is_collected(
    two_workspaces, capsys
):
    first, second = two_workspaces
    for workspace in two_workspaces:
        add_packages(workspace, ["widgetlib"])
    for workspace in two_workspaces:
        site = workspace / SITE
        for old in site.glob("widgetlib-1.2.0.dist-info/*"):
            old.unlink()
        (site / "widgetlib-1.2.0.dist-info").rmdir()
        add_distribution(
            site, "widgetlib", "1.3.0", {"widgetlib/render.py": "def render_widget(): pass\n"}
        )
    pending = search(first, "render widget")
    assert any(
        "Package widgetlib@1.3.0 has no shared index yet (the workspace searched "
        "widgetlib@1.2.0 before)" in w
        for w in pending.warnings
    )
    run = run_wherein("index", "--workspace", str(first))
    assert run.returncode == 0, run.stderr.decode()
    said = run.stderr.decode()
    assert "Built the shared index of widgetlib@1.3.0" in said
    assert "Package widgetlib changed from 1.2.0 to 1.3.0" in said
    assert "now searching widgetlib@1.3.0" in said
    moved = search(first, "render widget")
    assert moved.hits[0].root == "widgetlib@1.3.0"
    search(second, "render widget")  # the second moves too: nothing names 1.2.0 any more
    listed = {e.name: e for e in list_package_indexes(data_home())}
    assert listed["widgetlib-1.2.0"].named_by == ()
    assert set(listed["widgetlib-1.3.0"].named_by) == {str(first), str(second)}
    shown = json.loads(run_wherein("indexes", "--json").stdout)
    assert {p["name"]: p["named_by"] for p in shown["packages"]}["widgetlib-1.2.0"] == []
    planned = json.loads(run_wherein("gc", "--json").stdout)
    assert (planned["packages"], planned["packages_removed"]) == (["widgetlib-1.2.0"], [])
    dry = run_wherein("gc").stdout.decode()
    assert "widgetlib@1.2.0" in dry and (data_home() / SHARED).is_dir()
    done = run_wherein("gc", "--yes").stdout.decode()
    assert "Removed the shared index widgetlib-1.2.0." in done
    assert not (data_home() / SHARED).exists()
    assert (data_home() / "packages/pypi/widgetlib-1.3.0" / COMPLETE_FILE_NAME).is_file()


def test_a_planted_copy_of_a_version_never_reaches_another_workspace(tmp_path, server):
    """A clone whose .venv holds a doctored widgetlib 1.2.0 builds the shared index first; a
    workspace with the real one searches only its own bytes (the rest is overlaid)."""
    clone = widgets_workspace(tmp_path / "clone").resolve()
    (clone / SITE / "widgetlib/render.py").write_text("def exfiltrate_tokens():\n    pass\n")
    add_packages(clone, ["widgetlib"])
    honest = widgets_workspace(tmp_path / "honest").resolve()
    add_packages(honest, ["widgetlib"])
    result = search(honest, "exfiltrate tokens")
    assert all("exfiltrate" not in h.excerpt for h in result.hits)
    mine = search(honest, "draw a widget on the canvas with a border")
    assert mine.hits[0].path == "widgetlib@1.2.0/widgetlib/render.py"
    assert mine.hits[0].source_path == str(honest / SITE / "widgetlib/render.py")


def test_roots_add_into_your_own_file_says_every_workspace_gets_the_package(tmp_path, capsys):
    """`--user` (or a package outside the workspace) writes to your own config file, which
    every workspace reads: the command says so, as one project's change would not."""
    from wherein.cli import main

    workspace = widgets_workspace(tmp_path / "ws").resolve()
    assert main(["roots", "add", "widgetlib", "--user", "--workspace", str(workspace)]) == 0
    err = capsys.readouterr().err
    assert "every workspace now searches these packages" in err
    assert main(["roots", "add", "paintlib", "--workspace", str(workspace)]) == 0
    assert "every workspace" not in capsys.readouterr().err  # the workspace's own file
