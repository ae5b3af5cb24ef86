// pacing.js's RedrawPacer, with node's own test runner: node --test tests/dashboard/pacing.test.mjs
// (when the plots of a large study redraw, docs/dashboard.md "Live updates"), on a clock and
// timers run by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';

const { RedrawPacer } = await import('../../web/dashboard/js/pacing.js');

// A clock and timers run by hand: run(t) fires the timers due until t, in order.
function fakeTime() {
  const time = { now: 0, queue: [] };
  time.timers = { setTimeout: (fn, ms) => time.queue.push({ at: time.now + ms, fn }) };
  time.run = (until) => {
    for (let next; (next = time.queue.sort((a, b) => a.at - b.at)[0]) && next.at <= until;) {
      time.queue.shift();
      time.now = next.at;
      next.fn();
    }
    time.now = until;
  };
  return time;
}

test('redraws of a large study wait 4 times the last one\'s cost, counted until it was all drawn', async () => {
  const time = fakeTime();
  const draws = [];
  let busy = false;
  const pacer = new RedrawPacer({ draw: () => draws.push(time.now), busy: () => busy, size: () => 20000,
    clock: () => time.now, timers: time.timers });
  pacer.drew(0, 2000);  // a redraw all drawn in 2 s: the next one 8 s after its end
  pacer.schedule();
  time.run(9999);
  assert.deepEqual(draws, []);
  time.run(10000);
  assert.deepEqual(draws, [10000]);
  // The next redraw: its setOption returns after 0.2 s, its frames draw until 12 s.
  pacer.drew(10000, 10200);
  busy = true;
  time.run(10500);
  pacer.schedule();  // trials came meanwhile: due 2 s after 10.2 s as far as is known yet
  time.run(12000);
  busy = false;
  pacer.drew(10000, 12000);  // all drawn: it cost 2 s, the next waits until 20 s (came at 12.2 s)
  time.run(19999);
  assert.deepEqual(draws, [10000]);
  time.run(20000);
  assert.deepEqual(draws, [10000, 20000]);
  // Never over one still drawing; a small study redraws at once.
  pacer.drew(20000, 20100);
  busy = true;
  pacer.schedule();
  time.run(40000);
  assert.deepEqual(draws, [10000, 20000]);
  busy = false;
  pacer.drew(20000, 40000);  // 20 s to draw (a slow machine): 80 s until the next
  time.run(119999);
  assert.equal(draws.length, 2);
  time.run(120100);
  assert.deepEqual(draws, [10000, 20000, 120000]);
  const small = new RedrawPacer({ draw: () => draws.push(time.now), busy: () => false, size: () => 1999,
    clock: () => time.now, timers: time.timers });
  small.drew(120000, 121000);
  small.schedule();
  time.run(121000);
  assert.deepEqual(draws, [10000, 20000, 120000, 121000]);
});
