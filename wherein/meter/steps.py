"""Context per request at each step of a session: the series behind the growth chart.

A session's step k is its k-th request in time order. Subagent requests share their parent's
sessionId (see `claude.py`), so they are steps of the parent session here, as they are
requests of it in every average of the report. Steps are grouped into buckets of a round
width; a bucket's figure is the mean context of every request at those steps, and the
sessions behind it are those that reached its first step. Each group's line stops at the last
step enough of its sessions reach; what lies beyond is counted, not drawn.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from wherein.meter.bounds import MAX_COUNT
from wherein.meter.ledgers import Ledger
from wherein.meter.summary import BASELINE, RECALL, Filters

__all__ = [
    "HTML_BUCKETS",
    "MIN_SESSIONS_PER_POINT",
    "TEXT_BUCKETS",
    "StepCounts",
    "bucket_steps",
    "count_steps",
    "describe_cuts",
    "merge_buckets",
]

# Behind fewer sessions a point is one or two sessions' own curve, not a shape: a group's
# steps that fewer of its sessions reach are left out (and counted), unless the whole group
# is that small, when its sessions' own curve is all there is to draw.
MIN_SESSIONS_PER_POINT = 3
HTML_BUCKETS = 60  # points per line: enough for the shape, few enough to read one by one
TEXT_BUCKETS = 15  # rows in the terminal chart: one screen beside the rest of the report
NICE_MANTISSAS = (1, 2, 5)  # bucket widths 1, 2, 5, 10, 20, 50, ... steps
GROUP_NAMES = {BASELINE: "baseline", RECALL: "with recall"}
# A request's context is four counts, each below MAX_COUNT (bounds.py rejects the rest).
INT64_SAFE_ROWS = np.iinfo(np.int64).max // (4 * MAX_COUNT)


@dataclass(frozen=True)
class StepCounts:
    """One group's sessions reaching step k and their context tokens summed at step k
    (index 0 is step 1)."""

    sessions: np.ndarray
    context: np.ndarray

    @property
    def last_step(self) -> int:
        return len(self.sessions)


def count_steps(
    ledger: Ledger,
    recall_names: Iterable[str],
    filters: Filters = Filters(),  # noqa: B008 - frozen, so a shared default is safe
) -> dict[str, StepCounts]:
    """Per group (baseline, recall), the sessions and context tokens at each step.

    Filters apply as in `summarize`: a request outside the window or project is not a step.
    """
    table = ledger.table
    size = len(table)
    empty = StepCounts(np.zeros(0, np.int64), np.zeros(0, np.int64))
    if not size:
        return {BASELINE: empty, RECALL: empty}
    times = _column(table.time)
    keep = np.ones(size, dtype=bool)
    if filters.since is not None:
        keep &= times >= filters.since
    if filters.until is not None:
        keep &= times < filters.until
    if filters.project is not None:
        wanted = filters.project
        matches = np.fromiter((wanted in name for name in table.names), bool, len(table.names))
        keep &= matches[_column(table.project)]
    context = _column(table.input) + _column(table.cache_read)
    context += _column(table.cache_write_5m) + _column(table.cache_write_1h)
    sessions, times, context = _column(table.session)[keep], times[keep], context[keep]
    order = np.lexsort((times, sessions))  # by session, then time; stable for equal times
    sessions, context = sessions[order], context[order]
    step = _steps_within_runs(sessions)
    recall = set(recall_names)
    is_recall = np.fromiter((name in recall for name in table.names), bool, len(table.names))
    in_recall = is_recall[sessions]
    return {
        BASELINE: _tally(step[~in_recall], context[~in_recall]),
        RECALL: _tally(step[in_recall], context[in_recall]),
    }


def bucket_steps(counts: dict[str, StepCounts], max_buckets: int = HTML_BUCKETS) -> dict:
    """The step series as JSON-ready buckets of a round width, shared by both groups.

    Returns:
        `{"bucket_steps", "last_step", "min_sessions", "left_out_requests", "buckets":
        [{"first", "last"}], "groups": {group: [{"sessions", "requests", "context_tokens",
        "avg_context"}]}, "drawn_to": {group: step}, "left_out": {group: requests}}`.
        `sessions` counts every session that reached the bucket; the other figures stop at
        the group's `drawn_to` step, and `avg_context` is None where nothing is left to draw.
    """
    drawn_to = {name: _drawn_to(c) for name, c in counts.items()}
    last = max(drawn_to.values(), default=0)
    width = _nice_width(last, max_buckets)
    edges = [(first, min(first + width - 1, last)) for first in range(1, last + 1, width)]
    left_out = {name: int(c.sessions[drawn_to[name] :].sum()) for name, c in counts.items()}
    groups = {
        name: [_bucket(c, first, end, drawn_to[name]) for first, end in edges]
        for name, c in counts.items()
    }
    return {
        "bucket_steps": width,
        "last_step": last,
        "min_sessions": MIN_SESSIONS_PER_POINT,
        "left_out_requests": sum(left_out.values()),
        "buckets": [{"first": first, "last": end} for first, end in edges],
        "groups": groups,
        "drawn_to": drawn_to,
        "left_out": left_out,
    }


def merge_buckets(series: dict, max_buckets: int = TEXT_BUCKETS) -> dict:
    """`series` (from `bucket_steps`) with adjacent buckets merged into a round width that
    gives at most `max_buckets` rows."""
    buckets = series["buckets"]
    width = series["bucket_steps"]
    factor = 1
    while math.ceil(len(buckets) / factor) > max_buckets or not _is_nice(width * factor):
        factor += 1
    if factor == 1:
        return series
    merged = dict(series, bucket_steps=width * factor)
    spans = [range(k, min(k + factor, len(buckets))) for k in range(0, len(buckets), factor)]
    merged["buckets"] = [
        {"first": buckets[s.start]["first"], "last": buckets[s.stop - 1]["last"]} for s in spans
    ]
    merged["groups"] = {
        name: [_merge([rows[k] for k in span]) for span in spans]
        for name, rows in series["groups"].items()
    }
    return merged


def describe_cuts(series: dict) -> list[str]:
    """Sentences saying what each group's line leaves out, or rests on too few sessions for."""
    sentences = []
    least = series["min_sessions"]
    for name, rows in series["groups"].items():
        reached = rows[0]["sessions"] if rows else 0
        label = GROUP_NAMES.get(name, name)
        if 0 < reached < least:
            sentences.append(
                f"{label}: only {reached} session{'s' if reached > 1 else ''}, so the line is "
                f"{'their' if reached > 1 else 'its'} own curve."
            )
        left_out = series["left_out"].get(name, 0)
        if left_out:
            sentences.append(
                f"{label}: {left_out:,} requests after step {series['drawn_to'][name]:,} left "
                f"out, where fewer than {least} of its sessions go on."
            )
    return sentences


