"""What `wherein.untrusted` makes visible, and what it leaves as written."""

from __future__ import annotations

import json

import pytest

from wherein.untrusted import json_text, one_line

# Show nothing, and join or split nothing a script needs: two names that differ by one of
# them look alike.
INVISIBLE = ["\u00ad", "\u200b", "\u2060", "\u2063", "\ufeff"]


@pytest.mark.parametrize("char", INVISIBLE)
def test_a_character_that_shows_nothing_is_shown_escaped(char):
    shown = one_line(f"app{char}.py")
    assert char not in shown and shown.startswith("app\\") and shown.endswith(".py")
    encoded = json_text({"path": f"app{char}.py"})
    assert char not in encoded and json.loads(encoded) == {"path": f"app{char}.py"}


@pytest.mark.parametrize(
    "text",
    [
        "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645",  # Persian: a zero-width non-joiner
        "\U0001f469\u200d\U0001f4bb",  # an emoji sequence: a zero-width joiner
        "caf\u00e9 \u65e5\u672c\u8a9e",
    ],
)
def test_joiners_a_script_needs_and_ordinary_letters_stay_as_written(text):
    assert one_line(text) == text
