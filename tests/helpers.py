"""Shared test helpers: small repositories written on the fly and a deterministic embedder."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from wherein.embedding.base import EmbedderIdentity, normalize_rows
from wherein.ranking.tokens import tokenize

DIMENSION = 64
# Two small modules and a README: what the CLI and damaged-index tests search.
DEMO_REPO = {
    "app/routing.py": (
        "class Router:\n"
        "    def add_route(self, path, handler):\n"
        "        '''Register a handler for a URL path.'''\n"
        "        self.routes[path] = handler\n"
    ),
    "app/retry.py": (
        "def retry_with_backoff(call, attempts=3):\n"
        "    '''Call again after a failure, waiting longer each time.'''\n"
        "    for attempt in range(attempts):\n"
        "        return call()\n"
    ),
    "README.md": "# Demo\n\nA tiny app used by the tests.\n",
}
# The first message an MCP host sends `wherein serve`.
MCP_INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test-host", "version": "1"},
    },
}


def ascii_texts(seed: int, often: str) -> list[str]:
    """Every ASCII character in order and reversed, then 2,000 random strings of them, with
    the characters of `often` weighted up: for proving an ASCII-only pattern equal to a
    Unicode one."""
    every_character = "".join(map(chr, range(128)))
    rng = random.Random(seed)
    alphabet = every_character + often * 6
    texts = [every_character, every_character[::-1]]
    return texts + ["".join(rng.choices(alphabet, k=rng.randint(1, 80))) for _ in range(2000)]


def write_tree(root: Path, files: dict[str, str | bytes]) -> Path:
    """Create `files` (relative path -> content) under `root`."""
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


class HashingEmbedder:
    """A deterministic bag-of-tokens embedder for ranking unit tests (not the real model)."""

    identity = EmbedderIdentity("test-hashing", "bag-of-tokens", DIMENSION)

    def __init__(self, dimension: int = DIMENSION) -> None:
        self.calls = 0
        self.dimension = dimension
        if dimension != DIMENSION:
            self.identity = EmbedderIdentity("test-hashing", "bag-of-tokens", dimension)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for token in tokenize(text):
                digest = hashlib.blake2b(token.encode(), digest_size=4).digest()
                out[row, int.from_bytes(digest, "little") % self.dimension] += 1.0
        return normalize_rows(out)


def cli(capsys, *args: str) -> tuple[int, str, str]:
    """Run `main` in-process; argparse's own exits count as return codes."""
    from wherein.cli import main

    try:
        code = main(list(args))
    except SystemExit as exit_:
        code = exit_.code
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def resident_searcher(repo: Path):
    """(search, resident): `search(query)` runs through one `ResidentIndex` kept between
    calls, as a `wherein serve` session's do. Call `resident.drop_store()` when done."""
    from wherein.config import load_settings
    from wherein.resident import ResidentIndex
    from wherein.search import run_search

    resident = ResidentIndex()
    embedder = HashingEmbedder()
    settings = load_settings(repo)

    def search(query: str):
        return run_search(
            query, workspace=repo, settings=settings, fast_embedder=embedder, resident=resident
        )

    return search, resident


def printed_in_time(code: str, timeout_s: float = 60) -> str:
    """What `code` prints, run in a child Python with this checkout first on its path: a
    pattern that hangs (exponential backtracking, quadratic scans) fails by the timeout
    instead of holding the suite."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=timeout_s,
        env={"PYTHONPATH": str(Path(__file__).resolve().parents[1])},
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def fresh_search(repo: Path, query: str, **kwargs):
    """One search of `repo` as a fresh process runs it, with the test's hashing fast model."""
    from wherein.config import load_settings
    from wherein.search import run_search

    return run_search(
        query,
        workspace=repo,
        settings=load_settings(repo),
        fast_embedder=HashingEmbedder(),
        **kwargs,
    )
