"""The context-growth chart as text: one bar per step bucket, so a terminal shows the shape."""

from __future__ import annotations

from wherein.meter.steps import TEXT_BUCKETS, describe_cuts, merge_buckets
from wherein.meter.summary import BASELINE, RECALL

__all__ = ["CHART_TITLE", "format_step_chart"]

CHART_TITLE = "CONTEXT PER REQUEST BY STEP"
CHART_LEGEND = (
    "average context tokens per request at each step of a session; (n) = sessions behind it"
)
BAR_CELLS = 16  # wide enough to tell 10% apart, narrow enough for two groups in 96 columns
EIGHTHS = " ▏▎▍▌▋▊▉"  # U+258F..U+2589: a cell filled one eighth at a time
FULL = "█"
ASCII_FULL = "#"
GROUP_TITLES = {BASELINE: "baseline", RECALL: "with recall"}
COLUMN_GAP = "   "


def format_step_chart(series: dict | None, *, ascii_only: bool = False) -> list[str]:
    """Lines of the chart (a blank line first), or none when there is no step to draw.

    Args:
        series: `context_by_step` of the summary (see `steps.bucket_steps`).
        ascii_only: draw bars with '#' for terminals that cannot show block characters.
    """
    if not series or not series["buckets"]:
        return []
    series = merge_buckets(series, TEXT_BUCKETS)
    groups = [g for g in (BASELINE, RECALL) if any(r["requests"] for r in series["groups"][g])]
    top = max(
        (r["avg_context"] for g in groups for r in series["groups"][g] if r["requests"]),
        default=0,
    )
    labels = [
        f"{b['first']}-{b['last']}" if b["last"] > b["first"] else str(b["first"])
        for b in series["buckets"]
    ]
    label_width = max(len("steps"), *(len(label) for label in labels))
    cells = {g: [_cell(r, top, ascii_only) for r in series["groups"][g]] for g in groups}
    widths = {g: max(len(GROUP_TITLES[g]), *(len(c) for c in cells[g])) for g in groups}
    header = COLUMN_GAP.join(f"{GROUP_TITLES[g]:<{widths[g]}}" for g in groups)
    lines = ["", CHART_TITLE, f"  {CHART_LEGEND}", f"  {'steps':<{label_width}}  {header}".rstrip()]
    for k, label in enumerate(labels):
        row = COLUMN_GAP.join(f"{cells[g][k]:<{widths[g]}}" for g in groups)
        lines.append(f"  {label:<{label_width}}  {row}".rstrip())
    lines += [f"  {sentence}" for sentence in describe_cuts(series)]
    return lines


def _cell(row: dict, top: float, ascii_only: bool) -> str:
    """Bar, value and sessions of one bucket; blank where the group has no request there."""
    if not row["requests"]:
        return ""
    value = row["avg_context"]
    bar = _bar(value / top if top else 0.0, ascii_only)
    return f"{bar:<{BAR_CELLS}} {value:>9,.0f} ({row['sessions']:,})"


def _bar(fraction: float, ascii_only: bool) -> str:
    if ascii_only:
        return ASCII_FULL * round(fraction * BAR_CELLS)
    eighths = round(fraction * BAR_CELLS * 8)
    bar = FULL * (eighths // 8) + EIGHTHS[eighths % 8]
    return bar.rstrip()
