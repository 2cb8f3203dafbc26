"""Extra source roots: entry syntax, labelled result paths, the walk's entry rules, and every
unusable entry reported and skipped while the other roots keep working."""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path

import pytest

from tests.helpers import HashingEmbedder, write_tree
from tests.index.processes import assert_permissions_apply, permission_prefix, run_wherein
from wherein.config import load_settings
from wherein.index.location import INDEX_FILE_NAME, index_dir
from wherein.index.status import read_status
from wherein.index.store import open_store
from wherein.packages.environment import python_environments
from wherein.root_suggestions import suggest_roots
from wherein.roots import plan_roots, split_entry
from wherein.search import run_search

STATIC = {"WHEREIN_EMBEDDING_PROVIDER": "static"}


@pytest.fixture
def workspace(tmp_path):
    return write_tree(
        tmp_path / "ws",
        {
            "app/main.py": (
                "from widgets import render_widget\n\ndef main():\n    render_widget()\n"
            ),
            "lib/helpers.py": "def local_helper():\n    return 1\n",
        },
    )


@pytest.fixture
def library(tmp_path):
    """A library tree shaped like an installed package, with what must not be indexed."""
    return write_tree(
        tmp_path / "deps" / "site-packages",
        {
            "widgets/render.py": (
                "def render_widget(size):\n    '''Draw a widget.'''\n    return 1\n"
            ),
            "widgets/node_modules/leftpad/index.js": "function padLeftNested() {}\n",
            "widgets/vendor/site-packages/inner/mod.py": "def nested_site_function(): pass\n",
            "widgets/.venv/lib/x.py": "def venv_function(): pass\n",
            "widgets-1.0.dist-info/METADATA": "Name: widgets\n\nDraw a widget.\n",
            "widgets.egg-info/PKG-INFO": "Name: widgets\n",
            "__pycache__/render.cpython-311.pyc": b"\x00\x01",
        },
    )


def search(workspace: Path, query: str, roots: list[str], **kwargs):
    settings = load_settings(workspace, environ={"WHEREIN_SCOPE_SOURCE_ROOTS": ",".join(roots)})
    embedder = HashingEmbedder()
    return run_search(
        query, workspace=workspace, settings=settings, fast_embedder=embedder, **kwargs
    )


def indexed_paths(workspace: Path) -> set[str]:
    store = open_store(index_dir(workspace) / INDEX_FILE_NAME)
    try:
        return set(store.file_states())
    finally:
        store.close()


# -- entry syntax ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        ("vendor/lib", (None, "vendor/lib")),
        ("lib=/opt/lib", ("lib", "/opt/lib")),
        ("/data/a=b", (None, "/data/a=b")),  # an '=' after a '/' is part of the path
        ("lib=/data/a=b", ("lib", "/data/a=b")),
        ("  lib = ../x ", ("lib", "../x")),
    ],
)
def test_split_entry_reads_an_optional_name_prefix(entry, expected):
    assert split_entry(entry) == expected


def test_relative_entries_resolve_against_the_workspace_and_the_label_is_the_basename(
    workspace, library, monkeypatch
):
    monkeypatch.chdir(library)  # the current directory must not matter
    plan = plan_roots(workspace, ["../deps/site-packages", f"pkgs={library}"])
    # Both name the same folder: the second is reported, the first kept.
    assert [(r.label, r.path) for r in plan.extra] == [("site-packages", library)]
    assert len(plan.problems) == 1 and "already indexed as 'site-packages'" in plan.problems[0]


# -- results and the walk -------------------------------------------------------


def test_results_from_a_root_carry_the_labelled_path_and_the_absolute_source_path(
    workspace, library
):
    result = search(workspace, "render_widget draw a widget", [f"deps={library}"])
    top = result.hits[0]
    assert top.path == "deps/widgets/render.py"
    assert top.source_path == str(library / "widgets" / "render.py")
    assert top.root == str(library)
    workspace_hits = [h for h in result.hits if h.path == "app/main.py"]
    assert workspace_hits and workspace_hits[0].source_path is None
    assert result.warnings == []


