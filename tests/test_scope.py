"""Focus scopes: resolution order, marker discovery, ranking inside the scope only, the
weak-in-scope notice, indexing the scope first, and status listing the marked folders."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from tests.helpers import HashingEmbedder, write_tree
from tests.index.processes import run_wherein
from wherein.config import config_set, load_settings, user_config_path
from wherein.embedding import registry
from wherein.errors import ConfigError, UsageError
from wherein.indexing import build_index
from wherein.scope import Scope, resolve_scope, scope_gap
from wherein.search import run_search

MARKER = "CONTROLLER.md"
STATIC = {"WHEREIN_EMBEDDING_PROVIDER": "static"}


def settings_for(workspace: Path, **env: str):
    return load_settings(workspace, environ={f"WHEREIN_{k.upper()}": v for k, v in env.items()})


def search(workspace: Path, query: str, focus: str | None = None, **kwargs):
    settings = kwargs.pop("settings", None) or load_settings(workspace, environ={})
    return run_search(
        query,
        workspace=workspace,
        settings=settings,
        focus=focus,
        fast_embedder=HashingEmbedder(),
        **kwargs,
    )


@pytest.fixture
def marked(tmp_path):
    """services/billing and services/billing/api carry markers; services/auth does not."""
    return write_tree(
        tmp_path / "ws",
        {
            "services/billing/CONTROLLER.md": "# billing\n",
            "services/billing/api/CONTROLLER.md": "# billing api\n",
            "services/billing/api/v1/routes.py": "def route(): pass\n",
            "services/billing/invoice.py": "def make_invoice(): pass\n",
            "services/auth/login.py": "def login(): pass\n",
            "CONTROLLER.md": "# the root marker narrows nothing\n",
        },
    )


# -- resolution -----------------------------------------------------------------


def test_marker_resolution_takes_the_nearest_enclosing_marked_folder(marked):
    settings = settings_for(marked, scope_focus_markers=MARKER)
    deep = marked / "services/billing/api/v1"
    assert resolve_scope(marked, None, settings, cwd=deep) == Scope(
        "services/billing/api", "marker"
    )
    assert resolve_scope(marked, None, settings, cwd=marked / "services/billing") == Scope(
        "services/billing", "marker"
    )


@pytest.mark.parametrize("where", ["services/auth", ".", "outside"])
def test_no_marked_folder_up_to_the_root_means_the_whole_workspace(marked, tmp_path, where):
    settings = settings_for(marked, scope_focus_markers=MARKER)
    cwd = tmp_path if where == "outside" else marked / where
    assert resolve_scope(marked, None, settings, cwd=cwd) == Scope(None, "workspace")


def test_markers_are_off_by_default(marked):
    settings = settings_for(marked)
    assert resolve_scope(marked, None, settings, cwd=marked / "services/billing/api") == Scope(
        None, "workspace"
    )


def test_resolution_order_explicit_then_configured_then_marker_then_workspace(marked):
    cwd = marked / "services/billing/api/v1"
    both = settings_for(marked, scope_focus_markers=MARKER, scope_focus="services/auth")
    assert resolve_scope(marked, "services/billing", both, cwd=cwd) == Scope(
        "services/billing", "explicit"
    )
    assert resolve_scope(marked, None, both, cwd=cwd) == Scope("services/auth", "explicit")
    markers_only = settings_for(marked, scope_focus_markers=MARKER)
    assert resolve_scope(marked, None, markers_only, cwd=cwd).resolved_by == "marker"


@pytest.mark.parametrize("value", [".", ""])
def test_an_explicit_dot_steps_out_of_a_marked_or_configured_scope(marked, value):
    settings = settings_for(marked, scope_focus_markers=MARKER, scope_focus="services/auth")
    cwd = marked / "services/billing"
    assert resolve_scope(marked, value, settings, cwd=cwd) == Scope(None, "explicit")


def test_a_focus_outside_the_workspace_or_missing_is_a_usage_error(marked, tmp_path):
    settings = settings_for(marked)
    with pytest.raises(UsageError, match="outside the workspace"):
        resolve_scope(marked, str(tmp_path), settings)
    with pytest.raises(UsageError, match="not a folder"):
        resolve_scope(marked, "services/nope", settings)
    with pytest.raises(UsageError, match="scope.focus"):
        resolve_scope(marked, None, settings_for(marked, scope_focus="gone"))


def test_your_own_files_focus_that_one_workspace_lacks_is_a_notice_there(marked, tmp_path):
    """recall's `configure` writes `scope.focus` to your own file by default, which every
    workspace reads: another workspace without that folder must go on searching."""
    config_set("scope.focus", "services/auth", user_config_path())
    assert resolve_scope(marked, None, load_settings(marked)).focus == "services/auth"
    other = write_tree(tmp_path / "other", {"main.py": "def main():\n    pass\n"})
    scope = resolve_scope(other, None, load_settings(other))
    assert scope.focus is None and "Your own config file names it" in scope.notice


@pytest.mark.parametrize(
    ("markers", "said"),
    [
        ("docs/CONTROLLER.md", "not a file name"),
        (".", "not a file name"),
        ('["A.md","B.md"]', "is quoted"),
        (",".join(f"M{i}.md" for i in range(65)), "more than the 64"),
    ],
)
def test_unusable_markers_are_refused_where_they_are_read_or_set(marked, markers, said):
    """Your own setting is an error when read, naming it; `config set` refuses it; the
    workspace's own file only warns and its value is not used, so no command stops."""
    with pytest.raises(ConfigError, match=said):
        settings_for(marked, scope_focus_markers=markers)
    with pytest.raises(ConfigError, match=said):
        config_set("scope.focus_markers", markers, marked / "config.toml")
    listed = json.dumps([m for m in markers.split(",")] if "[" not in markers else [markers])
    (marked / ".wherein.toml").write_text(f"[scope]\nfocus_markers = {listed}\n")
    settings = load_settings(marked, environ={})
    assert settings["scope.focus_markers"] == []
    assert any(said in w and "Ignored" in w for w in settings.warnings)
    assert resolve_scope(marked, None, settings, cwd=marked / "services").focus is None


