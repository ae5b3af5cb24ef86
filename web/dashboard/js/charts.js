// The study's plots, drawn by Apache ECharts (served from vendor/, installed by the setup step).
// Each builder turns trials into an ECharts option; ChartPanel owns one chart on the page.
// Tooltips use ECharts' rich-text mode: drawn on the canvas, so names in data never become HTML.

import { activeTest, fmtDuration, fmtNumber, fmtParam } from './format.js';
import { regretOf } from './table.js';

const GOOD_TO_BAD = ['#1a5fb4', '#62a0ea', '#c0bfbc', '#f6a35c', '#c01c28'];
const STATE_COLORS = { complete: '#3584e4', failed: '#c01c28', running: '#e5a50a', waiting: '#9a9996', stale: '#3d3846',
  'given back': '#986a44' };
// The timeline's colours: a trial failed as stale (its worker stopped heartbeating) has its own, and
// so has one given back (`study tell --give-back`: not evaluated, its point perhaps queued again).
const STATES = ['complete', 'failed', 'running', 'waiting', 'stale', 'given back'];
const timelineState = (t) => (t.given_back ? 'given back' : t.stale ? 'stale' : t.state);
const BIG = 2000;  // from here on: large-mode scatter, progressive lines, no animation

export const chartsAvailable = () => typeof window.echarts !== 'undefined';

// FLAT: a large series' data is one Float64Array, its points' values one after the other. ECharts
// deep-copies an option twice at each setOption and keeps copies, but takes a typed array as it
// is: on 20,000 trials of 30 parameters the copies of arrays of arrays held 150 MB of the page's
// heap, and as much was collected again after each redraw. A categorical value is then its
// choice's index on the axis.

const completed = (trials) => trials.filter((t) => t.state === 'complete' && typeof t.value === 'number');
const better = (study) => (study.direction === 'minimize' ? (a, b) => a < b : (a, b) => a > b);

// No animations: a live page redraws every few seconds, and 'finished' (all drawn) comes sooner.
function base() {
  return {
    animation: false,
    tooltip: { trigger: 'item', renderMode: 'richText', confine: true },
    toolbox: { right: 8, top: 0, feature: { saveAsImage: { title: 'save PNG' } } },
  };
}

/** Each value (or regret) by trial number, with the running best as a step line. */
export function historyOption(trials, study, { mode, log }) {
  const ok = completed(trials);
  const regret = mode === 'regret';
  const y = regret ? (t) => regretOf(t, study) : (t) => t.value;
  const isBetter = regret ? (a, b) => a < b : better(study);
  const points = new Float64Array(2 * ok.length);  // [trial, value] pairs, flat (see FLAT)
  let n = 0;
  const best = [];
  let current = null;
  let hidden = 0;
  for (const t of ok) {
    const v = y(t);
    if (v === null) continue;
    if (current === null || isBetter(v, current)) {
      current = v;
      if (!(log && v <= 0)) best.push([t.number, v]);
    }
    if (log && v <= 0) hidden++;
    else {
      points[n++] = t.number;
      points[n++] = v;
    }
  }
  if (best.length && ok.length) best.push([ok[ok.length - 1].number, best[best.length - 1][1]]);
  const name = regret ? 'regret' : 'value';
  return {
    ...base(),
    legend: { top: 0, left: 'center' },
    grid: { left: 72, right: 24, top: 36, bottom: 56 },
    xAxis: { type: 'value', name: 'trial', nameLocation: 'middle', nameGap: 26, minInterval: 1 },
    yAxis: { type: log ? 'log' : 'value', name, nameLocation: 'middle', nameGap: 52, scale: true },
    dataZoom: [{ type: 'inside' }, { type: 'slider', height: 14, bottom: 4, showDataShadow: false }],
    // Without a complete trial (a run whose every evaluation failed) the axes alone say nothing.
    title: ok.length === 0
      ? { text: trials.length ? 'no complete trial yet: every evaluation failed or runs' : 'no trial yet',
        show: true, left: 'center', right: 'auto', top: 'middle', textStyle: { fontSize: 13, fontWeight: 'normal', color: '#77767b' } }
      : { show: hidden > 0, text: `${hidden} values ≤ 0 not shown on the log scale`, left: 'auto', right: 40, top: 0,
        textStyle: { fontSize: 11, fontWeight: 'normal', color: '#a51d2d' } },
    series: [
      // Drawn in one go: ECharts' progressive drawing of a large scatter drew its chunks' edges as
      // dark vertical stripes (at trials 5,000, 10,000, ...) where translucent points overlapped.
      { id: 'values', name, type: 'scatter', data: points.subarray(0, n), symbolSize: 5, large: n / 2 >= BIG,
        largeThreshold: BIG, progressive: 0, itemStyle: { color: STATE_COLORS.complete, opacity: 0.65 },
        tooltip: { formatter: (p) => `trial ${p.value[0]}\n${name} ${fmtNumber(p.value[1])}` } },
      { id: 'best', name: 'best so far', type: 'line', step: 'end', data: best, showSymbol: false,
        lineStyle: { width: 2, color: '#c01c28' }, itemStyle: { color: '#c01c28' },
        tooltip: { formatter: (p) => `best after trial ${p.value[0]}\n${fmtNumber(p.value[1])}` } },
    ],
  };
}

