"""The fast tier's piece tokenizer against WordLlama's own: the same ids, and the CPU each takes.

Reads every chunk of an index that `wherein index` or `wherein search` built, as the fast tier
embeds it (`embedding_text`), and tokenizes all of them twice: with the tokenizer's own batch
encode (the baseline) and with `wherein.embedding.static_tokens.PieceTokenizer`, starting
from an empty cache as a new indexing process does. Prints the CPU seconds of each, their
ratio, and how many chunks' ids differ (should be 0).

Run:
    python scripts/bench_static_tokens.py --index /tmp/h/workspaces/<name>/index.db
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from wherein.embedding.static import POOL_BATCH, StaticEmbedder
from wherein.embedding.static_tokens import PieceTokenizer
from wherein.index.vector_tables import embedding_text
from wherein.storage.database import open_read_only


def _cpu(call) -> tuple[list[list[int]], float]:
    started = time.process_time()  # all threads: the tokenizer encodes a batch in several
    value = call()
    return value, time.process_time() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", type=Path, required=True, help="an index.db to read")
    args = parser.parse_args(argv)
    conn = open_read_only(args.index)
    texts = [
        embedding_text(path, json.loads(symbols), header, text)
        for path, symbols, header, text in conn.execute(
            "SELECT f.path, c.symbols, c.header, c.text FROM chunks c "
            "JOIN files f ON f.id = c.file_id ORDER BY c.id"
        )
    ]
    tokenizer = StaticEmbedder().tokenizer
    encode = getattr(tokenizer, "encode_batch_fast", tokenizer.encode_batch)

    def own() -> list[list[int]]:
        return [
            encoding.ids
            for start in range(0, len(texts), POOL_BATCH)
            for encoding in encode(texts[start : start + POOL_BATCH], add_special_tokens=False)
        ]

    def pieces() -> list[list[int]]:
        cut = PieceTokenizer(tokenizer)
        return [
            ids
            for start in range(0, len(texts), POOL_BATCH)
            for ids in cut.ids(texts[start : start + POOL_BATCH])
        ]

    expected, own_s = _cpu(own)
    found, pieces_s = _cpu(pieces)
    differ = sum(a != b for a, b in zip(found, expected, strict=True))
    print(f"{len(texts)} chunks: tokenizer {own_s:.2f} s CPU, pieces {pieces_s:.2f} s CPU")
    print(f"ratio pieces / tokenizer: {pieces_s / own_s:.3f}")
    print(f"chunks whose ids differ: {differ}")
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
