"""`wherein statusline`: one short line for the Claude Code session that runs it.

Claude Code runs a status-line command after each assistant message (at most every 300 ms),
passes it a JSON object on stdin (`session_id`, `transcript_path`, `cwd`, `workspace` with
`current_dir` and `project_dir`, `model`, `cost`, ...: code.claude.com/docs/en/statusline)
and shows the first line the command prints. This prints, for that session:

    Recall 3 · 40x · ~117k tokens kept out (est.) · $1.23 this session

recall calls, source chars over returned chars, and source minus returned as tokens at four
characters a token (an estimate, and labelled one), from wherein's own usage ledger; then
what the session's requests cost at the meter's prices, from its transcript.

It runs on every refresh, so it reads no index and loads no model or numpy, and it reads
only what was appended since the last refresh (offsets and sums kept in `<data home>/
statusline/`, one small file per session): of the usage ledger, this session's rows alone
(`usage.session_rows`); of the transcript, at most `TRANSCRIPT_READ_BYTES` a refresh, so a
long session resumed is caught up over a few refreshes (the cost reads "at least" until
then). The transcript is a file the
session writes: it is opened as a ledger is (no link, regular files only, bounded).

Whatever stdin holds (nothing, not JSON, no session), the command prints a neutral line and
exits 0: a status bar has nowhere to show an error.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import stat
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, NamedTuple, TextIO

from wherein.meter.bounds import MAX_COST_USD, OutOfRange
from wherein.meter.responses import RECALL_TOOL, SYNTHETIC_MODEL, response_usage
from wherein.meter.statusline_state import SessionState, load_state, save_state, state_path
from wherein.meter.usage import SEARCH_ACTION, session_rows, usage_path
from wherein.safe_files import UnsafeFile, open_regular
from wherein.untrusted import one_line

if TYPE_CHECKING:
    pass

__all__ = [
    "NO_SESSION",
    "STDIN_MAX_BYTES",
    "TRANSCRIPT_READ_BYTES",
    "SessionInput",
    "format_status",
    "parse_input",
    "run_statusline",
]

STDIN_MAX_BYTES = 1 << 20  # the object Claude Code sends is a few KB
STDIN_WAIT_S = 1.0  # it writes the object and closes stdin; a pipe left open is not waited on
TRANSCRIPT_READ_BYTES = 4 << 20  # per refresh: 40-80 ms of parsing at worst
TRANSCRIPT_MAX_BYTES = 4 << 30  # as the baseline reader's cap (jsonl.LEDGER_FILE_MAX_BYTES)
NO_SESSION = "Recall: no session yet"
NO_CALLS = "Recall: no calls yet"
SEPARATORS = {True: (" · ", "≥"), False: (" | ", ">=")}
CHARS_PER_TOKEN = 4  # as the recall tool's own line and the baseline report estimate it


class SessionInput(NamedTuple):
    """What the status line needs of the JSON Claude Code passes it."""

    session: str
    transcript: Path | None


def parse_input(data: bytes | None) -> SessionInput | None:
    """The session named by Claude Code's status-line JSON, or None when there is none."""
    if not data:
        return None
    try:
        value = json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError):  # not JSON, or nested deeper than Python recurses
        return None
    if not isinstance(value, dict):
        return None
    session = value.get("session_id")
    if not isinstance(session, str) or not session.strip():
        return None
    transcript = value.get("transcript_path")
    path = Path(transcript) if isinstance(transcript, str) and transcript else None
    return SessionInput(session, path)


def run_statusline(
    stdin: BinaryIO, stdout: TextIO, environ: Mapping[str, str] | None = None
) -> int:
    """Read Claude Code's JSON from `stdin`, print the session's line; always exits 0."""
    try:
        line = _status_line(_read_stdin(stdin), environ, _can_show(stdout))
    except Exception as err:  # noqa: BLE001 - a status bar must get a line whatever went wrong
        problem = f"{type(err).__name__}: {err}"
        print(f"wherein statusline: {one_line(problem)}", file=sys.stderr)
        line = NO_SESSION
    stdout.write(one_line(line) + "\n")
    stdout.flush()
    return 0