def test_the_root_is_entered_whatever_it_is_called_but_the_skip_list_applies_below(
    tmp_path, workspace
):
    scoped = write_tree(
        tmp_path / "project" / "node_modules" / "@acme",
        {
            "ui/button.js": "export function acmeButton() {}\n",
            "ui/node_modules/dep/index.js": "export function nestedDep() {}\n",
        },
    )
    site = write_tree(
        tmp_path / "env" / "site-packages",
        {
            "pkg/core.py": "def core(): pass\n",
            "pkg/site-packages/other/mod.py": "def other(): pass\n",
            "pkg/dist-packages/third/mod.py": "def third(): pass\n",
        },
    )
    search(workspace, "button", [str(scoped), str(site)])
    paths = indexed_paths(workspace)
    assert "@acme/ui/button.js" in paths
    assert "site-packages/pkg/core.py" in paths
    nested = [
        p
        for p in paths
        if "node_modules" in p.split("/")[1:]
        or "site-packages" in p.split("/")[1:]
        or "dist-packages" in p
    ]
    assert nested == []


@pytest.mark.parametrize("entry", ["g=.git", "g=.git/refs", "bare=backup.git", "h=.hg"])
def test_version_control_folders_are_never_a_root(tmp_path, entry):
    """The walk never enters them, and a cloned `.wherein.toml` must not take it there: a
    `.git/config` holds remote URLs with their tokens."""
    workspace = write_tree(
        tmp_path / "ws",
        {
            "a.py": "def hello():\n    return 1\n",
            ".git/config": '[remote "origin"]\n  url = https://me:ghp_SECRET@example.com/r\n',
            ".git/HEAD": "ref: refs/heads/main\n",
            ".git/refs/heads/main": "0" * 40 + "\n",
            ".git/objects/info/packs": "",
            ".hg/hgrc": "[paths]\ndefault = https://me:SECRET@example.com/r\n",
            "backup.git/HEAD": "ref: refs/heads/main\n",
            "backup.git/config": "[remote]\n  url = https://me:ghp_SECRET@example.com/r\n",
            "backup.git/objects/info/packs": "",
            "backup.git/refs/heads/main": "0" * 40 + "\n",
        },
    )
    plan = plan_roots(workspace, [entry])
    assert [root.path for root in plan.roots] == [workspace]
    (problem,) = plan.problems
    assert "never code to search" in problem
    (workspace / ".wherein.toml").write_text(f'[scope]\nsource_roots = ["{entry}"]\n')
    settings = load_settings(workspace)  # the workspace file's roots
    result = run_search(
        "hello", workspace=workspace, settings=settings, fast_embedder=HashingEmbedder()
    )
    assert any("never code to search" in w for w in result.warnings)
    assert not any(p.startswith(("g/", "bare/", "h/")) for p in indexed_paths(workspace))


def test_nested_package_stores_virtualenvs_and_metadata_below_a_root_are_not_indexed(
    workspace, library
):
    search(workspace, "widget", [f"deps={library}"])
    assert {p for p in indexed_paths(workspace) if p.startswith("deps/")} == {
        "deps/widgets/render.py"
    }


def test_each_file_is_indexed_once_under_the_innermost_root_that_holds_it(tmp_path, library):
    # A clone's `.wherein.toml` naming `a`, `a/a`, `a/a/a`, ... (inside the workspace, so
    # allowed) indexed each file once per root above it as well: 50 files became 3,051.
    ws = write_tree(
        tmp_path / "ws",
        {"top.py": "T = 0\n", "a/one.py": "A = 1\n", "a/a/two.py": "B = 2\n"},
    )
    write_tree(library, {"widgets/inner/deep.py": "D = 4\n"})
    search(ws, "widget", ["r1=a", "r2=a/a", f"lib={library}", f"deep={library / 'widgets'}"])
    assert indexed_paths(ws) == {
        "top.py",
        "r1/one.py",
        "r2/two.py",
        "deep/render.py",
        "deep/inner/deep.py",
    }


def test_a_root_removed_from_the_config_leaves_the_index(workspace, library):
    search(workspace, "widget", [f"deps={library}"])
    assert "deps/widgets/render.py" in indexed_paths(workspace)
    result = search(workspace, "render_widget", [])
    assert all(not hit.path.startswith("deps/") for hit in result.hits)
    assert not any(p.startswith("deps/") for p in indexed_paths(workspace))


