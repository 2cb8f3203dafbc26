"""The progress bar draws in a terminal, and starts no thread of its own while it does."""

from __future__ import annotations

import io
import os
import threading

from wherein.progress import ProgressDisplay


def _read_all(fd: int) -> bytes:
    os.set_blocking(fd, False)
    chunks = []
    while True:
        try:
            chunk = os.read(fd, 65536)
        except BlockingIOError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)


def test_a_terminal_gets_a_bar_drawn_without_a_refresh_thread():
    leader, follower = os.openpty()
    try:
        with open(follower, "w", encoding="utf-8") as stream:  # a real terminal device
            before = threading.active_count()
            with ProgressDisplay(stream) as display:
                assert display.enabled
                for done in range(0, 11):
                    display.update("scan", done, 10)
                    # A second thread would make the chunking workers spawn, not fork.
                    assert threading.active_count() == before
                stream.flush()
                drawn = _read_all(leader)
        assert b"Reading files" in drawn and b"10/10" in drawn
    finally:
        os.close(leader)


def test_a_pipe_gets_no_bar():
    stream = io.StringIO()
    with ProgressDisplay(stream) as display:
        display.update("scan", 5, 10)
    assert not display.enabled and stream.getvalue() == ""


def test_loading_the_model_is_a_stage_of_its_own(tmp_path):
    """The default model's first start makes its int8 graph (seconds): the bar says so
    instead of standing still on the scan."""
    from tests.helpers import write_tree
    from wherein.config import load_settings
    from wherein.indexing import build_index

    repo = write_tree(tmp_path / "repo", {"app.py": "def handler(request):\n    return 1\n"})
    stages: list[tuple[str, int, int]] = []
    build_index(repo, load_settings(repo), progress=lambda *step: stages.append(step))
    names = [stage for stage, _, _ in stages]
    assert names.index("model") < names.index("embed")
    assert ("model", 0, 1) in stages and ("model", 1, 1) in stages
    assert stages.index(("model", 1, 1)) < names.index("embed")


def test_a_lazy_bar_is_drawn_only_once_there_is_work_left():
    """A search in a terminal: nothing to read draws nothing (and imports no rich)."""
    leader, follower = os.openpty()
    try:
        with (
            open(follower, "w", encoding="utf-8") as stream,
            ProgressDisplay(stream, lazy=True) as display,
        ):
            display.update("scan", 10, 10)  # every file unchanged
            stream.flush()
            assert display._progress is None
            display.update("scan", 3, 10)
            display.update("scan", 10, 10)
            stream.flush()
            drawn = _read_all(leader)
        assert b"Reading files" in drawn
    finally:
        os.close(leader)


def test_a_first_search_reports_the_files_it_reads(tmp_path):
    from tests.helpers import HashingEmbedder, write_tree
    from wherein.config import load_settings
    from wherein.search import run_search

    files = {f"m{i}.py": f"def handler_{i}(request):\n    return {i}\n" for i in range(5)}
    repo = write_tree(tmp_path / "repo", files)
    steps: list[tuple[str, int, int]] = []

    def search():
        return run_search(
            "handler",
            workspace=repo,
            settings=load_settings(repo),
            fast_embedder=HashingEmbedder(),
            progress=lambda *step: steps.append(step),
        )

    search()
    assert steps and steps[-1] == ("scan", 5, 5)
    steps.clear()
    search()  # nothing changed: the saved stamp replaces the walk, nothing to report
    assert steps == []
