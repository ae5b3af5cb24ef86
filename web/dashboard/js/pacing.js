// When the plots redraw after trials changed (docs/dashboard.md, "Live updates"): with BIG trials
// or more, at most every 2 s and so that drawing takes at most a fifth of the time: the next
// redraw waits 4 times the last one's cost after its end, the cost counted until its plots are all
// drawn (ECharts draws large plots over many frames, then the canvas paints them); never over one
// still being drawn.

export const BIG = 2000;

export class RedrawPacer {
  /** draw(): redraws; busy(): a redraw is still being drawn; size(): the trials held. */
  constructor({ draw, busy, size, clock = () => performance.now(), timers = globalThis }) {
    Object.assign(this, { draw, busy, size, clock, timers });
    this.started = 0;   // when the last redraw started
    this.ended = 0;     // when it was all drawn (so far: when its setOption calls returned)
    this.timer = null;
  }

  /** The last redraw's cost so far (ms). */
  get cost() {
    return this.ended - this.started;
  }

  /** ms until the next redraw may start. */
  wait() {
    const spacing = this.size() >= BIG ? Math.max(2000, 4 * this.cost) : 0;
    return Math.max(0, this.ended + spacing - this.clock());
  }

  /** A redraw started at `started` has drawn until `ended` (all, or what setOption drew at once). */
  drew(started, ended) {
    this.started = started;
    this.ended = ended;
  }

  /** Trials changed: redraw when due. The wait is checked again when it ends: a redraw still being
   *  drawn when it was set has ended since and its cost grew (before, the next redraw followed
   *  such one at once, and half the redraws came back to back). */
  schedule(delay = this.wait()) {
    if (this.timer !== null) return;
    this.timer = this.timers.setTimeout(() => {
      this.timer = null;
      if (this.busy()) this.schedule(100);
      else if (this.wait() > 0) this.schedule();
      else this.draw();
    }, delay);
  }
}
