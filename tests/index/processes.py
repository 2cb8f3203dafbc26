"""Run the real `wherein` command in a subprocess, optionally without root's file-permission bypass.

The suite runs as root in CI, and root ignores permission bits. Dropping
CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH from the child's capability bounding set
(util-linux `setpriv`) makes the kernel apply the bits to it like to anyone else,
while it keeps uid 0 and so can still read the interpreter under /root.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

DAC_CAPABILITIES = "-dac_override,-dac_read_search"
# Generous: a wedged child must fail the test, not hang the suite.
CHILD_TIMEOUT_S = 180


def permission_prefix() -> list[str]:
    """The command prefix under which permission bits apply; skips the test if none exists."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: cannot make permission bits apply")
    return [setpriv, f"--bounding-set={DAC_CAPABILITIES}", f"--inh-caps={DAC_CAPABILITIES}"]


def assert_permissions_apply(prefix: Sequence[str], unreadable: Path) -> None:
    """Fail (never skip) if the child could still read a file whose mode forbids it."""
    probe = subprocess.run(
        [*prefix, sys.executable, "-c", f"open({str(unreadable)!r}, 'rb')"],
        capture_output=True,
        text=True,
        timeout=CHILD_TIMEOUT_S,
    )
    assert probe.returncode != 0 and "PermissionError" in probe.stderr, probe.stderr


def wherein_command(*args: str, prefix: Sequence[str] = ()) -> list[str]:
    return [*prefix, sys.executable, "-m", "wherein.cli", *args]


def run_wherein(
    *args: str,
    prefix: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """Run `wherein ARGS` with the test's environment plus `env`; output is kept as bytes."""
    return subprocess.run(
        wherein_command(*args, prefix=prefix),
        capture_output=True,
        env={**os.environ, **(env or {})},
        cwd=cwd,
        timeout=CHILD_TIMEOUT_S,
    )


def assert_one_sentence(stderr: str | bytes) -> str:
    """The CLI's failure contract: one line on stderr, `wherein: ...`, ending in a full stop."""
    text = stderr.decode("utf-8") if isinstance(stderr, bytes) else stderr
    assert "Traceback" not in text, text
    lines = text.strip().splitlines()
    assert len(lines) == 1, text
    assert lines[0].startswith("wherein: ") and lines[0].endswith("."), text
    return lines[0]
