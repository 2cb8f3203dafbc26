"""`wherein baseline --html FILE`: the report as one self-contained HTML page with charts.

Scripts, styles and data are inline, and a Content-Security-Policy allows nothing else (no
network, no other script), so the file opens offline and a stray request would be blocked.
Charts are drawn by Chart.js, vendored in `assets/` with its licence; every figure, title and
text alternative comes from `charts.py` and `report.py`.
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone
from importlib import resources
from pathlib import Path

from wherein import __version__
from wherein.html_page import csp_hash, page_head, write_page_file
from wherein.html_page import escape as _e
from wherein.meter.charts import chart_specs
from wherein.meter.report import BREAKDOWN_COLUMNS, NO_RECALL_YET, breakdown_cells, report_rows

__all__ = ["CHART_JS_SHA256", "CHART_JS_VERSION", "render_html", "write_html"]

ASSETS = "assets"
CHART_JS = "chart.umd.min.js"
CHART_JS_VERSION = "4.6.1"
CHART_JS_SHA256 = "87364cc2b2a76a6684929e7d6b80b18a897794db38400caff1fcf1791c6925d2"
# The vendored file ends by naming its source map; a browser would try to fetch it when
# DevTools opens, and the map is not shipped, so the line is dropped from the inlined copy.
SOURCE_MAP_LINE = re.compile(r"^//# sourceMappingURL=\S*\s*$", re.MULTILINE)
# Text that would end or confuse an inline <script> element (HTML's script data states).
SCRIPT_BREAKERS = ("</script", "<!--")
CHART_HEIGHT_CLASS = {
    "steps": "chart",
    "sessions": "chart small",
    "cost": "chart",
    "usage": "chart bars",
}


def render_html(summary: dict, *, generated: datetime | None = None) -> str:
    """The page for a `build_baseline(..., with_days=True)` summary."""
    specs = {spec["id"]: spec for spec in chart_specs(summary)}
    rows = report_rows(summary)
    chart_js = SOURCE_MAP_LINE.sub("", _asset(CHART_JS)).rstrip() + "\n"
    page_js = _asset("report.js")
    data = {"charts": [_chart_data(spec) for spec in specs.values()]}
    policy = (
        "default-src 'none'; "
        f"script-src {csp_hash(chart_js)} {csp_hash(page_js)}; "
        "style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"
    )
    when = (generated or datetime.now(timezone.utc)).strftime("%Y-%m-%d %H:%M UTC")
    parts = [
        *page_head(policy, _page_title(summary), "\n" + _asset("report.css")),
        *_header(summary, rows),
        *_steps_section(specs["steps"], specs["sessions"]),
        *_chart_section("cost-by-day", "2", specs["cost"]),
        *_usage_section(specs["usage"]),
        *_baseline_section(summary, rows),
        *_breakdown_section(summary),
        _footer(when),
        '<script type="application/json" id="wherein-data">',
        _json_for_script(data),
        "</script>",
        f"<script>{_checked_script(chart_js)}</script>",
        f"<script>{_checked_script(page_js)}</script>",
        "</body>",
        "</html>",
    ]
    return "\n".join(parts) + "\n"


def write_html(summary: dict, path: Path) -> int:
    """Write the page to `path` (replacing it whole, never half-written); returns its bytes.

    Raises:
        UsageError: the file or its folder cannot be written.
    """
    return write_page_file(render_html(summary), path)


def _asset(name: str) -> str:
    return resources.files("wherein.meter").joinpath(ASSETS, name).read_text("utf-8")


def _checked_script(text: str) -> str:
    lowered = text.lower()
    for breaker in SCRIPT_BREAKERS:
        if breaker in lowered:
            raise ValueError(f"An inline script holds {breaker!r}; it cannot be inlined as is.")
    return text


def _json_for_script(data: dict) -> str:
    """JSON that cannot end its <script> element: '<', '>' and '&' as JSON escapes."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _chart_data(spec: dict) -> dict:
    """What the page's script needs of a spec; tables and sentences are already HTML."""
    keep = (
        "id",
        "kind",
        "labels",
        "datasets",
        "x_title",
        "y_title",
        "y_unit",
        "stacked",
        "horizontal",
        "empty",
    )
    return {key: spec.get(key) for key in keep}


