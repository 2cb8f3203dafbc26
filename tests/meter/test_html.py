"""`wherein baseline --html`: the chart specs, the self-contained page, and the page as a real
headless Chromium draws it."""

from __future__ import annotations

import base64
import hashlib
import html
import itertools
import json
import os
import re
import subprocess
import sys
from importlib import resources

import pytest

from tests.meter.browser import Browser, decode_png, find_browser
from tests.meter.step_fixtures import write_step_ledger
from wherein.cli import main
from wherein.meter import build_baseline
from wherein.meter.charts import (
    COST_COLOURS,
    SERIES_COLOURS,
    chart_specs,
    relative_lightness,
)
from wherein.meter.html import CHART_JS_SHA256, render_html

GREYSCALE_STEP = 15  # L* apart: two greys a printed page still tells apart
VIEWPORT = (1200, 900)
# Points each chart of the fixture draws, per dataset (see step_fixtures.py): baseline steps
# 1-3 and recall steps 1-2; sessions at steps 1-3 for both groups; four cost parts over
# three days (2026-11-02 with zero-height bars); excerpt chars and whole-file chars.
EXPECTED_POINTS = {
    "chart-steps": [3, 2],
    "chart-sessions": [3, 3],
    "chart-cost": [3, 3, 3, 3],
    "chart-usage": [2],
}


@pytest.fixture
def ledger_path(tmp_path):
    return write_step_ledger(tmp_path / "ledger", tmp_path / "wherein-home")


@pytest.fixture
def summary(ledger_path):
    return build_baseline([ledger_path], with_days=True)


def _specs(summary: dict) -> dict:
    return {spec["id"]: spec for spec in chart_specs(summary)}


def test_the_specs_plot_the_hand_computed_figures(summary):
    specs = _specs(summary)
    steps = specs["steps"]
    assert steps["labels"] == ["1", "2", "3"]
    assert [d["data"] for d in steps["datasets"]] == [[1145, 2145, 3140], [1180, 2180, None]]
    assert [d["sessions"] for d in steps["datasets"]] == [[4, 4, 3], [3, 3, 2]]
    assert [d["data"] for d in specs["sessions"]["datasets"]] == [[4, 4, 3], [3, 3, 2]]
    cost = specs["cost"]
    assert cost["labels"] == ["2026-11-01", "2026-11-02", "2026-11-03"]
    assert [d["key"] for d in cost["datasets"]] == ["cache_read", "input", "cache_write", "output"]
    assert [d["data"][1] for d in cost["datasets"]] == [0, 0, 0, 0]
    usage = specs["usage"]
    assert usage["datasets"][0]["data"] == [3000, 27000]
    kept = dict((label, (value, why)) for label, value, why in usage["figures"])
    assert kept["tokens kept out of context"][0] == "≈ 6,000"  # (27,000 - 3,000) / 4
    assert "an estimate and an upper bound" in kept["tokens kept out of context"][1]


def test_every_chart_has_a_title_axis_units_and_a_text_alternative(summary):
    for spec in chart_specs(summary):
        assert spec["title"] and spec["alt"], spec["id"]
        assert re.search(
            r"\((tokens|count|USD per day)\)|characters", spec["y_title"] or spec["x_title"]
        ), spec["id"]
    specs = _specs(summary)
    assert "(tokens)" in specs["steps"]["y_title"] and "step" in specs["steps"]["x_title"]
    assert specs["cost"]["y_title"] == "cost (USD per day)"
    assert specs["cost"]["x_title"] == "day (UTC)"
    assert "1,145 tokens at step 1 (4 sessions)" in specs["steps"]["alt"]
    assert "The costliest day is 2026-11-01" in specs["cost"]["alt"]  # 12 requests of 22


def test_colours_survive_greyscale():
    def apart(colours):
        levels = [relative_lightness(c) for c in colours]
        return min(abs(a - b) for a, b in itertools.combinations(levels, 2))

    assert apart(COST_COLOURS.values()) >= GREYSCALE_STEP
    assert apart(SERIES_COLOURS.values()) >= GREYSCALE_STEP
    assert relative_lightness("#000000") == pytest.approx(0)
    assert relative_lightness("#ffffff") == pytest.approx(100)


