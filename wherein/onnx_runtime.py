"""onnxruntime, imported with its telemetry off.

onnxruntime's Linux wheels (1.32 here) carry Microsoft's telemetry: importing the module writes
a device id and a queue of events (the CPU, the operating system, the Python path, each model
session made) under `$XDG_CACHE_HOME/Microsoft/DeveloperTools/.onnxruntime`, for upload to
Microsoft's collector. wherein promises that its in-process models send nothing anywhere.
`ORT_DISABLE_TELEMETRY` keeps all of it off, but only when set before the module first loads:
`disable_telemetry_events()` called after the import was too late, the files were written
(tests/test_onnx_runtime.py checks both). So every import of onnxruntime in wherein
goes through `load_onnxruntime`, and the setting is inherited by the processes it starts.
"""

from __future__ import annotations

import os

__all__ = ["load_onnxruntime"]


def load_onnxruntime():  # -> the onnxruntime module
    """The onnxruntime module, its telemetry turned off before it first loads.

    Raises:
        ImportError: onnxruntime is not installed (or its library cannot load).
    """
    os.environ["ORT_DISABLE_TELEMETRY"] = "1"
    import onnxruntime

    onnxruntime.disable_telemetry_events()
    return onnxruntime