def test_a_renamed_root_is_not_confused_with_the_workspace_folder_of_its_old_name(
    workspace, tmp_path
):
    other = write_tree(
        tmp_path / "elsewhere" / "lib", {"helpers.py": "def remote_helper(): pass\n"}
    )
    result = search(workspace, "helper", [f"extlib={other}"])
    paths = {hit.path for hit in result.hits}
    assert {"lib/helpers.py", "extlib/helpers.py"} <= paths
    # A focus on the workspace's lib ranks only its files, never the root's.
    focused = search(workspace, "helper", [f"extlib={other}"], focus="lib")
    assert {hit.path for hit in focused.hits} == {"lib/helpers.py"}


# -- unusable entries -----------------------------------------------------------


def unusable_cases(tmp_path: Path, workspace: Path) -> dict[str, tuple[str, str]]:
    """entry -> (expected words in the warning, a label that must not be indexed)."""
    a = write_tree(tmp_path / "one" / "shared", {"a.py": "def from_one(): pass\n"})
    b = write_tree(tmp_path / "two" / "shared", {"b.py": "def from_two(): pass\n"})
    clash = write_tree(tmp_path / "three" / "lib", {"c.py": "def from_three(): pass\n"})
    (tmp_path / "afile.py").write_text("x = 1\n")
    return {
        str(tmp_path / "missing"): ("does not exist", "missing"),
        str(tmp_path / "afile.py"): ("is a file, not a folder", "afile.py"),
        str(a): ("are all named 'shared'", "shared"),
        str(b): ("are all named 'shared'", "shared"),
        str(clash): ("also a folder at the top of the workspace", "lib"),
        f"app={clash}": ("is also the focus 'app'", "app"),
        str(tmp_path): ("holds the workspace", tmp_path.name),
        "=": ("names no folder", ""),
        f"..={a}": ("cannot label result paths", ".."),
    }


def test_every_unusable_entry_is_reported_and_skipped_while_the_good_root_works(
    tmp_path, workspace, library
):
    cases = unusable_cases(tmp_path, workspace)
    entries = [*cases, f"deps={library}"]
    result = search(workspace, "render_widget", entries, focus="app")
    # The focus keeps results in app/, but the good root was indexed all the same.
    assert "deps/widgets/render.py" in indexed_paths(workspace)
    text = "\n".join(result.warnings)
    for entry, (words, _label) in cases.items():
        assert words in text, (entry, text)
    assert len([w for w in result.warnings if "are all named" in w]) == 1
    labels = {p.split("/", 1)[0] for p in indexed_paths(workspace)}
    assert labels == {"app", "lib", "deps"}
    store = open_store(index_dir(workspace) / INDEX_FILE_NAME)
    try:
        roots = {row[0] for row in store.conn.execute("SELECT DISTINCT root FROM files")}
    finally:
        store.close()
    assert roots == {str(workspace), str(library)}


def test_status_reports_unusable_roots_and_counts_the_usable_ones(tmp_path, workspace, library):
    missing = tmp_path / "missing"
    env = {**STATIC, "WHEREIN_SCOPE_SOURCE_ROOTS": f"deps={library},{missing}"}
    indexed = run_wherein("index", "--workspace", str(workspace), env=env)
    assert indexed.returncode == 0, indexed.stderr
    assert f"{missing} does not exist" in indexed.stderr.decode()
    shown = run_wherein("status", "--workspace", str(workspace), "--json", env=env)
    status = json.loads(shown.stdout)
    assert status["roots"] == [{"label": "deps", "path": str(library), "files": 1, "chunks": 1}]
    assert len(status["root_problems"]) == 1 and "does not exist" in status["root_problems"][0]
    text = run_wherein("status", "--workspace", str(workspace), env=env).stdout.decode()
    assert f"root       deps={library}  1 chunks in 1 files" in text
    assert "unusable   Source root" in text


def test_read_status_counts_each_root(workspace, library):
    settings = load_settings(workspace, environ={"WHEREIN_SCOPE_SOURCE_ROOTS": str(library)})
    run_search("widget", workspace=workspace, settings=settings, fast_embedder=HashingEmbedder())
    plan = plan_roots(workspace, settings["scope.source_roots"])
    status = read_status(workspace, roots=plan.extra)
    assert status.roots == [
        {"label": "site-packages", "path": str(library), "files": 1, "chunks": 1}
    ]


