"""Which Python environment a workspace's package names resolve in, found without running it.

In order: `scope.python` (`roots add --python PATH`: an interpreter or a virtualenv folder),
the active virtualenv (`$VIRTUAL_ENV`), then the one virtualenv at the top of the workspace
(a folder holding `pyvenv.cfg`, such as `.venv` or `venv`): the first that has the name.
Two there is a question only the user can answer, so it is asked, not guessed. A
virtualenv's site-packages is found by its layout (`lib/python3.X/site-packages`), so nothing
runs; only an interpreter that is not a virtualenv's is asked, isolated (`-I -S`: no site,
no current folder, no `PYTHON*` variables), so none of the user's code is imported.

Names from a workspace's own `.wherein.toml` resolve only in a virtualenv inside the
workspace (`inside_only`): a clone may name packages, never an environment elsewhere.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

__all__ = ["PythonEnvironment", "ask_site_packages", "python_environments", "venv_site_packages"]

# `python -c ...` through a version manager's shim can take a second; never hang on it.
PYTHON_PROBE_TIMEOUT_S = 10.0
_SITE_PATHS = (
    "import json, sysconfig; p = sysconfig.get_paths(); print(json.dumps([p['purelib'], "
    "p['platlib']]))"
)


@dataclass(frozen=True)
class PythonEnvironment:
    """The site-packages folders of one environment, and how to name it in a message."""

    site_packages: tuple[Path, ...]
    where: str


def python_environments(
    workspace: Path, python: str | None, *, inside_only: bool
) -> tuple[list[PythonEnvironment], str | None]:
    """The environments to look a name up in, in order, and what kept one out (a sentence).

    `scope.python` alone when it is set; else the active virtualenv, then the workspace's one.
    """
    if python and not inside_only:
        found = _from_python(python)
        return ([], found) if isinstance(found, str) else ([found], None)
    environments: list[PythonEnvironment] = []
    active = os.environ.get("VIRTUAL_ENV")
    if active and (not inside_only or _inside(workspace, Path(active))):
        sites = venv_site_packages(Path(active))
        if sites:
            environments.append(PythonEnvironment(sites, f"the active virtualenv {active}"))
    venvs = workspace_venvs(workspace)
    if len(venvs) > 1:
        names = " and ".join(v.name for v in venvs)
        return environments, (
            f"the workspace holds two Python environments ({names}): say which one with "
            f"'wherein roots add NAME --python {workspace / venvs[0].name}/bin/python', "
            "or activate it"
        )
    for venv in venvs:
        sites = tuple(s for s in venv_site_packages(venv) if _inside(workspace, s))
        if sites and all(sites != e.site_packages for e in environments):
            environments.append(PythonEnvironment(sites, f"the workspace's virtualenv {venv.name}"))
    if environments:
        return environments, None
    if inside_only:
        return [], (
            "names from the workspace's .wherein.toml resolve only in a virtualenv inside the "
            "workspace, and it has none: add them to your own config with 'wherein roots add "
            "NAME --user'"
        )
    # As `wherein roots suggest` looks: with no virtualenv, the python3 a shell would run.
    on_path = shutil.which("python3")
    found = _from_python(on_path) if on_path else None
    if isinstance(found, PythonEnvironment):
        return [PythonEnvironment(found.site_packages, f"the python3 on PATH ({on_path})")], None
    return [], (
        "no Python environment was found (no active virtualenv, no .venv in the workspace, "
        "no python3 on PATH): name one with 'wherein roots add NAME --python PATH'"
    )


def workspace_venvs(workspace: Path) -> list[Path]:
    """The virtualenvs at the top of the workspace (folders holding `pyvenv.cfg`)."""
    try:
        return sorted(
            p for p in workspace.iterdir() if not p.is_symlink() and (p / "pyvenv.cfg").is_file()
        )
    except OSError:
        return []


def venv_site_packages(prefix: Path) -> tuple[Path, ...]:
    """A virtualenv's site-packages folders, by its layout (POSIX, then Windows)."""
    found = sorted(prefix.glob("lib/python3*/site-packages")) + sorted(
        prefix.glob("Lib/site-packages")
    )
    return tuple(p for p in found if p.is_dir())


def ask_site_packages(python: str) -> tuple[Path, ...]:
    """The purelib and platlib folders of the interpreter `python`, asked in isolated mode;
    () when it does not answer. Not for a virtualenv's interpreter: without `site` it reports
    its base installation's folders (`venv_site_packages` reads a virtualenv's layout).

    Asked from the root folder, never the workspace: a clone's `sysconfig.py` would be
    imported from the current folder without `-I`, and a pyenv shim picks the interpreter
    by a `.python-version` file in the current folder.
    """
    try:
        done = subprocess.run(
            [python, "-I", "-S", "-c", _SITE_PATHS],
            capture_output=True,
            text=True,
            timeout=PYTHON_PROBE_TIMEOUT_S,
            check=False,
            cwd=os.sep,
        )
        paths = json.loads(done.stdout) if done.returncode == 0 else []
    except (OSError, subprocess.TimeoutExpired, ValueError):
        return ()
    unique = dict.fromkeys(Path(p) for p in paths if isinstance(p, str) and p)
    return tuple(p for p in unique if p.is_dir())


def _from_python(python: str) -> PythonEnvironment | str:
    given = Path(python).expanduser()
    # bin/python of a virtualenv links to the base interpreter: judge the link's folder.
    prefix = given if given.is_dir() else given.parent.parent
    if (prefix / "pyvenv.cfg").is_file():
        sites = venv_site_packages(prefix)
    elif given.is_dir():
        return f"{given} (scope.python) is a folder but not a virtualenv: name its python"
    else:
        sites = ask_site_packages(str(given))
    if not sites:
        return (
            f"the Python {given} (scope.python) has no site-packages it would say: name an "
            "interpreter that runs, or a virtualenv folder"
        )
    return PythonEnvironment(sites, f"the Python {given}")


def _inside(workspace: Path, path: Path) -> bool:
    try:
        return path.resolve().is_relative_to(workspace.resolve())
    except (OSError, RuntimeError):
        return False
