"""The baseline report as text: the BASELINE block first, then recall, totals and notes."""

from __future__ import annotations

import re
import textwrap

from wherein.meter.textchart import format_step_chart
from wherein.untrusted import cut_middle, one_line

__all__ = [
    "BREAKDOWN_COLUMNS",
    "breakdown_cells",
    "format_breakdown",
    "format_report",
    "no_request_note",
    "report_rows",
]

TEXT_WIDTH = 96  # sentences wrap here; the figures' lines stay whole
# A word of a note past this (a ledger's model name, a path) is cut in its middle: a
# 100,000-character model name was one line of the report.
MAX_WORD_CHARS = 120
_LONG_WORD = re.compile(rf"\S{{{MAX_WORD_CHARS + 1},}}")
LABEL_WIDTH = 30  # "avg context/request (typical)" plus one space, as in issue 7's block
NOTE_GAP = "    "
POOLED = "avg context/request (pooled)"
TYPICAL = "avg context/request (typical)"
WHY_TWO_AVERAGES = (
    "Why two averages: pooled is dominated by long sessions with many large requests; "
    "typical gives each session one vote."
)
NO_RECALL_YET = (
    "No session has used recall yet, so there is nothing to compare: "
    "every session above is the baseline."
)
LINK_REASON = "it is a symbolic link"  # wherein.safe_files' reason
LINKS_NOT_FOLLOWED = (
    "Links inside the agent folders are not followed and only regular files are read there: "
    "put the file itself in place of a link to count it."
)
CAVEAT = "the groups differ in more than recall (task, length, model): a measurement, not a proof"

Row = tuple[str, str, str]  # label, value, note


def format_report(summary: dict, *, ascii_only: bool = False) -> str:
    """Render a `summarize` dict as the text report (`ascii_only`: bars drawn with '#')."""
    groups = summary["groups"]
    before = _group_rows(groups["baseline"])
    after = _group_rows(groups["recall"]) + _usage_rows(groups["recall"]["usage"])
    # Both groups share one value column, so their figures line up for comparison.
    width = _width(before + after) if summary["recall_used"] else _width(before)
    lines = ["BASELINE", *_block(before, width), *_para(WHY_TWO_AVERAGES)]
    lines += ["", "WITH RECALL"]
    if summary["recall_used"]:
        lines += _block(after, width)
        lines += _comparison(groups)
    else:
        lines += _para(NO_RECALL_YET)
    lines += format_step_chart(summary.get("context_by_step"), ascii_only=ascii_only)
    lines += ["", _period_title(summary), *_block(_total_rows(summary))]
    return "\n".join([*lines, *_notes_section(summary)]) + "\n"


def format_breakdown(summary: dict) -> str:
    """Render `summary["breakdowns"][summary["by"]]` as a table, then the report's notes."""
    by = summary["by"]
    table = summary["breakdowns"][by]
    head = ["", *BREAKDOWN_COLUMNS[1:]]
    body = [breakdown_cells(row) for row in table["rows"]]
    total = breakdown_cells({"key": "total", **table["total"]})
    widths = [max(len(r[i]) for r in [head, *body, total]) for i in range(len(head))]
    widths[0] = min(max(widths[0], len(by)), LABEL_MAX)

    def line(cells: list[str]) -> str:
        # A session id, project or model is the ledger's text: one line, or a newline in it
        # forges a row of the table ("total").
        first = cut_middle(one_line(cells[0]), widths[0]).ljust(widths[0])
        rest = "".join(
            f"  {cell:>{width}}" for cell, width in zip(cells[1:], widths[1:], strict=True)
        )
        return f"  {first}{rest}"

    period = _period_title(summary).replace("ALL SESSIONS", "").strip()
    lines = [f"BY {by.upper()}  {period}".rstrip(), line([by, *head[1:]])]
    lines += [line(cells) for cells in body] or ["  (no request matches)"]
    lines.append(line(total))
    if any(row["unpriced_requests"] for row in table["rows"]):
        lines.append("  * some of the row's requests have no price: see the notes.")
    return "\n".join([*lines, *_notes_section(summary)]) + "\n"


def _notes_section(summary: dict) -> list[str]:
    """The NOTES heading and each note as a wrapped bullet, ending the text report."""
    lines = ["", "NOTES"]
    for note in _notes(summary):
        lines += textwrap.wrap(
            _LONG_WORD.sub(_cut_word, one_line(note)),
            TEXT_WIDTH,
            initial_indent="  - ",
            subsequent_indent="    ",
            break_on_hyphens=False,  # paths (-home-me-app) stay whole,
            break_long_words=False,  # and so does one longer than a line
        )
    return lines


BREAKDOWN_COLUMNS = (
    "key",
    "sessions",
    "requests",
    "input",
    "cache read",
    "cache write",
    "output",
    "cost",
)
LABEL_MAX = 44  # a session id or project path past this is cut in the middle