def _status_line(data: bytes | None, environ: Mapping[str, str] | None, rich: bool) -> str:
    session = parse_input(data)
    if session is None:
        return NO_SESSION
    path = state_path(session.session, environ)
    state = load_state(path, session.session)
    before = json.dumps(state.to_json())
    _read_usage(state, usage_path(environ))
    budget = TRANSCRIPT_READ_BYTES
    for transcript in _transcript_files(session.transcript):
        budget -= _read_new(transcript, state, environ, budget)
    if json.dumps(state.to_json()) != before:
        save_state(path, state)
    _, _, calls, returned, source = state.usage
    has_cost = bool(state.files)  # no transcript there (yet): no cost to show
    return format_status(
        calls=calls,
        returned_chars=returned,
        source_chars=source,
        transcript_calls=state.recall_calls,
        usd=state.usd if has_cost else None,
        unpriced=state.unpriced if has_cost else 0,
        behind=state.behind,
        rich=rich,
    )


def _read_usage(state: SessionState, ledger: Path) -> None:
    """Add the session's search rows the usage ledger gained since the last refresh."""
    inode, offset, calls, returned, source = state.usage
    since = (inode, offset) if offset else None
    found = session_rows(ledger, state.session, since)
    if since is None or found.inode != inode or found.end < offset:
        calls = returned = source = 0  # read from the start (of its tail): count afresh
    for row in found.rows:
        if row.action == SEARCH_ACTION:
            calls += 1
            returned += row.returned_chars
            source += row.source_chars
    state.usage = [found.inode, found.end, calls, returned, source]


def format_status(
    *,
    calls: int,
    returned_chars: int,
    source_chars: int,
    transcript_calls: int = 0,
    usd: float | None = None,
    unpriced: int = 0,
    behind: bool = False,
    rich: bool = True,
) -> str:
    """The line: recall figures from the usage rows (or, when the recall server did not know
    the session's id, the calls seen in the transcript), then the session's cost."""
    dot, at_least = SEPARATORS[rich]
    if calls:
        parts = [f"Recall {calls:,}"]
        if returned_chars:
            parts.append(_times(source_chars / returned_chars))
        kept = max(source_chars - returned_chars, 0) // CHARS_PER_TOKEN
        parts.append(f"~{_tokens(kept)} tokens kept out (est.)")
    elif transcript_calls:
        parts = [f"Recall {transcript_calls:,}"]
    else:
        parts = [NO_CALLS]
    if usd is not None:
        amount = f"${usd:.4f}" if 0 < usd < 0.01 else f"${usd:,.2f}"
        shown = f"{at_least if behind else ''}{amount} this session"
        if unpriced:
            shown += f" (+{unpriced:,} unpriced)"
        parts.append(shown)
    return dot.join(parts)


def _times(ratio: float) -> str:
    return f"{ratio:.0f}x" if ratio >= 10 else f"{ratio:.1f}x"


def _tokens(n: int) -> str:
    if n >= 1_000_000:
        return f"{n / 1_000_000:.1f}M"
    if n >= 10_000:
        return f"{n / 1000:.0f}k"
    if n >= 1000:
        return f"{n / 1000:.1f}k"
    return str(n)


def _can_show(stream: TextIO) -> bool:
    try:
        "·≥".encode(getattr(stream, "encoding", None) or "ascii")
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def _read_stdin(stream: BinaryIO) -> bytes | None:
    """What Claude Code wrote on stdin, up to STDIN_MAX_BYTES; None for a terminal or nothing.

    A pipe that stays open is read until STDIN_WAIT_S has passed, never waited on for ever.
    """
    try:
        fd = stream.fileno()
        if os.isatty(fd):
            return None
    except (OSError, ValueError, AttributeError):
        return None
    deadline = time.monotonic() + STDIN_WAIT_S
    parts: list[bytes] = []
    total = 0
    while total <= STDIN_MAX_BYTES:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        try:
            ready, _, _ = select.select([fd], [], [], left)
        except (OSError, ValueError):  # not selectable (a file): read it, bounded
            ready = [fd]
        if not ready:
            break
        block = os.read(fd, min(1 << 16, STDIN_MAX_BYTES + 1 - total))
        if not block:
            break
        parts.append(block)
        total += len(block)
    if total > STDIN_MAX_BYTES:
        return None
    return b"".join(parts) or None


