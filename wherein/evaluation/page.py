"""`wherein eval --html FILE`: the evaluation as one self-contained page, like the cost report.

The page has no script at all: the charts are inline SVG drawn here, the style sheet is
inline and allowed by its hash, and the Content-Security-Policy allows nothing else, so the
file opens offline and nothing it holds can run or fetch. Every commit subject and path is
text from the repository, so all of it is escaped.
"""

from __future__ import annotations

from pathlib import Path

from wherein import __version__
from wherein.evaluation.filters import DROP_REASONS
from wherein.evaluation.questions import kinds
from wherein.evaluation.report import GOLD_AT_HEAD, GROUPS, MIN_TRUSTED_QUERIES, EvalReport
from wherein.evaluation.scoring import CUTOFF
from wherein.evaluation.table import GROUP_TITLES, ratio_text
from wherein.html_page import csp_hash, page_head, write_page_file
from wherein.html_page import escape as _e

__all__ = ["render_page", "write_page"]

STYLE = """
:root { color-scheme: light; }
body { margin: 0 auto; padding: 1.5rem 2rem 3rem; max-width: 1100px;
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif;
  color: #1a1a1a; background: #fff; }
h1 { font-size: 1.6rem; margin: 0 0 .25rem; }
h2 { font-size: 1.2rem; margin: 2.2rem 0 .4rem; border-top: 1px solid #ccc; padding-top: 1rem; }
p { margin: .4rem 0; }
.note { color: #333; font-size: .93rem; }
.warning { border-left: 4px solid #b35900; padding: .3rem .8rem; background: #fff6ec; }
table { border-collapse: collapse; margin: .5rem 0; font-variant-numeric: tabular-nums; }
th, td { padding: .2rem .7rem; border-bottom: 1px solid #ddd; text-align: right;
  vertical-align: top; }
th:first-child, td:first-child, td.text, th.text { text-align: left; }
thead th { border-bottom: 2px solid #555; }
figure { margin: .8rem 0; }
figcaption { font-size: .9rem; color: #333; }
details { margin: .5rem 0 1rem; }
summary { cursor: pointer; }
code { font-size: .9em; }
footer { margin-top: 2.5rem; font-size: .85rem; color: #444; }
@media print { body { padding: 0; max-width: none; } figure { break-inside: avoid; } }
"""
# Bars: wherein's runs in blue, the baselines in grey; both pass WCAG contrast on white.
BAR_COLOURS = {"wherein": "#1f5fa8", "baseline": "#6b6b6b"}
BAR_HEIGHT, BAR_GAP, LABEL_WIDTH, CHART_WIDTH = 18, 6, 300, 420


def render_page(report: EvalReport) -> str:
    """The whole page for a report."""
    style = STYLE.lstrip("\n")
    policy = (
        f"default-src 'none'; style-src {csp_hash(style)}; img-src data:; base-uri 'none'; "
        "form-action 'none'"
    )
    name = Path(report.workspace).name or report.workspace
    parts = [
        *page_head(policy, f"wherein eval: {name} at {report.head[:12]}", style),
        *_header(report, name),
        *_funnel(report),
        *_scores(report),
        *_questions(report),
        f"<footer>Made by wherein {_e(__version__)} on {_e(report.generated)} with "
        "<code>wherein eval --html</code>. The page is one file and loads nothing.</footer>",
        "</body>",
        "</html>",
    ]
    return "\n".join(parts) + "\n"


def write_page(report: EvalReport, path: Path) -> int:
    """Write the page to `path` (whole or not at all, never through a link); its bytes.

    Raises:
        UsageError: the file or its folder cannot be written.
    """
    return write_page_file(render_page(report), path)


def _header(report: EvalReport, name: str) -> list[str]:
    where = report.branch or "detached HEAD"
    counted = kinds(report.questions)
    lead = (
        f"{len(report.questions)} questions ({counted['lexical']} lexical, "
        f"{counted['semantic']} semantic) from the commits of {report.workspace} at "
        f"{report.head[:12]} ({where})."
    )
    lines = [
        "<header>",
        f"<h1>How well search works on {_e(name)}, measured from its own history</h1>",
        f"<p>{_e(lead)}</p>",
        '<p class="note">Each question is a commit subject; its answer is the source files the '
        f"commit changed. {_e(GOLD_AT_HEAD)}</p>",
    ]
    lines += [f'<p class="warning">{_e(warning)}</p>' for warning in report.warnings]
    return [*lines, "</header>"]


def _funnel(report: EvalReport) -> list[str]:
    selection = report.selection
    since = f" since {report.since}" if report.since else ""
    lines = [
        '<section id="questions-from-commits">',
        "<h2>1. Where the questions come from</h2>",
        f"<p>{selection.considered:,} non-merge commits read (--commits "
        f"{report.commits_asked:,}{_e(since)}): {len(selection.questions):,} kept as "
        "questions.</p>",
        '<table><thead><tr><th scope="col">dropped because</th><th scope="col">commits</th>'
        "</tr></thead><tbody>",
    ]
    for reason, count in selection.dropped.items():
        lines.append(f"<tr><td>{_e(DROP_REASONS[reason])}</td><td>{count:,}</td></tr>")
    return [*lines, "</tbody></table>", "</section>"]


