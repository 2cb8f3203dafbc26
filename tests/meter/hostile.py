"""Planting what a hostile or broken home can hold, and running a command that must not stall.

A FIFO, a link to `/dev/zero` or a sparse file of gigabytes would hang or exhaust the test run
itself on code that reads them, so commands meeting them run in a child process with its
memory capped and a generous deadline: a regression fails the test instead of the machine.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

__all__ = ["CHILD_MEMORY_BYTES", "CHILD_SECONDS", "plant_special_files", "run_child", "strict_json"]

REPO = Path(__file__).resolve().parents[2]
CHILD_MEMORY_BYTES = 3 << 30  # address space: enough for numpy, far below a read of /dev/zero
CHILD_SECONDS = 300  # a guard against a hang, never a measure of speed
SPARSE_BYTES = 5 << 30  # above every per-file cap, and no disk is written


def plant_special_files(folder: Path, outside: Path) -> dict[str, Path]:
    """A link to a regular file outside `folder`, a link to /dev/zero, a FIFO and a sparse file
    of 5 GiB, each named `<kind>.jsonl` in `folder`; `outside` receives the link's target."""
    folder.mkdir(parents=True, exist_ok=True)
    planted = {kind: folder / f"{kind}.jsonl" for kind in ("linked", "zero", "fifo", "huge")}
    planted["linked"].symlink_to(outside)
    planted["zero"].symlink_to("/dev/zero")
    os.mkfifo(planted["fifo"])
    with open(planted["huge"], "wb") as handle:
        handle.truncate(SPARSE_BYTES)
    return planted


def _limit_memory() -> None:  # pragma: no cover - runs in the child
    resource.setrlimit(resource.RLIMIT_AS, (CHILD_MEMORY_BYTES, CHILD_MEMORY_BYTES))


def run_child(code: str, *args: str, env: dict[str, str] | None = None):
    """Run `python -c code *args` from the repository with this test's environment."""
    environ = dict(os.environ if env is None else env)
    environ["PYTHONPATH"] = str(REPO)
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=REPO,
        env=environ,
        capture_output=True,
        text=True,
        timeout=CHILD_SECONDS,
        preexec_fn=_limit_memory,
        check=False,
    )


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not JSON (RFC 8259)")


def strict_json(text: str):
    """Parse `text` as standard JSON: `NaN`, `Infinity` and `-Infinity` are refused."""
    return json.loads(text, parse_constant=_refuse_constant)
