"""The command line an agent runs to start `wherein serve`.

The absolute path of the `wherein` script installed next to the running interpreter, because
editors started from a dock or a desktop launcher (Cursor, VS Code, Zed, Windsurf) do not see
the PATH of the user's shell: a bare `wherein` from a virtualenv or pipx would not be found.
When that script is missing (a `pip install --user` puts it elsewhere), the same interpreter
runs the module: `<python> -P -m wherein.cli`. Either way the agent runs the wherein that was
installed, whatever PATH says, and never the project's: an agent starts the server in the
project's folder, which `-m` alone puts first on the import path, so a clone's own `wherein/`
would run. `-P` leaves it out; Python 3.10 has no `-P`, so there the command drops it itself
before it imports anything (`SAFE_PATH_MAIN`; `-I` would drop the user site-packages too,
where `pip install --user` put wherein). `--command` overrides it (split like a shell line, so
`--command "uvx wherein"` works), for a project file shared by a team whose members keep
wherein in different places.
"""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

__all__ = ["SAFE_PATH_MAIN", "server_command"]

SCRIPT_NAME = "wherein"
# `python -c` puts '' (the current folder) first on the import path, after `site` ran.
SAFE_PATH_MAIN = "import sys; del sys.path[0]; from wherein.cli.app import main; sys.exit(main())"


def server_command(override: str | None = None) -> list[str]:
    """The program (and leading arguments) before `serve`."""
    if override and shlex.split(override):
        return shlex.split(override)
    # Not resolved: a virtualenv's python is a symlink to the base interpreter, and following
    # it would lose the virtualenv (and wherein with it).
    interpreter = Path(sys.executable).absolute()
    script = interpreter.parent / SCRIPT_NAME
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script)]
    if sys.version_info >= (3, 11):
        return [str(interpreter), "-P", "-m", "wherein.cli"]
    return [str(interpreter), "-c", SAFE_PATH_MAIN]
