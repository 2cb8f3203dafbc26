"""Embeddings per second through the HTTP path vs calling the same model in process.

The test server (tests/embedding/fake_server.py) runs in its own process and serves the real
in-process MiniLM model over Ollama's `/api/embed`; wherein's `ollama` provider talks to it
through the guarded client at the configured batch size and concurrency. The same texts go
through a MiniLMEmbedder in this process, in batches of the same size. Rounds alternate so
neither side gets a warmer machine; the median round is reported, with the ratio.

    python scripts/bench_http.py [--texts 512] [--batch 16] [--concurrency 2] [--rounds 3]

`--transport-only` serves cheap hashed vectors instead of the model, so the figure is the
client, guard and server's own ceiling: what the HTTP path costs when the model costs nothing.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

REPO_ROOT = Path(__file__).resolve().parents[1]
# Chunks about the size the chunker makes for ordinary functions.
LINES_PER_TEXT = 30
SERVER_START_S = 60.0


def source_texts(count: int) -> list[str]:
    """`count` pieces of wherein's own source, LINES_PER_TEXT lines each, reused if short."""
    pieces: list[str] = []
    for path in sorted((REPO_ROOT / "wherein").rglob("*.py")):
        lines = path.read_text(encoding="utf-8").splitlines()
        for start in range(0, len(lines), LINES_PER_TEXT):
            piece = "\n".join(lines[start : start + LINES_PER_TEXT]).strip()
            if piece:
                pieces.append(piece)
    return [pieces[i % len(pieces)] for i in range(count)]


def start_server(model: bool) -> tuple[subprocess.Popen, int]:
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.embedding.fake_server", *(["--minilm"] if model else [])],
        cwd=REPO_ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + SERVER_START_S
    assert process.stdout is not None
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if line.startswith("PORT "):
            return process, int(line.split()[1])
        if not line and process.poll() is not None:
            break
    process.kill()
    raise RuntimeError("the test server did not start")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=512)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--transport-only", action="store_true", help="hashed vectors, no model")
    args = parser.parse_args(argv)

    sys.path.insert(0, str(REPO_ROOT))
    from wherein.embedding.minilm import MiniLMEmbedder
    from wherein.embedding.ollama import OllamaEmbedder

    texts = source_texts(args.texts)
    if args.transport_only:
        return _transport_only(texts, args)
    direct = MiniLMEmbedder()
    process, port = start_server(model=True)
    try:
        http = OllamaEmbedder(_settings(port, args, "all-minilm"))

        def run_direct() -> np.ndarray:
            parts = [
                direct.embed(texts[i : i + args.batch]) for i in range(0, len(texts), args.batch)
            ]
            return np.vstack(parts)

        run_direct()  # warm both sides once
        http.embed(texts[: args.batch * args.concurrency])
        direct_rates: list[float] = []
        http_rates: list[float] = []
        for _ in range(args.rounds):
            started = time.perf_counter()
            direct_vectors = run_direct()
            direct_rates.append(len(texts) / (time.perf_counter() - started))
            started = time.perf_counter()
            http_vectors = http.embed(texts)
            http_rates.append(len(texts) / (time.perf_counter() - started))
        http.close()
    finally:
        assert process.stdin is not None
        process.stdin.close()
        process.wait(timeout=30)

    largest_gap = float(np.abs(direct_vectors - http_vectors).max())
    direct_rate = statistics.median(direct_rates)
    http_rate = statistics.median(http_rates)
    print(
        f"texts {len(texts)}, batch {args.batch}, concurrency {args.concurrency}, "
        f"rounds {args.rounds} (median)"
    )
    print(f"in process : {direct_rate:8.1f} embeddings/s  rounds {_fmt(direct_rates)}")
    print(f"HTTP path  : {http_rate:8.1f} embeddings/s  rounds {_fmt(http_rates)}")
    print(
        f"HTTP / in-process: {http_rate / direct_rate:.2f}x; "
        f"largest difference between the two vectors of a text: {largest_gap:.2e}"
    )
    return 0


def _settings(port: int, args: argparse.Namespace, model: str):
    from wherein.config import Settings, load_settings

    base = load_settings(None)
    values = {
        **base.values,
        "embedding.provider": "ollama",
        "embedding.api_base": f"http://127.0.0.1:{port}",
        "embedding.model": model,
        "embedding.batch_size": args.batch,
        "embedding.concurrency": args.concurrency,
    }
    return Settings(values=values, sources=base.sources)


def _transport_only(texts: list[str], args: argparse.Namespace) -> int:
    from wherein.embedding.ollama import OllamaEmbedder

    process, port = start_server(model=False)
    try:
        http = OllamaEmbedder(_settings(port, args, "nomic-embed-text"))
        http.embed(texts[: args.batch * args.concurrency])
        rates = []
        for _ in range(args.rounds):
            started = time.perf_counter()
            http.embed(texts)
            rates.append(len(texts) / (time.perf_counter() - started))
        http.close()
    finally:
        assert process.stdin is not None
        process.stdin.close()
        process.wait(timeout=30)
    batches_per_s = statistics.median(rates) / args.batch
    print(
        f"texts {len(texts)}, batch {args.batch}, concurrency {args.concurrency}, hashed "
        f"vectors (no model), rounds {args.rounds} (median)"
    )
    print(
        f"HTTP path ceiling: {statistics.median(rates):8.1f} embeddings/s "
        f"({batches_per_s:.0f} requests/s, {1000 / batches_per_s:.1f} ms a request); "
        f"rounds {_fmt(rates)}"
    )
    return 0


def _fmt(rates: list[float]) -> str:
    return ", ".join(f"{rate:.1f}" for rate in rates)


if __name__ == "__main__":
    sys.exit(main())
