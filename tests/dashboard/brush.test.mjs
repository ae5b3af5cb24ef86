// The parallel coordinates' brush as the trials table's filter (web/dashboard/js/brush.js), with
// node's own test runner: node --test tests/dashboard/brush.test.mjs. The browser test brushes a
// real chart (LiveTrace.test_brush_filters_the_table).
import { test } from 'node:test';
import assert from 'node:assert/strict';

const { parallelOption, UNUSED } = await import('../../web/dashboard/js/charts.js');
const { brushTest, describeBrush, ParallelBrush, selectTrials } = await import('../../web/dashboard/js/brush.js');

// conditional_study.mjs's space and trials (axes 0-5, the value's 6), with more of them.
const shared = await import('./conditional_study.mjs');
const { study } = shared;
const trials = [
  ...shared.trials,
  { number: 4, state: 'running', params: ['net', 2, 0.1, 5e-3, 'gini', 0.3] },
  { number: 5, state: 'complete', value: 0.25, params: ['net', 2, 0.4, 2e-2, 'gini', 0.7] },
  { number: 6, state: 'complete', value: 0.3, params: ['tree', 1, 0, 1e-4, 'gini', 0.1] },
];
const axes = parallelOption(trials, study, { log: false }).parallelAxis;
const selected = (intervals, from = trials) =>
  selectTrials(from, study, new Map(Object.entries(intervals).map(([k, v]) => [Number(k), v]))).selected.map((t) => t.number);

test('"lr between 1e-3 and 1e-2 and value < 0.3": the complete trials inside every brushed axis', () => {
  assert.deepEqual(selected({ 3: [[1e-3, 1e-2]], 6: [[0, 0.3]] }), [2]);
  assert.deepEqual(selected({ 3: [[1e-3, 1e-2]] }), [1, 2]);  // closed intervals; running 4 and failed 3 are no lines
  assert.deepEqual(selected({ 3: [[1e-3, 1e-2], [1.5e-2, 0.1]] }), [1, 2, 5]);  // several intervals on an axis: any
  assert.deepEqual(selected({ 5: [[0.35, 1]], 6: [[0, 0.6]] }), [1, 2, 5]);
  assert.deepEqual(selected({}), [0, 1, 2, 5, 6]);  // no brush: every line
  assert.equal(selectTrials(trials, study, new Map([[6, [[0, 0.2]]]])).lines, 5);
  // (The trials' order is kept: the table sorts them as it is told.)
  assert.deepEqual(selected({ 6: [[0, 1]] }, [...trials].reverse()), [6, 5, 2, 1, 0]);
});

test('categorical axes hold the choice index; "— unused" is a place of its own', () => {
  assert.deepEqual(axes[4].data, [UNUSED, 'gini', 'entropy']);
  assert.deepEqual(selected({ 0: [[1, 1]] }), [1, 2, 5]);  // net
  assert.deepEqual(selected({ 4: [[0, 0]] }), [1, 2, 5]);  // split unused: the net trials
  assert.deepEqual(selected({ 4: [[2, 2]] }), [0]);  // entropy
  assert.deepEqual(selected({ 4: [[1, 2]] }), [0, 6]);
  // A numeric axis' slot under its range: layers' and lr's (log) unused trials, not those at the lower bound.
  const slot = axes[1].min;
  assert.ok(slot < 1);
  assert.deepEqual(selected({ 1: [[slot, slot]] }), [0, 6]);
  assert.deepEqual(selected({ 1: [[slot, 1]] }), [0, 1, 6]);
  assert.deepEqual(selected({ 1: [[1, 3]] }), [1, 2, 5]);
  assert.deepEqual(selected({ 3: [[axes[3].min, axes[3].min]] }), [0, 6]);
  assert.deepEqual(selected({ 3: [[1e-4, 1e-1]] }), [1, 2, 5]);  // trial 0 holds 1e-4 unused: not in the range
  // dropout: unused where layers is (tree) or is 1.
  assert.deepEqual(selected({ 2: [[axes[2].min, axes[2].min]] }), [0, 1, 6]);
  // A value that is no choice (NaN on the axis) is out once its axis is brushed, as in ECharts.
  const odd = [{ number: 9, state: 'complete', value: 1, params: ['forest', 1, 0, 1e-4, 'gini', 0.5] }];
  assert.deepEqual(selected({ 0: [[0, 1]] }, odd), []);
  assert.deepEqual(selected({ 5: [[0, 1]] }, odd), [9]);
});

// ECharts' rule on the plot's own rows (ParallelAxisModel.getActiveState): the trials selected
// are exactly the lines it shows as active.
test('the selection is the plot\'s active lines, on 2,000 random trials', () => {
  let seed = 7;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const many = Array.from({ length: 2000 }, (_, n) => {
    const net = random() < 0.5;
    const layers = 1 + Math.floor(3 * random());
    return { number: n, state: random() < 0.9 ? 'complete' : 'failed', value: random(),
      params: [net ? 'net' : 'tree', layers, random() / 2, 1e-4 * 1000 ** random(), random() < 0.5 ? 'gini' : 'entropy', random()] };
  });
  const option = parallelOption(many, study, { log: false });
  const data = option.series[0].data;
  const width = option.parallelAxis.length;
  for (const brushed of [{ 3: [[1e-3, 1e-2]], 6: [[0, 0.3]] }, { 1: [[axes[1].min, 2]], 4: [[0, 1]] },
    { 2: [[axes[2].min, axes[2].min], [0.1, 0.2]], 0: [[0, 0]] }, { 4: [[2, 2]], 5: [[0.2, 0.6]] }]) {
    const intervals = Object.entries(brushed).map(([k, v]) => [Number(k), v]);
    const active = [];
    for (let r = 0; r < data.length / width; r++) {
      if (intervals.every(([i, list]) => list.some(([lo, hi]) => lo <= data[r * width + i] && data[r * width + i] <= hi)))
        active.push(data[r * width + width - 1]);
    }
    const chosen = selectTrials(many, study, new Map(intervals)).selected.map((t) => t.value);
    assert.ok(active.length > 10, `${active.length} lines selected`);
    assert.deepEqual(chosen.sort(), active.sort());
  }
  // The predicate the table filters by is the same.
  const test = brushTest(study, new Map([[6, [[0, 0.5]]]]));
  assert.equal(many.filter(test).length, many.filter((t) => t.state === 'complete' && t.value <= 0.5).length);
});

