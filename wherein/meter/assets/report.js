// wherein baseline --html: hand each chart spec (wherein/meter/charts.py) to Chart.js.
// Every number, title and sentence comes from the spec; this file only maps it to options.
(function () {
  "use strict";
  var specs = JSON.parse(document.getElementById("wherein-data").textContent).charts;
  // Both step charts get a y axis of one width, so their buckets line up one above the other.
  var STEP_AXIS_WIDTH = 88;
  var whole = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
  var cents = new Intl.NumberFormat("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  var formats = {
    tokens: function (v) { return whole.format(v); },
    count: function (v) { return whole.format(v); },
    chars: function (v) { return whole.format(v); },
    usd: function (v) { return "$" + cents.format(v); }
  };
  var suffixes = { tokens: " tokens", count: " sessions", chars: " characters", usd: "" };
  // Axis ticks are round numbers: dollars without trailing cents ("$70", "$0.5").
  var short = new Intl.NumberFormat("en-US", { maximumFractionDigits: 2 });
  var tickFormats = { usd: function (v) { return "$" + short.format(v); } };

  Chart.defaults.font.size = 13;
  Chart.defaults.color = "#1a1a1a";

  function dataset(spec, ds) {
    if (spec.kind === "line") {
      return {
        label: ds.label, data: ds.data, sessions: ds.sessions,
        borderColor: ds.colour, backgroundColor: ds.colour, borderDash: ds.dash,
        pointStyle: ds.point, pointRadius: 4, pointHoverRadius: 6, borderWidth: 2.5,
        spanGaps: false
      };
    }
    return {
      label: ds.label, data: ds.data, backgroundColor: ds.colour,
      borderColor: "#1a1a1a", borderWidth: 1
    };
  }

  function axis(title, stacked) {
    return { title: { display: Boolean(title), text: title }, stacked: Boolean(stacked) };
  }

  function config(spec) {
    var format = formats[spec.y_unit];
    var valueAxis = spec.horizontal ? "x" : "y";
    var scales = { x: axis(spec.x_title, spec.stacked), y: axis(spec.y_title, spec.stacked) };
    scales[valueAxis].beginAtZero = true;
    var tick = tickFormats[spec.y_unit] || format;
    scales[valueAxis].ticks = { callback: function (value) { return tick(value); } };
    if (spec.id === "steps" || spec.id === "sessions") {
      scales.y.afterFit = function (scale) { scale.width = STEP_AXIS_WIDTH; };
    }
    return {
      type: spec.kind,
      data: { labels: spec.labels, datasets: spec.datasets.map(function (ds) { return dataset(spec, ds); }) },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        indexAxis: spec.horizontal ? "y" : "x",
        interaction: { mode: "index", intersect: false },
        scales: scales,
        plugins: {
          legend: { display: spec.datasets.length > 1, labels: { usePointStyle: spec.kind === "line" } },
          tooltip: {
            callbacks: {
              label: function (item) {
                var text = item.dataset.label + ": " + format(item.parsed[valueAxis]) + suffixes[spec.y_unit];
                var sessions = item.dataset.sessions;
                if (sessions) { text += " (" + whole.format(sessions[item.dataIndex]) + " sessions)"; }
                return text;
              }
            }
          }
        }
      }
    };
  }

  var drawn = 0;
  specs.forEach(function (spec) {
    var canvas = document.getElementById("chart-" + spec.id);
    if (spec.empty || !canvas) { return; }
    new Chart(canvas, config(spec));
    drawn += 1;
  });
  document.documentElement.setAttribute("data-charts-drawn", String(drawn));

  // Breakdown tables: a heading's button sorts the body by that column (the total row sits
  // in the footer and stays put); a second press reverses. Cells carry their exact value.
  function sortBy(table, headers, index) {
    var th = headers[index];
    var ascending = th.getAttribute("aria-sort") !== "ascending";
    headers.forEach(function (other) { other.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
    var numeric = th.getAttribute("data-type") === "number";
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = a.cells[index].getAttribute("data-value");
      var y = b.cells[index].getAttribute("data-value");
      var order = numeric ? Number(x) - Number(y) : (x < y ? -1 : x > y ? 1 : 0);
      return ascending ? order : -order;
    });
    rows.forEach(function (row) { body.appendChild(row); });
  }
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
    var headers = Array.prototype.slice.call(table.tHead.rows[0].cells);
    headers.forEach(function (th, index) {
      var button = th.querySelector("button");
      if (button) { button.addEventListener("click", function () { sortBy(table, headers, index); }); }
    });
  });
})();
