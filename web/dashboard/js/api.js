// The server's JSON API (docs/dashboard.md) and the incremental copy of a study's trials.

export const PAGE = 5000;  // trials per request: a 10,000-trial study loads in two, with progress shown

export async function getJSON(path, params = {}) {
  const query = new URLSearchParams(params).toString();
  const response = await fetch(query ? `${path}?${query}` : path, { cache: 'no-store' });
  const body = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
  if (!response.ok) throw new Error(body.error || `HTTP ${response.status}`);
  return body;
}

const FINAL = new Set(['complete', 'failed']);

export const MAX_INCLUDED = 1000;  // open trials asked again by number (the server's kMaxIncluded)

/**
 * A study's trials kept in step with the server. Each sync asks for the trials numbered after the
 * last one held and, by number (`include`), for the running and waiting ones it holds, until they
 * finish: nothing else is resent, even while one trial stays open for days among thousands that
 * finish after it. With more open trials than MAX_INCLUDED it asks after `settled` (the last trial
 * of the longest prefix whose trials are all final) instead.
 */
export class TrialStore {
  constructor(studyId) {
    this.studyId = studyId;
    this.trials = [];          // sorted by number
    this.index = new Map();    // number -> position in trials
    this.settled = null;       // number of the last trial of the final prefix
    this.settledPos = 0;       // trials[0 .. settledPos) are final
    this.summary = null;
    this.serverTime = 0;       // server clock at the last answer, seconds since the epoch
    this.clientTime = 0;       // Date.now()/1000 when it arrived
    this.version = 0;          // bumped whenever the trials change
    this.generation = null;    // the server's generation of the trials held (summary.generation)
    this.restarted = false;    // set when the trials were dropped for a new generation; the page clears it
  }

  clear() {
    this.trials = [];
    this.index = new Map();
    this.settled = null;
    this.settledPos = 0;
  }

  /** The server's clock now, for ages of running trials. */
  now() {
    return this.serverTime + (Date.now() / 1000 - this.clientTime);
  }

  /** Fetches what changed; onProgress(loaded, total) after each page. Returns whether anything did. */
  async sync(onProgress) {
    let changed = false;
    // Pages follow the last trial received: `settled` stays put behind a running trial, and asking
    // after it again returned the same first page forever (5,000 trials after a running one).
    let after = this.settled;
    let include = [];
    const open = this.openNumbers();
    if (this.trials.length > 0 && open.length <= MAX_INCLUDED) {
      after = this.trials[this.trials.length - 1].number;
      include = open;
    }
    for (;;) {
      const params = { study: this.studyId, limit: PAGE };
      if (after !== null) params.after = after;
      if (include.length > 0) params.include = include.join(',');
      include = [];  // the next pages follow the last trial received
      const page = await getJSON('/api/trials', params);
      const generation = page.study.generation ?? null;
      if (generation !== this.generation) {
        // The trace was replaced or cut, or the study created again: the trials held are another
        // run's. Drop them and read from the start (merging would mix two runs).
        const held = this.generation !== null;
        this.generation = generation;
        if (held) {
          this.clear();
          this.restarted = true;
          changed = true;
          if (after !== null) {
            after = null;
            continue;
          }
        }
      }
      this.summary = page.study;
      this.serverTime = page.server_time;
      this.clientTime = Date.now() / 1000;
      if (this.merge(page.trials)) changed = true;
      if (onProgress) onProgress(this.trials.length, page.study.n_trials);
      if (!page.more || page.trials.length === 0) break;
      after = page.trials[page.trials.length - 1].number;
    }
    if (changed) this.version++;
    return changed;
  }

  /** Numbers of the held trials that are not final, in order. */
  openNumbers() {
    const open = [];
    for (let k = this.settledPos; k < this.trials.length; k++)
      if (!FINAL.has(this.trials[k].state)) open.push(this.trials[k].number);
    return open;
  }

  merge(incoming) {
    let changed = false;
    let unsorted = false;
    for (const t of incoming) {
      const at = this.index.get(t.number);
      if (at !== undefined) {
        if (JSON.stringify(this.trials[at]) !== JSON.stringify(t)) {
          this.trials[at] = t;
          changed = true;
        }
        continue;
      }
      const last = this.trials[this.trials.length - 1];
      if (last && last.number > t.number) unsorted = true;
      this.index.set(t.number, this.trials.length);
      this.trials.push(t);
      changed = true;
    }
    if (unsorted) {
      this.trials.sort((a, b) => a.number - b.number);
      this.index = new Map(this.trials.map((t, i) => [t.number, i]));
      this.settledPos = 0;
    }
    while (this.settledPos < this.trials.length && FINAL.has(this.trials[this.settledPos].state)) {
      this.settled = this.trials[this.settledPos].number;
      this.settledPos++;
    }
    return changed;
  }
}