def _page_title(summary: dict) -> str:
    period = summary["period"]
    if not period["days"]:
        return "wherein baseline: agent cost report"
    return f"wherein baseline: agent cost {period['first']} .. {period['last']}"


def _header(summary: dict, rows: dict) -> list[str]:
    lead = (
        f"{summary['sessions']:,} sessions, {summary['requests']:,} model requests, "
        f"{_usd(summary['cost_usd'])}"
    )
    period = rows["period"].replace("ALL SESSIONS", "").strip()
    if period:
        lead = f"{lead}; {period}"
    filters = summary.get("filters") or {}
    chosen = [f"--{k} {v}" for k, v in filters.items() if v]
    lines = [
        "<header>",
        "<h1>What your agent sessions cost, with and without recall</h1>",
        f'<p class="lead">{_e(lead)}</p>',
    ]
    if chosen:
        lines.append(f'<p class="note">Only requests matching {_e(" ".join(chosen))}.</p>')
    lines += [
        '<p class="note">Read from your own agent ledgers on this machine. The page is one '
        "file: it loads nothing from the network.</p>",
        "</header>",
    ]
    return lines


def _figure(spec: dict) -> list[str]:
    if spec["empty"]:
        return [f'<p class="empty">{_e(spec["empty"])}</p>']
    # The canvas is named by its title and described by the caption, which says in words what
    # it shows; the same words are its fallback content where canvas is not drawn at all.
    alt, chart_id = _e(spec["alt"]), spec["id"]
    return [
        "<figure>",
        f'<div class="{CHART_HEIGHT_CLASS[chart_id]}"><canvas id="chart-{chart_id}" role="img" '
        f'aria-label="{_e(spec["title"])}" aria-describedby="caption-{chart_id}">{alt}</canvas>'
        "</div>",
        f'<figcaption id="caption-{chart_id}">{alt}</figcaption>',
        "</figure>",
    ]


def _notes(spec: dict) -> list[str]:
    return [f'<p class="note">{_e(note)}</p>' for note in spec["notes"]]


def _data_table(spec: dict) -> list[str]:
    table = spec["table"]
    if spec["empty"] or not table:
        return []
    head = "".join(f'<th scope="col">{_e(c)}</th>' for c in table["columns"])
    body = [
        "<tr>" + "".join(f"<td>{_e(cell)}</td>" for cell in row) + "</tr>" for row in table["rows"]
    ]
    return [
        "<details>",
        f"<summary>Data table: {_e(spec['title'])}</summary>",
        f"<table><thead><tr>{head}</tr></thead><tbody>",
        *body,
        "</tbody></table>",
        "</details>",
    ]


def _steps_section(steps: dict, sessions: dict) -> list[str]:
    return [
        '<section id="context-by-step">',
        f"<h2>1. {_e(steps['title'])}</h2>",
        *_notes(steps),
        *_figure(steps),
        f"<h3>{_e(sessions['title'])}</h3>",
        *_figure(sessions),
        *_data_table(steps),
        "</section>",
    ]


def _chart_section(section_id: str, number: str, spec: dict) -> list[str]:
    return [
        f'<section id="{section_id}">',
        f"<h2>{number}. {_e(spec['title'])}</h2>",
        *_notes(spec),
        *_figure(spec),
        *_data_table(spec),
        "</section>",
    ]


def _usage_section(spec: dict) -> list[str]:
    figures = ['<dl class="figures">']
    for label, value, why in spec["figures"]:
        figures += [
            f"<dt>{_e(label)}</dt>",
            f"<dd>{_e(value)}</dd>",
            f'<dd class="why">{_e(why)}</dd>',
        ]
    figures.append("</dl>")
    lines = _chart_section("recall-usage", "3", spec)
    return lines[:2] + figures + lines[2:]


