"""Every package's `__all__` names exist, and `import wherein` stays light."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

PACKAGES = [
    "wherein",
    "wherein.chunking",
    "wherein.embedding",
    "wherein.index",
    "wherein.ranking",
]


@pytest.mark.parametrize("name", PACKAGES)
def test_all_exports_resolve(name):
    module = importlib.import_module(name)
    for member in module.__all__:
        assert getattr(module, member) is not None, f"{name}.{member}"


def test_import_wherein_does_not_load_the_search_stack():
    code = "import sys, wherein.cli; print('numpy' in sys.modules, 'onnxruntime' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]
