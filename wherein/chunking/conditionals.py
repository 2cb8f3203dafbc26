"""Conditional-compilation lines blanked, for a second parse of a file whose first lost names.

A grammar places `#if`, `#elseif` and `#endif` where whole declarations or statements stand,
not anywhere: around the `case`s of a Swift `switch`, or where react-native-webview's
Objective-C puts them. There it gives up, and the rest of the enclosing body, or of the file,
becomes an ERROR node whose declarations lose their names: 60% of webview's Objective-C
bytes and 10% of expo-modules-core's Swift sat in top-level errors. With every such line
turned into spaces (byte and row offsets kept, both branches of each conditional kept), the
same files held 0.8% and 6.2%. The chunker parses a file again so when its first parse has
an error, and keeps the parse that names more declarations: a file whose branches only make
sense apart (each opening the same function) keeps its first. Chunk texts are cut from the
file's own lines, so the directives still show in them.

C, C++ and C# are not parsed again: libxml2's C errors fell from 7% of its bytes to 0.1%, but
its declarations were named either way (the query finds them inside the errors), and the
second parse of its files cost a quarter more chunking time; re2's C++ and edge's C# gained
nothing.
"""

from __future__ import annotations

import re

__all__ = ["CONDITIONAL_GRAMMARS", "without_conditionals"]

# The grammars whose names a misplaced conditional cost (see above).
CONDITIONAL_GRAMMARS = frozenset({"objc", "swift"})
# Objective-C's directives and Swift's (`#elseif`); never `#define`, `#import` or
# `#include`, which declare or bring in something.
CONDITIONAL_LINE = re.compile(
    rb"^[ \t]*#[ \t]*(?:if|ifdef|ifndef|elif|elseif|else|endif)\b[^\n]*", re.MULTILINE
)


def without_conditionals(data: bytes) -> bytes | None:
    """`data` with each conditional-compilation line turned into spaces, or None when it has
    none."""
    blanked, count = CONDITIONAL_LINE.subn(lambda line: b" " * len(line.group(0)), data)
    return blanked if count else None
