// TrialStore (web/dashboard/js/api.js) against a fake /api/trials, with node's own test runner:
// node --test tests/dashboard/trial_store.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';

// The server's paging (src/dashboard/study_source.cpp, add_to_page): the trials numbered in
// `include` (up to `after`), then those numbered after `after`, at most `limit` of these, `more`
// when some are left.
function fakeServer(trials, study = {}) {
  const requests = [];
  globalThis.fetch = async (url) => {
    const q = new URL(url, 'http://dashboard').searchParams;
    requests.push(Object.fromEntries(q));
    const after = q.has('after') ? Number(q.get('after')) : -1;
    const include = new Set(q.has('include') && q.has('after') ? q.get('include').split(',').map(Number) : []);
    const limit = Number(q.get('limit'));
    const later = trials.filter((t) => t.number > after);
    const page = trials.filter((t) => include.has(t.number) && t.number <= after).concat(later.slice(0, limit));
    const body = { study: { n_trials: trials.length, ...study }, server_time: 0, trials: page, more: later.length > limit };
    return { ok: true, status: 200, json: async () => body };
  };
  return requests;
}

const { TrialStore, PAGE } = await import('../../web/dashboard/js/api.js');

test('a running trial followed by more than a page of trials loads in a few requests', async () => {
  const n = 2 * PAGE + 100;
  const trials = Array.from({ length: n }, (_, k) => ({ number: k, state: k === 0 ? 'running' : 'complete' }));
  const requests = fakeServer(trials);
  const store = new TrialStore('s');
  await store.sync();
  assert.equal(store.trials.length, n);
  assert.equal(requests.length, 3);  // once: the same first page, for ever
  assert.equal(store.settled, null);  // trial 0 is still running
  // The next syncs ask for the trials after the last one held and for the running one by number:
  // one request, one trial in it (they asked after trial 0 and got every later trial again: stop
  // 67's probe measured 15 MB per poll behind one trial held open in a study of 20,000).
  for (let poll = 0; poll < 2; poll++) {
    const before = requests.length;
    assert.equal(await store.sync(), false);
    assert.equal(requests.length - before, 1);
    assert.deepEqual(requests.at(-1), { study: 's', limit: String(PAGE), after: String(n - 1), include: '0' });
  }
  // It finishes, and a new trial arrives: both in one request.
  trials[0] = { number: 0, state: 'complete' };
  trials.push({ number: n, state: 'running' });
  const before = requests.length;
  assert.equal(await store.sync(), true);
  assert.equal(requests.length - before, 1);
  assert.equal(store.settled, n - 1);
  assert.equal(store.trials.length, n + 1);
  trials[n] = { number: n, state: 'complete' };
  assert.equal(await store.sync(), true);
  assert.equal(store.settled, n);
  // Nothing new: one request after the last settled trial.
  await store.sync();
  assert.deepEqual(requests.at(-1), { study: 's', limit: String(PAGE), after: String(n) });
});

test('more open trials than can be named are asked for after the settled ones', async () => {
  const { MAX_INCLUDED } = await import('../../web/dashboard/js/api.js');
  const trials = Array.from({ length: MAX_INCLUDED + 10 }, (_, k) => ({ number: k, state: k === 0 ? 'complete' : 'waiting' }));
  const requests = fakeServer(trials);
  const store = new TrialStore('s');
  await store.sync();
  await store.sync();
  assert.deepEqual(requests.at(-1), { study: 's', limit: String(PAGE), after: '0' });
  trials.forEach((t, k) => { if (k > 5) t.state = 'complete'; });  // 5 left open: named again
  await store.sync();
  await store.sync();
  assert.deepEqual(requests.at(-1), { study: 's', limit: String(PAGE), after: String(MAX_INCLUDED + 9), include: '1,2,3,4,5' });
});

test('trials arriving between syncs are merged in number order', async () => {
  const trials = [{ number: 0, state: 'complete' }, { number: 1, state: 'waiting' }];
  fakeServer(trials);
  const store = new TrialStore('s');
  await store.sync();
  trials[1] = { number: 1, state: 'complete' };
  trials.push({ number: 2, state: 'running' });
  await store.sync();
  assert.deepEqual(store.trials.map((t) => [t.number, t.state]), [[0, 'complete'], [1, 'complete'], [2, 'running']]);
  assert.equal(store.settled, 1);
});

