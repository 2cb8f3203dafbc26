"""Tests written inside a source file, known by the module their name lies in.

Rust keeps a file's tests beside its code, in `#[cfg(test)] mod tests`, and Zig names each
`test "..."` block `test."..."` (its declaration query): neither path tells such a test from the
code it tests, its qualified name does. The chunker names every part of a long test after it,
and ranking counts each such part as a test.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["TEST_MODULES", "in_test_module"]

# What a module of tests is named, in a qualified name.
TEST_MODULES = frozenset({"tests", "test"})


def in_test_module(parts: Sequence[str]) -> bool:
    """Whether a name, cut into its qualified parts (outermost first), lies in a test module."""
    return any(part in TEST_MODULES for part in parts[:-1])