def test_every_search_result_says_how_its_scope_was_resolved(marked):
    env = {**STATIC, "WHEREIN_SCOPE_FOCUS_MARKERS": MARKER}
    cwd = marked / "services/billing/api/v1"
    for args, expected in (
        ((), {"focus": "services/billing/api", "resolved_by": "marker"}),
        (("--focus", "services/auth"), {"focus": "services/auth", "resolved_by": "explicit"}),
        (("--focus", "."), {"focus": None, "resolved_by": "explicit"}),
    ):
        found = run_wherein(
            "search", "route", "--workspace", str(marked), "--json", *args, env=env, cwd=cwd
        )
        assert found.returncode == 0, found.stderr
        assert json.loads(found.stdout)["scope"] == expected
    outside = run_wherein(
        "search", "route", "--workspace", str(marked), "--json", env=env, cwd=marked.parent
    )
    assert json.loads(outside.stdout)["scope"] == {"focus": None, "resolved_by": "workspace"}


# -- status ---------------------------------------------------------------------


def test_status_lists_every_marked_folder_with_its_chunk_count(marked):
    env = {**STATIC, "WHEREIN_SCOPE_FOCUS_MARKERS": MARKER}
    assert run_wherein("index", "--workspace", str(marked), env=env).returncode == 0
    shown = run_wherein("status", "--workspace", str(marked), "--json", env=env, cwd=marked)
    status = json.loads(shown.stdout)
    assert status["scopes"] == [
        {"focus": "services/billing", "markers": [MARKER], "files": 4, "chunks": 4},
        {"focus": "services/billing/api", "markers": [MARKER], "files": 2, "chunks": 2},
    ]
    assert status["scope"] == {"focus": None, "resolved_by": "workspace"}
    text = run_wherein("status", "--workspace", str(marked), env=env).stdout.decode()
    assert "scopes     2 folders marked by CONTROLLER.md" in text
    assert "  services/billing/api  2 chunks in 2 files" in text


# -- ranking inside the scope -----------------------------------------------------


def controllers(root: Path, count: int = 18) -> Path:
    files = {}
    for n in range(1, count + 1):
        files[f"controllers/c{n:02d}/controller.py"] = (
            f"RATE_LIMIT = {n}\n\n"
            "def handle_request(request):\n"
            "    '''Check the rate limit, then dispatch the request to its handler.'''\n"
            "    if request.count > RATE_LIMIT:\n"
            "        raise TooManyRequests()\n"
            "    return dispatch(request)\n"
        )
    return write_tree(root, files)


def test_a_focused_search_ranks_only_inside_the_scope(tmp_path):
    ws = controllers(tmp_path / "ws")
    everywhere = search(ws, "rate limit handle request dispatch", limit=20)
    assert len({hit.path for hit in everywhere.hits}) > 10
    focused = search(ws, "rate limit handle request dispatch", focus="controllers/c07", limit=20)
    assert focused.hits
    assert {hit.path for hit in focused.hits} == {"controllers/c07/controller.py"}
    assert focused.scope == Scope("controllers/c07", "explicit")


def test_focused_ranking_equals_ranking_a_workspace_holding_only_the_scope(tmp_path):
    """BM25 statistics and vector candidates are both restricted: the scores match exactly."""
    files = {
        "core/retry.py": "def retry(call):\n    '''Retry a failed call with backoff.'''\n",
        "core/cache.py": "def cached(fn):\n    '''Memoize fn; retry on miss.'''\n",
        "core/log.py": "def log(msg):\n    '''Write a log line.'''\n",
    }
    # Outside the scope "retry" is everywhere: its idf there differs from inside.
    noise = {f"noise/n{i}.py": f"def retry_{i}():\n    retry(retry)\n" for i in range(30)}
    whole = write_tree(tmp_path / "whole", {**files, **noise})
    alone = write_tree(tmp_path / "alone", files)
    query = "retry a failed call"
    focused = search(whole, query, focus="core")
    reference = search(alone, query)
    assert [(h.path, h.start_line, h.score, h.similarity) for h in focused.hits] == [
        (h.path, h.start_line, h.score, h.similarity) for h in reference.hits
    ]


