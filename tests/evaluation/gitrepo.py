"""Real git repositories with scripted histories, made in a temp folder for the tests."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

# A fixed author and clock: every commit id and date in a test is the same on each run.
AUTHOR = {
    "GIT_AUTHOR_NAME": "Test Author",
    "GIT_AUTHOR_EMAIL": "author@example.invalid",
    "GIT_COMMITTER_NAME": "Test Author",
    "GIT_COMMITTER_EMAIL": "author@example.invalid",
}
START_TIME = 1_700_000_000
STEP_S = 3600


class GitRepo:
    """A repository whose commits a test writes one by one, oldest first."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.clock = START_TIME
        root.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q", "-b", "main")

    def git(self, *args: str, stdin: bytes | None = None) -> str:
        env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
        stamp = f"{self.clock} +0000"
        env.update(AUTHOR, GIT_AUTHOR_DATE=stamp, GIT_COMMITTER_DATE=stamp)
        done = subprocess.run(
            ["git", "-C", str(self.root), *args],
            input=stdin,
            capture_output=True,
            env=env,
            check=True,
        )
        return done.stdout.decode("utf-8", "replace").strip()

    def write(self, path: str, content: str | bytes) -> None:
        target = self.root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")

    def commit(
        self,
        subject: str,
        files: dict[str, str | bytes] | None = None,
        remove: tuple[str, ...] = (),
        move: dict[str, str] | None = None,
    ) -> str:
        """Write `files`, `git rm` the `remove`d ones, `git mv` old -> new, commit; its id."""
        for old, new in (move or {}).items():
            (self.root / new).parent.mkdir(parents=True, exist_ok=True)
            self.git("mv", old, new)
        for path, content in (files or {}).items():
            self.write(path, content)
            self.git("add", path)
        for path in remove:
            self.git("rm", "-q", path)
        self.clock += STEP_S
        self.git("commit", "-q", "--allow-empty", "-m", subject)
        return self.git("rev-parse", "HEAD")

    def commit_raw(self, message: bytes, files: dict[str, str] | None = None) -> str:
        """A commit whose message bytes are stored as given (git commit would re-encode
        invalid UTF-8 as Latin-1), made with `git hash-object` and moved to by the branch."""
        for path, content in (files or {}).items():
            self.write(path, content)
            self.git("add", path)
        self.clock += STEP_S
        tree = self.git("write-tree")
        parent = self.git("rev-parse", "HEAD")
        who = f"Test Author <author@example.invalid> {self.clock} +0000"
        body = f"tree {tree}\nparent {parent}\nauthor {who}\ncommitter {who}\n\n".encode()
        sha = self.git("hash-object", "-t", "commit", "-w", "--stdin", stdin=body + message)
        self.git("update-ref", "refs/heads/main", sha)
        self.git("reset", "-q", "--mixed", sha)
        return sha
