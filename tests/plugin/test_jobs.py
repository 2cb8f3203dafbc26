"""Index jobs stop at the next safe point when cancelled, keeping what they committed."""

from __future__ import annotations

import threading
import time

import jsonschema

from tests.helpers import write_tree
from tests.plugin.conftest import GatedEmbedder
from wherein.config import load_settings
from wherein.embedding import registry
from wherein.index.refresh import EMBED_BATCH
from wherein.index.status import read_status
from wherein.plugin.jobs import IndexJob
from wherein.plugin.schema import result_schema

# Polling bound for a job that never reaches its first batch; a hang guard, not a timing test.
DEADLINE_S = 120


def test_cancelled_job_keeps_committed_batches_and_the_next_run_resumes(tmp_path, monkeypatch):
    files = {f"m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(200)}
    repo = write_tree(tmp_path / "repo", files).resolve()
    gate = threading.Event()
    monkeypatch.setitem(registry.REGISTRY, "test-gated", lambda settings: GatedEmbedder(gate))
    monkeypatch.setenv("WHEREIN_EMBEDDING_PROVIDER", "test-gated")
    job = IndexJob(repo, load_settings(repo)).start()
    deadline = time.monotonic() + DEADLINE_S
    # The fast tier comes first (its own stage); the gated model's batches after it.
    while job.snapshot()["stage"] != "embed" or job.snapshot()["chunks_done"] < EMBED_BATCH:
        assert job.running and time.monotonic() < deadline, job.snapshot()
        time.sleep(0.02)
    job.cancel("the test asked")
    gate.set()
    assert job.wait(DEADLINE_S)
    snapshot = job.snapshot()
    assert snapshot["state"] == "cancelled" and snapshot["stage"] == "finished"
    # The batch in flight when cancel came is committed; nothing after it is begun.
    assert snapshot["chunks_done"] == 2 * EMBED_BATCH
    assert read_status(repo).pending_chunks == 200 - 2 * EMBED_BATCH
    result = {
        "text": job.describe(),
        "action": "status",
        "ok": True,
        "workspace": str(repo),
        "job": snapshot,
    }
    jsonschema.validate(result, result_schema())
    assert "cancelled" in job.describe()

    again = IndexJob(repo, load_settings(repo)).start()
    assert again.wait(DEADLINE_S)
    assert again.snapshot()["state"] == "done"
    assert f"{200 - 2 * EMBED_BATCH} chunks embedded" in again.snapshot()["summary"]
    assert read_status(repo).pending_chunks == 0


def test_plugin_exports_exist():
    import wherein.plugin as plugin

    assert sorted(plugin.__all__) == plugin.__all__
    for name in plugin.__all__:
        assert hasattr(plugin, name), name