def test_empty_groups_say_so_in_words(tmp_path):
    ledger = write_step_ledger(tmp_path / "ledger")  # no usage rows: no session used recall
    summary = build_baseline([ledger], with_days=True)
    specs = _specs(summary)
    assert [d["key"] for d in specs["steps"]["datasets"]] == ["baseline"]
    assert any("No session used recall" in note for note in specs["steps"]["notes"])
    assert specs["usage"]["empty"].startswith("No recall search was logged")
    page = render_html(summary)
    assert 'id="chart-usage"' not in page
    assert "No recall search was logged in this period" in page
    assert "No session has used recall yet" in page

    nothing = build_baseline([ledger], since="2027-01-01", with_days=True)
    specs = _specs(nothing)
    assert all(specs[name]["empty"] for name in ("steps", "sessions", "cost", "usage"))
    page = render_html(nothing)
    assert "<canvas" not in page
    assert page.count("No request in these ledgers matches") >= 2


def test_the_page_is_self_contained_and_allows_no_other_source(summary):
    page = render_html(summary)
    assert not re.search(r"<(link|img|iframe|object|embed)\b", page)
    assert not re.search(r"\bsrc\s*=", page)
    assert "sourceMappingURL" not in page
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page)[1]
    assert "default-src 'none'" in policy
    scripts = re.findall(r"<script>(.*?)</script>", page, flags=re.DOTALL)
    assert len(scripts) == 2  # Chart.js and the page's own; the data is not executable
    for script in scripts:
        digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
        assert f"'sha256-{digest}'" in policy
    data = re.search(
        r'<script type="application/json" id="wherein-data">\n(.*?)\n</script>',
        page,
        flags=re.DOTALL,
    )[1]
    assert [c["id"] for c in json.loads(data)["charts"]] == ["steps", "sessions", "cost", "usage"]


def test_each_canvas_is_named_and_described_in_words(summary):
    page = render_html(summary)
    for spec in chart_specs(summary):
        canvas = re.search(rf'<canvas id="chart-{spec["id"]}"[^>]*>', page)[0]
        assert 'role="img"' in canvas
        assert f'aria-describedby="caption-{spec["id"]}"' in canvas
        caption = re.search(rf'<figcaption id="caption-{spec["id"]}">(.*?)</figcaption>', page)
        assert html.unescape(caption[1]) == spec["alt"]
    assert page.count("<details>") == 3  # a data table under steps, cost and recall usage


def test_the_vendored_library_is_the_published_file_with_its_licences():
    assets = resources.files("wherein.meter").joinpath("assets")
    chart_js = assets.joinpath("chart.umd.min.js").read_bytes()
    assert hashlib.sha256(chart_js).hexdigest() == CHART_JS_SHA256
    assert chart_js.startswith(b"/*!\n * Chart.js v4.6.1")
    for licence in ("LICENSE.chart.js.md", "LICENSE.kurkle-color.md"):
        assert assets.joinpath(licence).read_text().startswith("The MIT License")


def test_text_from_the_ledger_is_escaped(ledger_path):
    summary = build_baseline([ledger_path], project="</script><b>x", with_days=True)
    page = render_html(summary)
    assert "</script><b>x" not in page
    assert "&lt;/script&gt;&lt;b&gt;x" in page


def test_cli_writes_the_page_and_still_prints_the_text_report(ledger_path, tmp_path, capsys):
    out = tmp_path / "report.html"
    assert main(["baseline", "--ledger", str(ledger_path), "--html", str(out)]) == 0
    captured = capsys.readouterr()
    size = out.stat().st_size
    assert captured.err == f"wherein: wrote the HTML report to {out} ({size:,} bytes).\n"
    assert captured.out.startswith("BASELINE\n")
    assert "CONTEXT PER REQUEST BY STEP" in captured.out
    assert out.read_text(encoding="utf-8").startswith("<!doctype html>")