def test_an_unreadable_root_is_reported_and_skipped(tmp_path, workspace, library):
    prefix = permission_prefix()
    locked = write_tree(tmp_path / "locked", {"secret.py": "def locked_function(): pass\n"})
    os.chmod(locked / "secret.py", 0)
    os.chmod(locked, 0)
    try:
        assert_permissions_apply(prefix, locked / "secret.py")
        env = {**STATIC, "WHEREIN_SCOPE_SOURCE_ROOTS": f"{locked},deps={library}"}
        found = run_wherein(
            "search",
            "render_widget",
            "--workspace",
            str(workspace),
            "--json",
            prefix=prefix,
            env=env,
        )
        assert found.returncode == 0, found.stderr
        payload = json.loads(found.stdout)
        assert any(
            f"{locked} cannot be read (Permission denied)" in w for w in payload["warnings"]
        ), payload["warnings"]
        assert payload["results"][0]["path"] == "deps/widgets/render.py"
    finally:
        os.chmod(locked, 0o755)
        os.chmod(locked / "secret.py", 0o644)


# -- roots suggest ----------------------------------------------------------------


@pytest.fixture
def project(tmp_path):
    return write_tree(
        tmp_path / "project",
        {
            ".venv/pyvenv.cfg": "home = /usr/bin\n",
            ".venv/lib/python3.11/site-packages/requests/api.py": "def get(url): pass\n",
            ".venv/lib/python3.11/site-packages/requests-2.31.0.dist-info/METADATA": (
                "Metadata-Version: 2.1\nName: requests\nVersion: 2.31.0\n"
            ),
            ".venv/lib/python3.11/site-packages/requests-2.31.0.dist-info/top_level.txt": (
                "requests\n"
            ),
            # No top_level.txt: the RECORD's folders say what PyYAML installs.
            ".venv/lib/python3.11/site-packages/yaml/__init__.py": "def safe_load(s): pass\n",
            ".venv/lib/python3.11/site-packages/PyYAML-6.0.dist-info/METADATA": (
                "Metadata-Version: 2.1\nName: PyYAML\nVersion: 6.0\n"
            ),
            ".venv/lib/python3.11/site-packages/PyYAML-6.0.dist-info/RECORD": (
                "yaml/__init__.py,sha256=x,10\nPyYAML-6.0.dist-info/METADATA,,\n"
            ),
            ".venv/lib/python3.11/site-packages/six.py": "X = 1\n",  # a module, not a folder
            ".venv/lib/python3.11/site-packages/unused/__init__.py": "X = 1\n",
            ".venv/lib/python3.11/site-packages/app/__init__.py": "X = 1\n",  # a copy of its own
            "app/__init__.py": "",
            "app/client.py": "import os, requests\nfrom app import util\nimport six\n",
            "app/util.py": "from requests.api import get\n\ndef load():\n    import yaml\n",
            "web/app.ts": (
                "import React from 'react';\n"
                'import { Button } from "@acme/ui/button";\n'
                "import local from './local';\n"
                "import fs from 'node:fs';\n"
                "const missing = require('not-installed');\n"
            ),
            "packages/site/src/pad.js": "const pad = require('left-pad');\n",
            "node_modules/react/index.js": "module.exports = {};\n",
            "node_modules/@acme/ui/button.js": "export function Button() {}\n",
            "node_modules/unused/index.js": "module.exports = {};\n",
            "packages/site/node_modules/left-pad/index.js": "module.exports = pad;\n",
        },
    )


def test_roots_suggest_lists_the_virtualenv_and_the_imported_packages(project, monkeypatch):
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    shown = run_wherein("roots", "suggest", "--workspace", str(project), "--json")
    assert shown.returncode == 0, shown.stderr
    payload = json.loads(shown.stdout)
    site = ".venv/lib/python3.11/site-packages"
    assert [s["entry"] for s in payload["suggestions"]] == [
        f"requests={site}/requests",  # imported by two files: the larger benefit first
        f"yaml={site}/yaml",
        "ui=node_modules/@acme/ui",
        "left-pad=packages/site/node_modules/left-pad",
        "react=node_modules/react",
    ]
    first, second = payload["suggestions"][:2]
    assert first["reason"] == (
        "imported by 2 files (requests 2.31.0), in the workspace's virtualenv .venv"
    )
    assert (first["importers"], first["distributions"]) == (2, ["requests 2.31.0"])
    assert (second["importers"], second["distributions"]) == (1, ["PyYAML 6.0"])
    assert "importers" not in payload["suggestions"][2]  # node entries keep their fields
    # The distributions, as `roots add` takes them, the most imported first.
    assert [p["entry"] for p in payload["packages"]] == ["requests", "PyYAML"]
    assert payload["packages_command"].startswith("wherein roots add --workspace ")
    assert payload["packages_command"].endswith(" -- requests PyYAML")
    text = run_wherein("roots", "suggest", "--workspace", str(project)).stdout.decode()
    assert text.startswith("requests\t(python: imported by 2 files")
    assert f"\nrequests={site}/requests\t(python: imported by 2 files" in text


