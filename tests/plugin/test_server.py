"""The recall tool over a real MCP session: listing, search, index jobs, status, errors."""

from __future__ import annotations

import json
import logging
import re
import socket
import sys
import threading

import anyio
import jsonschema
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

from tests.helpers import write_tree
from tests.plugin.conftest import GatedEmbedder, run_session
from wherein.embedding import registry
from wherein.index import tree_watch
from wherein.index.location import index_dir
from wherein.index.refresh import EMBED_BATCH, index_lock
from wherein.index.status import read_status
from wherein.plugin.schema import checked_input_schema, result_schema
from wherein.plugin.server import create_server

# tools/list as JSON: the name, description and input schema every agent session reads.
MAX_TOOL_LIST_CHARS = 3000


def _objects(schema):
    """Every object-typed subschema, depth first."""
    if isinstance(schema, dict):
        if schema.get("type") == "object":
            yield schema
        for value in schema.values():
            yield from _objects(value)
    elif isinstance(schema, list):
        for item in schema:
            yield from _objects(item)


def test_lists_one_tool_an_agent_can_afford_with_strict_schemas(repo):
    async def steps(rc):
        return await rc.client.list_tools()

    listed = run_session(repo, steps)
    (tool,) = listed.tools
    # Every session of every agent pays for the listing: the answer's contract, not its bytes.
    wire = listed.model_dump(mode="json", by_alias=True, exclude_none=True)
    assert len(json.dumps(wire)) <= MAX_TOOL_LIST_CHARS
    assert tool.name == "recall" and tool.output_schema is None
    jsonschema.Draft202012Validator.check_schema(tool.input_schema)
    settings = tool.input_schema["properties"]["config"]["properties"]["set"]
    listed_objects = [o for o in _objects(tool.input_schema) if o is not settings]
    assert listed_objects and all(o.get("additionalProperties") is False for o in listed_objects)
    for schema in (checked_input_schema(), result_schema()):  # what the server holds to
        jsonschema.Draft202012Validator.check_schema(schema)
        objects = list(_objects(schema))
        assert objects and all(o.get("additionalProperties") is False for o in objects)
    assert set(tool.input_schema["properties"]) == {
        "query",
        "action",
        "limit",
        "path",
        "focus",
        "lang",
        "glob",
        "exclude",
        "exact",
        "run_in_background",
        "config",
    }
    assert tool.input_schema["properties"]["action"]["enum"] == [
        "search",
        "related",
        "index",
        "status",
        "configure",
    ]
    description = tool.description.lower()
    assert "grep" in description and "before" in description and "re-read" in description
    assert "line numbers" in description and len(tool.description) < 600


@pytest.mark.parametrize(
    ("change", "named"),
    [({"search.limit": 500}, "config.set.search.limit"), ({"no.such": 1}, "no.such")],
)
def test_a_setting_the_listing_leaves_unspecified_is_still_checked(repo, change, named):
    async def steps(rc):
        return await rc.recall(action="configure", config={"set": change})

    result = run_session(repo, steps)
    assert result["ok"] is False
    assert named in result["error"]["message"]
    assert "recall action=configure lists the settings" in result["error"]["message"]


def test_search_answers_from_the_fixture_repo_with_the_real_model(repo):
    async def steps(rc):
        return await rc.recall(query="wait longer after a failure and try again")

    result = run_session(repo, steps)
    assert result["ok"] and result["action"] == "search"
    assert result["results"][0] == ["app/retry.py", 1, 7]
    title = r"^1\. app/retry\.py:1-7  similarity \d\.\d\d  \[retry_with_backoff\]$"
    assert re.search(title, result["text"], re.M)
    assert "\n1 | def retry_with_backoff(call, attempts=3):\n" in result["text"]
    assert "\n7 |             sleep(2 ** attempt)\n" in result["text"]
    assert result["text"].splitlines()[-1].startswith("Recall 1 · ")
    assert "usage" not in result  # the line is in the text; status has the figures


def test_search_path_restricts_results_and_limit_caps_them(repo):
    async def steps(rc):
        narrowed = await rc.recall(query="handler", path="app", limit=2)
        return narrowed

    result = run_session(repo, steps)
    assert 1 <= len(result["results"]) <= 2
    assert all(path.startswith("app/") for path, _, _ in result["results"])


@pytest.mark.parametrize(
    ("arguments", "needle"),
    [
        ({"query": "x", "path": "../"}, "outside the workspace"),
        ({"query": "x", "path": "/etc"}, "outside the workspace"),
        ({"query": "x", "focus": ".."}, "outside the workspace"),
        ({"query": "x", "path": "escape"}, "outside the workspace"),
        ({"query": "x", "path": "no/such/dir"}, "not a folder"),
        ({"query": "   "}, "empty"),
        ({"action": "search"}, "query is missing"),
        ({"query": "x", "limit": 0}, "limit"),
        ({"query": "x", "bogus": 1}, "bogus"),
        ({"action": "delete"}, "action"),
    ],
)
def test_bad_arguments_and_path_escapes_are_refused_as_error_results(repo, arguments, needle):
    (repo / "escape").symlink_to(repo.parent, target_is_directory=True)

    async def steps(rc):
        return await rc.recall(**arguments)

    result = run_session(repo, steps)
    assert result["ok"] is False
    assert needle in result["error"]["message"]
    assert result["text"].startswith("recall ")
    assert "results" not in result


