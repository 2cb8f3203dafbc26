"""Every package's `__all__` names exist, and `import wherein` stays light."""

from __future__ import annotations

import importlib
import os
import pkgutil
import subprocess
import sys

import pytest

import wherein

# Every package, found rather than listed: a new one is checked from its first commit.
PACKAGES = ["wherein"] + sorted(
    f"wherein.{info.name}" for info in pkgutil.iter_modules(wherein.__path__) if info.ispkg
)


def test_every_package_is_checked():
    assert len(PACKAGES) >= 12, PACKAGES  # wherein, chunking, ..., cli, endpoint


@pytest.mark.parametrize("name", PACKAGES)
def test_all_exports_resolve(name):
    module = importlib.import_module(name)
    for member in module.__all__:
        assert getattr(module, member) is not None, f"{name}.{member}"


def test_import_wherein_does_not_load_the_search_stack():
    code = "import sys, wherein.cli; print('numpy' in sys.modules, 'onnxruntime' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


# What only some commands need: `import wherein.cli` (every command) loads none of them.
LAZY = [
    *("numpy", "onnxruntime", "tokenizers", "rich", "httpx", "mcp", "tomlkit", "pathspec"),
    *("wordllama", "sqlite3", "tree_sitter"),
]


def test_import_wherein_cli_loads_no_optional_dependency():
    code = f"import sys, wherein.cli; print([m for m in {LAZY!r} if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_search_to_a_pipe_loads_no_renderer_or_network_client(tmp_path):
    (tmp_path / "retry.py").write_text("def backoff(attempt):\n    return 2 ** attempt\n")
    code = (
        "import sys\n"
        "from wherein.cli import main\n"
        f"main(['index', '--workspace', {str(tmp_path)!r}])\n"
        "loaded = [m for m in ('rich', 'httpx', 'mcp', 'tomlkit') if m in sys.modules]\n"
        f"main(['search', 'backoff', '--workspace', {str(tmp_path)!r}])\n"
        "print([m for m in ('rich', 'httpx', 'mcp', 'tomlkit') if m in sys.modules], loaded)\n"
    )
    env = {**os.environ, "WHEREIN_EMBEDDING_PROVIDER": "static"}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    assert "retry.py:1-2" in out.stdout
    assert out.stdout.strip().splitlines()[-1] == "[] []"


def test_status_of_an_index_loads_no_numpy_model_or_network_client(tmp_path):
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / "retry.py").write_text("def backoff(attempt):\n    return 2 ** attempt\n")
    env = {**os.environ, "WHEREIN_EMBEDDING_PROVIDER": "static"}
    index = "from wherein.cli import main; main(['index', '--workspace', sys.argv[1]])"
    command = [sys.executable, "-c", f"import sys; {index}", str(workspace)]
    subprocess.run(command, env=env, capture_output=True, check=True)
    code = (
        "import sys\n"
        "from wherein.cli import main\n"
        "main(['status', '--workspace', sys.argv[1]])\n"
        f"print([m for m in {LAZY!r} if m != 'sqlite3' and m in sys.modules])\n"
    )
    command = [sys.executable, "-c", code, str(workspace)]
    out = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    assert "1 indexed" in out.stdout and "static:" in out.stdout
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_a_search_that_finds_nothing_changed_loads_no_chunker(tmp_path):
    """The chunker, its grammars and the worker pool are for changed files only, even when
    the search walks the tree (no stamp of the last walk) and finds every file as it was."""
    from wherein.index.change_check import STAMP_FILE_NAME
    from wherein.index.location import index_dir

    workspace = tmp_path / "workspace"  # beside WHEREIN_HOME, not around it
    workspace.mkdir()
    (workspace / "retry.py").write_text("def backoff(attempt):\n    return 2 ** attempt\n")
    env = {**os.environ, "WHEREIN_EMBEDDING_PROVIDER": "static"}
    code = (
        "import sys\n"
        "from wherein.cli import main\n"
        "main(['search', 'backoff', '--workspace', sys.argv[1]])\n"
        "print([m for m in ('tree_sitter', 'wherein.chunking', 'multiprocessing') "
        "if m in sys.modules])\n"
    )
    command = [sys.executable, "-c", code, str(workspace)]
    first = subprocess.run(command, capture_output=True, text=True, check=True, env=env)
    assert "retry.py:1-2" in first.stdout  # the first search chunked the file
    for walk in ("stamp", "walk"):
        if walk == "walk":
            (index_dir(workspace) / STAMP_FILE_NAME).unlink()
        out = subprocess.run(command, capture_output=True, text=True, check=True, env=env)
        assert "retry.py:1-2" in out.stdout
        assert out.stdout.strip().splitlines()[-1] == "[]", walk
