"""OpenAI Codex CLI rollouts: `sessions/YYYY/MM/DD/rollout-*.jsonl`, usage as running totals.

Codex logs `event_msg` lines of type `token_count` whose `total_token_usage` is cumulative for
the session, and re-emits the same total (after a turn ends, on rate-limit updates): summing
them, or their `last_token_usage`, overcounts. A request is therefore one change of the
cumulative total, and an event repeating the previous total is skipped. `input_tokens`
includes the cached part (so the uncached input is input - cached: adding the two would bill
the cached part twice, at the full rate, about three times the real cost); `output_tokens`
includes reasoning tokens.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from wherein.meter.bounds import OutOfRange, check_count, check_time
from wherein.meter.jsonl import ReadStats, iter_json_lines
from wherein.meter.parsed import KEY_BYTES, KIND_CODEX, Merger, ParsedFile
from wherein.meter.table import SOURCE_CODEX, Request, RequestTable

__all__ = ["UNKNOWN_MODEL", "codex_rollouts", "codex_sessions_dir", "parse_codex", "read_codex"]

# Early rollouts (observed in September 2025 builds) have no turn_context naming the model;
# their requests are reported as unpriced under this name rather than guessed.
UNKNOWN_MODEL = "(model not recorded)"
# Rollout line types; another is counted as not understood (a newer version's), never an error.
LINE_TYPES = frozenset({"session_meta", "turn_context", "event_msg", "response_item", "compacted"})
# The running total's counts, those read first; another ending in `_tokens` is not understood.
TOTAL_KEYS_SEEN = (
    "input_tokens",
    "cached_input_tokens",
    "output_tokens",
    "reasoning_output_tokens",
    "total_tokens",
)


def codex_sessions_dir(environ: Mapping[str, str] | None = None) -> Path:
    """`$CODEX_HOME/sessions`, default `~/.codex/sessions`."""
    env = os.environ if environ is None else environ
    home = Path(env["CODEX_HOME"]).expanduser() if env.get("CODEX_HOME") else Path.home() / ".codex"
    return home / "sessions"


def codex_rollouts(environ: Mapping[str, str] | None = None) -> list[Path]:
    """Every rollout file under the sessions folder."""
    sessions = codex_sessions_dir(environ)
    return sorted(sessions.rglob("rollout-*.jsonl")) if sessions.is_dir() else []


def read_codex(path: Path, table: RequestTable, stats: ReadStats) -> None:
    """Add one rollout's requests to `table` (a turn replayed within it counted once)."""
    Merger(table, stats).merge(parse_codex(path))


def parse_codex(path: Path) -> ParsedFile:
    """One rollout's requests, each keyed by the running total it ends at.

    An event with a total or time out of range is rejected, and the next request is counted
    from the last total in range. A forked or resumed rollout starts by replaying its
    parent's history, token_count events included, under its own file and (in some versions)
    new timestamps: the totals are the parent's, so the key finds them (`Merger`), and the
    first turn of its own is counted from the last replayed total. The session is the first
    `session_meta`'s: a fork embeds its parent's after its own.
    """
    parsed = ParsedFile(KIND_CODEX)
    stats, table, keys = parsed.stats, parsed.table, parsed.keys
    session = ""
    project = ""
    model = UNKNOWN_MODEL
    previous = (0, 0, 0)
    seen: set[bytes] = set()

    def opened(info: os.stat_result) -> None:
        parsed.signature = (info.st_size, info.st_mtime_ns, info.st_ino)

    for line in iter_json_lines(path, stats, keep=_may_matter, on_open=opened):
        if not isinstance(line, dict):
            stats.note_malformed(path)
            continue
        kind = line.get("type")
        payload = line.get("payload")
        if kind == "session_meta" and isinstance(payload, dict):
            if not session and isinstance(payload.get("id"), str) and payload["id"]:
                session = payload["id"]
            if not project and isinstance(payload.get("cwd"), str):
                project = payload["cwd"]
        elif kind == "turn_context" and isinstance(payload, dict):
            if isinstance(payload.get("model"), str) and payload["model"]:
                model = payload["model"]
            if not project and isinstance(payload.get("cwd"), str):
                project = payload["cwd"]
        elif kind == "event_msg" and isinstance(payload, dict):
            if payload.get("type") != "token_count" or payload.get("info") is None:
                continue  # other events, and token_count before the first response
            try:
                current = _totals(payload.get("info"), stats)
                when = check_time(line.get("timestamp"))
            except OutOfRange as err:
                stats.note_rejected(path, err.reason)
                continue
            if current is None or when is None:
                stats.note_malformed(path)
                continue
            totals, key_values = current
            if totals == previous:
                stats.repeated_events += 1
                continue
            delta = _delta(totals, previous)
            previous = totals
            key = hashlib.blake2b(repr(key_values).encode(), digest_size=KEY_BYTES).digest()
            if key in seen:  # replayed again within this file (a resume appended to it)
                stats.replayed_turns += 1
                continue
            seen.add(key)
            input_tokens, cached, output = delta
            table.add(
                Request(
                    time=when,
                    session=session or path.stem,
                    model=model,
                    project=project or path.parent.name,
                    input=max(input_tokens - cached, 0),
                    cache_read=min(cached, input_tokens),
                    cache_write_5m=0,
                    cache_write_1h=0,
                    output=output,
                    source=SOURCE_CODEX,
                )
            )
            keys.append(key)
            parsed.sidechain.append(0)
        elif kind not in LINE_TYPES:
            stats.note_not_understood(f"Codex line type {_short(kind)}")
    return parsed


def _may_matter(raw: bytes) -> bool:
    return b"token_count" in raw or b"turn_context" in raw or b"session_meta" in raw


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else type(value).__name__
    return repr(text[:40] + "..." if len(text) > 40 else text)


def _totals(info: Any, stats: ReadStats) -> tuple[tuple[int, int, int], tuple[int, ...]] | None:
    """(input incl. cached, cached input, output incl. reasoning) from `info`, and every
    count of the running total (what a replayed turn repeats exactly); None when malformed.

    Raises:
        OutOfRange: a total is negative or 10**12 or more (so is every request it would add).
    """
    if not isinstance(info, dict) or not isinstance(info.get("total_token_usage"), dict):
        return None
    usage = info["total_token_usage"]
    values = (
        usage.get("input_tokens"),
        usage.get("cached_input_tokens", 0),
        usage.get("output_tokens"),
    )
    if not all(check_count(v) for v in values):
        return None
    extra = []
    for name in TOTAL_KEYS_SEEN[3:]:
        value = usage.get(name, 0)
        extra.append(value if type(value) is int else 0)
    for name in usage:
        if name not in TOTAL_KEYS_SEEN and isinstance(name, str) and name.endswith("_tokens"):
            stats.note_not_understood(f"Codex usage field {_short(name)}")
    return values, (*values, *extra)  # type: ignore[return-value]


def _delta(current: tuple[int, int, int], previous: tuple[int, int, int]) -> tuple[int, int, int]:
    """What one request added to the running total; a total that went down restarted."""
    (now_in, now_cached, now_out), (was_in, was_cached, was_out) = current, previous
    if now_in >= was_in and now_cached >= was_cached and now_out >= was_out:
        return now_in - was_in, now_cached - was_cached, now_out - was_out
    return current
