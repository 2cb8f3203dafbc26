"""A typed decoder for the one line shape that matters in a transcript: a well-formed response.

msgspec decodes a line straight into these structs, building none of the text, thinking or
tool input a response carries, and checks on the way what `responses.response_usage`
checks: every count an int in range, no usage field it does not know. A line that does not
fit exactly (a missing or mistyped count, an unknown field, `NaN`, a message that is not an
object, not JSON at all) raises, and is decoded again into plain dicts and read by the
general rules in `claude.py`, so it means exactly what it did before: the typed path only
ever sees lines for which those rules would take the same values. On a million-line ledger
this saves a third of the reading time. Without msgspec, `decode` is None and every line
takes the general path.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from wherein.meter.bounds import MAX_COUNT
from wherein.meter.jsonl import decode_line

__all__ = ["Line", "decode"]

try:
    import msgspec
except ModuleNotFoundError:  # pragma: no cover - msgspec is a dependency
    msgspec = None  # type: ignore[assignment]

Line: Any = None
decode: Callable[[bytes], Any] | None = None

if msgspec is not None:
    from typing import Annotated

    _Count = Annotated[int, msgspec.Meta(ge=0, lt=MAX_COUNT)]

    class _Split(msgspec.Struct, forbid_unknown_fields=True):
        ephemeral_5m_input_tokens: Any = 0
        ephemeral_1h_input_tokens: _Count = 0

    class _Usage(msgspec.Struct, forbid_unknown_fields=True):
        # The fields of responses.USAGE_KEYS_SEEN; any other sends the line the general way.
        input_tokens: _Count
        output_tokens: _Count
        cache_creation_input_tokens: _Count = 0
        cache_read_input_tokens: _Count = 0
        cache_creation: _Split | None = None
        service_tier: Any = None
        server_tool_use: Any = None
        inference_geo: Any = None

    class _Block(msgspec.Struct):
        type: Any = None
        name: Any = None
        id: Any = None

    class _Message(msgspec.Struct):
        id: Any = None
        model: Any = None
        usage: _Usage | None = None
        content: list[_Block] | str | None = None

    class _Line(msgspec.Struct):
        type: Any = None
        sessionId: Any = None
        message: _Message | None = None
        requestId: Any = None
        timestamp: Any = None
        isSidechain: Any = None
        cwd: Any = None
        costUSD: Any = None

    _typed = msgspec.json.Decoder(_Line).decode
    _REFUSED = (msgspec.ValidationError, msgspec.DecodeError)

    def _decode(raw: bytes) -> Any:
        """A `Line` when the line fits the shape exactly, else plain values (`decode_line`).

        Raises:
            ValueError: not JSON, or not UTF-8.
        """
        try:
            return _typed(raw)
        except _REFUSED:
            return decode_line(raw)

    Line, decode = _Line, _decode
