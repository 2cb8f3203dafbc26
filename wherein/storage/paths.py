"""The data home: where every index and cache lives, never inside a repository."""

from __future__ import annotations

import errno
import os
from collections.abc import Mapping
from pathlib import Path

__all__ = ["data_home", "model_cache_dir", "permission_refused", "refused_advice", "xdg_base"]


def xdg_base(
    name: str, in_home: str, environ: Mapping[str, str] | None = None, home: Path | None = None
) -> Path:
    """The XDG base directory `$name` when it is an absolute path, else `home/in_home` (the
    user's home unless given).

    The XDG spec has a relative path there ignored: it names a folder of the current
    directory, a cloned repository's, whose `wherein/config.toml` would be taken for the
    user's own file (`XDG_CONFIG_HOME="~/.config"`, quoted so no shell expands it, did that).
    """
    env = os.environ if environ is None else environ
    given = env.get(name, "")
    return Path(given) if os.path.isabs(given) else (home or Path.home()) / in_home


def data_home(environ: Mapping[str, str] | None = None) -> Path:
    """`$WHEREIN_HOME`, else `$XDG_DATA_HOME/wherein`, else `~/.local/share/wherein`."""
    env = os.environ if environ is None else environ
    if env.get("WHEREIN_HOME"):
        return Path(env["WHEREIN_HOME"]).expanduser()
    return xdg_base("XDG_DATA_HOME", ".local/share", env) / "wherein"


def model_cache_dir(environ: Mapping[str, str] | None = None) -> Path:
    """`$XDG_CACHE_HOME/wherein/models`, else `~/.cache/wherein/models`: what is made from the
    bundled models once per machine, shared by every data home."""
    return xdg_base("XDG_CACHE_HOME", ".cache", environ) / "wherein" / "models"


# What SQLite says when a permission, not the disk, refused it (its error names, or its text
# on Python 3.10, which has no names). A read-only mount reads the same: the advice covers it.
_REFUSED_NAMES = ("SQLITE_READONLY", "SQLITE_CANTOPEN", "SQLITE_PERM", "SQLITE_AUTH")
_REFUSED_TEXT = ("readonly", "read-only", "unable to open", "permission denied")
_FULL_ERRNOS = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)
_REFUSED_ERRNOS = (errno.EACCES, errno.EPERM, errno.EROFS)


def refused_advice(folder: Path, err: BaseException) -> str:
    """What to do about a file under the data home that could not be opened or written, by
    its cause: a permission wants `folder` made yours again (freeing disk space would not
    help), a full disk wants space, and a cause neither names wants either. One sentence
    without its full stop, for messages that go on or end it themselves."""
    elsewhere = "or set WHEREIN_HOME to a directory you can write"
    name = getattr(err, "sqlite_errorname", "")
    number = getattr(err, "errno", None)
    text = str(err).lower()
    if number in _FULL_ERRNOS or name.startswith("SQLITE_FULL") or "disk is full" in text:
        return f"Free some disk space, {elsewhere}"
    if (
        number in _REFUSED_ERRNOS
        or name.startswith(_REFUSED_NAMES)
        or any(said in text for said in _REFUSED_TEXT)
    ):
        return (
            f"A permission (or a read-only mount) refused it, not a full disk: give your user "
            f"read and write access to {folder} (chmod u+rwx), {elsewhere}"
        )
    return f"Free some disk space, give your user write access to {folder}, {elsewhere}"


def permission_refused(err: PermissionError) -> str:
    """One sentence for a permission no narrower handler met (a file of the data home that a
    later step reached first): the path it refused and what to do, never a traceback."""
    if not err.filename:
        return f"Permission denied ({err.strerror or err}). {refused_advice(data_home(), err)}."
    path = Path(os.fsdecode(err.filename))
    return f"Permission denied for {path}. {refused_advice(path.parent, err)}."