test('the note says what is selected', () => {
  const say = (intervals) => describeBrush(study, new Map(Object.entries(intervals).map(([k, v]) => [Number(k), v])));
  assert.equal(say({ 6: [[0, 0.3]], 3: [[1e-3, 1e-2]] }), 'lr 0.001–0.01, value 0–0.3');
  assert.equal(say({ 0: [[1, 1]], 4: [[0, 1]] }), 'model net, split — unused or gini');
  assert.equal(say({ 1: [[axes[1].min, axes[1].min]] }), 'layers — unused');
  assert.equal(say({ 1: [[axes[1].min, 2]] }), 'layers — unused or 1–2');
  assert.equal(say({ 5: [[0.1, 0.2], [0.5, 0.6]] }), 'x 0.1–0.2 or 0.5–0.6');
  assert.equal(say({ 5: [[0.2134523, 0.58721]], 6: [[-3.14159, -1]] }), 'x 0.2135–0.5872, value -3.142 to -1');
});

// A stand-in for an ECharts chart: its parallel axes' models and the axisAreaSelect action.
function fakeChart(count) {
  const handlers = [];
  const chart = {
    axes: Array.from({ length: count }, () => ({ activeIntervals: [] })),
    actions: [],
    on: (name, f) => handlers.push([name, f]),
    isDisposed: () => false,
    getModel: () => ({
      getComponent: (type, i) => (type === 'parallelAxis' ? chart.axes[i] : undefined),
      eachComponent: (type, f) => chart.axes.forEach(f),
    }),
    dispatchAction: (payload) => {
      chart.actions.push(payload.parallelAxisIndex);
      for (const i of [payload.parallelAxisIndex].flat()) chart.axes[i].activeIntervals = payload.intervals.map((x) => [...x]);
      for (const [name, f] of handlers) if (name === 'axisareaselected') f(payload);
    },
  };
  return chart;
}

test('the brush follows the chart, survives a redraw that drops it, and clears', () => {
  let changes = 0;
  const brush = new ParallelBrush(() => changes++);
  const chart = fakeChart(7);
  brush.updated(chart);
  assert.equal(brush.active(), false);
  chart.dispatchAction({ type: 'axisAreaSelect', parallelAxisIndex: 3, intervals: [[1e-2, 1e-3]] });  // a drag
  assert.equal(changes, 1);
  assert.deepEqual([...brush.intervals], [[3, [[1e-2, 1e-3]]]]);
  chart.axes[3].activeIntervals[0][0] = 5;  // a copy: ECharts' own arrays may change
  chart.axes[3].activeIntervals = [[1e-3, 1e-2]];
  chart.dispatchAction({ type: 'axisAreaSelect', parallelAxisIndex: 6, intervals: [[0, 0.3]] });
  assert.equal(changes, 2);
  assert.deepEqual([...brush.intervals], [[3, [[1e-3, 1e-2]]], [6, [[0, 0.3]]]]);

  // A merged redraw keeps the axes' models: nothing to do.
  chart.actions.length = 0;
  brush.updated(chart);
  assert.deepEqual(chart.actions, []);
  // A replacing one (the log scale toggled) makes new models: the brush is put back, then every
  // axis drawn again (an action naming none), with no change reported.
  chart.axes = chart.axes.map(() => ({ activeIntervals: [] }));
  brush.updated(chart);
  assert.deepEqual(chart.actions, [3, 6, []]);
  assert.deepEqual(chart.axes.map((a) => a.activeIntervals), [[], [], [], [[1e-3, 1e-2]], [], [], [[0, 0.3]]]);
  assert.equal(changes, 2);
  // A click on an axis clears its brush.
  chart.dispatchAction({ type: 'axisAreaSelect', parallelAxisIndex: 3, intervals: [] });
  assert.deepEqual([...brush.intervals], [[6, [[0, 0.3]]]]);
  assert.equal(changes, 3);
  // clear(): in the chart too.
  chart.actions.length = 0;
  brush.clear();
  assert.equal(brush.active(), false);
  assert.equal(changes, 4);
  assert.deepEqual(chart.actions, [6, []]);
  assert.ok(chart.axes.every((a) => a.activeIntervals.length === 0));
  brush.clear();
  assert.equal(changes, 4);
  // Another run with fewer axes: a brush on an axis gone selects nothing any more.
  chart.dispatchAction({ type: 'axisAreaSelect', parallelAxisIndex: 5, intervals: [[0, 1]] });
  chart.axes = chart.axes.slice(0, 3);
  brush.updated(chart);
  assert.equal(brush.active(), false);
  assert.equal(changes, 6);
});
