"""The default model with int8 arithmetic, made once from the bundled model and kept as a cache.

The bundled all-MiniLM-L6-v2 stores its weights as int8 but computes in float32: each
MatMul reads its weights cast and scaled back, on every run of a session that optimizes
nothing (55-110 ms for one query), or folded to float32 when a full session opens (200 ms
of CPU). onnxruntime's own dynamic quantization (`onnxruntime.quantization.quantize_dynamic`:
7-bit weights per output channel, activations quantized as each run goes) makes a graph
whose MatMuls run on int8: with each text run alone (`minilm.py`), 3.8x the chunks per
second when indexing on this 2-core machine (AVX-512 VNNI), a session that opens in 40 ms
and a query in 2-3 ms. Its vectors are
not the bundled graph's (cosine 0.986-0.999 on this repository's code), so the index
treats it as another model (`minilm.MODEL_NAME`).

It is made on first use, in about 5 s (onnxruntime folds the bundled graph to float32, then
the float32 graph is quantized), under `$XDG_CACHE_HOME/wherein/models` (`~/.cache`), shared
by every data home: a file named by the bundled model's sha256 and the onnxruntime version
that made it, with its own sha256 beside it, written atomically and checked at each
later start (once per file version, `stamp.py`). A file that does not match is made again,
and what a making that was killed left behind is removed by the next one.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import stat
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from wherein.embedding.stamp import sha256_file, verified_sha256
from wherein.errors import EmbedderError
from wherein.onnx_runtime import load_onnxruntime
from wherein.safe_files import UnsafeFile, not_regular, read_regular, write_atomic
from wherein.storage.aside import move_aside
from wherein.storage.paths import model_cache_dir

__all__ = ["RECIPE", "int8_graph"]

logger = logging.getLogger(__name__)

# The quantization's own settings: part of what the file's name stands for. Weights keep 7
# bits (`reduce_range`): x86 CPUs without AVX-512 VNNI multiply uint8 by int8 with
# VPMADDUBSW, whose pairwise int16 sums saturate past 255 x 127 x 2; with 7-bit weights
# they cannot, so every CPU computes the same integers (onnxruntime's quantization guide).
RECIPE = "dynamic-qint8-per-channel-7bit-1"
SHA256_SUFFIX = ".sha256"
# A making's scratch folder (110 MB at its largest); one older than this was left by a
# making that was killed (one takes about 5 s), and the next making removes it.
SCRATCH_PREFIX = ".making-"
SCRATCH_STALE_S = 600


def int8_graph(bundled: Path, bundled_sha256: str) -> Path:
    """The int8 graph made from `bundled` (whose sha256 the caller verified): the cached
    file when it checks out, else one made now.

    Raises:
        EmbedderError: it cannot be made (no `onnx` package, a folder that cannot be
            written, a graph the quantizer refuses); the message says what to do.
    """
    folder = model_cache_dir()
    target = folder / _file_name(bundled_sha256)
    if _checks_out(target):
        return target
    try:
        folder.mkdir(parents=True, exist_ok=True)
        _clear_the_way(target)
        _make(bundled, target)
    except OSError as err:
        raise EmbedderError(
            f"Cannot write the default model's int8 graph into {folder}: "
            f"{err.strerror or err}. Make that folder writable, or set XDG_CACHE_HOME to a "
            "writable folder."
        ) from err
    return target


def _clear_the_way(target: Path) -> None:
    """Move aside a folder, FIFO or link at the graph's names: `os.replace` cannot put the
    graph over a folder, and every run would fail saying the cache cannot be written."""
    for path in (target, Path(f"{target}{SHA256_SUFFIX}")):
        kind = not_regular(path)
        if kind is not None:
            aside = move_aside(path)
            logger.warning("The int8 graph's name %s was %s; moved it to %s.", path, kind, aside)


def _file_name(bundled_sha256: str) -> str:
    """Named by what decides the graph: the bundled file, the recipe, and the onnxruntime
    whose quantizer makes it (imported by the model anyway: `importlib.metadata` for a
    version would add 12 ms to a fresh search's start)."""
    onnxruntime = load_onnxruntime()

    return f"minilm-l6-{bundled_sha256[:16]}-{RECIPE}-onnxruntime{onnxruntime.__version__}.onnx"


def _checks_out(target: Path) -> bool:
    """Whether `target` is a regular file (not a link) whose sha256 is the one beside it."""
    try:
        written = read_regular(Path(f"{target}{SHA256_SUFFIX}"), max_bytes=128)
        if written is None or not_regular(target) is not None:
            return False
        expected = written.decode("ascii").strip()
        return len(expected) == 64 and verified_sha256(target, expected) == expected
    except (OSError, UnsafeFile, UnicodeDecodeError):
        return False


def _remove_stale_scratch(folder: Path) -> None:
    """Remove the scratch folders of makings killed before they were done."""
    now = time.time()
    for entry in folder.glob(f"{SCRATCH_PREFIX}*"):
        with contextlib.suppress(OSError):
            info = entry.lstat()
            if stat.S_ISDIR(info.st_mode) and now - info.st_mtime > SCRATCH_STALE_S:
                shutil.rmtree(entry, ignore_errors=True)


@contextlib.contextmanager
def _quiet_root_logger() -> Iterator[None]:
    """Drop log records of WARNING and below while the block runs, as before it after."""
    previous = logging.root.manager.disable
    logging.disable(max(previous, logging.WARNING))
    try:
        yield
    finally:
        logging.disable(previous)


def _make(bundled: Path, target: Path) -> None:
    """Fold `bundled` to float32, quantize that, and put the result and its sha256 in place."""
    try:
        onnxruntime = load_onnxruntime()
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError as err:
        raise EmbedderError(
            f"The default model needs the onnx package to make its int8 graph ({err}). "
            "Reinstall wherein: pip install --force-reinstall wherein."
        ) from err
    _remove_stale_scratch(target.parent)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=SCRATCH_PREFIX) as scratch:
        folded = Path(scratch) / "float32.onnx"
        made = Path(scratch) / "int8.onnx"
        options = onnxruntime.SessionOptions()
        # Basic optimizations fold the weights' Cast and Mul into float32 constants and
        # leave the graph in standard operators, which the quantizer reads.
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_BASIC
        options.optimized_model_filepath = str(folded)
        options.log_severity_level = 3
        try:
            onnxruntime.InferenceSession(str(bundled), options, providers=["CPUExecutionProvider"])
            with _quiet_root_logger():  # the quantizer advises "pre-processing" on stderr
                quantize_dynamic(
                    folded,
                    made,
                    weight_type=QuantType.QInt8,
                    per_channel=True,
                    reduce_range=True,
                )
        except Exception as err:  # onnxruntime and onnx raise their own untyped errors
            raise EmbedderError(
                f"Cannot make the default model's int8 graph from {bundled}: {err}. "
                "Reinstall wherein: pip install --force-reinstall wherein."
            ) from err
        digest = sha256_file(made)
        # The hash first: a reader that finds the graph then finds the hash it must have.
        write_atomic(Path(f"{target}{SHA256_SUFFIX}"), f"{digest}\n".encode("ascii"))
        os.replace(made, target)
    with contextlib.suppress(OSError):  # a hash the stamp can vouch for at the next start
        verified_sha256(target, digest)
