// report.js: draws runner's HTML report page from the JSON in #runner-data with uPlot.
// Plain ES2017, no modules, no build step; it shows the table, one run's charts, the sweep's.
//
// Safety: every text that comes from the data is set with textContent or as a uPlot label
// (drawn on a canvas or set as text), never parsed as HTML or run as code.
// Speed: a sweep may hold hundreds of runs, so charts are drawn for one run and a few chosen
// runs only, and the table builds its first rows until asked for all.
(function () {
  "use strict";

  const FIRST_ROWS = 100;
  const FIRST_TICKED_RUNS = 8;
  const CHART_HEIGHT = 240;
  // Must match report.css's .charts grid (minmax width, gap) and .chart padding + border.
  const MIN_CHART_WIDTH = 520;
  const CHART_GAP = 16;
  const CHART_INSET = 2 * (8 + 1);
  // Tableau's 10: distinct on white; later series get colours spread round the hue circle.
  const PALETTE = [
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
  ];
  const ROLES = ["result", "smoke", "earlier", "failed", "skipped", "partial", "running"];
  const GIB = 1024 * 1024 * 1024;
  const MIB = 1024 * 1024;

  const errors = [];
  const chartsBySection = { run: [], overlay: [], measures: [] };

  window.onerror = function (message, source, line) {
    errors.push(String(message) + (line ? " (line " + line + ")" : ""));
  };
  window.addEventListener("unhandledrejection", function (event) {
    errors.push("unhandled rejection: " + describeError(event.reason));
  });

  function describeError(error) {
    if (error && error.message) return error.message;
    return String(error);
  }

  // ---- small DOM helpers: text only, never HTML ----

  function element(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function append(parent, children) {
    for (const child of children) if (child) parent.appendChild(child);
    return parent;
  }

  function byId(id) {
    return document.getElementById(id);
  }

  // ---- numbers as their unit shows them ----

  function isNumber(value) {
    return typeof value === "number" && isFinite(value);
  }

  function twoDigits(value) {
    return (value < 10 ? "0" : "") + value;
  }

  // The terminal table's durations (cells.cpp's format_duration), with ms and µs for steps.
  function formatSeconds(seconds) {
    const size = Math.abs(seconds);
    if (size === 0) return "0 s";
    if (size < 1e-3) return (seconds * 1e6).toPrecision(3) + " µs";
    if (size < 1) return (seconds * 1e3).toPrecision(3) + " ms";
    if (Math.round(size * 10) < 600) return seconds.toFixed(1) + " s";
    const wholeSeconds = Math.round(seconds);
    if (wholeSeconds < 3600)
      return Math.floor(wholeSeconds / 60) + " m " + twoDigits(wholeSeconds % 60) + " s";
    const wholeMinutes = Math.round(seconds / 60);
    return Math.floor(wholeMinutes / 60) + " h " + twoDigits(wholeMinutes % 60) + " m";
  }

  function formatBytes(bytes) {
    if (Math.abs(bytes) >= GIB) return (bytes / GIB).toFixed(2) + " GiB";
    return (bytes / MIB).toFixed(1) + " MiB";
  }

  function formatPlainNumber(value) {
    if (Math.abs(value) >= 100) return value.toLocaleString("en-US", { maximumFractionDigits: 0 });
    return String(Number(value.toPrecision(3)));
  }

  function formatNumber(value, unit) {
    switch (unit) {
      case "seconds":
        return formatSeconds(value);
      case "bytes":
        return formatBytes(value);
      case "fraction":
        return (value * 100).toFixed(2) + "%";
      case "per_second":
        return formatPlainNumber(value) + "/s";
      case "count":
        return Math.round(value).toLocaleString("en-US");
      default:
        return formatPlainNumber(value);
    }
  }

  function formatValue(value, unit) {
    if (value === null || value === undefined) return "";
    if (typeof value === "boolean") return value ? "yes" : "no";
    if (typeof value === "number") return isNumber(value) ? formatNumber(value, unit) : "";
    if (typeof value === "object") return JSON.stringify(value);
    return String(value);
  }

  // Axis ticks are round numbers: "80.00%" reads better as "80%", "2.00 ms" as "2 ms".
  function withoutTrailingZeros(text) {
    return text.replace(/(\.\d*?)0+(?=\D|$)/, "$1").replace(/\.(?=\D|$)/, "");
  }

  function axisValues(unit) {
    return function (plot, splits) {
      return splits.map(function (value) {
        return value === null ? "" : withoutTrailingZeros(formatNumber(value, unit));
      });
    };
  }

  function legendValue(unit) {
    return function (plot, value) {
      return isNumber(value) ? formatNumber(value, unit) : "–";
    };
  }

  // ---- colours ----

  function hueColour(index) {
    const hue = (index * 137.508) % 360;
    const saturation = 0.65;
    const lightness = 0.45;
    const chroma = (1 - Math.abs(2 * lightness - 1)) * saturation;
    const second = chroma * (1 - Math.abs(((hue / 60) % 2) - 1));
    const sector = Math.floor(hue / 60);
    const rgb = [
      [chroma, second, 0],
      [second, chroma, 0],
      [0, chroma, second],
      [0, second, chroma],
      [second, 0, chroma],
      [chroma, 0, second],
    ][sector];
    const offset = lightness - chroma / 2;
    return (
      "#" +
      rgb
        .map(function (part) {
          return Math.round((part + offset) * 255)
            .toString(16)
            .padStart(2, "0");
        })
        .join("")
    );
  }

  function colourAt(index) {
    return index < PALETTE.length ? PALETTE[index] : hueColour(index);
  }

  function rgbOf(hex) {
    return [1, 3, 5].map(function (start) {
      return parseInt(hex.slice(start, start + 2), 16);
    });
  }

  function translucent(hex, alpha) {
    return "rgba(" + rgbOf(hex).join(",") + "," + alpha + ")";
  }

  // ---- charts ----

  function hasValue(values) {
    return Array.isArray(values) && values.some(isNumber);
  }

  // JSON holds null for gaps; uPlot breaks a line at null.
  function numbersOrNull(values) {
    return values.map(function (value) {
      return isNumber(value) ? value : null;
    });
  }

  function integerIncrements() {
    const increments = [];
    for (let power = 1; power <= 1e12; power *= 10) increments.push(power, 2 * power, 5 * power);
    return increments;
  }

  // Ticks at binary steps (256 MiB, 512 MiB, 1 GiB) read as round MiB/GiB; decimal ones do not.
  function byteIncrements() {
    const increments = [];
    for (let power = 1; power <= Math.pow(2, 50); power *= 2) increments.push(power);
    return increments;
  }

  // Ticks at whole minutes and hours once durations pass a minute, decimal ones below.
  function secondIncrements() {
    const increments = [];
    for (let power = 1e-6; power < 10; power *= 10) increments.push(power, 2 * power, 5 * power);
    return increments.concat([
      10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400,
    ]);
  }

  function yAxis(unit) {
    const axis = { values: axisValues(unit), size: 76 };
    if (unit === "bytes") axis.incrs = byteIncrements();
    if (unit === "seconds") axis.incrs = secondIncrements();
    return axis;
  }

  function chartWidth(grid) {
    const total = grid.clientWidth || 1000;
    const columns = Math.max(1, Math.floor((total + CHART_GAP) / (MIN_CHART_WIDTH + CHART_GAP)));
    return Math.floor((total - CHART_GAP * (columns - 1)) / columns) - CHART_INSET;
  }

  function seriesOptions(series) {
    const options = {
      label: series.label,
      stroke: series.colour,
      width: 2,
      value: legendValue(series.unit),
    };
    if (series.kind === "bars") {
      options.fill = series.colour;
      const size = series.barSize || 0.6;
      options.paths = uPlot.paths.bars({ size: [size, 150 * size], align: 0 });
      options.points = { show: false };
    } else if (series.kind === "edge") {
      options.stroke = translucent(series.colour, 0.35);
      options.width = 1;
      options.points = { show: false };
    }
    return options;
  }

  function bandsOf(series) {
    const high = series.findIndex(function (s) {
      return s.kind === "edge" && s.edge === "high";
    });
    const low = series.findIndex(function (s) {
      return s.kind === "edge" && s.edge === "low";
    });
    if (high < 0 || low < 0) return undefined;
    return [{ series: [high + 1, low + 1], fill: translucent(series[high].colour, 0.15) }];
  }

  // Named ticks (classes, swept values) are spaced by the longest name, so no two overlap.
  function xAxis(spec) {
    const axis = {
      values: spec.xNames ? namedTicks(spec.xNames) : axisValues(spec.xUnit || "count"),
    };
    if (spec.xIntegers) axis.incrs = integerIncrements();
    if (spec.xNames) {
      const longest = spec.xNames.reduce(function (most, name) {
        return Math.max(most, name.length);
      }, 0);
      axis.space = Math.min(240, Math.max(40, 7 * longest + 12));
    }
    return axis;
  }

  function namedTicks(names) {
    return function (plot, splits) {
      return splits.map(function (value) {
        return Number.isInteger(value) && value >= 0 && value < names.length ? names[value] : "";
      });
    };
  }

  function xLegend(spec) {
    if (spec.xNames) {
      return function (plot, value) {
        return value === null ? "–" : String(spec.xNames[value]);
      };
    }
    return legendValue(spec.xUnit || "count");
  }

  function plotOptions(spec, series, width) {
    const xScale = { time: false };
    if (spec.xRange) xScale.range = spec.xRange;
    if (spec.xLog) {
      xScale.distr = 3;
      xScale.log = 10;
    }
    const yScale = {};
    if (spec.yFromZero) {
      yScale.range = function (plot, min, max) {
        return [0, max > 0 ? max * 1.08 : 1];
      };
    }
    return {
      width: width,
      height: CHART_HEIGHT,
      scales: { x: xScale, y: yScale },
      axes: [xAxis(spec), yAxis(spec.unit)],
      series: [{ label: spec.xLabel, value: xLegend(spec) }].concat(series.map(seriesOptions)),
      bands: bandsOf(series),
      cursor: { drag: { x: true, y: false } },
    };
  }

  // A chart of the series that hold a number; none (or no spec): no chart.
  function drawChart(grid, section, spec, width) {
    if (!spec) return;
    const series = spec.series.filter(function (s) {
      return hasValue(s.values);
    });
    if (series.length === 0) return;
    const figure = element("figure", "chart");
    figure.id = spec.id;
    append(grid, [append(figure, [element("figcaption", null, spec.title)])]);
    const chart = {
      id: spec.id,
      title: spec.title,
      plot: null,
      grid: grid,
      colours: [],
      series: series.length,
    };
    try {
      const data = [spec.x].concat(
        series.map(function (s) {
          return numbersOrNull(s.values);
        }),
      );
      chart.plot = new uPlot(plotOptions(spec, series, width), data, figure);
      chart.colours = series
        .filter(function (s) {
          return s.kind !== "edge";
        })
        .map(function (s) {
          return s.colour;
        });
      if (spec.controls) figure.appendChild(spec.controls(chart.plot));
    } catch (error) {
      errors.push(spec.title + ": " + describeError(error));
    }
    chartsBySection[section].push(chart);
  }

  // Each chart on its own: one that cannot be built is an error of its own, the others still draw.
  // The width is measured once: each measure after a chart is added forces a layout of the page.
  function drawCharts(grid, section, builders) {
    const width = chartWidth(grid);
    for (const build of builders) {
      try {
        drawChart(grid, section, build(), width);
      } catch (error) {
        errors.push("building a chart: " + describeError(error));
      }
    }
  }

  function destroyCharts(section) {
    for (const chart of chartsBySection[section]) if (chart.plot) chart.plot.destroy();
    chartsBySection[section] = [];
  }

  function allCharts() {
    return chartsBySection.run.concat(chartsBySection.overlay, chartsBySection.measures);
  }

  function resizeCharts() {
    for (const chart of allCharts()) {
      if (chart.plot) chart.plot.setSize({ width: chartWidth(chart.grid), height: CHART_HEIGHT });
    }
  }

  // ---- self-check: what the browser tests read ----

  function canvasHasColour(chart) {
    const canvas = chart.plot.ctx.canvas;
    if (canvas.width === 0 || canvas.height === 0) return false;
    const pixels = chart.plot.ctx.getImageData(0, 0, canvas.width, canvas.height).data;
    const targets = chart.colours.map(rgbOf);
    for (let p = 0; p < pixels.length; p += 4) {
      if (pixels[p + 3] < 250) continue;
      for (const target of targets) {
        if (
          Math.abs(pixels[p] - target[0]) <= 6 &&
          Math.abs(pixels[p + 1] - target[1]) <= 6 &&
          Math.abs(pixels[p + 2] - target[2]) <= 6
        )
          return true;
      }
    }
    return false;
  }

  function chartCheck(chart) {
    let drawn = false;
    try {
      drawn = chart.plot !== null && canvasHasColour(chart);
    } catch (error) {
      errors.push(chart.title + ": reading its canvas: " + describeError(error));
    }
    return { id: chart.id, title: chart.title, series: chart.series, drawn: drawn };
  }

  // uPlot paints in a microtask after it is built: the check waits for a task to be sure.
  function afterPaint() {
    return new Promise(function (resolve) {
      setTimeout(resolve, 0);
    });
  }

  async function writeSelfCheck(rowCount) {
    await afterPaint();
    const elapsed = performance.now();
    const check = {
      errors: errors,
      rows: rowCount(),
      charts: allCharts().map(chartCheck),
      elapsed_ms: Math.round(elapsed),
    };
    let pre = byId("runner-self-check");
    if (!pre) {
      pre = element("pre");
      pre.id = "runner-self-check";
      pre.hidden = true;
      document.body.appendChild(pre);
    }
    pre.textContent = JSON.stringify(check);
  }

  // ---- the page ----

  function readData() {
    const data = JSON.parse(byId("runner-data").textContent);
    if (data.format !== "runner-report-page" || data.version !== 2) {
      errors.push(
        "the page's data is " +
          data.format +
          " version " +
          data.version +
          ", this script reads runner-report-page version 2",
      );
    }
    return data;
  }

  function roleBadge(role) {
    const known = ROLES.indexOf(role) >= 0 ? role : "other";
    return element("span", "badge role-" + known, role);
  }

  function keyValueTable(entries) {
    const table = element("table", "key-values");
    const body = element("tbody");
    for (const entry of entries) {
      append(body, [
        append(element("tr"), [element("th", null, entry[0]), element("td", null, entry[1])]),
      ]);
    }
    return append(table, [body]);
  }

  function environmentEntries(environment) {
    return Object.keys(environment || {}).map(function (key) {
      const value = environment[key];
      return [key, typeof value === "string" ? value : JSON.stringify(value)];
    });
  }

  function notice(text, className) {
    return element("p", "notice " + (className || ""), text);
  }

  function drawHeader(data) {
    byId("page-title").textContent = data.title;
    const source = data.source;
    byId("page-source").textContent =
      "results file " +
      source.file +
      ", written at " +
      source.written_at +
      ", page by " +
      data.generator;
    const notices = byId("page-notices");
    if (source.writer_alive) {
      notices.appendChild(
        notice(
          "This results file is still being written: a process has it open. " +
            "The page shows it as it was at " +
            source.written_at +
            "; runs marked running may still change.",
          "warning",
        ),
      );
    }
    if (data.runs.length === 0)
      notices.appendChild(notice("this results file holds no runs", "empty"));
    if (data.runs.length > 0) {
      const details = byId("file-environment");
      details.appendChild(keyValueTable(environmentEntries(data.runs[0].environment)));
      details.hidden = false;
      details.open = true;
    }
  }

  // ---- the comparison table ----

  function createTable(data, onSelect) {
    const columns = data.table.columns;
    const rows = data.table.rows;
    const state = {
      sortColumn: null,
      descending: false,
      filter: "",
      showAll: false,
      shown: [],
      selected: -1,
    };
    const texts = [];

    function cellText(row, column) {
      return formatValue(rows[row][column], columns[column].unit);
    }

    function sortValue(row, column) {
      return column === "role" ? data.runs[row].role : rows[row][column];
    }

    function rowText(row) {
      if (texts[row] === undefined) {
        const parts = [data.runs[row].role];
        for (let c = 0; c < columns.length; ++c) parts.push(cellText(row, c), String(rows[row][c]));
        texts[row] = parts.join("\u0000").toLowerCase();
      }
      return texts[row];
    }

    function isMissing(value) {
      return value === null || value === undefined || value === "";
    }

    function compareValues(a, b) {
      if (typeof a === "number" && typeof b === "number") return a - b;
      if (typeof a === "number") return -1;
      if (typeof b === "number") return 1;
      return String(a).localeCompare(String(b), undefined, { numeric: true });
    }

    // Missing cells stay last whichever way the column is sorted.
    function compareRows(a, b) {
      const first = sortValue(a, state.sortColumn);
      const second = sortValue(b, state.sortColumn);
      if (isMissing(first) || isMissing(second))
        return isMissing(first) - isMissing(second) || a - b;
      const order = compareValues(first, second);
      return (state.descending ? -order : order) || a - b;
    }

    function matchingRows() {
      const needle = state.filter.trim().toLowerCase();
      let indices = rows.map(function (row, index) {
        return index;
      });
      if (needle)
        indices = indices.filter(function (row) {
          return rowText(row).indexOf(needle) >= 0;
        });
      if (state.sortColumn !== null) indices.sort(compareRows);
      return indices;
    }

    function runLink(row) {
      const link = element("a", "run-link", data.runs[row].group);
      link.href = "#run=" + encodeURIComponent(data.runs[row].group);
      return link;
    }

    function tableRow(row) {
      const tr = element("tr");
      tr.dataset.row = String(row);
      if (row === state.selected) tr.className = "selected";
      append(tr, [append(element("td", "role-cell"), [roleBadge(data.runs[row].role)])]);
      for (let c = 0; c < columns.length; ++c) {
        const td = element("td", columns[c].unit === "text" ? "text" : "number");
        if (columns[c].name === "group") td.appendChild(runLink(row));
        else td.textContent = cellText(row, c);
        tr.appendChild(td);
      }
      return tr;
    }

    function renderBody() {
      state.shown = matchingRows();
      const visible = state.showAll ? state.shown : state.shown.slice(0, FIRST_ROWS);
      const body = byId("run-table").tBodies[0];
      const fragment = document.createDocumentFragment();
      for (const row of visible) fragment.appendChild(tableRow(row));
      body.textContent = "";
      body.appendChild(fragment);
      const button = byId("table-show-all");
      button.hidden = visible.length === state.shown.length;
      button.textContent = "show all " + state.shown.length;
      const runs = rows.length === 1 ? " run" : " runs";
      byId("table-count").textContent =
        state.shown.length === rows.length
          ? rows.length + runs
          : state.shown.length + " of " + rows.length + runs;
    }

    function headerCell(title, tooltip, column) {
      const th = element("th", "sortable", title);
      th.title = tooltip + " (click to sort)";
      th.addEventListener("click", function () {
        state.descending = state.sortColumn === column ? !state.descending : false;
        state.sortColumn = column;
        for (const cell of th.parentNode.children) cell.removeAttribute("aria-sort");
        th.setAttribute("aria-sort", state.descending ? "descending" : "ascending");
        renderBody();
      });
      return th;
    }

    function renderHead() {
      const tr = element("tr");
      tr.appendChild(headerCell("role", "the run's role in its sweep point", "role"));
      columns.forEach(function (column, index) {
        const th = headerCell(
          column.title,
          column.name + (column.unit === "text" ? "" : ", " + column.unit),
          index,
        );
        if (column.swept) th.classList.add("swept");
        tr.appendChild(th);
      });
      byId("run-table").tHead.appendChild(tr);
    }

    function rowOfEvent(event) {
      const tr = event.target.closest("tr");
      return tr && tr.dataset.row !== undefined ? Number(tr.dataset.row) : -1;
    }

    function listen() {
      byId("table-filter").addEventListener("input", function (event) {
        state.filter = event.target.value;
        renderBody();
      });
      byId("table-show-all").addEventListener("click", function () {
        state.showAll = true;
        renderBody();
      });
      byId("run-table").tBodies[0].addEventListener("click", function (event) {
        const row = rowOfEvent(event);
        if (row < 0) return;
        event.preventDefault();
        onSelect(row);
      });
    }

    function markSelected(row) {
      state.selected = row;
      for (const tr of byId("run-table").tBodies[0].rows) {
        tr.classList.toggle("selected", Number(tr.dataset.row) === row);
      }
    }

    renderHead();
    renderBody();
    listen();
    byId("table-section").hidden = false;
    return {
      markSelected: markSelected,
      rowCount: function () {
        return state.shown.length;
      },
    };
  }

  // ---- one run ----

  function lineSeries(label, values, colour, unit) {
    return { label: label, values: values || [], colour: colour, unit: unit, kind: "line" };
  }

  // Debiased exponential moving average (as TensorBoard smooths): nulls stay gaps.
  function smoothed(values, weight) {
    let average = 0;
    let count = 0;
    return values.map(function (value) {
      if (!isNumber(value)) return null;
      average = weight * average + (1 - weight) * value;
      count += 1;
      return weight === 0 ? value : average / (1 - Math.pow(weight, count));
    });
  }

  function smoothingControl(weight, onChange) {
    const label = element("label", "smoothing", "smoothing ");
    const slider = element("input");
    slider.type = "range";
    slider.min = "0";
    slider.max = "0.99";
    slider.step = "0.01";
    slider.value = String(weight);
    const shown = element("output", null, weight.toFixed(2));
    slider.addEventListener("input", function () {
      shown.textContent = Number(slider.value).toFixed(2);
      onChange(Number(slider.value));
    });
    return append(label, [slider, shown]);
  }

  function stepLossSpec(run) {
    const steps = run.steps;
    const decimated = steps.count > steps.step.length;
    const weight = 0.6;
    const series = [lineSeries("loss", smoothed(steps.loss, weight), PALETTE[0], "number")];
    if (decimated) {
      series.push({
        label: "high",
        values: steps.loss_high,
        colour: PALETTE[0],
        unit: "number",
        kind: "edge",
        edge: "high",
      });
      series.push({
        label: "low",
        values: steps.loss_low,
        colour: PALETTE[0],
        unit: "number",
        kind: "edge",
        edge: "low",
      });
    }
    return {
      id: "chart-run-step-loss",
      title: "loss per step",
      x: steps.step,
      xLabel: "step",
      xIntegers: true,
      unit: "number",
      series: series,
      controls: function (plot) {
        return smoothingControl(weight, function (newWeight) {
          const data = plot.data.slice();
          data[1] = smoothed(steps.loss, newWeight);
          plot.setData(data);
        });
      },
    };
  }

  function epochSpec(id, title, run, unit, names) {
    const series = names.map(function (pair, index) {
      return lineSeries(pair[1], run.epochs[pair[0]], PALETTE[index], unit);
    });
    return {
      id: id,
      title: title,
      x: run.epochs.epoch,
      xLabel: "epoch",
      xIntegers: true,
      unit: unit,
      series: series,
    };
  }

  function indexRange(count) {
    return [-0.5, count - 0.5];
  }

  function indices(count) {
    return Array.from({ length: count }, function (value, index) {
      return index;
    });
  }

  // Nested bars: the widest at the back, so each of the three stays visible whichever is higher.
  function memorySpec(summary) {
    const kinds = [
      ["peak_memory_per_rank_bytes", "process peak", 0.7],
      ["tensor_peak_per_rank_bytes", "tensor peak", 0.45],
      ["estimated_memory_per_rank_bytes", "estimate", 0.2],
    ];
    const ranks = Math.max.apply(
      null,
      kinds.map(function (kind) {
        return (summary[kind[0]] || []).length;
      }),
    );
    const series = kinds.map(function (kind, index) {
      return {
        label: kind[1],
        values: summary[kind[0]] || [],
        colour: PALETTE[index + 2],
        unit: "bytes",
        kind: "bars",
        barSize: kind[2],
      };
    });
    return {
      id: "chart-run-memory",
      title: "memory per rank",
      x: indices(ranks),
      xLabel: "rank",
      xIntegers: true,
      xRange: indexRange(ranks),
      yFromZero: true,
      unit: "bytes",
      series: series,
    };
  }

  function perClassSpec(summary) {
    const names = summary.class_names || [];
    const accuracy = summary.per_class_accuracy || [];
    const count = Math.max(names.length, accuracy.length);
    const labels = indices(count).map(function (index) {
      return names[index] !== undefined ? String(names[index]) : String(index);
    });
    return {
      id: "chart-run-per-class",
      title: "per-class accuracy",
      x: indices(count),
      xLabel: "class",
      xNames: labels,
      xIntegers: true,
      xRange: indexRange(count),
      yFromZero: true,
      unit: "fraction",
      series: [
        {
          label: "accuracy",
          values: accuracy,
          colour: PALETTE[0],
          unit: "fraction",
          kind: "bars",
          barSize: 0.7,
        },
      ],
    };
  }

  function runChartBuilders(run) {
    return [
      function () {
        return epochSpec("chart-run-loss", "loss per epoch", run, "number", [
          ["train_loss", "train"],
          ["test_loss", "test"],
        ]);
      },
      function () {
        return stepLossSpec(run);
      },
      function () {
        return epochSpec("chart-run-accuracy", "accuracy per epoch", run, "fraction", [
          ["train_accuracy", "train"],
          ["test_accuracy", "test"],
        ]);
      },
      function () {
        return epochSpec("chart-run-phases", "step-time phases per epoch", run, "seconds", [
          ["data_wait_s", "data wait"],
          ["forward_s", "forward"],
          ["backward_s", "backward"],
          ["optimizer_s", "optimizer"],
          ["communication_s", "communication"],
        ]);
      },
      function () {
        return epochSpec("chart-run-samples", "samples/s per epoch", run, "per_second", [
          ["samples_per_s", "samples/s"],
        ]);
      },
      function () {
        return epochSpec(
          "chart-run-gpu-utilization",
          "GPU utilisation per epoch",
          run,
          "fraction",
          [["gpu_utilization", "GPU utilisation"]],
        );
      },
      function () {
        return epochSpec("chart-run-gpu-memory", "GPU memory per epoch", run, "bytes", [
          ["gpu_memory_used_bytes", "GPU memory used"],
        ]);
      },
      function () {
        return run.summary ? memorySpec(run.summary) : null;
      },
      function () {
        return run.summary ? perClassSpec(run.summary) : null;
      },
    ];
  }

  function runFacts(run) {
    const entries = [
      ["status", run.status],
      ["role", run.role],
      ["experiment", run.experiment],
      ["run", run.group],
      ["run id", run.run_id],
      ["started at", run.started_at],
      ["finished at", run.finished_at || "–"],
    ];
    if (run.abandoned) entries.push(["abandoned", "its writer is gone: it never recorded an end"]);
    const keys = Object.keys(run.sweep_point || {});
    if (keys.length)
      entries.push([
        "sweep point",
        keys
          .map(function (key) {
            return key + "=" + formatValue(run.sweep_point[key]);
          })
          .join(", "),
      ]);
    return keyValueTable(entries);
  }

  function summaryEntries(summary) {
    const fields = [
      ["task", "task", "text"],
      ["total_time_s", "total time", "seconds"],
      ["epochs_completed", "epochs completed", "count"],
      ["final_train_loss", "final train loss", "number"],
      ["final_test_loss", "final test loss", "number"],
      ["final_test_accuracy", "final test accuracy", "fraction"],
      ["parameters", "parameters", "count"],
      ["flops_per_sample", "FLOPs per sample", "number"],
      ["tflops", "TFLOPS", "number"],
      ["mfu", "MFU", "fraction"],
    ];
    return fields
      .filter(function (field) {
        return summary[field[0]] !== null && summary[field[0]] !== undefined;
      })
      .map(function (field) {
        return [field[1], formatValue(summary[field[0]], field[2])];
      });
  }

  function problemsBlock(run) {
    const block = element("div", "problems");
    if (run.error)
      append(block, [element("h3", null, "error"), element("pre", "error", run.error)]);
    if (run.damage)
      append(block, [element("h3", null, "damage"), element("pre", "error", run.damage)]);
    return block;
  }

  function restartsBlock(run) {
    const block = element("div", "restarts");
    if (run.restarts.length) {
      const list = element("ol");
      for (const restart of run.restarts) {
        list.appendChild(
          element(
            "li",
            null,
            "attempt " +
              restart.attempt +
              ": " +
              restart.cause +
              "; resumed from " +
              restart.resumed_from +
              " (step " +
              restart.resumed_step +
              "), " +
              formatValue(restart.time_lost_s, "seconds") +
              " lost, failed at " +
              restart.failed_at,
          ),
        );
      }
      append(block, [element("h3", null, "restarts"), list]);
    }
    if (run.hang_reports.length) {
      block.appendChild(element("h3", null, "hang reports"));
      for (const report of run.hang_reports) {
        block.appendChild(
          element(
            "pre",
            "hang",
            "attempt " + report.attempt + ": " + report.first_line + "\n" + report.ranks.join("\n"),
          ),
        );
      }
    }
    return block;
  }

  function copyText(pre, status) {
    function selectInstead() {
      window.getSelection().selectAllChildren(pre);
      status.textContent = "selected: press Ctrl+C to copy";
    }
    if (!navigator.clipboard || !navigator.clipboard.writeText) {
      selectInstead();
      return;
    }
    navigator.clipboard.writeText(pre.textContent).then(function () {
      status.textContent = "copied";
    }, selectInstead);
  }

  function configBlock(run) {
    const pre = element("pre", "toml", run.config_toml);
    const button = element("button", null, "copy");
    button.type = "button";
    const status = element("span", "muted");
    button.addEventListener("click", function () {
      copyText(pre, status);
    });
    return append(element("div", "config"), [
      append(element("h3", null, "resolved config "), [button, status]),
      pre,
    ]);
  }

  function environmentBlock(run) {
    const details = element("details", "environment");
    details.open = true;
    return append(details, [
      element("summary", null, "environment of this run"),
      keyValueTable(environmentEntries(run.environment)),
    ]);
  }

  function drawRun(run) {
    destroyCharts("run");
    const section = byId("run-section");
    section.textContent = "";
    const heading = append(element("h2", null, "run "), [
      element("span", "run-label", run.label || run.group),
      roleBadge(run.role),
    ]);
    const grid = element("div", "charts");
    append(section, [heading, runFacts(run), problemsBlock(run)]);
    if (run.summary) section.appendChild(keyValueTable(summaryEntries(run.summary)));
    append(section, [grid, restartsBlock(run), environmentBlock(run), configBlock(run)]);
    section.hidden = false;
    drawCharts(grid, "run", runChartBuilders(run));
    if (grid.children.length === 0)
      grid.appendChild(element("p", "muted", "this run recorded no epochs or steps"));
  }

  // ---- runner plan's trials ----

  function runAnchor(run) {
    const link = element("a", "run-link", run.label || run.group);
    link.href = "#run=" + encodeURIComponent(run.group);
    return link;
  }

  function planRow(data, trial, position) {
    const run = data.runs[trial.run];
    const ratio = trial.measured_s === null ? null : trial.measured_s / trial.predicted_s;
    const cells = [
      element("td", "number", String(position + 1)),
      append(element("td", "text"), [runAnchor(run)]),
      element("td", "number", formatSeconds(trial.predicted_s)),
      element("td", "number", trial.measured_s === null ? "" : formatSeconds(trial.measured_s)),
      element("td", "number", ratio === null ? "" : ratio.toFixed(2)),
      append(element("td", "role-cell"), [roleBadge(run.role)]),
    ];
    return append(element("tr"), cells);
  }

  function planTable(data, plan) {
    const titles = [
      "#",
      "layout (the trial's run)",
      "predicted step",
      "measured step",
      "measured / predicted",
      "",
    ];
    const head = append(
      element("tr"),
      titles.map(function (title) {
        return element("th", null, title);
      }),
    );
    const body = element("tbody");
    plan.trials.forEach(function (trial, position) {
      body.appendChild(planRow(data, trial, position));
    });
    return append(element("table", "plan-table"), [append(element("thead"), [head]), body]);
  }

  function planSummary(plan) {
    if (plan.rank_correlation === null && plan.measured >= 3)
      return element(
        "p",
        "muted",
        "no rank correlation: the predicted or the measured steps are all alike",
      );
    if (plan.rank_correlation === null)
      return element(
        "p",
        "muted",
        plan.measured +
          " of " +
          plan.trials.length +
          " trials measured: a rank correlation needs at least 3",
      );
    return element(
      "p",
      null,
      "rank correlation of predicted and measured steps: " +
        plan.rank_correlation.toFixed(2) +
        " (" +
        plan.measured +
        " trials)",
    );
  }

  function drawPlans(data) {
    if (data.plans.length === 0) return;
    const section = byId("plan-section");
    section.appendChild(element("h2", null, "runner plan's trials"));
    for (const plan of data.plans) {
      append(section, [
        element("h3", null, plan.experiment),
        element(
          "p",
          "muted",
          "layouts in the order the plan predicted them; measured: the median step after the " +
            "first, of a completed trial",
        ),
        planTable(data, plan),
        planSummary(plan),
      ]);
    }
    section.hidden = false;
  }

  // ---- across the sweep ----

  function keyTitle(key) {
    return key.slice(key.lastIndexOf(".") + 1);
  }

  function resultRuns(data) {
    return data.runs
      .map(function (run, index) {
        return index;
      })
      .filter(function (index) {
        return data.runs[index].role === "result";
      });
  }

  // Runs' series on one x: uPlot needs a shared x, which uPlot.join builds
  // (a step a run lacks is skipped over, a null is a gap).
  function overlaySpec(data, chosen, id, title, unit, pick, xLabel) {
    const tables = [];
    const series = [];
    for (const entry of chosen) {
      const xy = pick(data.runs[entry.run]);
      if (!hasValue(xy[1])) continue;
      tables.push([xy[0], numbersOrNull(xy[1])]);
      series.push(
        lineSeries(
          data.runs[entry.run].label || data.runs[entry.run].group,
          [],
          entry.colour,
          unit,
        ),
      );
    }
    const joined = tables.length ? uPlot.join(tables) : [[]];
    series.forEach(function (s, index) {
      s.values = joined[index + 1];
    });
    return {
      id: id,
      title: title,
      x: joined[0],
      xLabel: xLabel,
      xIntegers: true,
      unit: unit,
      series: series,
    };
  }

  function drawOverlays(data, grid, chosen) {
    destroyCharts("overlay");
    grid.textContent = "";
    drawCharts(grid, "overlay", [
      function () {
        return overlaySpec(
          data,
          chosen,
          "chart-sweep-test-loss",
          "test loss per epoch, chosen runs",
          "number",
          function (run) {
            return [run.epochs.epoch, run.epochs.test_loss];
          },
          "epoch",
        );
      },
      function () {
        return overlaySpec(
          data,
          chosen,
          "chart-sweep-test-accuracy",
          "test accuracy per epoch, chosen runs",
          "fraction",
          function (run) {
            return [run.epochs.epoch, run.epochs.test_accuracy];
          },
          "epoch",
        );
      },
      function () {
        return overlaySpec(
          data,
          chosen,
          "chart-sweep-step-loss",
          "loss per step, chosen runs",
          "number",
          function (run) {
            return [run.steps.step, run.steps.loss];
          },
          "step",
        );
      },
    ]);
    if (grid.children.length === 0)
      grid.appendChild(element("p", "muted", "no chosen run has these values"));
  }

  function runChooser(data, results, onChange) {
    const box = element("div", "run-chooser");
    const boxes = results.map(function (run, position) {
      const input = element("input");
      input.type = "checkbox";
      input.checked = position < FIRST_TICKED_RUNS;
      input.addEventListener("change", onChange);
      const swatch = element("span", "swatch");
      swatch.style.background = colourAt(position);
      box.appendChild(
        append(element("label"), [
          input,
          swatch,
          document.createTextNode(data.runs[run].label || data.runs[run].group),
        ]),
      );
      return input;
    });
    return {
      element: box,
      chosen: function () {
        return results
          .map(function (run, position) {
            return { run: run, colour: colourAt(position) };
          })
          .filter(function (entry, position) {
            return boxes[position].checked;
          });
      },
    };
  }

  function columnIndex(data, name) {
    return data.table.columns.findIndex(function (column) {
      return column.name === name;
    });
  }

  // Positions of the first swept key's values on x: the numbers themselves, or a category each.
  function sweepAxis(data, results, key) {
    const values = [];
    for (const run of results) {
      const value = data.runs[run].sweep_point[key];
      if (
        value !== undefined &&
        !values.some(function (seen) {
          return seen === value;
        })
      )
        values.push(value);
    }
    const numeric = values.every(isNumber);
    if (numeric) {
      values.sort(function (a, b) {
        return a - b;
      });
      const logarithmic = values[0] > 0 && values[values.length - 1] / values[0] >= 100;
      return {
        x: values,
        names: null,
        position: function (value) {
          return values.indexOf(value);
        },
        log: logarithmic,
      };
    }
    const names = values.map(function (value) {
      return formatValue(value);
    });
    return {
      x: indices(values.length),
      names: names,
      position: function (value) {
        return values.indexOf(value);
      },
      log: false,
    };
  }

  // The swept keys the measures are drawn against: runner plan's predicted step follows from
  // a trial's layout (the other keys), so it is no axis of its own.
  function axisKeys(data) {
    return data.sweep_keys.filter(function (key) {
      return key !== "experiment.plan_step_s";
    });
  }

  function combinationOf(run, otherKeys) {
    return otherKeys
      .map(function (key) {
        return keyTitle(key) + "=" + formatValue(run.sweep_point[key]);
      })
      .join(", ");
  }

  function measureSpec(data, results, axis, measure) {
    const column = columnIndex(data, measure.name);
    const key = axisKeys(data)[0];
    const otherKeys = axisKeys(data).slice(1);
    const byCombination = new Map();
    for (const run of results) {
      const combination = combinationOf(data.runs[run], otherKeys) || "all runs";
      if (!byCombination.has(combination))
        byCombination.set(
          combination,
          axis.x.map(function () {
            return null;
          }),
        );
      const position = axis.position(data.runs[run].sweep_point[key]);
      if (column >= 0 && position >= 0)
        byCombination.get(combination)[position] = data.table.rows[run][column];
    }
    const unit = column >= 0 ? data.table.columns[column].unit : "number";
    let index = 0;
    const series = [];
    byCombination.forEach(function (values, combination) {
      series.push(lineSeries(combination, values, colourAt(index++), unit));
    });
    return {
      id: "chart-sweep-" + measure.name,
      title: measure.title + " vs " + keyTitle(key),
      x: axis.x,
      xLabel: keyTitle(key),
      xNames: axis.names,
      xIntegers: axis.names !== null,
      xRange: axis.names ? indexRange(axis.x.length) : undefined,
      xLog: axis.log,
      xUnit: "number",
      unit: unit,
      series: series,
    };
  }

  function drawMeasures(data, grid, results) {
    if (results.length === 0) return;
    const axis = sweepAxis(data, results, axisKeys(data)[0]);
    const measures = [
      { name: "time_s", title: "time total" },
      { name: "samples_per_s", title: "samples/s" },
      { name: "step_time_s", title: "mean step time" },
      { name: "peak_memory_bytes", title: "peak memory" },
      { name: "test_accuracy", title: "test accuracy" },
    ];
    drawCharts(
      grid,
      "measures",
      measures.map(function (measure) {
        return function () {
          return measureSpec(data, results, axis, measure);
        };
      }),
    );
  }

  function notDrawnList(data) {
    const list = element("ul", "not-drawn");
    for (const point of data.points) {
      if (point.result === null)
        list.appendChild(
          element("li", null, "not drawn: " + point.label + " (" + point.status + ")"),
        );
    }
    return list;
  }

  function drawSweep(data) {
    if (data.points.length <= 1) return;
    const section = byId("sweep-section");
    const results = resultRuns(data);
    const overlayGrid = element("div", "charts");
    const measureGrid = element("div", "charts");
    const chooser = runChooser(data, results, function () {
      drawOverlays(data, overlayGrid, chooser.chosen());
    });
    append(section, [
      element("h2", null, "across the sweep"),
      notDrawnList(data),
      element("h3", null, "chosen runs"),
      chooser.element,
      overlayGrid,
    ]);
    section.hidden = false;
    drawOverlays(data, overlayGrid, chooser.chosen());
    if (axisKeys(data).length === 0) return;
    append(section, [
      element("h3", null, "each measure against " + keyTitle(axisKeys(data)[0])),
      measureGrid,
    ]);
    drawMeasures(data, measureGrid, results);
  }

  // ---- choosing the run to show ----

  function runOfHash(data) {
    const match = /^#run=(.*)$/.exec(window.location.hash);
    if (!match) return -1;
    let group;
    try {
      group = decodeURIComponent(match[1]);
    } catch (error) {
      return -1;
    }
    return data.runs.findIndex(function (run) {
      return run.group === group;
    });
  }

  function defaultRun(data) {
    const result = data.runs.findIndex(function (run) {
      return run.role === "result";
    });
    return result >= 0 ? result : 0;
  }

  function debounced(action, milliseconds) {
    let timer = null;
    return function () {
      clearTimeout(timer);
      timer = setTimeout(action, milliseconds);
    };
  }

  function main() {
    const data = readData();
    drawHeader(data);
    let table = {
      markSelected: function () {},
      rowCount: function () {
        return 0;
      },
    };

    function showRun(row) {
      if (row < 0 || row >= data.runs.length) return;
      table.markSelected(row);
      try {
        drawRun(data.runs[row]);
      } catch (error) {
        errors.push("run " + data.runs[row].group + ": " + describeError(error));
      }
    }

    function showRunChosenLater(row) {
      showRun(row);
      byId("run-section").scrollIntoView({ block: "start" });
      writeSelfCheck(table.rowCount);
    }

    // A link to the run already in the hash fires no hashchange: show it directly then.
    function selectRow(row) {
      const hash = "#run=" + encodeURIComponent(data.runs[row].group);
      if (window.location.hash === hash) showRunChosenLater(row);
      else window.location.hash = hash;
    }

    if (data.runs.length > 0) {
      table = createTable(data, selectRow);
      const fromHash = runOfHash(data);
      showRun(fromHash >= 0 ? fromHash : defaultRun(data));
    }
    try {
      drawPlans(data);
    } catch (error) {
      errors.push("plan: " + describeError(error));
    }
    try {
      drawSweep(data);
    } catch (error) {
      errors.push("sweep: " + describeError(error));
    }
    window.addEventListener("hashchange", function () {
      showRunChosenLater(runOfHash(data));
    });
    window.addEventListener("resize", debounced(resizeCharts, 150));
    writeSelfCheck(table.rowCount);
  }

  try {
    main();
  } catch (error) {
    errors.push(describeError(error));
    writeSelfCheck(function () {
      return 0;
    });
  }
})();
