"""A folder the walk may not list is stamped and watched through its parent: a chmod that
opens it is seen at once, so no search has to walk again to look for it.

Permissions bind root only without its capabilities to override them (CI runs as root), so
the check runs in a child process that drops CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH first.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify is Linux's")

REPO_ROOT = Path(__file__).resolve().parents[2]

# capset(2) on this process, through libc: clear two bits of the effective set.
DROP_OVERRIDES = textwrap.dedent(
    """
    import ctypes, os
    if os.geteuid() == 0:
        libc = ctypes.CDLL(None, use_errno=True)
        header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3
        data = (ctypes.c_uint32 * 6)()
        if libc.capget(header, data) != 0:
            raise OSError(ctypes.get_errno(), "capget")
        data[0] &= ~((1 << 1) | (1 << 2))  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH
        if libc.capset(header, data) != 0:
            raise OSError(ctypes.get_errno(), "capset")
    """
)

CHECK = DROP_OVERRIDES + textwrap.dedent(
    """
    import json, os, sys
    from pathlib import Path
    from wherein.index.refresh import refresh_index
    from wherein.index.store import open_store
    from wherein.index.tree_watch import TreeWatch
    from wherein.workspace import Root

    base = Path(sys.argv[1])
    repo = base / "repo"
    (repo / "locked").mkdir(parents=True)
    (repo / "app.py").write_text("def parse_cookie(header):\\n    return header\\n")
    (repo / "locked" / "secret.py").write_text("def hidden():\\n    pass\\n")
    os.chmod(repo / "locked", 0)
    store = open_store(base / "home" / "index.db")
    report = refresh_index(store, [Root(repo)], max_file_bytes=1 << 20, workers=0)
    stamp = report.stamp
    watch = TreeWatch(stamp)
    before = {"watch": watch.changed(), "stat": stamp.unchanged()}
    os.chmod(repo / "locked", 0o755)
    after = {"watch": watch.changed(), "stat": stamp.unchanged()}
    print(json.dumps({
        "unreadable": report.unreadable,
        "passing": report.passing_unreadable,
        "stamped": list(stamp.unreadable),
        "before": before,
        "after": after,
    }))
    """
)


def _run_unprivileged(base: Path) -> dict:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PYTHONPATH": str(REPO_ROOT),
        "HOME": str(base),
        "WHEREIN_HOME": str(base / "home"),
    }
    done = subprocess.run(
        [sys.executable, "-c", CHECK, str(base)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_a_folder_that_may_not_be_listed_is_stamped_and_its_opening_seen():
    base = Path(tempfile.mkdtemp(prefix="wherein-refused-"))
    try:
        os.chmod(base, 0o755)
        seen = _run_unprivileged(base)
    finally:
        for folder, _, _ in os.walk(base):
            os.chmod(folder, 0o755)
        subprocess.run(["rm", "-rf", str(base)], check=False)
    assert seen["unreadable"] == ["locked/ (Permission denied)"]
    assert seen["passing"] == 0  # a refusal lasts until a chmod, which the stamp sees
    assert seen["stamped"] == seen["unreadable"]
    assert seen["before"] == {"watch": False, "stat": True}
    assert seen["after"] == {"watch": True, "stat": False}