function paramAxis(p) {
  // Every choice named (ECharts skipped labels next to a long one: 3 columns, one label), long
  // ones cut with an ellipsis; from a dozen choices on they would overlap.
  if (p.type === 'categorical') {
    return { type: 'category', data: p.choices,
      axisLabel: { interval: p.choices.length <= 12 ? 0 : 'auto', overflow: 'truncate', width: 110 } };
  }
  const axis = { type: p.log ? 'log' : 'value', min: p.lower, max: p.upper };
  if (p.type === 'integer') axis.minInterval = 1;
  return axis;
}

// A categorical value's place on its axis (FLAT); not a choice: NaN, drawn nowhere.
function choiceIndex(choices) {
  const at = new Map(choices.map((c, j) => [c, j]));
  return (v) => at.get(v) ?? NaN;
}

function valueRange(ok) {
  let lo = Infinity;
  let hi = -Infinity;
  for (const t of ok) {
    lo = Math.min(lo, t.value);
    hi = Math.max(hi, t.value);
  }
  return ok.length ? [lo, hi] : [0, 1];
}

// A conditional parameter's axis has a place of its own for the trials that did not use it: they
// hold a fixed value the objective never saw, drawn there as a pile of lines at the lower bound
// (ECharts' own empty value, '-', is no better: the line skips the axis, crossing it in between).
// A categorical axis gets a first category, under the choices; a numeric one a slot under its
// range (a tenth of the axis below the lower bound, of its decades on a log axis), labelled so.
export const UNUSED = '— unused';
const UNUSED_COLOR = '#9a9996';
const LABEL_COLOR = '#54555a';  // ECharts' own axis label colour

function unusedSlot(p) {
  if (p.log) return p.lower * Math.exp(-0.1 * (Math.log(p.upper / p.lower) || Math.LN10));
  return p.lower - 0.1 * (p.upper - p.lower || Math.abs(p.lower) || 1);
}

function parallelParamAxis(p, conditional) {
  if (!conditional) return paramAxis(p);
  if (p.type === 'categorical') {
    const data = [UNUSED, ...p.choices];
    return { type: 'category', data, axisLabel: { interval: data.length <= 12 ? 0 : 'auto', overflow: 'truncate',
      width: 110, color: (v) => (v === UNUSED ? UNUSED_COLOR : LABEL_COLOR) } };
  }
  const slot = unusedSlot(p);
  // Ticks under the range: the slot itself (ECharts puts a tick at the axis' end), and round
  // values between it and the lower bound, which no trial can hold.
  const cut = p.log ? Math.sqrt(slot * p.lower) : (slot + p.lower) / 2;
  const below = p.lower - 1e-9 * Math.abs(p.upper - p.lower);
  return { ...paramAxis(p), min: slot,
    axisLabel: { formatter: (v) => (v < cut ? UNUSED : v < below ? '' : fmtNumber(Number(v))),
      color: (v) => (Number(v) < cut ? UNUSED_COLOR : LABEL_COLOR) } };
}

// The axes, and each one's value of a trial (FLAT; "— unused" places): the lines are drawn from it
// and the brush judges trials by it (brush.js), so the table selects what the plot does.
function parallelParamAxes(params) {
  const encode = [];
  const axes = params.map((p, i) => {
    const active = activeTest(params, i);
    const axis = parallelParamAxis(p, active !== null);
    const code = axis.type === 'category' ? choiceIndex(axis.data) : (v) => v;
    const unused = active && (axis.type === 'category' ? code(UNUSED) : axis.min);
    encode.push(active ? (t) => (active(t.params) ? code(t.params[i]) : unused) : (t) => code(t.params[i]));
    return { dim: i, name: p.name, ...axis };
  });
  return { axes, encode };
}

