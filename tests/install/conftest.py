"""A home folder and a project of one's own, and a PATH with no agent CLI on it.

The autouse fixture in tests/conftest.py already points HOME, XDG_CONFIG_HOME and WHEREIN_HOME
at the test's tmp_path; here the agents' own location variables are dropped too, and PATH is a
folder the test controls, so detection sees only what the test put there.
"""

from __future__ import annotations

from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(autouse=True)
def agent_environ(tmp_path, monkeypatch) -> Path:
    """An empty bin folder as PATH; no CLAUDE_CONFIG_DIR or CODEX_HOME from the real shell."""
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME"):
        monkeypatch.delenv(name, raising=False)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    monkeypatch.setenv("PATH", str(bin_dir))
    (tmp_path / "home").mkdir(exist_ok=True)
    return bin_dir


@pytest.fixture
def home(tmp_path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def project(tmp_path) -> Path:
    root = tmp_path / "repo"
    (root / "app").mkdir(parents=True)
    (root / "app" / "routing.py").write_text("def add_route(path, handler):\n    pass\n")
    return root.resolve()