def _column(values) -> np.ndarray:
    """A table column as a numpy view, without copying."""
    return np.frombuffer(values, dtype=values.typecode)


def _steps_within_runs(sessions: np.ndarray) -> np.ndarray:
    """0-based position of each row within its run of equal session ids."""
    positions = np.arange(len(sessions))
    starts = np.ones(len(sessions), dtype=bool)
    starts[1:] = sessions[1:] != sessions[:-1]
    return positions - np.maximum.accumulate(np.where(starts, positions, 0))


def _tally(step: np.ndarray, context: np.ndarray) -> StepCounts:
    sessions = np.bincount(step).astype(np.int64)
    # Exact sums: bincount's float64 weights drift past 2**53, so int64, which no sum of
    # fewer than INT64_SAFE_ROWS requests can overflow; past that, Python ints.
    exact = np.int64 if len(context) < INT64_SAFE_ROWS else object
    sums = np.zeros(len(sessions), dtype=exact)
    np.add.at(sums, step, context.astype(exact))
    return StepCounts(sessions, sums)


def _drawn_to(counts: StepCounts) -> int:
    """The group's last step that enough of its sessions reach; all of a group too small."""
    if not counts.last_step or counts.sessions[0] < MIN_SESSIONS_PER_POINT:
        return counts.last_step
    return int((counts.sessions >= MIN_SESSIONS_PER_POINT).sum())  # counts never rise with k


def _nice_width(last: int, max_buckets: int) -> int:
    scale = 1
    while True:
        for mantissa in NICE_MANTISSAS:
            if math.ceil(last / (mantissa * scale)) <= max_buckets:
                return mantissa * scale
        scale *= 10


def _is_nice(width: int) -> bool:
    while width % 10 == 0:
        width //= 10
    return width in NICE_MANTISSAS


def _bucket(counts: StepCounts, first: int, last: int, drawn_to: int) -> dict:
    reached = int(counts.sessions[first - 1]) if first <= counts.last_step else 0
    end = min(last, drawn_to)
    context = int(counts.context[first - 1 : end].sum())
    requests = int(counts.sessions[first - 1 : end].sum())
    return {
        "sessions": reached,
        "requests": requests,
        "context_tokens": context,
        "avg_context": context / requests if requests else None,
    }


def _merge(rows: list[dict]) -> dict:
    requests = sum(row["requests"] for row in rows)
    context = sum(row["context_tokens"] for row in rows)
    return {
        "sessions": rows[0]["sessions"],
        "requests": requests,
        "context_tokens": context,
        "avg_context": context / requests if requests else None,
    }
