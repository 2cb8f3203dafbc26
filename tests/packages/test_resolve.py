"""Resolving `scope.packages` entries: a distribution's own files, and every bad input a
clear sentence, never a walk of the whole environment."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.helpers import write_tree
from tests.packages.sites import SITE, add_distribution, make_venv, widgets_workspace
from wherein.config import load_settings
from wherein.packages.plan import resolve_packages
from wherein.packages.resolve import Package, parse_entry, resolve_package


@pytest.fixture(autouse=True)
def no_active_virtualenv(monkeypatch):
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)


def resolve(workspace, entry, python=None, inside_only=False):
    return resolve_package(workspace.resolve(), entry, python=python, inside_only=inside_only)


def test_a_distribution_is_its_record_source_files_only(tmp_path):
    workspace = widgets_workspace(tmp_path / "ws")
    found = resolve(workspace, "widgetlib")
    assert isinstance(found, Package)
    assert (found.ecosystem, found.label) == ("pypi", "widgetlib@1.2.0")
    assert found.base == (workspace / SITE).resolve()
    # No byte code, native library, metadata, script outside the site-packages, or neighbour.
    assert found.files == ("widgetlib/__init__.py", "widgetlib/render.py")
    assert found.where == "the workspace's virtualenv .venv"


def test_entries_parse_with_ecosystems_versions_and_scopes():
    assert parse_entry("httpx") == parse_entry("httpx ")
    assert (parse_entry("httpx@0.28.1").name, parse_entry("httpx@0.28.1").version) == (
        "httpx",
        "0.28.1",
    )
    scoped = parse_entry("npm:@types/node@22.1.0")
    assert (scoped.ecosystem, scoped.name, scoped.version) == ("npm", "@types/node", "22.1.0")
    assert parse_entry("npm:@types/node").version is None
    assert parse_entry("  ") is None


def test_a_name_that_is_not_installed_says_where_it_looked(tmp_path):
    workspace = widgets_workspace(tmp_path / "ws")
    said = resolve(workspace, "requests")
    assert said == (
        "Package 'requests' (scope.packages) is skipped: no distribution 'requests' is "
        "installed in the workspace's virtualenv .venv."
    )


def test_a_pinned_version_that_is_not_installed_is_refused(tmp_path):
    workspace = widgets_workspace(tmp_path / "ws")
    said = resolve(workspace, "widgetlib@9.9")
    assert "version '9.9' is named but '1.2.0' is installed" in said
    assert isinstance(resolve(workspace, "widgetlib@1.2.0"), Package)


def test_an_editable_install_names_its_source_folder(tmp_path):
    workspace = write_tree(tmp_path / "ws", {"app.py": "import mine\n"})
    site = make_venv(workspace)
    source = tmp_path / "src-tree"
    add_distribution(
        site,
        "mine",
        "0.1",
        {"__editable__.mine-0.1.pth": f"{source}\n"},
        direct_url={"url": f"file://{source}", "dir_info": {"editable": True}},
    )
    said = resolve(workspace, "mine")
    assert f"mine 0.1 is an editable install of {source}" in said
    assert f"scope.source_roots {source}" in said


def test_without_a_record_the_top_level_folder_is_listed(tmp_path):
    workspace = write_tree(tmp_path / "ws", {})
    site = make_venv(workspace)
    files = {"oldlib/__init__.py": "X = 1\n", "oldlib/core.py": "def core(): pass\n"}
    add_distribution(site, "oldlib", "2.0", files, record=False, top_level="oldlib\n")
    write_tree(site, {"neighbour/x.py": "Y = 2\n"})
    found = resolve(workspace, "oldlib")
    assert found.files == ("oldlib/__init__.py", "oldlib/core.py")


def test_without_a_record_a_shared_namespace_folder_is_refused_not_walked(tmp_path):
    workspace = write_tree(tmp_path / "ws", {})
    site = make_venv(workspace)
    add_distribution(
        site,
        "google-thing",
        "1.0",
        {"google/thing/a.py": "A = 1\n"},
        record=False,
        top_level="google\n",
    )
    write_tree(site, {"google/other/b.py": "B = 1\n"})
    said = resolve(workspace, "google-thing")
    assert "its folder 'google' is a namespace package" in said
    assert "reinstall it with pip" in said


def test_with_a_record_a_namespace_package_is_only_its_own_files(tmp_path):
    workspace = write_tree(tmp_path / "ws", {})
    site = make_venv(workspace)
    add_distribution(site, "google-thing", "1.0", {"google/thing/a.py": "A = 1\n"})
    add_distribution(site, "google-other", "2.0", {"google/other/b.py": "B = 1\n"})
    assert resolve(workspace, "google_thing").files == ("google/thing/a.py",)
    assert resolve(workspace, "Google.Other").files == ("google/other/b.py",)


def test_two_environments_in_the_workspace_are_a_question_not_a_guess(tmp_path):
    workspace = widgets_workspace(tmp_path / "ws")
    make_venv(workspace, "venv")
    said = resolve(workspace, "widgetlib")
    assert "the workspace holds two Python environments (.venv and venv)" in said
    assert "--python" in said
    assert isinstance(resolve(workspace, "widgetlib", python=str(workspace / ".venv")), Package)


def test_an_npm_package_and_a_pnpm_link_resolve_to_the_package_folder(tmp_path):
    store = "node_modules/.pnpm/left-pad@1.3.0/node_modules/left-pad"
    workspace = write_tree(
        tmp_path / "ws",
        {
            "node_modules/react/package.json": json.dumps({"name": "react", "version": "18.3.1"}),
            "node_modules/react/index.js": "module.exports = {};\n",
            "node_modules/react/dist/react.js": "function createElement() {}\n",
            "node_modules/react/dist/react.js.map": "{}",
            "node_modules/react/node_modules/inner/index.js": "nested install\n",
            f"{store}/package.json": json.dumps({"name": "left-pad", "version": "1.3.0"}),
            f"{store}/index.js": "function leftPad() {}\n",
        },
    )
    os.symlink(workspace / store, workspace / "node_modules/left-pad")
    react = resolve(workspace, "npm:react")
    assert (react.label, react.files) == (
        "react@18.3.1",
        ("react/dist/react.js", "react/index.js", "react/package.json"),
    )
    linked = resolve(workspace, "left-pad", inside_only=True)  # no Python env: npm is tried
    assert linked.label == "left-pad@1.3.0"
    assert linked.base == (workspace / store).resolve().parent
    assert linked.files == ("left-pad/index.js", "left-pad/package.json")
    assert "a link, as pnpm makes" in linked.where


def test_manifests_nested_past_the_parser_are_a_skipped_package_not_a_crash(tmp_path):
    """A cloned repository's own package.json, one in its node_modules, or a direct_url.json
    in its virtualenv, nested 100,000 deep: json raises RecursionError, not ValueError."""
    from wherein.packages.suggest import suggest_packages

    deep = "[" * 100_000 + "]" * 100_000
    workspace = write_tree(
        tmp_path / "ws",
        {
            "package.json": '{"dependencies": ' + deep + "}",
            "node_modules/foo/package.json": '{"version": "1.0.0", "x": ' + deep + "}",
            "node_modules/foo/index.js": "module.exports = 1;\n",
        },
    )
    said = resolve(workspace, "npm:foo", inside_only=True)
    assert isinstance(said, str) and "package.json cannot be read" in said
    assert suggest_packages(workspace, [], []) == []


def test_a_workspace_file_cannot_reach_outside_the_workspace(tmp_path, monkeypatch):
    """A clone's .wherein.toml names packages; they resolve only in its own .venv and
    node_modules, never in the user's active virtualenv or through a link leading out."""
    outside = tmp_path / "elsewhere"
    site = make_venv(outside)
    add_distribution(site, "secretlib", "1.0", {"secretlib/__init__.py": "TOKEN = 1\n"})
    write_tree(outside, {"npmpkg/package.json": json.dumps({"name": "x", "version": "1"})})
    workspace = write_tree(
        tmp_path / "ws",
        {".wherein.toml": '[scope]\npackages = ["secretlib", "npm:npmpkg"]\npython = "/x"\n'},
    )
    (workspace / "node_modules").mkdir()
    os.symlink(outside / "npmpkg", workspace / "node_modules/npmpkg")
    monkeypatch.setenv("VIRTUAL_ENV", str(outside / ".venv"))
    settings = load_settings(workspace.resolve())
    assert any("scope.python" in w for w in settings.warnings)  # refused from a workspace file
    packages, problems = resolve_packages(workspace.resolve(), settings)
    assert packages == []
    assert "resolve only in a virtualenv inside the workspace" in problems[0]
    assert "leads outside the workspace" in problems[1]
    # The same names from the user's own environment do resolve in the active virtualenv.
    found = resolve(workspace, "secretlib")
    assert found.where == f"the active virtualenv {outside / '.venv'}"


def test_a_real_virtualenv_named_by_its_python(tmp_path):
    venv = tmp_path / "env"
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120
    )
    site = next(venv.glob("lib/python3*/site-packages"))
    add_distribution(site, "widgetlib", "1.2.0", {"widgetlib/__init__.py": "X = 1\n"})
    workspace = write_tree(tmp_path / "ws", {})
    found = resolve(workspace, "widgetlib", python=str(venv / "bin" / "python"))
    assert found.base == site and found.files == ("widgetlib/__init__.py",)