def breakdown_cells(row: dict) -> list[str]:
    """One breakdown row as the text table's cells (tokens in K, M and B; cost in dollars)."""
    tokens = row["tokens"]
    cost = row["cost_usd"]
    if cost is None:
        shown = "unpriced"
    else:
        shown = _usd(cost) + ("*" if row.get("unpriced_requests") else "")
    return [
        row["key"],
        _count(row["sessions"]),
        _count(row["requests"]),
        _tokens(tokens["input"]),
        _tokens(tokens["cache_read"]),
        _tokens(tokens["cache_write_5m"] + tokens["cache_write_1h"]),
        _tokens(tokens["output"]),
        shown,
    ]


def _tokens(n: int) -> str:
    for size, unit in ((10**9, "B"), (10**6, "M"), (10**3, "K")):
        if n >= 10 * size:
            return f"{n / size:,.1f}{unit}"
    return f"{n:,}"


def _cut_word(match: re.Match[str]) -> str:
    word = match.group()
    return f"{cut_middle(word, MAX_WORD_CHARS)} ({len(word):,} characters)"


def report_rows(summary: dict) -> dict:
    """The report's rows as (label, value, note) and its notes, for the HTML page's tables."""
    groups = summary["groups"]
    return {
        "baseline": _group_rows(groups["baseline"]),
        "recall": _group_rows(groups["recall"]),
        "recall_usage": _usage_rows(groups["recall"]["usage"]),
        "period": _period_title(summary),
        "totals": _total_rows(summary),
        "notes": _notes(summary),
        "why_two_averages": WHY_TWO_AVERAGES,
        "comparison": _comparison_sentence(groups),
    }


def _para(text: str) -> list[str]:
    return textwrap.wrap(text, TEXT_WIDTH, initial_indent="  ", subsequent_indent="  ")


def _width(rows: list[Row]) -> int:
    return max((len(value) for _, value, _ in rows), default=0)


def _block(rows: list[Row], width: int | None = None) -> list[str]:
    width = _width(rows) if width is None else width
    return [
        f"  {label:<{LABEL_WIDTH}}{value:<{width}}{NOTE_GAP}{note}".rstrip()
        for label, value, note in rows
    ]


def _group_rows(group: dict) -> list[Row]:
    return [
        ("sessions", _count(group["sessions"]), ""),
        ("requests", _count(group["requests"]), ""),
        (POOLED, _count(group["avg_context_pooled"]), "every request counts once"),
        (TYPICAL, _count(group["avg_context_typical"]), "every session counts once"),
        ("cost", _usd(group["cost_usd"]), ""),
    ]


def _usage_rows(usage: dict) -> list[Row]:
    seen = f"logged by wherein; {_count(usage['calls_in_transcripts'])} seen in transcripts"
    source = f"of {_count(usage['source_chars'])} chars in the source it came from"
    kept = _count(usage["tokens_kept_out_estimate"])
    return [
        ("recall calls", _count(usage["calls_logged"]), seen),
        ("chars returned", _count(usage["returned_chars"]), source),
        ("tokens kept out", kept, f"estimate, {usage['estimate']}"),
    ]


def _comparison(groups: dict) -> list[str]:
    sentence = _comparison_sentence(groups)
    return _para(sentence) if sentence else []


def _comparison_sentence(groups: dict) -> str:
    before = groups["baseline"]["avg_context_typical"]
    after = groups["recall"]["avg_context_typical"]
    if not before or after is None:
        return ""
    change = (after - before) / before
    direction = "lower" if change < 0 else "higher"
    return f"Typical context/request is {abs(change):.0%} {direction} with recall; {CAVEAT}."


def _period_title(summary: dict) -> str:
    period = summary["period"]
    if not period["days"]:
        return "ALL SESSIONS"
    return f"ALL SESSIONS  {period['first']} .. {period['last']} ({period['days']} days, UTC)"


def _total_rows(summary: dict) -> list[Row]:
    split = summary["cost_split_usd"]
    total = summary["cost_usd"]
    parts = [
        ("  re-reading cached context", split["cache_read"]),
        ("  new input", split["input"]),
        ("  cache writes", split["cache_write"]),
        ("  output", split["output"]),
    ]
    if summary["stored_cost_requests"]:
        parts.append(("  stored in the ledger", split["stored"]))
    hit_rate = summary["cache_hit_rate"]
    split_rows = [(label, _usd(v), _percent(v / total if total else None)) for label, v in parts]
    writes = summary.get("cache_write_split_usd")  # absent from a summary saved before it
    if writes and split["cache_write"]:
        at = 2  # under "cache writes": what each TTL cost, of the total and of the writes
        for label, value in (("5-minute", writes["5m"]), ("1-hour", writes["1h"])):
            of_total = _percent(value / total if total else None)
            note = f"{of_total}; {_percent(value / split['cache_write'])} of cache writes"
            at += 1
            split_rows.insert(at, (f"    {label} cache writes", _usd(value), note))
    return [
        ("sessions", _count(summary["sessions"]), ""),
        ("requests", _count(summary["requests"]), ""),
        ("cost", _usd(total), ""),
        ("cache hit rate", _percent(hit_rate) or "n/a", "cache reads / all context tokens"),
        ("cost split", "", ""),
        *split_rows,
        ("model calls per day", _number(summary["calls_per_day"]), "over the whole period"),
        ("cost per day", _usd(summary["cost_per_day"]), ""),
    ]


