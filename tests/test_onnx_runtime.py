"""The in-process models send nothing anywhere: onnxruntime's telemetry never starts."""

from __future__ import annotations

import importlib.metadata
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
TELEMETRY = Path("Microsoft", "DeveloperTools", ".onnxruntime")
CI_VARIABLES = (
    "CI",
    "CONTINUOUS_INTEGRATION",
    "GITHUB_ACTIONS",
    "GITLAB_CI",
    "TF_BUILD",
    "BUILD_ID",
)


def _run(code: str, cache: Path) -> None:
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO_ROOT),
        "XDG_CACHE_HOME": str(cache),
        "HOME": str(cache.parent),
    }
    # onnxruntime stays quiet by itself where it sees a CI service (`CI=true`, as in this
    # suite's CI run): without them, the child is a user's machine.
    for name in ("ORT_DISABLE_TELEMETRY", *CI_VARIABLES):
        env.pop(name, None)
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr


def test_the_default_model_and_the_4bit_copy_leave_no_telemetry(tmp_path):
    cache = tmp_path / "cache"
    _run(
        "import numpy as np\n"
        "from wherein.embedding.minilm import MiniLMEmbedder\n"
        "from wherein.ranking import quantized_rows\n"
        "assert MiniLMEmbedder().embed(['where are retries handled']).shape == (1, 384)\n"
        "assert quantized_rows._onnxruntime() is not None\n",
        cache,
    )
    assert (cache / "wherein" / "models").is_dir()  # the model did run, making its graph
    assert not (cache / TELEMETRY).exists()


def test_importing_onnxruntime_unguarded_would_write_its_device_id(tmp_path):
    """What the guard stops: without it, the import alone writes the telemetry files."""
    cache = tmp_path / "cache"
    _run("import onnxruntime", cache)
    version = importlib.metadata.version("onnxruntime")
    if not (cache / TELEMETRY).exists() and _release(version) < (1, 32):
        pytest.skip(f"onnxruntime {version} (Python 3.10's last) writes no telemetry at import")
    assert (cache / TELEMETRY / "deviceid").exists()


def _release(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", version)[:2])


def test_onnxruntime_is_imported_only_through_the_guard():
    """A submodule (`onnxruntime.quantization`) may be imported right after the guard ran."""
    direct = re.compile(r"^\s*(import onnxruntime|from onnxruntime\b)")
    offenders = []
    for path in (REPO_ROOT / "wherein").rglob("*.py"):
        if path.name == "onnx_runtime.py":
            continue
        lines = path.read_text(encoding="utf-8").splitlines()
        for number, line in enumerate(lines):
            guarded = number > 0 and "load_onnxruntime()" in lines[number - 1]
            if direct.match(line) and not (
                line.lstrip().startswith("from onnxruntime.") and guarded
            ):
                offenders.append(f"{path.relative_to(REPO_ROOT)}:{number + 1}")
    assert offenders == []
