// TrialStore (web/dashboard/js/api.js) against a fake /api/trials, with node's own test runner:
// node --test tests/dashboard/trial_store.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';

// The server's paging (src/dashboard/storage_source.cpp, StorageSource::trials): trials numbered
// after `after`, at most `limit`, `more` when some are left.
function fakeServer(trials) {
  const requests = [];
  globalThis.fetch = async (url) => {
    const q = new URL(url, 'http://dashboard').searchParams;
    requests.push(Object.fromEntries(q));
    const after = q.has('after') ? Number(q.get('after')) : -1;
    const limit = Number(q.get('limit'));
    const later = trials.filter((t) => t.number > after);
    const page = later.slice(0, limit);
    const body = { study: { n_trials: trials.length }, server_time: 0, trials: page, more: later.length > limit };
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
  // The next sync asks again from the running trial, and sees it finish.
  trials[0] = { number: 0, state: 'complete' };
  const before = requests.length;
  assert.equal(await store.sync(), true);
  assert.equal(requests.length - before, 3);
  assert.equal(store.settled, n - 1);
  // Nothing new: one request after the last settled trial.
  await store.sync();
  assert.deepEqual(requests.at(-1), { study: 's', limit: String(PAGE), after: String(n - 1) });
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