def no_request_note(summary: dict) -> str:
    """Why the report holds no request: the filters left none, or the ledgers held none."""
    filters = summary.get("filters") or {}
    if any(filters.get(name) for name in ("since", "until", "project")):
        return "No request in these ledgers matches --since, --until and --project."
    return "These ledgers hold no request that could be read."


def _notes(summary: dict) -> list[str]:
    ledger_bad = _count(summary["malformed_lines"])
    usage_bad = _count(summary["usage_rows_malformed"])
    notes = [f"Malformed lines skipped: {ledger_bad} in the ledgers, {usage_bad} in usage.jsonl."]
    # .get: a summary saved as JSON before rows were rejected has no such keys
    rejected = summary.get("rejected", [])
    if rejected:
        rows = _rows(summary["rejected_rows"])
        reasons = _reasons(rejected)
        notes.append(
            f"{rows} rejected as out of range and left out of every figure: {reasons}; "
            "check what wrote those lines."
        )
    usage_rejected = summary.get("usage_rejected", [])
    if usage_rejected:
        rows = _rows(summary["usage_rows_rejected"])
        notes.append(f"{rows} of usage.jsonl rejected as out of range: {_reasons(usage_rejected)}.")
    if not summary["requests"]:
        notes.append(no_request_note(summary))
    for item in summary["unpriced_models"]:
        what = f"{item['model']} ({_requests(item['requests'])}, {item['reason']})"
        where = summary["rules"].get("user_price_file", "your prices.toml")
        notes.append(f"Unpriced and left out of every cost: {what}; add it to {where} to price it.")
    stored = summary["stored_cost_requests"]
    if stored:
        notes.append(f"{_requests(stored)} used the cost stored in the ledger.")
    tiers = summary["price_tiers"]
    if tiers["long_context"]:
        notes.append(f"{_requests(tiers['long_context'])} priced at long-context rates.")
    if tiers["off_peak"]:
        notes.append(f"{_requests(tiers['off_peak'])} priced at off-peak rates.")
    if summary["duplicate_lines"]:
        merged = _count(summary["duplicate_lines"])
        notes.append(f"{merged} streamed copies of Claude responses merged into their request.")
    if summary["repeated_events"]:
        notes.append(f"{_count(summary['repeated_events'])} repeated Codex totals skipped.")
    if summary.get("replayed_turns"):
        replayed = _count(summary["replayed_turns"])
        notes.append(
            f"{replayed} Codex turns replayed into a forked or resumed rollout counted once."
        )
    not_understood = summary.get("not_understood", [])
    if not_understood:
        kinds = "; ".join(f"{item['lines']:,} of {item['what']}" for item in not_understood)
        notes.append(f"Not understood, so not counted (a newer agent may write them): {kinds}.")
    if summary["unmatched_usage_rows"]:
        stray = _count(summary["unmatched_usage_rows"])
        notes.append(f"{stray} recall calls in usage.jsonl match no session of these ledgers.")
    unreadable = summary["sources"]["unreadable"]
    notes += [f"Unreadable, skipped: {item}" for item in unreadable]
    if any(item.endswith(LINK_REASON) for item in unreadable):
        notes.append(LINKS_NOT_FOLLOWED)
    problem = summary["sources"].get("cache_problem")
    if problem:
        notes.append(
            f"Parse cache not used: {problem}; every file was read. Remove that file, and the "
            "next run starts a new cache."
        )
    rules = summary["rules"]
    tables = ", ".join(rules["price_tables"])
    notes.append(f"Prices: {tables}; 1-hour cache writes at the {rules['one_hour_cache_writes']}.")
    return notes


def _rows(n: int) -> str:
    return f"{n:,} row" if n == 1 else f"{n:,} rows"


def _reasons(rejected: list[dict]) -> str:
    return "; ".join(
        f"{item['rows']:,} with {item['reason']} (first at {item['first']})" for item in rejected
    )


def _requests(n: int) -> str:
    return f"{n:,} request" if n == 1 else f"{n:,} requests"


def _count(value: float | None) -> str:
    return "n/a" if value is None else f"{round(value):,}"


def _number(value: float | None) -> str:
    return "n/a" if value is None else f"{value:,.1f}"


def _usd(value: float | None) -> str:
    if value is None:
        return "n/a"
    if 0 < value < 0.01:
        return f"${value:.4f}"
    return f"${value:,.2f}"


def _percent(value: float | None) -> str:
    return "" if value is None else f"{value:.1%}"
