"""A tree-sitter parse that gives up on a file it reads too slowly.

py-tree-sitter 0.26 has no parse timeout (its `timeout_micros` is gone), and a hostile file
of a megabyte can hold a grammar's error recovery for many seconds: 1 MB of `else` lines
took the C# grammar 11 s, 60,000 broken `#import` lines the Objective-C one 3.3 s. But the
parser reads its input through a callback when given one, a block at a time, as it goes.
Once the parse has run PARSE_GRACE_S and read less than PARSE_MIN_BYTES_PER_S of input
for each second spent, the callback ends the input there and the caller is told the parse
was cut, so the file is chunked without a parse. Code reads far faster: of 636 files of
30 KB to 1 MB in 12 grammars (the standard library, React Native, Expo, the benchmark's
packages), the slowest, generated Objective-C++, read at 0.64 MB/s, and the median at
about 5 MB/s, so none comes near the grace time.

The tree keeps the callback: a node's `text` is read through it, a block at a time until the
node's bytes are in, so once the parse is done it serves every request, in blocks of a name's
size.
"""

from __future__ import annotations

import time

__all__ = ["PARSE_GRACE_S", "PARSE_MIN_BYTES_PER_S", "parse_in_time"]

PARSE_GRACE_S = 1.0
PARSE_MIN_BYTES_PER_S = 250_000
# A block per call: large enough that the calls cost nothing (64 for a megabyte), small
# enough that a cut comes soon after the parse falls behind.
READ_BYTES = 16_384
# A block for a node's text (names, mostly), once parsed.
TEXT_BYTES = 1_024


def parse_in_time(parser, data: bytes, clock=time.perf_counter):
    """`parser.parse(data)`, or None when it read too slowly (see the module's note)."""
    started = clock()
    state = {"parsing": True, "cut": False}
    view = memoryview(data)

    def read(offset: int, _point) -> bytes:
        if not state["parsing"]:  # a node's text, after the parse
            return bytes(view[offset : offset + TEXT_BYTES])
        if state["cut"] or offset >= len(view):
            return b""
        spent = clock() - started
        if spent > PARSE_GRACE_S and offset < spent * PARSE_MIN_BYTES_PER_S:
            state["cut"] = True
            return b""
        return bytes(view[offset : offset + READ_BYTES])

    try:
        tree = parser.parse(read)
    finally:
        state["parsing"] = False
    return None if state["cut"] else tree