/** Each parallel axis' value of a trial, the value's axis last. */
export const parallelEncoders = (study) => [...parallelParamAxes(study.space.parameters || []).encode, (t) => t.value];

/** One line per complete trial across the parameters' axes and the value's, coloured by value.
 *  A conditional parameter's unused trials go to its axis' "— unused" place. */
export function parallelOption(trials, study, { log }) {
  const params = study.space.parameters || [];
  const ok = completed(trials);
  const [lo, hi] = valueRange(ok);
  const logValue = log && lo > 0;
  const k = params.length;
  const worstFirst = study.direction === 'minimize' ? (a, b) => b.value - a.value : (a, b) => a.value - b.value;
  const { axes, encode } = parallelParamAxes(params);
  axes.push({ dim: params.length, name: 'value', type: logValue ? 'log' : 'value', scale: true,
    nameTextStyle: { fontWeight: 'bold' } });
  const colors = study.direction === 'minimize' ? GOOD_TO_BAD : [...GOOD_TO_BAD].reverse();
  const data = new Float64Array(ok.length * (k + 1));  // rows of k parameters and the value (FLAT)
  [...ok].sort(worstFirst).forEach((t, r) => {
    const row = r * (k + 1);
    for (let i = 0; i < k; i++) data[row + i] = encode[i](t);
    data[row + k] = t.value;
  });
  return {
    ...base(),
    parallel: { left: 48, right: 56, top: 78, bottom: 28,
      parallelAxisDefault: { nameLocation: 'end', nameGap: 14, nameTextStyle: { fontSize: 12 },
        axisLabel: { fontSize: 10, hideOverlap: true } } },
    parallelAxis: axes,
    visualMap: { type: 'continuous', dimension: params.length, min: lo, max: hi === lo ? lo + 1 : hi,
      inRange: { color: colors }, calculable: true, orient: 'horizontal', left: 'center', top: 0,
      itemWidth: 10, itemHeight: 220, text: ['', 'value '], formatter: (v) => fmtNumber(v) },
    // Drawn worst first, so that the best trials' lines lie on top.
    series: [{ id: 'trials', type: 'parallel', data,
      lineStyle: { width: 1, opacity: ok.length >= BIG ? 0.25 : 0.55 }, inactiveOpacity: 0.03,
      progressive: 2500, progressiveThreshold: BIG, smooth: false,  // spread over frames: the page stays responsive
      tooltip: { show: false } }],
  };
}

// Small multiples: one grid per item, `columns` across, rows `rowHeight` pixels tall.
function gridLayout(count, columns, rowHeight, top = 28) {
  const cols = Math.max(1, Math.min(columns, count));
  return {
    height: Math.ceil(count / cols) * rowHeight + top,
    grid: (i) => {
      const c = i % cols;
      const r = Math.floor(i / cols);
      return { left: `${(100 * c) / cols + 6}%`, width: `${100 / cols - 9}%`, top: top + r * rowHeight + 18,
        height: rowHeight - 68 };
    },
  };
}

/** The value against each parameter, points coloured by trial number (late trials dark; one
 *  colour from 2,000 trials on, where ECharts' large mode draws points without per-point style).
 *  Drawn progressively: unlike the history's, its x is a parameter, not the trial number, and on
 *  20,000 trials it is the same picture to the pixel as drawn in one go (which froze the page 0.5 s). */
// The trials whose parameter i matters: a conditional parameter's slice leaves out the trials
// where it held its fixed value unused (they would pile up at its lower bound).
function usedBy(trials, params, i) {
  const active = activeTest(params, i);
  return active === null ? trials : trials.filter((t) => active(t.params));
}

// [parameter i, value, trial number] of each trial, flat (FLAT).
function slicePoints(trials, i, p) {
  const code = p.type === 'categorical' ? choiceIndex(p.choices) : null;
  const out = new Float64Array(3 * trials.length);
  trials.forEach((t, r) => {
    out[3 * r] = code ? code(t.params[i]) : t.params[i];
    out[3 * r + 1] = t.value;
    out[3 * r + 2] = t.number;
  });
  return out;
}

