"""A folder the walk may not list is stamped and watched through its parent: a chmod that
opens it is seen at once, so no search has to walk again to look for it.

Permission bits bind root only without its capabilities to override them (CI runs as root),
so the check runs in a child process without them (`tests.index.processes`).
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

from tests.index.processes import CHILD_TIMEOUT_S, assert_permissions_apply, permission_prefix
from wherein.index.change_check import load_stamp

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify is Linux's")

REPO_ROOT = Path(__file__).resolve().parents[2]

CHECK = textwrap.dedent(
    """
    import json, os, sys
    from pathlib import Path
    from wherein.index.refresh import refresh_index
    from wherein.index.store import open_store
    from wherein.index.change_check import save_stamp
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
    save_stamp(base / "stamp", "key", "1", stamp)
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
    prefix = permission_prefix()
    probe = base / "probe"
    probe.write_text("")
    probe.chmod(0)
    assert_permissions_apply(prefix, probe)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PYTHONPATH": str(REPO_ROOT),
        "HOME": str(base),
        "WHEREIN_HOME": str(base / "home"),
    }
    done = subprocess.run(
        [*prefix, sys.executable, "-c", CHECK, str(base)],
        env=env,
        capture_output=True,
        text=True,
        timeout=CHILD_TIMEOUT_S,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_a_folder_that_may_not_be_listed_is_stamped_and_its_opening_seen():
    base = Path(tempfile.mkdtemp(prefix="wherein-refused-"))
    try:
        os.chmod(base, 0o755)
        seen = _run_unprivileged(base)
        (base / "repo" / "locked").chmod(0)
        # Access that comes with no change time moving (here: root's, for a group joined or
        # another user): the stamp tries the refused folder again, and it opens.
        stamp = load_stamp(base / "stamp", "key", "1")
        assert stamp is not None and stamp.refused == (str(base / "repo" / "locked"),)
        assert stamp.refused_opens() == (os.geteuid() == 0)
    finally:
        for folder, _, _ in os.walk(base):
            os.chmod(folder, 0o755)
        subprocess.run(["rm", "-rf", str(base)], check=False)
    assert seen["unreadable"] == ["locked/ (Permission denied)"]
    assert seen["passing"] == 0  # a refusal lasts until a chmod, which the stamp sees
    assert seen["stamped"] == seen["unreadable"]
    assert seen["before"] == {"watch": False, "stat": True}
    assert seen["after"] == {"watch": True, "stat": False}