def test_cli_names_a_file_it_cannot_write(ledger_path, tmp_path, capsys):
    out = tmp_path / "missing-folder" / "report.html"
    assert main(["baseline", "--ledger", str(ledger_path), "--html", str(out)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith(f"wherein: Cannot write the HTML report to {out}:")
    assert captured.err.count("\n") == 1


def test_a_terminal_that_cannot_show_blocks_gets_ascii_bars(ledger_path, tmp_path):
    env = {**os.environ, "PYTHONIOENCODING": "ascii", "WHEREIN_HOME": str(tmp_path / "h")}
    run = subprocess.run(
        [sys.executable, "-m", "wherein.cli", "baseline", "--ledger", str(ledger_path)],
        capture_output=True,
        env=env,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert b"CONTEXT PER REQUEST BY STEP" in run.stdout
    assert b"#" * 4 in run.stdout


PAGE_PROBE = """JSON.stringify({
  drawn: document.documentElement.dataset.chartsDrawn,
  charts: Array.from(document.querySelectorAll("canvas")).map(function (canvas) {
    var chart = Chart.getChart(canvas);
    var area = chart.chartArea;
    var box = canvas.getBoundingClientRect();
    return {
      id: canvas.id,
      box: [box.left + scrollX, box.top + scrollY, box.width, box.height],
      points: chart.data.datasets.map(function (d, i) {
        return chart.getDatasetMeta(i).data.filter(function (el) {
          return !el.skip && isFinite(el.x) && isFinite(el.y) &&
            el.x >= area.left - 1 && el.x <= area.right + 1 &&
            el.y >= area.top - 1 && el.y <= area.bottom + 1;
        }).map(function (el) { return [el.x, el.y]; });
      })
    };
  }),
  height: Math.ceil(document.documentElement.scrollHeight)
})"""


def _browser_or_skip(capsys) -> str:
    found = find_browser()
    if found is None:
        reason = (
            "chromium is not installed, so the page was not opened in a browser: "
            "apt-get install chromium (as .ci/run does) to run this test"
        )
        with capsys.disabled():
            print(f"\nSKIPPED test_html: {reason}", file=sys.stderr)
        pytest.skip(reason)
    return found


def test_the_page_renders_in_headless_chromium(summary, tmp_path, capsys):
    executable = _browser_or_skip(capsys)
    page = tmp_path / "report.html"
    page.write_text(render_html(summary), encoding="utf-8")
    with Browser(executable, tmp_path / "profile") as browser:
        browser.open_page(*VIEWPORT)
        browser.call("Page.navigate", {"url": page.as_uri()})
        browser.wait_for_event("Page.loadEventFired")
        probe = json.loads(browser.evaluate(PAGE_PROBE))
        shot = browser.screenshot(VIEWPORT[0], probe["height"])
        events = list(browser.events)

    assert [e["params"] for e in events if _is_error(e)] == []
    requests = [
        e["params"]["request"]["url"]
        for e in events
        if e.get("method") == "Network.requestWillBeSent"
    ]
    assert requests == [page.as_uri()]

    assert probe["drawn"] == "4"
    charts = {chart["id"]: chart for chart in probe["charts"]}
    assert {cid: [len(p) for p in c["points"]] for cid, c in charts.items()} == EXPECTED_POINTS
    baseline_y = [y for _, y in charts["chart-steps"]["points"][0]]
    assert baseline_y == sorted(baseline_y, reverse=True)  # context grows: points climb

    pixels = decode_png(shot)
    assert pixels.shape[:2] == (probe["height"], VIEWPORT[0])
    (tmp_path / "report.png").write_bytes(shot)
    for chart in charts.values():
        left, top, width, height = (round(v) for v in chart["box"])
        region = pixels[top : top + height, left : left + width, :3]
        inked = (region.min(axis=2) < 200).mean()  # darker than light grid lines
        assert inked > 0.005, (chart["id"], inked)


def _is_error(event: dict) -> bool:
    """An uncaught exception, a console.error or assert, or an error the browser logged
    (a Content-Security-Policy violation, a failed load)."""
    method, params = event.get("method"), event.get("params", {})
    if method == "Runtime.exceptionThrown":
        return True
    if method == "Runtime.consoleAPICalled":
        return params["type"] in ("error", "assert")
    return method == "Log.entryAdded" and params["entry"]["level"] == "error"