export function sliceOption(trials, study, { log }) {
  const params = study.space.parameters || [];
  const ok = completed(trials);
  const [lo] = valueRange(ok);
  const logValue = log && lo > 0;
  const large = ok.length >= BIG;
  const layout = gridLayout(params.length, 3, 230);
  const first = ok.length ? ok[0].number : 0;
  const last = ok.length ? Math.max(ok[ok.length - 1].number, first + 1) : 1;
  return {
    height: layout.height,
    option: {
      ...base(),
      grid: params.map((_, i) => layout.grid(i)),
      // A long parameter name is cut to its plot's width (it ran across the neighbouring plots).
      xAxis: params.map((p, i) => ({ gridIndex: i, name: p.name, nameLocation: 'middle', nameGap: 24,
        nameTruncate: { maxWidth: 240 }, ...paramAxis(p), axisLine: { onZero: false } })),
      yAxis: params.map((_, i) => ({ gridIndex: i, type: logValue ? 'log' : 'value', scale: true,
        axisLine: { onZero: false } })),
      visualMap: { show: !large, type: 'continuous', dimension: 2, min: first, max: last,
        inRange: { color: large ? [STATE_COLORS.complete, STATE_COLORS.complete] : ['#c6dbef', '#08306b'] },
        seriesIndex: params.map((_, i) => i), orient: 'horizontal', left: 'center', top: 0, itemWidth: 10,
        itemHeight: 160, text: ['late', 'early trials'], calculable: false },
      series: params.map((p, i) => ({ id: `slice-${i}`, type: 'scatter', xAxisIndex: i, yAxisIndex: i,
        data: slicePoints(usedBy(ok, params, i), i, p), dimensions: ['param', 'value', 'trial'], symbolSize: large ? 3 : 4,
        large, largeThreshold: BIG, itemStyle: large ? { color: STATE_COLORS.complete, opacity: 0.35 } : undefined,
        tooltip: { formatter: (q) => `trial ${q.value[2]}\n${p.name} ${fmtParam(p.type === 'categorical' ? p.choices[q.value[0]] : q.value[0])}`
          + `\nvalue ${fmtNumber(q.value[1])}` } })),
    },
  };
}

// Bars of one worker and state closer than `gap` seconds merge into one (at most about a bar per
// pixel is visible anyway): [lane, start, end, state, first number, last number, count].
function mergeBars(bars, gap) {
  bars.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const out = [];
  for (const bar of bars) {
    const last = out[out.length - 1];
    if (last && last[0] === bar[0] && last[3] === bar[3] && bar[1] - last[2] <= gap) {
      last[2] = Math.max(last[2], bar[2]);
      last[5] = bar[4];
      last[6]++;
    } else {
      out.push([...bar, bar[4], 1]);
    }
  }
  return out;
}

// Lanes: one per worker, and one per evaluation in flight for a worker running several at once
// (`optimist worker --jobs 3` is one worker name; its trials would draw over each other).
// Returns the lanes' names and each trial's lane.
function workerLanes(timed, endOf) {
  const byWorker = new Map();
  for (const t of timed) {
    const w = t.worker || '?';
    if (!byWorker.has(w)) byWorker.set(w, []);
    byWorker.get(w).push(t);
  }
  const names = [];
  const laneOf = new Map();
  for (const w of [...byWorker.keys()].sort()) {
    const ends = [];  // the end of each of this worker's lanes so far
    const first = names.length;
    for (const t of byWorker.get(w).sort((a, b) => a.started_at - b.started_at)) {
      let k = ends.findIndex((e) => e <= t.started_at);
      if (k < 0) k = ends.push(0) - 1;
      ends[k] = endOf(t);
      laneOf.set(t, first + k);
    }
    for (let k = 0; k < ends.length; k++) names.push(ends.length > 1 ? `${w} · ${k + 1}` : w);
  }
  return { names, laneOf };
}