def test_a_planted_package_name_cannot_put_an_option_into_the_printed_command(project, monkeypatch):
    # A METADATA `Name: --python=tools/py` was printed as `roots add --python=tools/py ...`,
    # and running the command as printed ran the clone's program to ask its site-packages.
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    site = project / ".venv/lib/python3.11/site-packages"
    marker = project.parent / "ran"
    write_tree(
        project,
        {
            "tools/py": f"#!/bin/sh\necho ran > {shlex.quote(str(marker))}\n",
            "package.json": json.dumps({"dependencies": {"react": "1", "--user": "1"}}),
            "node_modules/react/package.json": '{"name": "react", "version": "18.0.0"}',
            ".venv/lib/python3.11/site-packages/requests-2.31.0.dist-info/RECORD": (
                "requests/api.py,,\n"
            ),
        },
    )
    (project / "tools/py").chmod(0o755)
    info = site / "evil-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: --python=tools/py\nVersion: 1\n")
    (info / "top_level.txt").write_text("requests\n")
    shown = run_wherein("roots", "suggest", "--workspace", str(project), "--json")
    payload = json.loads(shown.stdout)
    assert [p["entry"] for p in payload["packages"]] == ["requests", "PyYAML", "npm:react"]
    words = shlex.split(payload["packages_command"])
    assert words[:2] == ["wherein", "roots"]
    added = run_wherein(*words[1:], env=STATIC)
    assert added.returncode == 0, added.stderr
    assert not marker.exists()


def test_a_package_inside_a_configured_root_is_not_suggested_again(project, monkeypatch):
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    whole = ".venv/lib/python3.11/site-packages"
    suggestions = suggest_roots(project.resolve(), [f"everything={whole}"])
    assert [s.kind for s in suggestions] == ["node", "node", "node"]


def test_roots_suggest_skips_folders_linked_out_of_the_workspace(tmp_path, monkeypatch):
    """A clone can plant `node_modules/x` or a venv's site-packages as a link to the home
    folder; the printed command would index it. Links that stay inside (pnpm) still count."""
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))  # no python3 to fall back on
    outside = write_tree(tmp_path / "home-folder", {"a/key.py": "A = 1\n", "b/key.py": "B = 2\n"})
    ws = write_tree(
        tmp_path / "ws",
        {
            "web/app.js": "import a from 'lodash';\nimport b from 'pnpm-pkg';\n",
            ".venv/pyvenv.cfg": "home = /usr/bin\n",
            "node_modules/.pnpm/pnpm-pkg@1/node_modules/pnpm-pkg/index.js": "module.exports = 1;\n",
        },
    )
    (ws / "node_modules" / "lodash").symlink_to(outside / "a", target_is_directory=True)
    pnpm = ws / "node_modules" / ".pnpm" / "pnpm-pkg@1" / "node_modules" / "pnpm-pkg"
    (ws / "node_modules" / "pnpm-pkg").symlink_to(pnpm, target_is_directory=True)
    (ws / ".venv" / "lib" / "python3.11").mkdir(parents=True)
    site = ws / ".venv" / "lib" / "python3.11" / "site-packages"
    site.symlink_to(outside / "b", target_is_directory=True)
    assert [s.entry for s in suggest_roots(ws.resolve(), [])] == ["pnpm-pkg=node_modules/pnpm-pkg"]


