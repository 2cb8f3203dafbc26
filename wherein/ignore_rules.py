"""The ignore files a walk reads, stacked folder by folder as git stacks them.

Rules come from nested `.gitignore` files, `.git/info/exclude` and `.whereinignore`,
matched the way git matches them (`wherein.gitignore`, in time linear in name x pattern
whatever a planted line says). An ignore file is read only if it is a small regular file,
so `.gitignore -> /dev/zero` is one warning; a line that cannot be matched, or is past a
cap, is skipped with a warning naming it.
"""

from __future__ import annotations

import os

from wherein.gitignore import (
    MAX_LINE_WILDCARDS,
    MAX_RULES_IN_FORCE,
    MAX_WILDCARD_LINES,
    IgnoreList,
    TooManyWildcards,
    Unmatchable,
    compile_rule,
    ignore_file_lines,
    is_wildcard_line,
)
from wherein.safe_files import CONTROL_FILE_MAX_BYTES, UnsafeFile, read_regular
from wherein.source_files import FOLDER_FLAGS, ROOT_FLAGS
from wherein.walk_records import Root, WalkReport

__all__ = ["IGNORE_FILE_NAMES", "IgnoreRules", "read_control_file", "read_git_exclude"]

IGNORE_FILE_NAMES = (".gitignore", ".whereinignore")


class IgnoreRules:
    """The stack of ignore files that apply below one directory."""

    def __init__(self, layers: tuple[tuple[bytes, IgnoreList], ...] = ()) -> None:
        self.layers = layers
        # Wildcard lines that apply here, against MAX_WILDCARD_LINES; all lines, against
        # MAX_RULES_IN_FORCE.
        self.wildcards = sum(rules.wildcards for _, rules in layers)
        self.size = sum(rules.size for _, rules in layers)

    def with_files(
        self, rel_dir: bytes, files: list[tuple[str, list[str]]], report: WalkReport
    ) -> IgnoreRules:
        """These rules plus those of `files` ((shown name, lines) of a folder's ignore files);
        `rel_dir` is the folder's path from the root in the bytes of its names."""
        if not any(lines for _, lines in files):
            return self
        rules = _ignore_list(
            files, MAX_WILDCARD_LINES - self.wildcards, MAX_RULES_IN_FORCE - self.size, report
        )
        return IgnoreRules((*self.layers, (rel_dir, rules)))

    def ignored(self, rel: bytes, is_dir: bool) -> bool:
        """Whether `rel` (bytes, from the root) is ignored: as in git, the deepest folder's
        files first, the last line of them that matches deciding."""
        for base, rules in reversed(self.layers):
            verdict = rules.verdict(rel[len(base) + 1 :] if base else rel, is_dir)
            if verdict is not None:
                return verdict
        return False


def _ignore_list(
    files: list[tuple[str, list[str]]], room: int, room_all: int, report: WalkReport
) -> IgnoreList:
    """One folder's ignore rules, with at most `room` wildcard lines and `room_all` lines in
    all. A line git keeps but that can match no path (`!`, a lone `\\`, `foo\\`) is skipped
    with a warning naming it, and so is a line past a cap (`wherein.gitignore`); the other
    lines still apply, but for those past the cap of all lines."""
    rules = []
    for shown, lines in files:
        capped = False
        for number, line in enumerate(lines, 1):
            if len(rules) >= room_all:
                report.warn(
                    f"Skipped line {number} of {shown} and the lines after it: more than "
                    f"{MAX_RULES_IN_FORCE:,} ignore lines apply to this folder, which no real "
                    "project needs; the files they would ignore are indexed."
                )
                return IgnoreList(rules)
            if room <= 0 and is_wildcard_line(line):
                if not capped:
                    capped = True
                    report.warn(
                        f"Skipped line {number} of {shown} ({_quoted(line)}) and the wildcard "
                        f"lines after it: more than {MAX_WILDCARD_LINES:,} wildcard lines "
                        "apply to this folder; write the rest as literal names or `*.ext` "
                        "lines, which have no limit."
                    )
                continue
            try:
                rule = compile_rule(line)
            except Unmatchable:
                report.warn(
                    f"Skipped line {number} of {shown} ({_quoted(line)}): wherein cannot "
                    "match it; fix or remove the line."
                )
                continue
            except TooManyWildcards:
                report.warn(
                    f"Skipped line {number} of {shown} ({_quoted(line)}): it has more than "
                    f"{MAX_LINE_WILDCARDS} `*` wildcards; split it into simpler lines."
                )
                continue
            if rule is not None:
                rules.append(rule)
                room -= rule.glob is not None
    return IgnoreList(rules)


def _quoted(line: str) -> str:
    """The line as Python writes it, cut to its first 80 characters: a planted line may be
    a megabyte long."""
    if len(line) <= 80:
        return repr(line)
    return f"{line[:80]!r}... ({len(line):,} characters)"


def read_control_file(dir_fd: int, name: str, shown: str, report: WalkReport) -> list[str]:
    """The lines of the ignore file `name` in the open folder `dir_fd`; [] for one that is a
    link, a device, a FIFO, too large or unreadable, with one warning naming it (as git says
    "ignoring .gitignore, as it is a symbolic link")."""
    try:
        data = read_regular(name, max_bytes=CONTROL_FILE_MAX_BYTES, dir_fd=dir_fd)
    except UnsafeFile as why:
        report.warn(
            f"Ignored {shown}: {why}; its rules apply once it is a regular file of at most "
            f"{CONTROL_FILE_MAX_BYTES >> 20} MiB."
        )
        return []
    return [] if data is None else ignore_file_lines(data)


def read_git_exclude(root: Root, report: WalkReport) -> list[str]:
    """The lines of the root's `.git/info/exclude`; [] without one (or with `.git` a file,
    as in a worktree).

    The `info` folder and the file are stamped in `report.watched`, as the ignore files in
    the tree are: an edit of the exclude list must end a search's trust in the last walk.
    """
    try:
        fd = os.open(root.path, ROOT_FLAGS)
    except OSError:
        return []  # the walk reports the root itself
    try:
        for name in (".git", "info"):
            inner = os.open(name, FOLDER_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = inner
        folder = os.path.join(root.path, ".git", "info")
        info = os.fstat(fd)
        report.watched.append((folder, info.st_size, info.st_ctime_ns))
        try:
            info = os.stat("exclude", dir_fd=fd, follow_symlinks=False)
        except OSError:
            return []
        report.watched.append((os.path.join(folder, "exclude"), info.st_size, info.st_ctime_ns))
        return read_control_file(fd, "exclude", root.display(".git/info/exclude"), report)
    except OSError:
        return []
    finally:
        os.close(fd)
