// charts.js's option builders, with node's own test runner: node --test tests/dashboard/charts.test.mjs
// (they are pure functions of the trials; drawing them is the browser test's part), ChartPanel's
// resizing with a stand-in chart (the redraws' pacing: pacing.test.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';

const { historyOption, parallelOption, sliceOption, UNUSED } = await import('../../web/dashboard/js/charts.js');

// A series' data is one Float64Array (ECharts takes it without copying it): its rows, with a
// categorical axis' index read back as the choice it names, as ECharts draws it.
function rowsOf(data, axes) {
  assert.ok(data instanceof Float64Array, 'flat data');
  const width = axes.length;
  assert.equal(data.length % width, 0);
  return Array.from({ length: data.length / width }, (_, r) => axes.map((a, i) => {
    const v = data[r * width + i];
    return a.type === 'category' ? a.data[v] : v;
  }));
}
const parallelRows = (option) => rowsOf(option.series[0].data, option.parallelAxis);

const { parameters, study, trials } = await import('./conditional_study.mjs');

test('parallel coordinates put unused conditional parameters on a place of their own', () => {
  const option = parallelOption(trials, study, { log: false });
  const axes = option.parallelAxis;
  const rows = parallelRows(option);
  assert.equal(rows.length, 3);  // complete trials only, worst first
  assert.deepEqual(rows.map((r) => r[6]), [0.9, 0.5, 0.1]);
  const [tree, shallow, deep] = rows;

  // Unconditional axes as before: their range, their choices, their values.
  assert.deepEqual(axes[0].data, ['tree', 'net']);
  assert.equal(axes[5].min, 0);
  assert.equal(axes[5].axisLabel, undefined);
  assert.deepEqual(rows.map((r) => r[5]), [0.2, 0.4, 0.6]);

  // A numeric axis: a slot under its range, where the unused trials go.
  const layers = axes[1];
  assert.ok(layers.min < 1 && layers.max === 3, `layers' axis from ${layers.min} to ${layers.max}`);
  assert.equal(tree[1], layers.min);
  assert.deepEqual([shallow[1], deep[1]], [1, 3]);  // the lower bound, used, stays at the lower bound
  assert.equal(layers.axisLabel.formatter(String(layers.min)), UNUSED);
  assert.equal(layers.axisLabel.formatter('1'), '1');
  assert.equal(layers.axisLabel.formatter(2), '2');
  assert.notEqual(layers.axisLabel.color(String(layers.min)), layers.axisLabel.color('2'));
  // dropout: unused where its parent is unused, or used with another value (layers 1).
  const dropout = axes[2];
  assert.ok(dropout.min < 0);
  assert.deepEqual(rows.map((r) => r[2]), [dropout.min, dropout.min, 0.25]);
  assert.equal(dropout.axisLabel.formatter(String(dropout.min)), UNUSED);
  assert.equal(dropout.axisLabel.formatter('0'), '0');
  assert.equal(dropout.axisLabel.formatter(0.30000000000000004), '0.3');
  // A round tick between the slot and the lower bound, which no trial can hold, is not labelled.
  const shifted = parallelOption(trials, { ...study, space: { parameters: parameters.map((p) =>
    (p.name === 'dropout' ? { ...p, lower: 0.02 } : p)) } }, { log: false }).parallelAxis[2];
  assert.ok(shifted.min < 0, `slot ${shifted.min}`);
  assert.equal(shifted.axisLabel.formatter('0'), '');
  assert.equal(shifted.axisLabel.formatter(String(shifted.min)), UNUSED);

  // A log axis: the slot is a tenth of its decades under the lower bound, still positive.
  const lr = axes[3];
  assert.equal(lr.type, 'log');
  assert.ok(lr.min > 0 && lr.min < 1e-4, `lr's slot ${lr.min}`);
  assert.ok(Math.abs(Math.log10(1e-4 / lr.min) - 0.3) < 1e-9);
  assert.deepEqual(rows.map((r) => r[3]), [lr.min, 3e-3, 1e-2]);
  assert.equal(lr.axisLabel.formatter(lr.min * (1 + 1e-12)), UNUSED);  // as ECharts gives it back
  assert.equal(lr.axisLabel.formatter(1e-3), '0.001');

  // A categorical axis: a first category, under the choices.
  const split = axes[4];
  assert.deepEqual(split.data, [UNUSED, 'gini', 'entropy']);
  assert.deepEqual(rows.map((r) => r[4]), ['entropy', UNUSED, UNUSED]);
  assert.notEqual(split.axisLabel.color(UNUSED), split.axisLabel.color('gini'));

  // No unused trial anywhere in a conditional parameter's range or choices.
  for (const i of [1, 2, 3, 4]) {
    const axis = axes[i];
    for (const r of rows) {
      const unused = axis.type === 'category' ? r[i] === UNUSED : r[i] === axis.min;
      if (!unused) continue;
      assert.ok(axis.type === 'category' ? !parameters[i].choices.includes(r[i]) : r[i] < parameters[i].lower);
    }
  }
});