def test_the_suggested_command_adds_every_root_in_one_go(project, monkeypatch):
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    payload = json.loads(
        run_wherein("roots", "suggest", "--workspace", str(project), "--json").stdout
    )
    words = shlex.split(payload["command"])
    assert words[:2] == ["wherein", "config"]
    assert run_wherein(*words[1:]).returncode == 0
    found = run_wherein("search", "Button", "--workspace", str(project), "--json", env=STATIC)
    result = json.loads(found.stdout)
    assert result["warnings"] == []
    assert result["results"][0]["path"] == "ui/button.js"
    again = json.loads(
        run_wherein("roots", "suggest", "--workspace", str(project), "--json").stdout
    )
    assert again["suggestions"] == [] and again["command"] is None


def test_without_a_virtualenv_the_python3_on_path_is_asked(tmp_path, monkeypatch):
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    site = (tmp_path / "fake-python" / "site-packages").resolve()
    site.mkdir(parents=True)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    python = bin_dir / "python3"
    # Asked for purelib (`roots suggest`), or for its site folders as JSON (`roots add`).
    answer = f'if [ "$1" = -I ]; then echo \'["{site}"]\'; else echo {site}; fi'
    python.write_text(f"#!/bin/sh\n{answer}\n")
    python.chmod(0o755)
    (site / "attr").mkdir()
    ws = write_tree(tmp_path / "ws", {"main.py": "import attr\nprint(1)\n"})
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    suggestions = suggest_roots(ws, [])
    assert [(s.entry, s.reason) for s in suggestions] == [
        (
            f"attr={site / 'attr'}",
            f"imported by 1 file (no distribution lists it), in the python3 on PATH ({python})",
        )
    ]
    # `roots add` looks where suggest looked: with no virtualenv, the python3 on PATH, so the
    # command printed runs as printed (and no `scope.python` is written for every workspace).
    (environment,), problem = python_environments(ws, None, inside_only=False)
    assert problem is None and environment.site_packages == (site,)
    assert f"python3 on PATH ({python})" in environment.where


def test_the_python3_on_path_runs_nothing_of_the_workspace(tmp_path, monkeypatch):
    # `python3 -c` imports from the current folder first, and a pyenv shim picks its
    # interpreter by the current folder's `.python-version`: asked from the workspace, a
    # clone's `sysconfig.py` ran. The interpreter is real here; the clone's files are checked.
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(sys.executable)
    marker = tmp_path / "ran"
    planted = f"open({str(marker)!r}, 'a').write('the clone ran')\n"
    ws = write_tree(
        tmp_path / "ws",
        {"main.py": "import attr\n", "sysconfig.py": planted, "json.py": planted},
    )
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.chdir(ws)
    suggest_roots(ws, [])
    python_environments(ws, None, inside_only=False)
    assert not marker.exists()


def test_a_planted_virtualenv_cannot_link_a_package_out_or_hang_on_its_metadata(
    tmp_path, monkeypatch
):
    """A clone's own `.venv` is the clone's: a package folder linked to the home folder is not
    suggested, and metadata planted as a link to /dev/zero or a FIFO is not read."""
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))  # no python3 to fall back on
    outside = write_tree(tmp_path / "home-folder", {"secrets/key.py": "KEY = 1\n"})
    site_rel = ".venv/lib/python3.11/site-packages"
    ws = write_tree(
        tmp_path / "ws",
        {
            "main.py": "import secrets_pkg\nimport requests\nimport yaml\n",
            "other.py": "import requests\n",
            ".venv/pyvenv.cfg": "home = /usr/bin\n",
            f"{site_rel}/requests/__init__.py": "X = 1\n",
            f"{site_rel}/requests-1.0.dist-info/top_level.txt": "requests\n",
            f"{site_rel}/yaml/__init__.py": "X = 1\n",
        },
    ).resolve()
    site = ws / site_rel
    (site / "secrets_pkg").symlink_to(outside / "secrets", target_is_directory=True)
    os.mkfifo(site / "requests-1.0.dist-info" / "METADATA")  # the name comes from the folder
    (site / "PyYAML-6.0.dist-info").mkdir()
    (site / "PyYAML-6.0.dist-info" / "RECORD").symlink_to("/dev/zero")
    (site / "PyYAML-6.0.dist-info" / "top_level.txt").symlink_to(outside / "secrets" / "key.py")
    suggestions = suggest_roots(ws, [])
    assert [(s.entry, s.distributions) for s in suggestions] == [
        (f"requests={site_rel}/requests", ("requests 1.0",)),
        (f"yaml={site_rel}/yaml", ()),
    ]
