// The trials table: sortable by any column, filtered (filter.js), paged so that 10,000 trials
// cost one page of rows in the document. Cells are text only.

import { activeTest, el, fmtAge, fmtDuration, fmtInteger, fmtNumber, fmtParam, fmtTime } from './format.js';
import { parseFilter } from './filter.js';

export class TrialsTable {
  constructor(root) {
    this.root = root;
    this.table = root.querySelector('table');
    this.info = root.querySelector('.table-info');
    this.pager = root.querySelector('.pager');
    this.brushNote = root.querySelector('.brush-note');
    this.sort = { key: 'number', descending: true };
    this.filterText = '';
    this.stateFilter = '';
    this.selection = null;  // the parallel coordinates' brush: {select(trials) -> {selected, lines}, what}
    this.page = 0;
    this.pageSize = 50;
    this.store = null;
    this.viewVersion = -1;
    this.view = [];
  }

  /** Sets the study: its parameter names decide the columns. */
  setStudy(study, store) {
    this.store = store;
    this.columns = columnsFor(study, () => store.now());
    this.page = 0;
    this.viewVersion = -1;
    this.renderHead();
  }

  setFilter(text) {
    this.filterText = text;
    this.page = 0;
    this.viewVersion = -1;
    this.render();
  }

  setStateFilter(state) {
    this.stateFilter = state;
    this.page = 0;
    this.viewVersion = -1;
    this.render();
  }

  /** Shows only the trials the parallel coordinates' brush selects (null: all); the state and
   *  text filters apply as well. */
  setSelection(selection) {
    this.selection = selection;
    this.page = 0;
    this.viewVersion = -1;
    this.render();
  }

  setPageSize(n) {
    this.pageSize = n;
    this.page = 0;
    this.render();
  }

  renderHead() {
    const row = el('tr');
    for (const c of this.columns) {
      // The label in a span that can be cut short: a 100-character parameter name pushed every
      // column after it off screen (th.title gives it whole).
      const th = el('th', null, c.numeric ? 'num' : '');
      th.append(el('span', c.label, 'label'));
      th.dataset.key = c.key;
      th.title = c.title || `sort by ${c.label}`;
      if (c.key === this.sort.key) {
        th.classList.add(this.sort.descending ? 'sorted-desc' : 'sorted-asc');
        th.setAttribute('aria-sort', this.sort.descending ? 'descending' : 'ascending');
      }
      th.tabIndex = 0;
      const sortBy = () => {
        this.sort = { key: c.key, descending: c.key === this.sort.key ? !this.sort.descending : false };
        this.viewVersion = -1;
        this.renderHead();
        this.render();
        // The header row was rebuilt: the keyboard stays on the header it sorted by.
        this.table.tHead.querySelector(`th[data-key="${CSS.escape(c.key)}"]`)?.focus({ preventScroll: true });
      };
      th.addEventListener('click', sortBy);
      // Enter or Space, as on a button (Space scrolled the page).
      th.addEventListener('keydown', (e) => {
        if (e.key !== 'Enter' && e.key !== ' ') return;
        e.preventDefault();
        sortBy();
      });
      row.append(th);
    }
    this.table.tHead.replaceChildren(row);
  }

  // The filtered, sorted trials; recomputed only when the trials or the settings changed.
  computeView() {
    if (this.viewVersion === this.store.version) return;
    this.viewVersion = this.store.version;
    let rows = this.store.trials;
    if (this.selection) {
      const { selected, lines } = this.selection.select(rows);
      rows = selected;
      this.selectionCount = [selected.length, lines];
    }
    if (this.stateFilter) rows = rows.filter((t) => t.state === this.stateFilter);
    if (this.filterText.trim()) {
      const keep = parseFilter(this.filterText, this.columns);
      rows = rows.filter(keep);
    }
    const column = this.columns.find((c) => c.key === this.sort.key) || this.columns[0];
    const sign = this.sort.descending ? -1 : 1;
    rows = rows.slice().sort((a, b) => {
      const x = column.value(a);
      const y = column.value(b);
      if (x === y) return a.number - b.number;
      if (x === null || x === undefined) return 1;  // absent values last in both orders
      if (y === null || y === undefined) return -1;
      return (x < y ? -1 : 1) * sign;
    });
    this.view = rows;
  }

  render() {
    if (!this.store) return;
    this.computeView();
    const pages = Math.max(1, Math.ceil(this.view.length / this.pageSize));
    this.page = Math.min(this.page, pages - 1);
    const first = this.page * this.pageSize;
    const shown = this.view.slice(first, first + this.pageSize);
    const body = document.createDocumentFragment();
    for (const t of shown) {
      const tr = el('tr', null, `state-${t.state}${t.number === this.store.summary?.best_number ? ' best' : ''}`);
      tr.dataset.number = t.number;
      for (const c of this.columns) {
        const text = c.text(t);
        tr.append(el('td', text, c.numeric ? 'num' : '', c.key === 'error' && text ? { title: text } : undefined));
      }
      body.append(tr);
    }
    this.table.tBodies[0].replaceChildren(body);
    const total = this.store.trials.length;
    const filtered = this.view.length !== total ? ` (filtered from ${fmtInteger(total)})` : '';
    this.info.textContent = this.view.length
      ? `${fmtInteger(first + 1)}–${fmtInteger(first + shown.length)} of ${fmtInteger(this.view.length)} trials${filtered}`
      : `no trials${filtered}`;
    this.info.dataset.count = this.view.length;
    this.renderPager(pages);
    this.renderSelection();
  }

