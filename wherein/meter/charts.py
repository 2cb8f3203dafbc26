"""What each chart of the HTML report plots: labels, series, axis titles, text alternatives.

The page's script only hands these specs to the charting library, so every number, title and
sentence is decided (and tested) here. Colours differ in lightness by at least 15 L* (CIE
1976) from their neighbours, and lines differ in dash and point shape as well, so a greyscale
print still tells them apart.
"""

from __future__ import annotations

from wherein.meter.report import no_request_note
from wherein.meter.steps import describe_cuts
from wherein.meter.summary import BASELINE, CHARS_PER_TOKEN, RECALL

__all__ = [
    "COST_COLOURS",
    "COST_LABELS",
    "SERIES_COLOURS",
    "chart_specs",
    "relative_lightness",
]

SERIES_COLOURS = {BASELINE: "#1b3a5c", RECALL: "#e08a1e"}  # L* 24 and 65
SERIES_LABELS = {
    BASELINE: "baseline (sessions without recall)",
    RECALL: "sessions that used recall",
}
SERIES_DASH = {BASELINE: [], RECALL: [7, 4]}
SERIES_POINT = {BASELINE: "circle", RECALL: "triangle"}
COST_LABELS = {
    "cache_read": "re-reading cached context",
    "input": "new input",
    "cache_write": "cache writes",
    "output": "output",
    "stored": "stored in the ledger (not split)",
}
# Dark to light in the order the bars stack: L* 18, 39, 59, 81, 96.
COST_COLOURS = {
    "cache_read": "#0d2c54",
    "input": "#9c3d2b",
    "cache_write": "#2a9d8f",
    "output": "#f2c14e",
    "stored": "#fdf3d8",
}
USAGE_COLOURS = ("#e08a1e", "#1b3a5c")  # excerpts as the recall line, whole files as baseline
STEPS_X_TITLE = "step within the session (request number), in buckets of {width}"
NOTHING_TO_PLOT = "so there is nothing to plot."


def _no_request(summary: dict) -> str:
    return f"{no_request_note(summary).removesuffix('.')}, {NOTHING_TO_PLOT}"


def chart_specs(summary: dict) -> list[dict]:
    """The report's charts in page order: context by step, sessions by step, cost per day,
    recall usage. A chart with nothing to draw has `empty` set to a sentence saying why."""
    return [
        _steps_chart(summary),
        _sessions_chart(summary),
        _cost_chart(summary),
        _usage_chart(summary),
    ]


