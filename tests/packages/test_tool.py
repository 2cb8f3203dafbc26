"""The MCP tool names a package root as the CLI does: `path` by its name or its label."""

from __future__ import annotations

import pytest

from tests.packages.sites import widgets_workspace
from tests.plugin.conftest import run_session
from wherein.packages.adding import add_packages


@pytest.mark.parametrize("path", ["widgetlib", "widgetlib@1.2.0/widgetlib"])
def test_recall_path_narrows_to_a_package(tmp_path, monkeypatch, path):
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    monkeypatch.setenv("WHEREIN_EMBEDDING_PROVIDER", "static")
    workspace = widgets_workspace(tmp_path / "ws").resolve()
    add_packages(workspace, ["widgetlib"])

    async def steps(rc):
        return await rc.recall(query="render widget", path=path)

    result = run_session(workspace, steps)
    assert result["ok"], result["text"]
    assert result["results"]
    assert all(row[0].startswith("widgetlib@1.2.0/widgetlib/") for row in result["results"])