  // "12 of 40 complete trials selected in the parallel coordinates: lr 0.001–0.01 [clear]"
  renderSelection() {
    const note = this.brushNote;
    if (note.hidden !== !this.selection) note.hidden = !this.selection;  // (rendered at every poll)
    if (!this.selection) return;
    const [n, lines] = this.selectionCount;
    note.dataset.selected = n;
    note.dataset.lines = lines;
    note.querySelector('.brush-text').textContent =
      `${fmtInteger(n)} of ${fmtInteger(lines)} complete trials selected in the parallel coordinates: ${this.selection.what}`;
  }

  renderPager(pages) {
    const go = (p) => () => { this.page = p; this.render(); };
    const button = (label, page, disabled) => {
      const b = el('button', label);
      b.disabled = disabled;
      b.addEventListener('click', go(page));
      return b;
    };
    this.pager.replaceChildren(
      button('«', 0, this.page === 0),
      button('‹', this.page - 1, this.page === 0),
      el('span', `page ${this.page + 1} / ${pages}`),
      button('›', this.page + 1, this.page >= pages - 1),
      button('»', pages - 1, this.page >= pages - 1));
  }

  /** Whether the shown page holds a running trial (its age changes every second). */
  showsRunning() {
    const first = this.page * this.pageSize;
    return this.view.slice(first, first + this.pageSize).some((t) => t.state === 'running');
  }
}

// Columns: number, state, value, regret (f* known), one per parameter, worker, duration,
// heartbeat (running trials; the lease end of one asked by hand), error. value(t) sorts and
// filters; text(t) is shown.
function columnsFor(study, now) {
  const parameters = study.space.parameters || [];
  const params = parameters.map((p, i) => {
    // A conditional parameter where it does not matter: '—', sorted with the absent values.
    const active = activeTest(parameters, i);
    const unused = (t) => active !== null && !active(t.params);
    return {
      key: p.name, label: p.name, numeric: p.type !== 'categorical',
      title: `${p.name} (${p.type}${p.log ? ', log scale' : ''}${p.condition ? `, only when ${p.condition.parent} is ${p.condition.values.join(' or ')}` : ''})`,
      value: (t) => (unused(t) ? null : t.params[i]), text: (t) => (unused(t) ? '—' : fmtParam(t.params[i])),
    };
  });
  const duration = (t) => {
    if (t.started_at === undefined) return null;
    const end = t.completed_at !== undefined ? t.completed_at : (t.state === 'running' ? now() : undefined);
    return end === undefined ? null : end - t.started_at;
  };
  const columns = [
    { key: 'number', label: '#', numeric: true, value: (t) => t.number, text: (t) => t.number },
    { key: 'state', label: 'state', value: (t) => t.state, text: (t) => (t.given_back ? 'given back' : t.stale ? 'failed (stale)' : t.state) },
    { key: 'value', label: 'value', numeric: true, value: (t) => t.value ?? null, text: (t) => fmtNumber(t.value) },
  ];
  if (study.f_star !== null) {
    columns.push({ key: 'regret', label: 'regret', numeric: true, title: 'regret of the noise-free value',
      value: (t) => regretOf(t, study), text: (t) => fmtNumber(regretOf(t, study)) });
  }
  columns.push(...params);
  // A trace is one worker whose trials are never seen running: no worker or heartbeat columns.
  const workers = study.kind !== 'trace';
  if (workers) columns.push({ key: 'worker', label: 'worker', value: (t) => t.worker ?? null, text: (t) => t.worker ?? '' });
  columns.push(
    { key: 'duration', label: 'duration', numeric: true, title: 'evaluation time; running trials: time so far',
      value: duration, text: (t) => fmtDuration(duration(t)) + (t.state === 'running' ? ' (running)' : '') });
  // A running trial silent for longer than the study's grace period is about to be failed as stale.
  const grace = study.extra?.settings?.grace_period_s;
  const silence = (t) => (t.state === 'running' && t.heartbeat_at !== undefined ? now() - t.heartbeat_at : null);
  // A trial asked by hand (`study ask --lease`) is held by its lease, not by heartbeats.
  const lease = (t) => {
    if (t.state !== 'running') return null;
    if (t.held_until_told) return 'held until told';
    if (t.lease_until === undefined) return null;
    return t.lease_until < now() ? `lease ended ${fmtTime(t.lease_until)} (stale at the next ask)`
      : `leased until ${fmtTime(t.lease_until)}`;
  };
  if (workers) columns.push(
    { key: 'heartbeat', label: 'heartbeat', numeric: true,
      title: `last sign of life of a running trial${grace ? `; after ${grace} s of silence it is failed as stale` : ''}`
        + '; a trial asked by hand: the end of its lease',
      value: silence,
      text: (t) => {
        const held = lease(t);
        if (held !== null) return held;
        const s = silence(t);
        return s === null ? '' : fmtAge(s) + (grace && s > grace ? ' (stale)' : '');
      } });
  columns.push({ key: 'error', label: 'error', value: (t) => t.error ?? null, text: (t) => t.error ?? '' });
  return columns;
}

/** Regret of a trial: the trace's (of the noise-free value) or |value - f*|. */
export function regretOf(t, study) {
  if (t.regret !== undefined) return t.regret;
  if (t.value === undefined || study.f_star === null) return null;
  return study.direction === 'minimize' ? t.value - study.f_star : study.f_star - t.value;
}