/** One bar per trial from its start to its end (or now), one lane per worker (and job). */
export function timelineOption(trials, now) {
  const timed = trials.filter((t) => t.started_at !== undefined);
  const endOf = (t) => t.completed_at ?? (t.state === 'running' ? now : t.started_at);
  const { names: workers, laneOf } = workerLanes(timed, endOf);
  const t0 = timed.reduce((m, t) => Math.min(m, t.started_at), Infinity);
  let span = 0;
  const bars = timed.map((t) => {
    const end = endOf(t);
    span = Math.max(span, end - t0);
    return [laneOf.get(t), t.started_at - t0, end - t0, STATES.indexOf(timelineState(t)), t.number];
  });
  const data = bars.length > BIG ? mergeBars(bars, span / 1500) : bars.map((b) => [...b, b[4], 1]);
  return {
    height: Math.min(520, 110 + 26 * workers.length),
    option: {
      ...base(),
      grid: { left: 90, right: 24, top: 30, bottom: 58 },
      // A study runs for hours or days: "7 h 30 min" reads better than 27000 (seconds).
      xAxis: { type: 'value', name: 'time since the first trial started', nameLocation: 'middle', nameGap: 26,
        axisLabel: { formatter: (v) => (v === 0 ? '0' : fmtDuration(v)), hideOverlap: true } },
      yAxis: { type: 'category', data: workers },
      dataZoom: [{ type: 'inside', filterMode: 'weakFilter' }, { type: 'slider', height: 14, bottom: 4, filterMode: 'weakFilter' }],
      legend: { top: 0, left: 'center', icon: 'rect', data: STATES.map((s) => ({ name: s, itemStyle: { color: STATE_COLORS[s] } })) },
      series: [
        { id: 'bars', type: 'custom', data, encode: { x: [1, 2], y: 0 },
          renderItem: (params, api) => {
            const start = api.coord([api.value(1), api.value(0)]);
            const end = api.coord([api.value(2), api.value(0)]);
            const h = api.size([0, 1])[1] * 0.6;
            const shape = window.echarts.graphic.clipRectByRect(
              { x: start[0], y: start[1] - h / 2, width: Math.max(end[0] - start[0], 1), height: h },
              { x: params.coordSys.x, y: params.coordSys.y, width: params.coordSys.width, height: params.coordSys.height });
            return shape && { type: 'rect', shape, style: { fill: STATE_COLORS[STATES[api.value(3)]] } };
          },
          tooltip: { formatter: (p) => {
            const [w, from, to, state, first, last, count] = p.value;
            const which = count > 1 ? `trials ${first}–${last} (${count}, ${STATES[state]})` : `trial ${first} (${STATES[state]})`;
            return `${which}\nworker ${workers[w]}\nfrom ${fmtDuration(from)} to ${fmtDuration(to)}`;
          } } },
        // Empty series so that the legend names the colours.
        ...STATES.map((s) => ({ name: s, type: 'line', data: [], itemStyle: { color: STATE_COLORS[s] } })),
      ],
    },
  };
}

/** The algorithm's numeric diagnostics (arrays: one line per entry) by trial number. */
export function diagnosticsOption(trials, study) {
  const series = new Map();  // key -> Map(label -> points)
  for (const t of trials) {
    if (!t.diagnostics) continue;
    for (const [key, v] of Object.entries(t.diagnostics)) {
      const entries = typeof v === 'number' ? [[key, v]]
        : Array.isArray(v) && v.every((x) => typeof x === 'number') ? v.map((x, i) => [`${key}[${i}]`, x]) : [];
      for (const [label, x] of entries) {
        if (!series.has(key)) series.set(key, new Map());
        const lines = series.get(key);
        if (!lines.has(label)) lines.set(label, []);
        lines.get(label).push([t.number, x]);
      }
    }
  }
  const keys = [...series.keys()].sort();
  if (!keys.length) {
    return { height: 120, empty: true, option: { title: { text: `${study.algorithm || 'this algorithm'} reports no diagnostics`,
      left: 'center', top: 'middle', textStyle: { fontSize: 13, fontWeight: 'normal', color: '#77767b' } } } };
  }
  const layout = gridLayout(keys.length, 2, 190, 8);
  const out = [];
  keys.forEach((key, i) => {
    for (const [label, points] of series.get(key)) {
      out.push({ name: label, type: 'line', xAxisIndex: i, yAxisIndex: i, data: points, showSymbol: points.length < 60,
        symbolSize: 4, sampling: 'lttb', tooltip: { formatter: (p) => `${label} after trial ${p.value[0]}\n${fmtNumber(p.value[1])}` } });
    }
  });
  return {
    height: layout.height,
    option: {
      ...base(),
      grid: keys.map((_, i) => layout.grid(i)),
      title: keys.map((key, i) => ({ text: key, top: layout.grid(i).top - 18, left: layout.grid(i).left,
        textStyle: { fontSize: 12, fontWeight: 'bold' } })),
      xAxis: keys.map((_, i) => ({ gridIndex: i, type: 'value', minInterval: 1, scale: true })),
      yAxis: keys.map((_, i) => ({ gridIndex: i, type: 'value', scale: true })),
      series: out,
    },
  };
}

