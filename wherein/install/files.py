"""Reading and writing agents' config files safely: atomic replace, a `.bak`, a diff to show.

A config file is replaced whole through a temporary file in the same directory and
`os.replace`, so a crash leaves either the old or the new file, never half of one. The previous
content is kept next to it as `<name>.bak`. A symlinked user file (dotfiles kept in a
repository) is written through the link, so the link survives. A project's file (`.mcp.json`,
`.vscode/mcp.json`, `AGENTS.md`) came with a clone, so it is never read or written through a
link, the file's or a folder's between the project and it: `AGENTS.md -> ~/.bashrc` would
otherwise get wherein's note appended to the shell's start-up file.
"""

from __future__ import annotations

import difflib
import os
import re
import stat
import tempfile
from pathlib import Path

from wherein.errors import ConfigError
from wherein.safe_files import CONTROL_FILE_MAX_BYTES, UnsafeFile, read_regular

__all__ = [
    "BACKUP_SUFFIX",
    "OTHER_BACKUP_SUFFIX",
    "backup_for",
    "delete_file",
    "match_newlines",
    "newline_of",
    "read_text",
    "unified_diff",
    "write_atomic",
]

BACKUP_SUFFIX = ".bak"
# Where a backup goes when `<name>.bak` is someone's own file (a repository commits them).
OTHER_BACKUP_SUFFIX = ".wherein.bak"
# A user's agent file is their own, but ~/.claude.json keeps every project's history and can
# grow to tens of MB; bounded all the same, so a device named there cannot exhaust memory.
USER_FILE_MAX_BYTES = 256 << 20
# A new file gets the mode any editor would give it: read-write for all, less the umask.
NEW_FILE_BASE_MODE = 0o666


def read_text(path: Path, project: Path | None = None) -> str | None:
    """The file's text, or None if it does not exist.

    With `project` (the workspace, for a file of its own) the file is read only as a regular
    file of at most CONTROL_FILE_MAX_BYTES, with no link on the way from `project`; a user's
    file may be a link. Either way a FIFO or device is refused rather than waited on.

    Raises:
        ConfigError: the file exists but cannot be read as UTF-8 text, or is refused.
    """
    if project is not None:
        _refuse_links(path, project)
    try:
        if project is not None:
            data = read_regular(path, max_bytes=CONTROL_FILE_MAX_BYTES)
        else:
            data = read_regular(path, max_bytes=USER_FILE_MAX_BYTES, follow_links=True)
    except UnsafeFile as why:
        limit = " of at most 1 MiB" if project is not None else ""
        raise ConfigError(
            f"Left {path} untouched: {why}; make it a regular file{limit} and run the command "
            "again."
        ) from why
    if data is None:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ConfigError(
            f"Cannot read {path}: {err}. It was left untouched; fix its encoding and run the "
            "command again."
        ) from err


def write_atomic(
    path: Path, text: str, previous: str | None, project: Path | None = None
) -> Path | None:
    """Replace `path` with `text`, keeping `previous` (if any) as `<path>.bak`.

    With `project`, as for `read_text`: no link is written through, checked again here
    since the plan was made.

    Returns:
        The backup's path, or None when there was no previous file.

    Raises:
        ConfigError: the directory or the file cannot be written, or is refused.
    """
    if project is not None:
        _refuse_links(path, project)
    target = path.resolve() if project is None and path.is_symlink() else path
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        backup = None if previous is None else backup_for(target, previous, project)
        if backup is not None:
            _replace_with(backup, previous, _mode_of(target))
        _replace_with(target, text, _mode_of(target))
    except OSError as err:
        raise ConfigError(
            f"Cannot write {path}: {err}. Nothing was changed there; fix its permissions and "
            "run the command again."
        ) from err
    return backup


def backup_for(path: Path, previous: str, project: Path | None) -> Path | None:
    """Where `previous`, the text of `path`, is kept: `<name>.bak`, unless a file there holds
    something else (someone's own backup, never overwritten), then `<name>.wherein.bak`;
    None when both are taken so."""
    for suffix in (BACKUP_SUFFIX, OTHER_BACKUP_SUFFIX):
        candidate = path.with_name(path.name + suffix)
        if not os.path.lexists(candidate):
            return candidate
        try:
            if read_text(candidate, project) == previous:
                return candidate
        except ConfigError:  # a link, a folder, a FIFO there: not ours to replace
            continue
    return None


def delete_file(path: Path) -> None:
    """Remove `path` (an agent file that held only wherein's entry).

    Raises:
        ConfigError: the file cannot be removed.
    """
    try:
        path.unlink(missing_ok=True)
    except OSError as err:
        raise ConfigError(
            f"Cannot remove {path}: {err}. Fix its permissions and run the command again."
        ) from err


def unified_diff(path: Path, before: str | None, after: str | None) -> str:
    """A unified diff from `before` to `after`; None stands for "no file"."""
    lines = difflib.unified_diff(
        (before or "").splitlines(keepends=True),
        (after or "").splitlines(keepends=True),
        fromfile=str(path) if before is not None else "/dev/null",
        tofile=str(path) if after is not None else "/dev/null",
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def newline_of(text: str) -> str:
    """ "\r\n" for a file written with CRLF throughout, else "\n"."""
    if "\r\n" in text and "\n" not in text.replace("\r\n", ""):
        return "\r\n"
    return "\n"


def match_newlines(original: str, edited: str) -> str:
    """`edited` with the lines it added ending like `original`'s (CRLF files stay CRLF)."""
    if newline_of(original) == "\r\n":
        return re.sub(r"(?<!\r)\n", "\r\n", edited)
    return edited


def _refuse_links(path: Path, project: Path) -> None:
    """Raise ConfigError if `path`, or an existing folder between `project` and it, is a link.

    Raises:
        ConfigError: names the link and what to do.
    """
    parts = path.relative_to(project).parts
    current = project
    for part in parts:
        current = current / part
        try:
            info = os.lstat(current)
        except FileNotFoundError:
            return  # created by the write, as a real folder or file
        except OSError as err:
            raise ConfigError(
                f"Left {path} untouched: {current} cannot be read ({err.strerror or err}); "
                "fix its permissions and run the command again."
            ) from err
        if stat.S_ISLNK(info.st_mode):
            raise ConfigError(
                f"Left {path} untouched: {current} is a symbolic link, and wherein writes a "
                "project's agent files only inside the project; replace the link with a real "
                "file or folder, or install for the user instead."
            )


def _mode_of(path: Path) -> int:
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        umask = os.umask(0)  # reading the umask means setting it; put it straight back
        os.umask(umask)
        return NEW_FILE_BASE_MODE & ~umask


def _replace_with(path: Path, text: str, mode: int) -> None:
    descriptor, temporary = tempfile.mkstemp(
        dir=path.parent, prefix=f".{path.name}.", suffix=".tmp"
    )
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
