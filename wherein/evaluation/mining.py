"""Read a repository's recent history through the `git` command: commits, subjects, changes.

One `git log` call lists up to N non-merge commits with their subjects and changed files
(`-z`, renames detected), and one `git ls-tree` lists the files at HEAD; everything else is
parsing. Nothing is written into the repository: git runs with optional locks off and with
the options a planted `.git/config` could turn into a command (signature checks, external
diffs, text conversion, colour, a pager) set on the command line, which wins over any file.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from wherein.errors import UsageError, WorkspaceError

__all__ = ["Commit", "FileChange", "History", "parse_log", "parse_since", "read_history"]

# `-c` beats every config file, so a repository's own .git/config cannot set these.
GIT_SETTINGS = (
    "core.fsmonitor=false",
    "log.showSignature=false",
    "color.ui=never",
    "core.pager=cat",
    "i18n.logOutputEncoding=UTF-8",
)
GIT_OPTIONS = tuple(part for setting in GIT_SETTINGS for part in ("-c", setting))
# GIT_ALLOW_PROTOCOL lists the transports git may use; this one names none of them.
NO_PROTOCOL = "none"
LOG_OPTIONS = (
    "--no-merges",
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    "--no-show-signature",
    "--no-relative",
    # Names only through the format's `%s`, so no mailmap: git would read the worktree's
    # `.mailmap` (or `mailmap.file`) whole, and a planted FIFO there hangs it.
    "--no-mailmap",
    "--find-renames",
    "--name-status",
    "-z",
    # The order file named here wins over `diff.orderFile`, which git reads whole and
    # unbounded: a planted FIFO hangs it, a planted /dev/zero fills the memory.
    f"-O{os.devnull}",
)
# A record separator opens each commit: `%x1e<sha>%x00<committer time>%x00<subject>`; `-z`
# ends it with a NUL, and a newline starts its first changed file's status.
COMMIT_FORMAT = "--format=%x1e%H%x00%ct%x00%s"
COMMIT_MARK = "\x1e"
# Variables that would point git at another repository than the workspace's.
GIT_LOCATION_VARIABLES = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_NAMESPACE",
    "GIT_PREFIX",
)
# A bound on one git call: the 1,000 commits eval mines by default take seconds even on a
# large monorepo, but a config file git reads (an `include.path`) can be a FIFO that never ends.
GIT_TIMEOUT_S = 600.0
# Statuses that name two paths (old, new) in `--name-status -z` output.
TWO_PATH_STATUSES = frozenset("RC")


@dataclass(frozen=True)
class FileChange:
    """One changed file of a commit, with paths relative to the repository's top folder."""

    status: str  # A, M, D, T, R (renamed) or C (copied), as git writes it
    path: str  # the path after the change
    old_path: str | None = None  # the path before a rename or copy


@dataclass(frozen=True)
class Commit:
    """A non-merge commit as `git log` lists it."""

    sha: str
    time: int  # committer time, seconds since the epoch
    subject: str | None  # None when the subject is not valid UTF-8
    changes: tuple[FileChange, ...]


@dataclass(frozen=True)
class History:
    """What eval mines: recent commits, newest first, and the files at HEAD."""

    top: Path  # the repository's top folder
    git_dir: Path  # where git keeps it: outside `top` for a worktree, a submodule, a `.git` file
    prefix: str  # the workspace relative to `top`, "" or ending in "/"
    head: str  # HEAD's commit id
    branch: str | None  # None when HEAD is detached
    shallow: bool
    commits: tuple[Commit, ...]
    head_files: frozenset[str]  # relative to `top`


def parse_since(text: str | None) -> str | None:
    """`--since` as the ISO date git is given; None for no limit.

    Raises:
        UsageError: the text is not a date (git itself would read nonsense as "now").
    """
    if text is None:
        return None
    try:
        datetime.fromisoformat(text.strip())
    except ValueError as err:
        raise UsageError(
            f"--since {text!r} is not a date: give a day as YYYY-MM-DD (or an ISO time)."
        ) from err
    return text.strip()


def read_history(workspace: Path, *, commits: int, since: str | None = None) -> History:
    """The `commits` most recent non-merge commits reachable from HEAD, and HEAD's files.

    Raises:
        UsageError: `commits` is below 1.
        WorkspaceError: git is missing, the workspace is not in a git repository, git
            refuses it (another owner), or it has no commit yet.
    """
    if commits < 1:
        raise UsageError(f"--commits {commits} is not allowed: mine at least 1 commit.")
    top = Path(_git(workspace, "rev-parse", "--show-toplevel").decode().strip("\n"))
    prefix = _git(workspace, "rev-parse", "--show-prefix").decode().strip("\n")
    git_dir = Path(_git(workspace, "rev-parse", "--absolute-git-dir").decode().strip("\n"))
    try:
        head = _git(workspace, "rev-parse", "--verify", "--quiet", "HEAD^{commit}").decode()
    except WorkspaceError:
        head = ""
    if not head.strip():
        raise WorkspaceError(
            f"The git repository at {top} has no commit yet: eval asks the questions its "
            "commits answer. Commit some work first."
        )
    branch = _git(workspace, "symbolic-ref", "--quiet", "--short", "HEAD", check=False)
    shallow = _git(workspace, "rev-parse", "--is-shallow-repository").strip() == b"true"
    log = [*LOG_OPTIONS, COMMIT_FORMAT, f"--max-count={commits}"]
    if since is not None:
        log.append(f"--since={since}")
    raw_log = _git(top, "log", *log, "HEAD", "--")
    files = _git(top, "ls-tree", "-r", "-z", "--name-only", "--full-tree", "HEAD")
    return History(
        top=top,
        git_dir=git_dir,
        prefix=prefix,
        head=head.strip(),
        branch=branch.decode("utf-8", "replace").strip() or None,
        shallow=shallow,
        commits=tuple(parse_log(raw_log)),
        head_files=frozenset(_path(p) for p in files.split(b"\0") if p),
    )


