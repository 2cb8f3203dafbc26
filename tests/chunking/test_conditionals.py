"""A misplaced `#if` costs no names: the file is parsed again with its conditionals blanked."""

from __future__ import annotations

from wherein.chunking import chunk_source
from wherein.chunking.conditionals import without_conditionals

STEPS = "\n".join(f"  func step{i}() -> Int {{\n    return {i} * 2\n  }}\n" for i in range(12))
# Swift's grammar takes no `#if` around a `switch`'s cases: the rest of the class was an error.
LIFECYCLE = f"""import Foundation

final class Lifecycle {{
  func handle(_ name: Notification.Name) {{
    switch name {{
    #if os(iOS)
    case UIApplication.didBecomeActiveNotification:
      post(.active)
    #elseif os(macOS)
    case NSApplication.didBecomeActiveNotification:
      post(.active)
    #endif
    default:
      return
    }}
  }}

{STEPS}}}
"""


def test_declarations_after_a_misplaced_conditional_keep_their_names():
    language, chunks = chunk_source("Lifecycle.swift", LIFECYCLE)
    names = {name for chunk in chunks for name in chunk.symbols}
    assert language == "swift"
    assert {"Lifecycle.handle", "Lifecycle.step0", "Lifecycle.step11"} <= names
    # The chunks are cut from the file as it is, directives and all.
    assert "".join(chunk.text + "\n" for chunk in chunks).count("#elseif os(macOS)") == 1


def test_only_conditional_lines_are_blanked_and_offsets_kept():
    source = b"#import <A.h>\n#define N 2\n  #if X\nint a;\n# else\nint b;\n#endif // X\n"
    blanked = without_conditionals(source)
    assert len(blanked) == len(source) and blanked.count(b"\n") == source.count(b"\n")
    assert blanked.splitlines()[:2] == [b"#import <A.h>", b"#define N 2"]
    assert [line.strip() for line in blanked.splitlines()[2:]] == [
        b"",
        b"int a;",
        b"",
        b"int b;",
        b"",
    ]
    assert without_conditionals(b"#import <A.h>\nint a;\n") is None
