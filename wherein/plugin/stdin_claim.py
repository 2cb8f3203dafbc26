"""The MCP session's standard input, read line by line through `malformed.checked_line`.

The SDK's stdio transport reads stdin itself, and a request with an id it cannot keep never
reaches the server; handed a stream of its own, it reads that instead. Claiming stdin as the
transport would: the wire is read from a private duplicate of fd 0, and fd 0 points at the
null device while the session lasts, so a child process or a library that reads stdin meets
its end rather than a client's message. Where that cannot be done (no fd 0 behind
`sys.stdin`, or no descriptor to duplicate), `sys.stdin`'s own buffer is read in place.
A process started with fd 0 closed has no `sys.stdin` at all, and no client to serve:
`require_stdin` says so before the session starts.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from collections.abc import Iterator
from typing import Any

import anyio

from wherein.errors import UsageError
from wherein.plugin.malformed import checked_line

__all__ = ["claimed_stdin", "require_stdin"]


def require_stdin() -> None:
    """Raise UsageError when the process has no standard input to read the wire from."""
    if sys.stdin is None:
        raise UsageError(
            "wherein serve reads its MCP client on standard input, which is closed. "
            "Start it from an MCP host (see 'wherein install'), with stdin a pipe."
        )


class _CheckedLines:
    """A text stream's lines, each through `checked_line`: what `anyio.wrap_file` reads."""

    def __init__(self, text: io.TextIOBase) -> None:
        self._text = text

    def readline(self, *args: Any) -> str:
        return checked_line(self._text.readline(*args))

    def close(self) -> None:
        """The descriptor stays open: a reader thread may still block on it (the SDK's rule)."""
        with contextlib.suppress(ValueError):
            self._text.detach()


@contextlib.contextmanager
def claimed_stdin() -> Iterator[anyio.AsyncFile[str]]:
    """The wire's lines as the transport wants them; fd 0 restored at the end."""
    private = _divert_stdin()
    buffer = sys.stdin.buffer if private is None else os.fdopen(private, "rb", closefd=False)
    text = io.TextIOWrapper(buffer, encoding="utf-8", errors="replace")
    try:
        yield anyio.wrap_file(_CheckedLines(text))
    finally:
        if private is not None:
            with contextlib.suppress(OSError):
                os.dup2(private, 0)


def _divert_stdin() -> int | None:
    """A private duplicate of fd 0, fd 0 then pointing at the null device; None where not."""
    try:
        if sys.stdin is None or sys.stdin.buffer.fileno() != 0:
            return None
        import fcntl

        private = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
    except (AttributeError, OSError, ValueError, ImportError):
        return None
    try:
        null = os.open(os.devnull, os.O_RDONLY)
        try:
            os.dup2(null, 0)
        finally:
            os.close(null)
    except OSError:
        os.close(private)
        return None
    return private