def parse_log(raw: bytes) -> list[Commit]:
    """Commits from `git log -z --name-status` output in `COMMIT_FORMAT`, in its order.

    Paths are named as the index names them (undecodable bytes as `\\xNN` escapes, see
    `wherein.workspace.display_name`); a subject that is not UTF-8 becomes None.
    """
    fields = raw.split(b"\0")
    commits: list[Commit] = []
    i, count = 0, len(fields)
    while i < count:
        field = fields[i].lstrip(b"\n")
        if not field.startswith(COMMIT_MARK.encode()) or i + 2 >= count:
            i += 1  # not a commit header: nothing else can start here
            continue
        sha = field[1:].decode("ascii", "replace")
        time_text, subject_bytes = fields[i + 1], fields[i + 2]
        i += 3
        changes: list[FileChange] = []
        while i < count:
            status = fields[i].lstrip(b"\n")
            if status.startswith(COMMIT_MARK.encode()):
                break
            if not status:  # the empty field between a commit without changes and the next
                i += 1
                continue
            kind = chr(status[0])
            width = 2 if kind in TWO_PATH_STATUSES else 1
            paths = [_path(p) for p in fields[i + 1 : i + 1 + width]]
            i += 1 + width
            if len(paths) < width:
                break
            if width == 2:
                changes.append(FileChange(kind, paths[1], paths[0]))
            else:
                changes.append(FileChange(kind, paths[0]))
        commits.append(Commit(sha, _int(time_text), _subject(subject_bytes), tuple(changes)))
    return commits


def _path(raw: bytes) -> str:
    return raw.decode("utf-8", "backslashreplace")


def _subject(raw: bytes) -> str | None:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _int(raw: bytes) -> int:
    try:
        return int(raw)
    except ValueError:
        return 0


def _environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in GIT_LOCATION_VARIABLES}
    # No prompt can wait on a terminal, and no optional write (an index refresh) happens.
    env.update(GIT_TERMINAL_PROMPT="0", GIT_OPTIONAL_LOCKS="0", GIT_PAGER="cat", LC_ALL="C")
    # No transport at all: a repository set up as a partial clone (`extensions.partialClone`)
    # has git fetch the objects it lacks, through its own `core.sshCommand` or
    # `remote.<name>.uploadpack`, programs its `.git/config` names. The variable overrides
    # every `protocol.*.allow` of any config (git-config(1)); the second stops the lazy
    # fetch itself, on git 2.44 and later.
    env.update(GIT_ALLOW_PROTOCOL=NO_PROTOCOL, GIT_NO_LAZY_FETCH="1")
    return env


def _git(where: Path, *args: str, check: bool = True) -> bytes:
    """Run one git command in `where`; its stdout, or a WorkspaceError saying what to do."""
    command = ["git", *GIT_OPTIONS, "-C", str(where), *args]
    try:
        done = subprocess.run(
            command,
            capture_output=True,
            env=_environment(),
            stdin=subprocess.DEVNULL,
            timeout=GIT_TIMEOUT_S,
        )
    except FileNotFoundError as err:
        raise WorkspaceError(
            "git was not found on PATH: wherein eval reads the history with it. Install git."
        ) from err
    except subprocess.TimeoutExpired as err:
        raise WorkspaceError(
            f"git {args[0]} gave no answer within {GIT_TIMEOUT_S:g} s in {where}: a config file "
            "it reads may be a FIFO (check .git/config's include paths), or the history is "
            "too large. Lower --commits or set --since."
        ) from err
    if done.returncode == 0 or not check:
        return done.stdout if done.returncode == 0 else b""
    message = done.stderr.decode("utf-8", "replace")
    if "dubious ownership" in message:
        raise WorkspaceError(
            f"git refuses to read {where}: it belongs to another user (git's safe.directory "
            f"check). If you trust it, run 'git config --global --add safe.directory {where}'."
        )
    if "not a git repository" in message.lower():
        raise WorkspaceError(
            f"{where} is not inside a git repository: wherein eval mines its questions from "
            "git history. Pass --workspace with a git checkout."
        )
    first = next((line for line in message.splitlines() if line.strip()), "no message")
    raise WorkspaceError(
        f"git {args[0]} failed in {where} ({first.strip()}). Check that the repository is intact."
    )