def test_path_and_focus_together_rank_the_narrower_folder(tmp_path):
    ws = controllers(tmp_path / "ws", count=3)
    both = search(ws, "handle request", focus="controllers", path="controllers/c02")
    assert {hit.path for hit in both.hits} == {"controllers/c02/controller.py"}
    with pytest.raises(UsageError, match="outside the focus"):
        search(ws, "handle request", focus="controllers/c01", path="controllers/c02")


# -- indexing the scope first -------------------------------------------------------


class RecordingEmbedder(HashingEmbedder):
    """The hashing embedder, remembering the path line of every text in the order embedded."""

    order: list[str] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        RecordingEmbedder.order.extend(text.split("\n", 1)[0] for text in texts)
        return super().embed(texts)


def test_index_with_a_focus_embeds_the_scope_first(tmp_path, monkeypatch):
    ws = controllers(tmp_path / "ws", count=6)
    (ws / "controllers/c05/extra.py").write_text("def extra(): pass\n")
    monkeypatch.setitem(registry.REGISTRY, "recording", lambda settings: RecordingEmbedder())
    RecordingEmbedder.order = []
    settings = settings_for(ws, embedding_provider="recording")
    summary = build_index(ws, settings, focus="controllers/c05")
    order = RecordingEmbedder.order
    assert summary.chunks_embedded == len(order) == 7
    inside = [i for i, path in enumerate(order) if path.startswith("controllers/c05/")]
    assert inside == [0, 1]  # the scope, then the rest


def test_cli_index_focus_is_checked_before_indexing(tmp_path):
    ws = controllers(tmp_path / "ws", count=2)
    shown = run_wherein("index", "--workspace", str(ws), "--focus", "nope", env=STATIC)
    assert shown.returncode == 2
    assert b"--focus 'nope' is not a folder" in shown.stderr


# -- weak in scope ------------------------------------------------------------------


def test_scope_gap_is_measured_in_the_scopes_own_spread():
    inside = np.array([True] * 10 + [False] * 5)
    sims = np.array([0.1, 0.2, 0.3, 0.2, 0.1, 0.3, 0.2, 0.1, 0.2, 0.3, 0.3, 0.2, 0.1, 0.2, 0.9])
    spread = sims[:10].std()
    assert scope_gap(sims, inside) == pytest.approx((0.9 - 0.3) / spread)
    assert scope_gap(sims * 3, inside) == pytest.approx(scope_gap(sims, inside))  # scale-free
    assert scope_gap(sims, np.ones(15, dtype=bool)) is None  # nothing outside to compare


def two_services(root: Path) -> Path:
    files = {}
    for i in range(12):
        files[f"billing/invoice_{i}.py"] = (
            f"def invoice_total_{i}(lines):\n    '''Sum invoice lines with tax.'''\n"
            f"    return sum(line.amount for line in lines) * TAX_{i}\n"
        )
        files[f"auth/session_{i}.py"] = (
            f"def check_session_{i}(token):\n    '''Look up the session for a token.'''\n"
            f"    return SESSIONS.get(token)\n"
        )
    files["auth/password.py"] = (
        "def verify_password(user, password):\n"
        "    '''Compare the password hash with the stored hash for login.'''\n"
        "    return hash_password(password, user.salt) == user.password_hash\n"
    )
    return write_tree(root, files)


def test_a_weak_best_match_in_the_scope_says_so_and_suggests_the_whole_workspace(tmp_path):
    ws = two_services(tmp_path / "ws")
    query = "verify the password hash for login"
    wrong = search(ws, query, focus="billing")
    notice = [w for w in wrong.warnings if "weak" in w]
    assert len(notice) == 1 and "--focus ." in notice[0] and "'billing'" in notice[0]
    assert all(hit.path.startswith("billing/") for hit in wrong.hits)
    right = search(ws, query, focus="auth")
    assert right.hits[0].path == "auth/password.py"
    assert not [w for w in right.warnings if "weak" in w]
    unfocused = search(ws, query)
    assert not [w for w in unfocused.warnings if "weak" in w]


def test_without_vectors_a_scope_with_no_keyword_match_says_so(tmp_path):
    ws = two_services(tmp_path / "ws")
    # No vector tier may rank: keywords only, as before any vector exists.
    result = search(ws, "verify_password", focus="billing", tiers=frozenset())
    assert not any(tier["used"] for tier in result.to_json()["tiers"].values())
    assert result.hits == []
    assert any(
        "Nothing inside the focus 'billing'" in w and "--focus ." in w for w in result.warnings
    )
    fine = search(ws, "verify_password", focus="auth", tiers=frozenset())
    assert fine.hits and not [w for w in fine.warnings if "focus" in w]
