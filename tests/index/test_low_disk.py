"""A disk too full for the waiting vectors is said by `status`, the MCP status and a search.

A run stopped by a full disk cannot keep its reason in the index it failed to write, so the
disk itself is asked. A real small disk: a 64 MB tmpfs mounted in a mount namespace of the
test's own (skipped where this machine cannot make one).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import DEMO_REPO, write_tree
from wherein.storage.room import MIN_ROOM_BYTES

SCRIPT = """
set -e
mount -t tmpfs -o size=64m tmpfs "$MNT"
export WHEREIN_HOME="$MNT/home"
run() { "$PYTHON" -m wherein.cli "$@" --workspace "$REPO"; }
run search "add a route" --json > /dev/null
run status --json > "$OUT/roomy.json"
"$PYTHON" -c "
import os, sys
free = os.statvfs(sys.argv[1]).f_bavail * os.statvfs(sys.argv[1]).f_frsize
with open(os.path.join(sys.argv[1], 'filler'), 'wb') as f:
    f.write(bytes(free - int(sys.argv[2])))
" "$MNT" "$LEFT"
run status --json > "$OUT/full.json"
run status > "$OUT/full.txt"
run search "add a route" --json > "$OUT/search.json"
"$PYTHON" -c "
import json, sys
from pathlib import Path
from wherein.config import load_settings
from wherein.plugin.status import describe_status
fields, lines = describe_status(Path(sys.argv[1]), load_settings(Path(sys.argv[1])), False)
print(json.dumps({'index': fields['index'], 'lines': lines}))
" "$REPO" > "$OUT/mcp.json"
rm "$MNT/filler"
run status --json > "$OUT/freed.json"
"""


def _namespace_command() -> list[str] | None:
    unshare = shutil.which("unshare")
    if unshare is None:
        return None
    return [unshare, "-m"] if os.geteuid() == 0 else [unshare, "-rm"]


def test_status_and_search_say_the_disk_is_too_full_while_it_is(tmp_path):
    command = _namespace_command()
    if command is None:
        pytest.skip("no unshare here to mount a small disk with")
    repo = write_tree(tmp_path / "repo", DEMO_REPO)
    mnt, out = tmp_path / "mnt", tmp_path / "out"
    mnt.mkdir()
    out.mkdir()
    env = os.environ | {
        "MNT": str(mnt),
        "OUT": str(out),
        "REPO": str(repo),
        "PYTHON": sys.executable,
        "LEFT": str(4 << 20),  # 4 MB left: less than MIN_ROOM_BYTES
        "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
    }
    done = subprocess.run(
        [*command, "sh", "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=300
    )
    if "mount" in done.stderr and not (out / "roomy.json").exists():
        pytest.skip(f"cannot mount a small disk here: {done.stderr.strip()[-200:]}")
    assert done.returncode == 0, done.stderr

    roomy = json.loads((out / "roomy.json").read_text())
    assert roomy["pending"]["chunks"] > 0  # the default model's vectors wait
    assert roomy["low_disk"] is None

    full = json.loads((out / "full.json").read_text())
    assert full["low_disk"] is not None
    assert str(mnt) in full["low_disk"] and "free some disk space" in full["low_disk"]
    assert f"{MIN_ROOM_BYTES / (1 << 20):,.1f} MB" in full["low_disk"]
    assert "disk       The disk holding" in (out / "full.txt").read_text()
    warnings = json.loads((out / "search.json").read_text())["warnings"]
    assert full["low_disk"] in warnings
    agent = json.loads((out / "mcp.json").read_text())  # the MCP status action's blocks
    assert agent["index"]["low_disk"] == full["low_disk"] and full["low_disk"] in agent["lines"]

    freed = json.loads((out / "freed.json").read_text())
    assert freed["low_disk"] is None