def test_status_touches_nothing_and_shows_no_usage_before_a_search(repo):
    async def steps(rc):
        return await rc.recall(action="status")

    result = run_session(repo, steps)
    assert result["ok"]
    assert result["index"]["exists"] is False
    assert result["embedding"]["provider"] == "minilm"
    assert result["embedding"]["in_process"] is True
    assert "usage" not in result and "Recall" not in result["text"]
    assert not index_dir(repo).exists()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify is Linux's")
def test_status_says_how_the_session_finds_changes_once_it_searched(repo):
    async def steps(rc):
        before = await rc.recall(action="status")
        await rc.recall(query="parse_cookie")
        return before, await rc.recall(action="status")

    before, after = run_session(repo, steps)
    assert "changes" not in before
    assert after["changes"] == {"detector": "inotify", "reason": None}
    assert "Changes: watched with inotify." in after["text"]


def test_status_says_why_the_tree_is_checked_by_stat_where_it_cannot_watch(repo, monkeypatch):
    monkeypatch.setattr(tree_watch, "MAX_WATCHED_FOLDERS", 0)

    async def steps(rc):
        first = await rc.recall(query="parse_cookie")
        second = await rc.recall(query="parse_cookie")
        return first, second, await rc.recall(action="status")

    first, second, status = run_session(repo, steps)
    notices = [w for w in first.get("warnings", []) if w.startswith("Not watching the tree")]
    assert len(notices) == 1 and not [
        w for w in second.get("warnings", []) if w.startswith("Not watching")
    ]
    assert status["changes"]["detector"] == "stat"
    assert "more than the 0 it watches" in status["changes"]["reason"]
    assert "each search checks every indexed file by stat" in status["text"]


def test_status_says_when_an_http_endpoint_does_not_answer(repo, monkeypatch):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    # Nothing listens on `port` now: the connection is refused at once.
    monkeypatch.setenv("WHEREIN_EMBEDDING_PROVIDER", "ollama")
    monkeypatch.setenv("WHEREIN_EMBEDDING_API_BASE", f"http://127.0.0.1:{port}")

    async def steps(rc):
        return await rc.recall(action="status")

    result = run_session(repo, steps)
    embedding = result["embedding"]
    assert result["ok"] and embedding["in_process"] is False
    assert embedding["answered"] is False and embedding["error"]
    assert embedding["url"] == f"http://127.0.0.1:{port}"
    assert "no answer" in result["text"]


def test_background_index_reports_running_job_then_completion_to_its_session(repo):
    async def steps(rc):
        first = await rc.recall(action="index")
        second = await rc.recall(action="index")
        while True:
            status = await rc.recall(action="status")
            if status["job"]["state"] != "running":
                break
            await anyio.sleep(0.05)
        again = await rc.recall(action="status")
        return first, second, status, again

    first, second, status, again = run_session(repo, steps)
    assert first["job"]["state"] == "started"
    assert second["job"]["id"] == first["job"]["id"]
    assert second["job"]["state"] in ("running", "done")
    assert "not starting another" in second["text"] or second["job"]["state"] == "done"
    assert status["job"]["state"] == "done", status["job"]
    assert status["job"]["files_total"] == 4
    assert status["job"]["chunks_done"] == status["job"]["chunks_total"] > 0
    assert status["index"]["pending"]["chunks"] == 0
    assert again["job"]["id"] == first["job"]["id"]


def test_job_completion_reaches_the_next_search_once(repo):
    async def steps(rc):
        started = await rc.recall(action="index")
        seen = []
        while True:
            result = await rc.recall(query="register a handler for a path")
            seen.append(result)
            if result.get("job", {}).get("state") != "running":
                break
            await anyio.sleep(0.05)
        after = await rc.recall(query="parse a cookie header")
        return started, seen, after

    started, seen, after = run_session(repo, steps)
    news = seen[-1]
    assert news["job"]["id"] == started["job"]["id"] and news["job"]["state"] == "done"
    assert news["text"].startswith(f"Index job {started['job']['id']} finished:")
    assert "job" not in after


def test_foreground_index_runs_to_completion(repo):
    async def steps(rc):
        return await rc.recall(action="index", run_in_background=False)

    result = run_session(repo, steps)
    assert result["ok"] and result["job"]["state"] == "done"
    assert "4 files seen" in result["job"]["summary"]


