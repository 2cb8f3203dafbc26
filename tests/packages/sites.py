"""Fake but real environments for package tests: a virtualenv layout with `*.dist-info`
folders holding real METADATA and RECORD files beside a small package's source."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import write_tree

SITE = ".venv/lib/python3.12/site-packages"
RENDER = (
    "def render_widget(size):\n"
    "    '''Draw a widget on the canvas, with a border around it.'''\n"
    "    return size * 2\n"
)
COLOURS = "def mix_colours(a, b):\n    '''Blend two paint colours.'''\n    return a + b\n"


def make_venv(workspace: Path, folder: str = ".venv") -> Path:
    """A virtualenv's shape at `workspace/folder`; returns its site-packages."""
    site = workspace / folder / "lib/python3.12/site-packages"
    write_tree(workspace / folder, {"pyvenv.cfg": "home = /usr/bin\n"})
    site.mkdir(parents=True, exist_ok=True)
    return site


def add_distribution(
    site: Path,
    name: str,
    version: str,
    files: dict[str, str | bytes],
    *,
    record: bool = True,
    extra_record: tuple[str, ...] = (),
    top_level: str | None = None,
    direct_url: dict | None = None,
) -> Path:
    """Install `files` and a `name-version.dist-info` that lists them; returns that folder."""
    write_tree(site, files)
    meta = site / f"{name.replace('-', '_')}-{version}.dist-info"
    listing = {
        "METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n\nA library.\n",
    }
    if record:
        rows = [f"{rel},sha256=x,1" for rel in files]
        rows += [f"{meta.name}/METADATA,,", f"{meta.name}/RECORD,,", *extra_record]
        listing["RECORD"] = "\n".join(rows) + "\n"
    if top_level is not None:
        listing["top_level.txt"] = top_level
    if direct_url is not None:
        listing["direct_url.json"] = json.dumps(direct_url)
    write_tree(meta, listing)
    return meta


def widgets_workspace(root: Path, version: str = "1.2.0") -> Path:
    """A workspace whose own .venv has `widgetlib` and, beside it, an unrelated `paintlib`."""
    workspace = write_tree(
        root, {"app.py": "import widgetlib\n\ndef main():\n    widgetlib.render_widget(3)\n"}
    )
    site = make_venv(workspace)
    add_distribution(
        site,
        "widgetlib",
        version,
        {
            "widgetlib/__init__.py": "from .render import render_widget\n",
            "widgetlib/render.py": RENDER,
            "widgetlib/__pycache__/render.cpython-312.pyc": b"\x00\x01",
            "widgetlib/_speedups.so": b"\x7fELF\x00",
        },
        extra_record=("../../../bin/widget,,",),
    )
    add_distribution(site, "paintlib", "0.3", {"paintlib/__init__.py": COLOURS})
    return workspace