test('a trace replaced under the page (a new generation) drops the old trials', async () => {
  const trials = Array.from({ length: 40 }, (_, k) => ({ number: k + 1, state: 'complete', value: k }));
  const study = { generation: '1' };
  const requests = fakeServer(trials, study);
  const store = new TrialStore('s');
  await store.sync();
  assert.equal(store.trials.length, 40);
  // Replaced by a run of 10 trials: asking after trial 40 returns nothing of it.
  trials.splice(0, 40, ...Array.from({ length: 10 }, (_, k) => ({ number: k + 1, state: 'complete', value: 100 + k })));
  study.generation = '2';
  assert.equal(await store.sync(), true);
  assert.deepEqual(store.trials.map((t) => t.value), trials.map((t) => t.value));
  assert.equal(store.restarted, true);
  assert.equal(store.settled, 10);
  assert.equal(requests.at(-1).after, undefined);  // read again from the start
});

// The page's pure helpers (format.js, charts.js) run under node too; this file is the one ctest runs.
const { algorithmLabel, fmtDuration, fmtNumber } = await import('../../web/dashboard/js/format.js');
const { historyOption, sliceOption, timelineOption } = await import('../../web/dashboard/js/charts.js');

test('numbers and durations read right at every scale', () => {
  assert.equal(fmtNumber(1e-5), '1e-5');  // a log parameter's lower bound was "1.0000e-5"
  assert.equal(fmtNumber(2.63021e-4), '2.6302e-4');
  assert.equal(fmtNumber(123.456789), '123.457');
  assert.equal(fmtDuration(3.4e-6), '3 µs');  // a benchmark's evaluation was "0 ms"
  assert.equal(fmtDuration(0.2), '200 ms');
  assert.equal(fmtDuration(75), '1 min 15 s');
  assert.equal(fmtDuration(60), '1 min');  // a timeline tick read "1 min 0 s"
  assert.equal(fmtDuration(7200), '2 h');
});

test('a worker running several evaluations at once gets a lane per evaluation in flight', () => {
  // `optimist worker --jobs 2` (one worker name) and a worker of one job.
  const trials = [
    { number: 0, state: 'complete', worker: 'w', started_at: 0, completed_at: 2 },
    { number: 1, state: 'complete', worker: 'w', started_at: 0.1, completed_at: 1 },
    { number: 2, state: 'running', worker: 'w', started_at: 1.5 },
    { number: 3, state: 'complete', worker: 'v', started_at: 0, completed_at: 1 },
    { number: 4, state: 'complete', worker: 'v', started_at: 1, completed_at: 2 },
  ];
  const { option } = timelineOption(trials, 3);
  assert.deepEqual(option.yAxis.data, ['v', 'w · 1', 'w · 2']);
  const lanes = Object.fromEntries(option.series[0].data.map((bar) => [bar[4], bar[0]]));
  assert.deepEqual(lanes, { 0: 1, 1: 2, 2: 2, 3: 0, 4: 0 });  // 2 starts once 1 has ended
  assert.equal(option.xAxis.axisLabel.formatter(27000), '7 h 30 min');  // was 27000 (seconds)
});

test('auto names the algorithm it chose', () => {
  const trials = [{ number: 0, diagnostics: { auto_algorithm: 'gp-ei' } }, { number: 1 }];
  assert.equal(algorithmLabel('auto', trials), 'gp-ei (auto)');  // the card said "auto"
  assert.equal(algorithmLabel('auto', []), 'auto');
  assert.equal(algorithmLabel('turbo', trials), 'turbo');
});

test('a history without a complete trial says why it is empty', () => {
  const study = { direction: 'minimize', f_star: null };
  const failed = [{ number: 1, state: 'failed' }, { number: 2, state: 'failed' }];
  assert.match(historyOption(failed, study, { mode: 'value', log: false }).title.text, /no complete trial yet/);
  const ok = historyOption([{ number: 1, state: 'complete', value: 2 }], study, { mode: 'value', log: false });
  assert.equal(ok.title.show, false);
});

test('every choice of a categorical parameter is labelled, a long one shortened', () => {
  const space = { parameters: [{ name: 'act', type: 'categorical', choices: ['relu', 'tanh', 'x'.repeat(60)] }] };
  const { option } = sliceOption([{ number: 1, state: 'complete', value: 1, params: ['relu'] }],
    { direction: 'minimize', space }, { log: false });
  // ECharts' automatic interval showed "relu" alone.
  assert.equal(option.xAxis[0].axisLabel.interval, 0);
  assert.equal(option.xAxis[0].axisLabel.overflow, 'truncate');
  assert.ok(option.xAxis[0].nameTruncate.maxWidth > 0);  // a long name ran across the next plots
});