// ECharts' 'finished' comes when its last chunk of a progressive drawing is handed to the canvas,
// whose painting goes on for frames (15 ms of strokes a frame, each rastered in ~0.1 s: 1 to 2 s
// more on 20,000 lines of parallel coordinates, which the redraws' pacing did not count). done()
// is called at the first frame that comes within 50 ms of the one before.
function afterPainting(done, prev = performance.now(), frames = 0) {
  requestAnimationFrame((t) => (t - prev < 50 || frames >= 300 ? done() : afterPainting(done, t, frames + 1)));
}

/** One ECharts chart in a page element. It draws only while on screen (or about to be): a chart
 *  further down draws when scrolled to, so a large study's first screen comes sooner and live
 *  updates cost nothing for charts nobody looks at. data-drawn tells tests (and people) it drew. */
export class ChartPanel {
  constructor(container) {
    this.container = container;
    this.chart = null;
    this.visible = false;
    this.pending = null;  // the latest update asked for while off screen
    this.drawing = null;  // when the update being drawn started (null: none is)
    this.cost = 0;        // ms from the last update's start until it was all drawn
    this.onDrawn = null;  // called with that cost when an update is all drawn
    this.afterUpdate = null;  // called with the chart after each setOption (brush.js puts the brush back)
    new IntersectionObserver((entries) => {
      this.visible = entries[entries.length - 1].isIntersecting;
      if (this.visible && this.pending) {
        const { build, options } = this.pending;
        this.pending = null;
        this.update(build, options);
      }
    }).observe(container);
  }

  ensure() {
    if (this.chart || !chartsAvailable()) return this.chart;
    this.chart = window.echarts.init(this.container, null, { renderer: 'canvas' });
    this.size = this.sizeNow();
    new ResizeObserver(() => this.fit()).observe(this.container);
    // 'finished': all drawn, ECharts' progressive drawing over later frames included (it also
    // comes after a tooltip or a zoom redraws; only an update's is counted), then the canvas'.
    this.chart.on('finished', () => {
      if (this.container.dataset.drawn === undefined) performance.mark(`optimist-drawn-${this.container.id}`);
      this.container.dataset.drawn = String(this.items ?? 0);
      const drawing = this.drawing;
      if (drawing === null || this.settling === drawing) return;
      this.settling = drawing;
      afterPainting(() => {
        if (this.drawing !== drawing) return;  // a newer update started meanwhile: its own counts
        this.cost = performance.now() - drawing;
        this.drawing = null;
        if (this.onDrawn) this.onDrawn(this.cost);
      });
    });
    return this.chart;
  }

  sizeNow() {
    return `${this.container.clientWidth}x${this.container.clientHeight}`;
  }

  // Only when the size changed: resize() draws the whole chart again (before, each update drew
  // it twice, the first time with the old data).
  fit() {
    if (this.sizeNow() === this.size) return;
    this.size = this.sizeNow();
    this.chart.resize();
  }

  /** Whether an update is still being drawn (progressive drawing runs over several frames). */
  busy() {
    // (A drawing never finished, e.g. a chart error, does not hold the others back for ever.)
    return this.drawing !== null && performance.now() - this.drawing < 30000;
  }

  loading(on) {
    if (!this.ensure()) return;
    if (on) this.chart.showLoading({ text: 'loading…', color: '#3584e4' });
    else this.chart.hideLoading();
  }

  /** Draws build() = {option, height?, empty?} now if on screen, else when it comes into view.
   *  `replace` drops the previous option (axis types changed), else the new one is merged.
   *  While it draws, busy() is true; onDrawn(ms) is called when it is all drawn. */
  update(build, { items, replace }) {
    if (!this.visible) {
      this.pending = { build, options: { items, replace: replace || this.pending?.options.replace } };
      return;
    }
    const started = performance.now();
    const { option, height, empty } = build();
    if (height && this.container.style.height !== `${height}px`) {
      this.container.style.height = `${height}px`;
      replace = true;
    }
    if (!this.ensure()) {
      this.container.textContent = 'The chart library is missing: run scripts/install-deps.sh, then rebuild.';
      return;
    }
    this.items = empty ? 0 : items;
    this.drawing = started;
    this.fit();
    this.chart.setOption(option, { notMerge: Boolean(replace), lazyUpdate: false });
    this.afterUpdate?.(this.chart);
    this.chart.hideLoading();
    // The first drawing is measured (the browser test reports it).
    if (!this.measured) performance.measure(`optimist-draw-${this.container.id}`, { start: started, end: performance.now() });
    this.measured = true;
  }
}