def test_a_foreground_index_reports_progress_that_only_increases(tmp_path):
    """Files scanned, then chunks embedded, each counted from zero: the notifications carry
    one number across the stages, as MCP requires it to increase with each."""
    files = {f"pkg/m{i:03}.py": f"def handler_{i}(request):\n    return {i}\n" for i in range(600)}
    repo = write_tree(tmp_path / "many", files).resolve()
    seen: list[tuple[float, float | None]] = []

    async def noted(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total))

    async def steps(rc):
        arguments = {"action": "index", "run_in_background": False}
        return await rc.client.call_tool("recall", arguments, progress_callback=noted)

    result = run_session(repo, steps)
    assert not result.is_error
    assert seen, "no progress was reported"
    values = [progress for progress, _ in seen]
    assert values == sorted(set(values))  # strictly increasing
    assert all(total == 3 and 0 < progress <= 3 for progress, total in seen)


def test_index_that_cannot_take_the_lock_fails_as_an_error_result(repo):
    async def steps(rc):
        return await rc.recall(action="index", run_in_background=False)

    with index_lock(index_dir(repo), wait=False) as locked:
        assert locked
        result = run_session(repo, steps)
    assert result["ok"] is False
    assert result["job"]["state"] == "failed"
    assert result["error"]["kind"] == "IndexJobFailed"
    assert "Another wherein process" in result["job"]["error"]


def test_a_job_belongs_to_the_session_that_started_it(repo):
    async def steps(rc):
        await rc.recall(action="index", run_in_background=False)
        return None

    run_session(repo, steps)

    async def other(rc):
        return await rc.recall(action="status")

    status = run_session(repo, other)
    assert "job" not in status
    assert status["index"]["exists"] is True


class _ReleaseOnCancel(logging.Handler):
    def __init__(self, gate: threading.Event) -> None:
        super().__init__()
        self.gate = gate
        self.messages: list[str] = []

    def emit(self, record):
        self.messages.append(record.getMessage())
        if record.getMessage().startswith("Cancelling index job"):
            self.gate.set()


def test_session_end_cancels_its_background_job(tmp_path, monkeypatch):
    files = {f"pkg/mod{i}.py": f"def handler_{i}(x):\n    return x + {i}\n" for i in range(150)}
    repo = write_tree(tmp_path / "big", files).resolve()
    gate = threading.Event()
    monkeypatch.setitem(registry.REGISTRY, "test-gated", lambda settings: GatedEmbedder(gate))
    monkeypatch.setenv("WHEREIN_EMBEDDING_PROVIDER", "test-gated")
    watcher = _ReleaseOnCancel(gate)
    jobs_logger = logging.getLogger("wherein.plugin.jobs")
    jobs_logger.addHandler(watcher)
    previous_level = jobs_logger.level
    jobs_logger.setLevel(logging.INFO)

    async def steps(rc):
        started = await rc.recall(action="index")
        while True:
            status = await rc.recall(action="status")
            if status["job"]["chunks_done"] >= EMBED_BATCH:
                return started, status
            assert status["job"]["state"] == "running", status["job"]
            await anyio.sleep(0.05)

    try:
        started, status = run_session(repo, steps)
    finally:
        jobs_logger.removeHandler(watcher)
        jobs_logger.setLevel(previous_level)
    job_id = started["job"]["id"]
    assert status["job"]["chunks_total"] == 150
    assert any(m.startswith(f"Cancelling index job {job_id}") for m in watcher.messages)
    assert any(m.startswith(f"Index job {job_id} cancelled") for m in watcher.messages)
    left = read_status(repo).pending_chunks
    assert 0 < left < 150


def test_unknown_tool_name_is_a_protocol_error(repo):
    async def main():
        async with Client(create_server(repo), mode="legacy") as client:
            with pytest.raises(MCPError) as caught:
                await client.call_tool("grep", {})
            return caught.value

    error = anyio.run(main)
    assert error.code == INVALID_PARAMS
    assert "Unknown tool 'grep'" in error.message


def test_modern_protocol_session_works_too(repo):
    async def steps(rc):
        return await rc.recall(query="parse_cookie")

    result = run_session(repo, steps, mode="auto")
    assert result["results"][0][0] == "app/cookies.py"


def test_focus_dot_steps_out_of_a_configured_scope(repo):
    (repo / ".wherein.toml").write_text('[scope]\nfocus = "app"\n')

    async def steps(rc):
        scoped = await rc.recall(query="routes are registered on the Router")
        whole = await rc.recall(query="routes are registered on the Router", focus=".")
        return scoped, whole

    scoped, whole = run_session(repo, steps)
    assert scoped["scope"] == {"focus": "app", "resolved_by": "explicit"}
    chosen = "ranked inside 'app' (chosen by scope.focus; focus='.' searches everything)."
    assert chosen in scoped["text"]
    assert all(path.startswith("app/") for path, _, _ in scoped["results"])
    assert "scope" not in whole and "ranked inside" not in whole["text"]
    assert "docs/guide.md" in {path for path, _, _ in whole["results"]}