test('a space without conditions draws as before; 20,000 trials, half of them without a parameter', () => {
  const plain = { direction: 'maximize', space: { parameters: [parameters[0], parameters[5]] } };
  const option = parallelOption(trials.map((t) => ({ ...t, params: [t.params[0], t.params[5]] })), plain, { log: false });
  assert.deepEqual(option.parallelAxis.map((a) => a.min), [undefined, 0, undefined]);
  assert.deepEqual(parallelRows(option), [['net', 0.6, 0.1], ['net', 0.4, 0.5], ['tree', 0.2, 0.9]]);  // worst first
  const many = Array.from({ length: 20000 }, (_, n) => ({ number: n, state: 'complete', value: n % 97,
    params: [n % 2 ? 'net' : 'tree', 1 + (n % 3), 0.1, 1e-3, 'gini', 0.5] }));
  const rows = parallelRows(parallelOption(many, study, { log: true }));
  assert.equal(rows.length, 20000);
  assert.equal(rows.filter((r) => r[4] === UNUSED).length, 10000);
});

test('history and slice plots: flat data, categorical choices by their place, tooltips by name', () => {
  const history = historyOption(trials, study, { mode: 'value', log: false }).series;
  assert.deepEqual(rowsOf(history[0].data, [{}, {}]), [[0, 0.9], [1, 0.5], [2, 0.1]]);
  assert.deepEqual(history[1].data, [[0, 0.9], [1, 0.5], [2, 0.1], [2, 0.1]]);  // the best so far
  // Choices that are numbers are found by value (as a number, ECharts would read an index).
  const numeric = { direction: 'minimize', space: { parameters: [{ name: 'batch', type: 'categorical', choices: [64, 16, 32] }] } };
  const option = sliceOption([
    { number: 4, state: 'complete', value: 2, params: [32] },
    { number: 5, state: 'complete', value: 1, params: [64] },
  ], numeric, { log: false }).option;
  const [series] = option.series;
  assert.deepEqual(series.dimensions, ['param', 'value', 'trial']);  // the trial number: the colour's dimension
  assert.equal(option.visualMap.dimension, 2);
  const rows = rowsOf(series.data, [option.xAxis[0], {}, {}]);
  assert.deepEqual(rows, [[32, 2, 4], [64, 1, 5]]);
  assert.equal(series.tooltip.formatter({ value: [2, 2, 4] }), 'trial 4\nbatch 32\nvalue 2');
  // A conditional parameter's slice leaves its unused trials out.
  const slices = sliceOption(trials, study, { log: false }).option;
  assert.deepEqual(rowsOf(slices.series[1].data, [slices.xAxis[1], {}, {}]), [[1, 0.5, 1], [3, 0.1, 2]]);
  assert.deepEqual(rowsOf(slices.series[4].data, [slices.xAxis[4], {}, {}]), [['entropy', 0.9, 0]]);
});

test('a chart is resized only when its size changed (a resize draws it all again)', async () => {
  const { ChartPanel } = await import('../../web/dashboard/js/charts.js');
  const calls = [];
  globalThis.IntersectionObserver = class { observe() {} };
  let resized = null;
  globalThis.ResizeObserver = class { constructor(f) { resized = f; } observe() {} };
  globalThis.window = { echarts: { init: () => ({ on() {}, hideLoading() {}, resize: () => calls.push('resize'),
    setOption: (o) => calls.push(o.series[0].data.length) }) } };
  globalThis.performance.measure = () => {};
  const container = { id: 'chart-history', clientWidth: 800, clientHeight: 300, style: {}, dataset: {} };
  const panel = new ChartPanel(container);
  panel.visible = true;
  const draw = () => panel.update(() => ({ option: historyOption(trials, study, { mode: 'value', log: false }) }), { items: 3 });
  draw();
  draw();
  resized();  // the observer's first call, at the size the chart was made at
  assert.deepEqual(calls, [6, 6]);
  container.clientWidth = 600;  // the window narrowed: the observer resizes at once, an update does not again
  resized();
  draw();
  assert.deepEqual(calls, [6, 6, 'resize', 6]);
  container.clientHeight = 500;  // changed before an update (its height set): resized before drawing
  draw();
  resized();
  assert.deepEqual(calls, [6, 6, 'resize', 6, 'resize', 6]);
});
