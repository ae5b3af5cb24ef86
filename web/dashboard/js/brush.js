// The parallel coordinates' brush as a filter of the trials table. ECharts keeps a brushed axis'
// intervals (data units: a categorical axis' choice index, the "— unused" place's value) on the
// axis' model; the page keeps a copy by axis and judges every trial by it, the plot's rule:
// a complete trial is selected when each brushed axis' value lies in one of its intervals. Judged
// from the intervals, not from a list of the plot's rows: trials that arrive later are judged
// alike, while the plot waits for its next redraw or is off screen.

import { parallelEncoders, UNUSED } from './charts.js';
import { fmtNumber } from './format.js';

// As ECharts' ParallelAxisModel.getActiveState: closed intervals, a value not on the axis (NaN) out.
function within(v, intervals) {
  if (v === null || v === undefined || Number.isNaN(v)) return false;
  for (const [lo, hi] of intervals) if (lo <= v && v <= hi) return true;
  return false;
}

const isLine = (t) => t.state === 'complete' && typeof t.value === 'number';  // the plot's lines

/** The trials the brush selects: `intervals` maps an axis' index (the value's is the number of
 *  parameters) to its [low, high] intervals. Returns {selected, lines}: the selected trials, in
 *  their order, and how many lines the plot has. */
export function selectTrials(trials, study, intervals) {
  const test = brushTest(study, intervals);
  const selected = [];
  let lines = 0;
  for (const t of trials) {
    if (!isLine(t)) continue;
    lines++;
    if (test(t)) selected.push(t);
  }
  return { selected, lines };
}

/** A predicate over trials: whether the brush selects it (the plot's lines only). */
export function brushTest(study, intervals) {
  const encode = parallelEncoders(study);
  const checks = [...intervals].filter(([dim]) => encode[dim]).map(([dim, list]) => [encode[dim], list]);
  return (t) => isLine(t) && checks.every(([code, list]) => within(code(t), list));
}

/** What the brush selects, in words: "lr 0.001–0.01, model tree or — unused, value 0–0.3". */
export function describeBrush(study, intervals) {
  const params = study.space.parameters || [];
  return [...intervals].sort(([a], [b]) => a - b).map(([dim, list]) => {
    const p = params[dim];
    const conditional = p?.condition !== undefined;
    const parts = list.map(([lo, hi]) => {
      if (p?.type === 'categorical') {
        const names = conditional ? [UNUSED, ...p.choices] : p.choices;
        return names.filter((_, j) => lo <= j && j <= hi).join(' or ') || 'nothing';
      }
      // A conditional numeric axis' place under its range: "— unused".
      if (conditional && hi < p.lower) return UNUSED;
      const from = conditional ? Math.max(lo, p.lower) : lo;
      const range = `${short(from)}${from < 0 || hi < 0 ? ' to ' : '–'}${short(hi)}`;
      return conditional && lo < p.lower ? `${UNUSED} or ${range}` : range;
    });
    return `${p ? p.name : 'value'} ${parts.join(' or ')}`;
  }).join(', ');
}

// A drag's ends are any numbers: 4 significant digits say where it is.
const short = (v) => fmtNumber(Number(v.toPrecision(4)));

const sameIntervals = (a, b) => a.length === b.length && a.every((x, i) => x[0] === b[i][0] && x[1] === b[i][1]);

/** The brush of one parallel-coordinates chart. onChange() is called when its intervals change:
 *  by a drag in the plot (or a click on an axis, which clears it), clear(), or a study change. */
export class ParallelBrush {
  constructor(onChange) {
    this.onChange = onChange;
    this.intervals = new Map();  // axis index -> [[low, high], ...]
    this.chart = null;
    this.restoring = false;
  }

  active() {
    return this.intervals.size > 0;
  }

  /** Called after each setOption of the chart. A merged option keeps the axes' models and their
   *  intervals; a replacing one (the log scale toggled) makes new ones without them: put back. */
  updated(chart) {
    if (this.chart !== chart) {
      this.chart = chart;
      chart.on('axisareaselected', () => { if (!this.restoring) this.read(); });
    }
    const model = chart.getModel();
    const lost = [...this.intervals].filter(([dim, list]) => {
      const axis = model.getComponent('parallelAxis', dim);
      return axis && !sameIntervals(axis.activeIntervals, list);
    });
    if (lost.length) this.apply(lost);
    // An axis no longer there (fewer parameters) selects nothing any more.
    if ([...this.intervals.keys()].some((dim) => !model.getComponent('parallelAxis', dim))) this.read();
  }

  // Sets intervals on the chart's axes through ECharts' own action. The axis an action names is
  // not drawn again (ECharts assumes its brush drew the cover): a last action naming no axis
  // draws every axis' cover from its model.
  apply(entries) {
    this.restoring = true;
    try {
      for (const [dim, intervals] of entries) this.chart.dispatchAction({ type: 'axisAreaSelect', parallelAxisIndex: dim, intervals });
      this.chart.dispatchAction({ type: 'axisAreaSelect', parallelAxisIndex: [], intervals: [] });
    } finally {
      this.restoring = false;
    }
  }

  // The chart's axes' intervals, copied (ECharts may change its own).
  read() {
    const next = new Map();
    this.chart.getModel().eachComponent('parallelAxis', (axis, index) => {
      if (axis.activeIntervals.length) next.set(index, axis.activeIntervals.map(([lo, hi]) => [lo, hi]));
    });
    const same = next.size === this.intervals.size
      && [...next].every(([dim, list]) => this.intervals.has(dim) && sameIntervals(this.intervals.get(dim), list));
    if (same) return;
    this.intervals = next;
    this.onChange();
  }

  /** Clears the brush, in the chart too. */
  clear() {
    if (!this.active()) return;
    if (this.chart && !this.chart.isDisposed()) this.apply([...this.intervals.keys()].map((dim) => [dim, []]));
    this.reset();
  }

  /** Forgets the brush (another study: its chart is drawn anew, without it). */
  reset() {
    if (!this.active()) return;
    this.intervals = new Map();
    this.onChange();
  }
}