def _baseline_section(summary: dict, rows: dict) -> list[str]:
    used = summary["recall_used"]
    head = "".join(
        f'<th scope="col"{css}>{name}</th>'
        for name, css in (
            ("figure", ' class="text"'),
            ("baseline", ""),
            ("with recall", ""),
            ("note", ' class="text"'),
        )
    )
    body = []
    for (label, before, note), (_, after, _) in zip(rows["baseline"], rows["recall"], strict=True):
        shown = after if used else "-"
        body.append(
            f'<tr><th scope="row" class="text">{_e(label)}</th><td>{_e(before)}</td>'
            f'<td>{_e(shown)}</td><td class="text">{_e(note)}</td></tr>'
        )
    lines = [
        '<section id="baseline">',
        "<h2>4. BASELINE: sessions without recall beside sessions that used it</h2>",
        f"<table><thead><tr>{head}</tr></thead><tbody>",
        *body,
        "</tbody></table>",
        f'<p class="note">{_e(rows["why_two_averages"])}</p>',
    ]
    if not used:
        lines.append(f'<p class="note">{_e(NO_RECALL_YET)}</p>')
    elif rows["comparison"]:
        lines.append(f"<p>{_e(rows['comparison'])}</p>")
    lines += [f"<h3>{_e(rows['period'])}</h3>", "<table><tbody>"]
    for label, value, note in rows["totals"]:
        part = ' class="text part"' if label.startswith(" ") else ' class="text"'
        lines.append(
            f'<tr><th scope="row"{part}>{_e(label.strip())}</th><td>{_e(value)}</td>'
            f'<td class="text">{_e(note)}</td></tr>'
        )
    lines += ["</tbody></table>", "<h3>Notes</h3>", "<ul>"]
    lines += [f"<li>{_e(note)}</li>" for note in rows["notes"]]
    lines += ["</ul>", "</section>"]
    return lines


def _breakdown_section(summary: dict) -> list[str]:
    """Section 5: a table per grouping, each sortable by any column (report.js)."""
    tables = summary.get("breakdowns") or {}
    if not tables:
        return []
    chosen = summary.get("by") or "model"
    lines = [
        '<section id="breakdowns">',
        "<h2>5. Breakdowns: by day, week, month, session, project and model</h2>",
        '<p class="note">Each request counts in the day, week (ISO, Monday first) and month of '
        "its own time, UTC. A column's heading sorts the table by it; a model with no price "
        "keeps its tokens and shows no cost.</p>",
    ]
    for by, table in tables.items():
        count = len(table["rows"])
        is_open = " open" if by == chosen else ""
        lines += [
            f'<details class="breakdown" id="by-{_e(by)}"{is_open}>',
            f"<summary>By {_e(by)} ({count:,} row{'' if count == 1 else 's'})</summary>",
            *_breakdown_table(by, table),
            "</details>",
        ]
    lines.append("</section>")
    return lines


def _breakdown_table(by: str, table: dict) -> list[str]:
    head = []
    for i, name in enumerate(BREAKDOWN_COLUMNS):
        kind, css = ("text", ' class="text"') if i == 0 else ("number", "")
        label = _e(by if i == 0 else name)
        head.append(
            f'<th scope="col"{css} data-type="{kind}"><button type="button">{label}</button></th>'
        )
    body = [_breakdown_row(row) for row in table["rows"]]
    total = _breakdown_row({"key": "total", **table["total"]}, cell="th")
    return [
        f'<table class="sortable"><thead><tr>{"".join(head)}</tr></thead><tbody>',
        *body,
        f"</tbody><tfoot>{total}</tfoot></table>",
    ]


def _breakdown_row(row: dict, cell: str = "td") -> str:
    """A row's cells, each with its exact value to sort by; the text is what the terminal shows
    (an unpriced cost sorts below every priced one)."""
    tokens = row["tokens"]
    values = [
        row["key"],
        row["sessions"],
        row["requests"],
        tokens["input"],
        tokens["cache_read"],
        tokens["cache_write_5m"] + tokens["cache_write_1h"],
        tokens["output"],
        -1 if row["cost_usd"] is None else row["cost_usd"],
    ]
    shown = breakdown_cells(row)
    first = f'<{cell} scope="row" class="text" data-value="{_e(values[0])}">{_e(shown[0])}</{cell}>'
    rest = "".join(
        f'<td data-value="{v!r}">{_e(text)}</td>'
        for v, text in zip(values[1:], shown[1:], strict=True)
    )
    return f"<tr>{first}{rest}</tr>"


def _footer(when: str) -> str:
    return (
        f"<footer>Made by wherein {_e(__version__)} on {_e(when)} with <code>wherein baseline "
        f"--html</code>. Charts drawn by Chart.js {CHART_JS_VERSION} (MIT licence), inlined in "
        "this file.</footer>"
    )


def _usd(value: float | None) -> str:
    if value is None:
        return "n/a"
    return f"${value:,.2f}"