def relative_lightness(colour: str) -> float:
    """CIE L* (0 black .. 100 white) of a '#rrggbb' colour: what survives a greyscale print."""
    channels = [int(colour[k : k + 2], 16) / 255 for k in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    luminance = 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
    # CIE 1976: a cube root above (6/29)^3, a straight line below it.
    if luminance > (6 / 29) ** 3:
        return 116 * luminance ** (1 / 3) - 16
    return 116 * (luminance / (3 * (6 / 29) ** 2) + 4 / 29) - 16


def _spec(chart_id: str, title: str, **fields) -> dict:
    spec = {"id": chart_id, "title": title, "empty": None, "notes": [], "alt": "", "table": None}
    spec.update(fields)
    return spec


def _step_labels(series: dict) -> list[str]:
    return [
        f"{b['first']}-{b['last']}" if b["last"] > b["first"] else str(b["first"])
        for b in series["buckets"]
    ]


def _drawn_groups(summary: dict) -> list[str]:
    series = summary.get("context_by_step") or {"groups": {}}
    return [
        g for g in (BASELINE, RECALL) if any(row["requests"] for row in series["groups"].get(g, []))
    ]


def _steps_chart(summary: dict) -> dict:
    title = "Average context per request (tokens) at each step of a session, baseline vs recall"
    series = summary.get("context_by_step")
    spec = _spec("steps", title, kind="line", y_unit="tokens")
    if not series or not series["buckets"]:
        spec["empty"] = _no_request(summary)
        return spec
    labels = _step_labels(series)
    groups = _drawn_groups(summary)
    spec.update(
        labels=labels,
        x_title=STEPS_X_TITLE.format(width=series["bucket_steps"]),
        y_title="average context per request (tokens)",
        datasets=[
            {
                "key": g,
                "label": SERIES_LABELS[g],
                "data": [row["avg_context"] for row in series["groups"][g]],
                "sessions": [row["sessions"] for row in series["groups"][g]],
                "colour": SERIES_COLOURS[g],
                "dash": SERIES_DASH[g],
                "point": SERIES_POINT[g],
            }
            for g in groups
        ],
    )
    spec["notes"] = _steps_notes(summary, series, groups)
    spec["alt"] = _steps_alt(series, labels, groups)
    columns = ["steps"]
    for g in groups:
        columns += [f"{SERIES_LABELS[g]}: tokens", "sessions"]
    rows = []
    for k, label in enumerate(labels):
        row = [label]
        for g in groups:
            entry = series["groups"][g][k]
            row += [_tokens(entry["avg_context"]), f"{entry['sessions']:,}"]
        rows.append(row)
    spec["table"] = {"columns": columns, "rows": rows}
    return spec


def _steps_notes(summary: dict, series: dict, groups: list[str]) -> list[str]:
    notes = [
        "Context is what the model read for a request: input + cache read + cache write "
        "tokens. Each point is the mean over every request at those steps; the chart below "
        "it shows how many sessions reached each bucket, so late points rest on few sessions. "
        "Subagent requests count as steps of their parent session."
    ]
    if RECALL not in groups:
        notes.append("No session used recall in this period: there is no recall line to compare.")
    if BASELINE not in groups:
        notes.append("Every session used recall in this period: there is no baseline line.")
    notes += describe_cuts(series)
    if len(groups) == 2:
        notes.append(
            "The groups differ in more than recall (task, length, model): a measurement, "
            "not a proof."
        )
    return notes


def _steps_alt(series: dict, labels: list[str], groups: list[str]) -> str:
    parts = []
    for g in groups:
        rows = series["groups"][g]
        drawn = [(label, row) for label, row in zip(labels, rows, strict=True) if row["requests"]]
        (first_label, first), (last_label, last) = drawn[0], drawn[-1]
        parts.append(
            f"{SERIES_LABELS[g]}: {_tokens(first['avg_context'])} tokens at {_at(first_label)} "
            f"({first['sessions']:,} sessions), {_tokens(last['avg_context'])} at "
            f"{_at(last_label)} ({last['sessions']:,} sessions)"
        )
    return f"Line chart of average context per request by step. {'; '.join(parts)}."


def _sessions_chart(summary: dict) -> dict:
    title = "Sessions behind each point: sessions that reached each step bucket"
    series = summary.get("context_by_step")
    spec = _spec("sessions", title, kind="bar", y_unit="count")
    if not series or not series["buckets"]:
        spec["empty"] = _no_request(summary)
        return spec
    labels = _step_labels(series)
    groups = _drawn_groups(summary)
    spec.update(
        labels=labels,
        x_title=STEPS_X_TITLE.format(width=series["bucket_steps"]),
        y_title="sessions (count)",
        datasets=[
            {
                "key": g,
                "label": SERIES_LABELS[g],
                "data": [row["sessions"] for row in series["groups"][g]],
                "colour": SERIES_COLOURS[g],
            }
            for g in groups
        ],
    )
    counts = "; ".join(
        f"{SERIES_LABELS[g]}: {series['groups'][g][0]['sessions']:,} sessions at "
        f"{_at(labels[0])}, {series['groups'][g][-1]['sessions']:,} at {_at(labels[-1])}"
        for g in groups
    )
    spec["alt"] = f"Bar chart of sessions reaching each step bucket. {counts}."
    return spec


def _cost_chart(summary: dict) -> dict:
    title = "Cost per day (USD), split into re-read cached context, new input, cache writes, output"
    days = summary.get("cost_by_day") or []
    spec = _spec("cost", title, kind="bar", stacked=True, y_unit="usd")
    if not days:
        spec["empty"] = _no_request(summary)
        return spec
    parts = [p for p in COST_LABELS if p != "stored" or any(day["stored"] for day in days)]
    spec.update(
        labels=[day["date"] for day in days],
        x_title="day (UTC)",
        y_title="cost (USD per day)",
        datasets=[
            {
                "key": part,
                "label": COST_LABELS[part],
                "data": [round(day[part], 6) for day in days],
                "colour": COST_COLOURS[part],
            }
            for part in parts
        ],
    )
    totals = [sum(day[p] for p in parts) for day in days]
    top = max(range(len(days)), key=totals.__getitem__)
    split = ", ".join(f"{COST_LABELS[p]} {_usd(sum(day[p] for day in days))}" for p in parts)
    spec["alt"] = (
        f"Stacked bar chart of cost per day over {len(days)} days, {days[0]['date']} to "
        f"{days[-1]['date']}. The costliest day is {days[top]['date']} at {_usd(totals[top])}. "
        f"Over the period: {split}."
    )
    unpriced = summary.get("unpriced_requests", 0)
    if unpriced:
        spec["notes"].append(
            f"{unpriced:,} requests of models the price table does not name are left out of "
            "every cost (see the notes below)."
        )
    spec["table"] = {
        "columns": ["day (UTC)", *(f"{COST_LABELS[p]} (USD)" for p in parts), "total (USD)"],
        "rows": [
            [day["date"], *(_usd(day[p]) for p in parts), _usd(total)]
            for day, total in zip(days, totals, strict=True)
        ],
    }
    return spec


def _usage_chart(summary: dict) -> dict:
    title = "Recall: characters returned as excerpts vs characters in the whole files"
    usage = summary["groups"][RECALL]["usage"]
    spec = _spec("usage", title, kind="bar", horizontal=True, y_unit="chars")
    calls = usage["calls_logged"]
    spec["figures"] = [
        ("recall calls logged by wherein", f"{calls:,}", ""),
        ("recall calls seen in transcripts", f"{usage['calls_in_transcripts']:,}", ""),
        (
            "tokens kept out of context",
            f"≈ {usage['tokens_kept_out_estimate']:,}",
            f"an estimate and an upper bound: (whole-file chars − excerpt chars) / "
            f"{CHARS_PER_TOKEN}, as if the agent would otherwise have read every whole file",
        ),
    ]
    if not calls:
        spec["empty"] = (
            "No recall search was logged in this period, so there are no excerpts to compare "
            "with whole files."
        )
        return spec
    returned, source = usage["returned_chars"], usage["source_chars"]
    spec.update(
        labels=["excerpts recall returned", "whole files they came from"],
        x_title="characters",
        y_title="",
        datasets=[
            {
                "key": "chars",
                "label": "characters",
                "data": [returned, source],
                "colour": list(USAGE_COLOURS),
            }
        ],
    )
    share = f"{returned / source:.1%}" if source else "n/a"
    spec["alt"] = (
        f"Bar chart: recall returned {returned:,} characters as excerpts, from whole files of "
        f"{source:,} characters ({share}), over {calls:,} logged calls."
    )
    spec["table"] = {
        "columns": ["what", "characters"],
        "rows": [
            ["excerpts recall returned", f"{returned:,}"],
            ["whole files they came from", f"{source:,}"],
        ],
    }
    return spec


def _at(label: str) -> str:
    return f"steps {label}" if "-" in label else f"step {label}"


def _tokens(value: float | None) -> str:
    return "-" if value is None else f"{round(value):,}"


def _usd(value: float) -> str:
    if 0 < value < 0.01:
        return f"${value:.4f}"
    return f"${value:,.2f}"