def _scores(report: EvalReport) -> list[str]:
    lines: list[str] = []
    questions = report.questions
    if not questions or not report.retrievers:
        return lines
    number = 1
    for group in GROUPS:
        size = report.group_size(group)
        if not size:
            continue
        number += 1
        few = ""
        if size < MIN_TRUSTED_QUERIES:
            few = f" Fewer than {MIN_TRUSTED_QUERIES}: too few to trust."
        rows = [(r, r.metrics(questions, group)) for r in report.retrievers]
        rows = [(r, m) for r, m in rows if m is not None]
        lines += [
            f'<section id="scores-{group}">',
            f"<h2>{number}. {_e(GROUP_TITLES[group])} ({size})</h2>",
            f'<p class="note">First {CUTOFF} results as distinct files, release notes dropped.'
            f"{_e(few)}</p>",
            *_chart(group, rows),
            '<table><thead><tr><th scope="col">retriever</th><th scope="col">R@1</th>'
            f'<th scope="col">R@5</th><th scope="col">R@{CUTOFF}</th>'
            f'<th scope="col">MRR@{CUTOFF}</th><th scope="col">characters returned</th>'
            '<th scope="col">whole files</th><th scope="col" class="text">context</th>'
            '<th scope="col">median ms</th></tr></thead><tbody>',
        ]
        for result, m in rows:
            lines.append(
                f"<tr><td>{_e(result.label)}</td><td>{m.r1:.3f}</td><td>{m.r5:.3f}</td>"
                f"<td>{m.r10:.3f}</td><td>{m.mrr:.3f}</td><td>{m.returned_chars:,.0f}</td>"
                f'<td>{m.file_chars:,.0f}</td><td class="text">{_e(ratio_text(m))}</td>'
                f"<td>{m.p50_ms:.1f}</td></tr>"
            )
        lines += ["</tbody></table>", "</section>"]
    return lines


def _chart(group: str, rows: list) -> list[str]:
    """Horizontal bars of MRR@10 per retriever, as inline SVG; the table is its alternative."""
    height = len(rows) * (BAR_HEIGHT + BAR_GAP) + BAR_GAP
    width = LABEL_WIDTH + CHART_WIDTH + 60
    title = f"MRR@{CUTOFF} per retriever, {GROUP_TITLES[group]}"
    alt = "; ".join(f"{r.label}: {m.mrr:.3f}" for r, m in rows)
    bars = []
    for i, (result, m) in enumerate(rows):
        y = BAR_GAP + i * (BAR_HEIGHT + BAR_GAP)
        bar = round(m.mrr * CHART_WIDTH, 1)
        colour = BAR_COLOURS.get(result.kind, BAR_COLOURS["baseline"])
        middle = y + BAR_HEIGHT / 2 + 4
        bars += [
            f'<text x="{LABEL_WIDTH - 8}" y="{middle}" text-anchor="end" font-size="13" '
            f'fill="#1a1a1a">{_e(result.label)}</text>',
            f'<rect x="{LABEL_WIDTH}" y="{y}" width="{bar}" height="{BAR_HEIGHT}" '
            f'fill="{colour}"></rect>',
            f'<text x="{LABEL_WIDTH + bar + 6}" y="{middle}" font-size="13" '
            f'fill="#1a1a1a">{m.mrr:.3f}</text>',
        ]
    return [
        "<figure>",
        f'<svg width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" '
        f'aria-labelledby="chart-{group}-title">',
        f'<title id="chart-{group}-title">{_e(title)}: {_e(alt)}</title>',
        f'<line x1="{LABEL_WIDTH}" y1="0" x2="{LABEL_WIDTH}" y2="{height}" stroke="#555"></line>',
        *bars,
        "</svg>",
        f"<figcaption>{_e(title)} (1 = the first file is always an answer).</figcaption>",
        "</figure>",
    ]


def _questions(report: EvalReport) -> list[str]:
    questions = report.questions
    if not questions:
        return []
    names = list(report.retrievers)
    head = "".join(f'<th scope="col">{_e(r.label)}</th>' for r in names)
    lines = [
        '<section id="every-question">',
        "<h2>Every question</h2>",
        '<p class="note">The rank of the first gold file among the first '
        f"{CUTOFF} distinct files (- when it is not among them).</p>",
        "<details>",
        f"<summary>{len(questions)} questions with their gold files and ranks</summary>",
        '<table><thead><tr><th scope="col">question</th><th scope="col" class="text">kind</th>'
        f'<th scope="col" class="text">gold files</th>{head}</tr></thead><tbody>',
    ]
    for index, question in enumerate(questions):
        ranks = "".join(
            f"<td>{r.answers[index].rank if r.answers[index].rank is not None else '-'}</td>"
            for r in names
        )
        gold = "<br>".join(f"<code>{_e(path)}</code>" for path in sorted(question.gold))
        lines.append(
            f'<tr><td class="text">{_e(question.text)} <code>{_e(question.commit[:10])}</code>'
            f'</td><td class="text">{_e(question.kind)}</td><td class="text">{gold}</td>'
            f"{ranks}</tr>"
        )
    return [*lines, "</tbody></table>", "</details>", "</section>"]