def _transcript_files(transcript: Path | None) -> list[Path]:
    """The transcript and its subagents' (`<session>/subagents/*.jsonl` beside it), whose
    requests count in the session as they do in `baseline`."""
    if transcript is None:
        return []
    found = [transcript]
    folder = transcript.with_suffix("")
    subagents = folder / "subagents"
    # A link inside the agent's folders is not followed, as `baseline` follows none: a
    # `subagents` linked elsewhere would bill this session for whatever lies there.
    with contextlib.suppress(OSError):  # no subagent yet
        if _real_folder(folder) and _real_folder(subagents):
            found += sorted(p for p in subagents.iterdir() if p.suffix == ".jsonl")
    return found


def _real_folder(path: Path) -> bool:
    """Whether `path` is a folder itself, not a link to one (raises OSError if absent)."""
    return stat.S_ISDIR(os.lstat(path).st_mode)


def _read_new(
    path: Path, cost: SessionState, environ: Mapping[str, str] | None, budget: int
) -> int:
    """Read what `path` gained since its offset, whole lines only; returns the bytes read."""
    try:
        handle = open_regular(path, max_bytes=TRANSCRIPT_MAX_BYTES)
    except UnsafeFile:
        return 0
    if handle is None:
        return 0
    with handle:
        info = os.fstat(handle.fileno())
        inode, offset = cost.files.get(str(path), [info.st_ino, 0])
        if inode != info.st_ino or offset > info.st_size:  # replaced or cut: read all again
            cost.restart_transcripts()
            offset = 0
        want = min(info.st_size - offset, max(budget, 0))
        if info.st_size - offset > want:
            cost.behind = True
        if want <= 0:
            cost.files[str(path)] = [info.st_ino, offset]
            return 0
        handle.seek(offset)
        data = handle.read(want)
    end = data.rfind(b"\n") + 1  # a line still being written waits for the next refresh
    for raw in data[:end].split(b"\n"):
        if b'"assistant"' in raw:
            _add_line(raw, cost, environ)
    cost.files[str(path)] = [info.st_ino, offset + end]
    return end


class _Ignored:
    """Where `response_usage` notes a field it does not know: the status line has no notes."""

    def note_not_understood(self, what: str) -> None:
        pass


_IGNORED = _Ignored()


def _add_line(raw: bytes, cost: SessionState, environ: Mapping[str, str] | None) -> None:
    try:
        line = json.loads(raw)
    except (ValueError, RecursionError):  # not JSON, or nested deeper than Python recurses
        return
    if not isinstance(line, dict) or line.get("type") != "assistant":
        return
    if line.get("sessionId") != cost.session:  # a resumed session's copy of another's lines
        return
    message = line.get("message")
    if not isinstance(message, dict):
        return
    if b"recall" in raw and isinstance(message.get("content"), list):
        _count_recall(message["content"], cost)
    model = message.get("model")
    if model == SYNTHETIC_MODEL:
        return
    try:
        values = response_usage(line, message, model, _IGNORED)
    except OutOfRange:
        return
    if values is None:
        return
    when, fresh, read, write_5m, write_1h, output, stored = values
    tokens = fresh + read + write_5m + write_1h + output
    message_id, request_id = message.get("id"), line.get("requestId")
    if isinstance(message_id, str) and message_id:
        key = f"{message_id}\x00{request_id if isinstance(request_id, str) else ''}"
    else:
        cost.unnamed += 1  # no id to merge on: every such line is its own request
        key = f"line {cost.unnamed}"
    seen = cost.recent.get(key)
    if seen is not None and tokens <= seen[0]:
        return  # a streamed copy no fuller than the one kept
    usd = stored
    if usd is None:
        if cost.prices is None:
            from wherein.meter.prices import load_prices  # only when a response is new

            cost.prices = load_prices(environ)
        row = cost.prices.lookup(model, when)
        if row is not None:
            rates, _ = row.rates_at(when, fresh + read + write_5m + write_1h)
            usd = rates.cost(fresh, write_5m, write_1h, read, output)
            if usd >= MAX_COST_USD:  # rejected as a stored cost this large is (bounds.py)
                return
    cost.keep(key, tokens, usd)


def _count_recall(content: list, cost: SessionState) -> None:
    for block in content:
        if not (isinstance(block, dict) and block.get("type") == "tool_use"):
            continue
        name = block.get("name")
        if not (isinstance(name, str) and RECALL_TOOL.match(name)):
            continue
        tool_id = block.get("id")
        if isinstance(tool_id, str) and tool_id:
            if tool_id in cost.tool_ids:
                continue
            cost.tool_ids.append(tool_id)
        cost.recall_calls += 1
