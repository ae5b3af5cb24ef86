// The dashboard page: the study list, one study's views, and live updates by polling the API.

import { getJSON, TrialStore } from './api.js';
import { describeBrush, ParallelBrush, selectTrials } from './brush.js';
import { ChartPanel, diagnosticsOption, historyOption, parallelOption, sliceOption, timelineOption } from './charts.js';
import { activeTest, algorithmLabel, el, fmtAge, fmtDuration, fmtInteger, fmtNumber, fmtParam, fmtSince } from './format.js';
import { RedrawPacer } from './pacing.js';
import { TrialsTable } from './table.js';

const $ = (selector) => document.querySelector(selector);
const LIVE_S = 30;  // a study changed in the last 30 s is live, else idle

const app = {
  info: { poll_ms: 1000 },
  studies: [],
  studiesKey: '',
  serverNow: () => Date.now() / 1000,
  id: null,
  study: null,
  store: null,
  table: new TrialsTable($('#trials')),
  charts: {},
  pacer: null,
  drawOpen: false,  // a redraw whose plots are still being drawn
  drawHidden: false,
  readyMarked: false,
  stateCells: [],  // [summary, its state's element in the list]
  loadFailed: false,  // the study's first load failed: the next poll tries again
  loading: false,
};
for (const name of ['history', 'parallel', 'slice', 'timeline', 'diagnostics'])
  app.charts[name] = new ChartPanel($(`#chart-${name}`));

// The parallel coordinates' brush filters the trials table, with its text and state filters. A
// drag reports its intervals at every move: the table follows once a frame.
let brushFrame = 0;
const brush = new ParallelBrush(() => {
  brushFrame ||= requestAnimationFrame(() => {
    brushFrame = 0;
    const intervals = brush.intervals;
    app.table.setSelection(brush.active() && app.study ? { what: describeBrush(app.study, intervals),
      select: (trials) => selectTrials(trials, app.study, intervals) } : null);
  });
});
app.charts.parallel.afterUpdate = (chart) => brush.updated(chart);

// ---------------------------------------------------------------- study list

/** What a study is doing, as the list and the progress card both say it: error, finished, stopped
 *  (a trace nobody writes), live (changed in the last 30 s) or idle for how long. */
function runState(s, now) {
  if (s.error) return 'error';
  if (s.finished) return 'finished';
  if (s.stopped) return 'stopped';
  const idle = now - s.updated_at;
  return idle < LIVE_S ? 'live' : `idle ${fmtSince(idle)}`;
}

function renderStudies() {
  const needle = $('#study-filter').value.trim().toLowerCase();
  const now = app.serverNow();
  // The list is rebuilt: keep the keyboard's place in it (the focused row, the row that is the tab stop).
  const focused = document.activeElement?.closest?.('#studies tbody tr')?.dataset.id;
  const rows = document.createDocumentFragment();
  app.stateCells = [];
  for (const s of app.studies) {
    if (needle && !`${s.name} ${s.algorithm} ${s.problem}`.toLowerCase().includes(needle)) continue;
    const selected = s.id === app.id;
    const tr = el('tr', null, selected ? 'selected' : '', { tabindex: '-1' });
    if (selected) tr.setAttribute('aria-current', 'true');
    tr.dataset.id = s.id;
    // Two lines per study: name, then algorithm, trials and the running and failed ones.
    const meta = el('div', `${s.algorithm || '?'} · ${fmtInteger(s.n_trials)} trials`, 'muted meta');
    for (const state of ['running', 'failed'])
      if (s.counts[state]) meta.append(' ', el('span', `${s.counts[state]} ${state}`, `pill ${state}`));
    const study = el('td');
    study.append(el('div', s.name, 'name', { title: s.name }), meta);
    const best = el('td', null, 'num');
    const value = fmtNumber(s.best_value);
    const state = el('div', runState(s, now), s.error ? 'error state' : 'muted state', s.stopped ? { title: stoppedText(s) } : null);
    best.append(el('div', value, 'best', { title: s.best_value === null ? '' : String(s.best_value) }), state);
    app.stateCells.push([s, state]);
    tr.append(study, best);
    rows.append(tr);
  }
  const body = $('#studies tbody');
  body.replaceChildren(rows);
  // One tab stop for the whole list (the selected study's row, else the first); arrows move in it.
  const stop = body.querySelector(`tr[data-id="${CSS.escape(focused ?? app.id ?? '')}"]`) || body.querySelector('tr.selected')
    || body.querySelector('tr');
  if (stop) stop.tabIndex = 0;
  if (focused !== undefined && stop?.dataset.id === focused) stop.focus({ preventScroll: true });
  $('#studies-empty').hidden = app.studies.length > 0;
  // One run needs no list: its views get the whole width.
  document.body.classList.toggle('single', app.studies.length === 1 && app.id === app.studies[0].id);
}

// The list's live / idle texts follow the clock, not only the server's answers: a study stops
// being live 30 s after its last change even when nothing else changes.
function refreshStudyStates() {
  const now = app.serverNow();
  for (const [s, cell] of app.stateCells) {
    const text = runState(s, now);
    if (cell.textContent !== text) cell.textContent = text;
  }
}

function studyRowKey(e) {
  const tr = e.target.closest('tr[data-id]');
  if (!tr) return;
  const rows = [...tr.parentElement.children];
  const at = rows.indexOf(tr);
  const to = { ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: rows.length - 1, PageDown: at + 10, PageUp: at - 10 }[e.key];
  if (to !== undefined) {
    e.preventDefault();
    const next = rows[Math.max(0, Math.min(rows.length - 1, to))];
    for (const r of rows) r.tabIndex = r === next ? 0 : -1;
    next.focus();
  } else if (e.key === 'Enter' || e.key === ' ') {
    e.preventDefault();
    select(tr.dataset.id);
  }
}

// A trace without its end line whose writer is gone (the server tests the trace's lock).
const STOPPED = ['Stopped: no process writes this run any more (it was killed, crashed, or its machine restarted) '
  + 'and its trace has no end line. Continue it with ', '; it shows as live again while it is resumed.'];
const stoppedText = (s) => STOPPED.join(s.resume);

// Rewritten only when it changes: the command in it stays selectable for copying.
function showStopped(s) {
  const note = $('#run-stopped');
  note.hidden = !s.stopped;
  const resume = s.stopped ? s.resume : '';
  if (note.dataset.resume === resume) return;
  note.dataset.resume = resume;
  note.replaceChildren(...(s.stopped ? [STOPPED[0], el('code', s.resume), STOPPED[1]] : []));
}

async function refreshStudies() {
  const answer = await getJSON('/api/studies');
  const clientAt = Date.now() / 1000;
  app.serverNow = () => answer.server_time + (Date.now() / 1000 - clientAt);
  app.studies = answer.studies;
  const key = JSON.stringify(answer.studies);
  if (key !== app.studiesKey) {
    app.studiesKey = key;
    renderStudies();
  } else {
    refreshStudyStates();
  }
}

// ---------------------------------------------------------------- one study

function showProgress(loaded, total) {
  const box = $('#progress');
  box.hidden = false;
  box.querySelector('.bar').style.width = `${total ? Math.min(100, (100 * loaded) / total) : 100}%`;
  box.querySelector('.label').textContent = `Loading trials: ${fmtInteger(loaded)} / ${fmtInteger(total)}`;
}

function select(id) {
  if (id === app.id) return;
  app.id = id;
  history.replaceState(null, '', `#study=${encodeURIComponent(id)}`);
  renderStudies();
  app.study = null;
  brush.reset();
  $('#study').hidden = false;
  $('#study-name').textContent = id;
  showStudyError('');
  for (const chart of Object.values(app.charts)) chart.loading(true);
  load();
}

// Reads the selected study: its description and all its trials. A failed load (the server
// restarting, the network or the database busy, a study not created yet) says why and is tried
// again by the next poll until it succeeds.
async function load() {
  const id = app.id;
  const store = new TrialStore(id);
  app.store = store;
  app.loadFailed = false;
  app.loading = true;
  document.body.dataset.state = 'loading';
  try {
    showProgress(0, app.studies.find((s) => s.id === id)?.n_trials ?? 0);
    const [answer] = await Promise.all([getJSON('/api/study', { id }), store.sync(showProgress)]);
    if (app.store !== store) return;
    app.study = answer.study;
    setupStudy(app.study, store);
    if (!app.readyMarked) performance.mark('optimist-data');
    $('#progress').hidden = true;
    showStudyError('');
    renderStudy();
    drawCharts(true);
    document.body.dataset.state = 'ready';
    if (!app.readyMarked) {
      performance.mark('optimist-ready');
      app.readyMarked = true;
    }
  } catch (e) {
    if (app.store !== store) return;  // another study was selected meanwhile
    $('#progress').hidden = true;
    app.loadFailed = true;
    document.body.dataset.state = 'failed';
    showStudyError(`${id}: ${e.message} (tried again at the next poll)`);
  } finally {
    if (app.store === store) app.loading = false;
  }
}

function showStudyError(message) {
  const box = $('#study-error');
  box.hidden = !message;
  box.textContent = message || '';
}

function setupStudy(study, store) {
  const regret = $('#history-mode option[value=regret]');
  regret.disabled = study.f_star === null;
  if (regret.disabled) $('#history-mode').value = 'value';
  app.table.setStudy(study, store);
  $('#details').textContent = JSON.stringify(
    { options: study.options, space: study.space, recommend: study.recommend, ...study.extra }, null, 2);
}

function renderStudy() {
  const s = app.store.summary;
  const study = app.study;
  const now = app.store.now();
  $('#study-name').textContent = s.name;
  const facts = [s.problem, s.direction, `${(study.space.parameters || []).length} parameters`];
  if (s.f_star !== null) facts.push(`f* = ${fmtNumber(s.f_star)}`);
  $('#study-facts').textContent = facts.filter(Boolean).join(' · ');
  const best = $('#best-value');
  best.textContent = fmtNumber(s.best_value);
  best.dataset.value = s.best_value ?? '';
  best.title = s.best_value === null ? '' : String(s.best_value);
  $('#best-trial').textContent = s.best_number === null ? 'no complete trial yet' : `trial #${s.best_number}`;
  // A trial failed as stale or given back does not count against the budget (its point runs
  // again): say so, or 31 trials of a budget of 30 look like a study that overran.
  const stale = s.budget ? app.store.trials.reduce((n, t) => n + (t.stale ? 1 : 0), 0) : 0;
  const givenBack = s.budget ? app.store.trials.reduce((n, t) => n + (t.given_back ? 1 : 0), 0) : 0;
  const notCounted = [stale > givenBack ? `${fmtInteger(stale - givenBack)} stale` : '',
                      givenBack ? `${fmtInteger(givenBack)} given back` : ''].filter(Boolean).join(', ');
  $('#trial-count').textContent = fmtInteger(s.n_trials) + (s.budget ? ` / ${fmtInteger(s.budget)}` : '') +
    (notCounted ? ` (${notCounted}, not counted)` : '');
  $('#trial-count').dataset.count = s.n_trials;
  $('#state-counts').textContent = Object.entries(s.counts).filter(([, n]) => n).map(([k, n]) => `${fmtInteger(n)} ${k}`).join(' · ');
  $('#algorithm').textContent = algorithmLabel(s.algorithm, app.store.trials);
  $('#problem').textContent = s.problem || '';
  // As the study list says it (it said "running" for a study idle for days, or never started).
  $('#run-state').textContent = runState(s, now);
  showStopped(s);
  $('#updated').textContent = `last change ${fmtAge(now - s.updated_at)}`;
  const at = s.best_number === null ? undefined : app.store.index.get(s.best_number);
  const params = study.space.parameters || [];
  const values = at === undefined ? [] : app.store.trials[at].params;
  $('#best-point').textContent = at === undefined ? '' : `best point: ${params
    .map((p, i) => [p, i, activeTest(params, i)])
    .filter(([, , active]) => active === null || active(values))  // conditional parameters it does not use
    .map(([p, i]) => `${p.name} = ${fmtParam(values[i])}`).join(', ')}`;
  showStudyError(s.error);
  app.table.render();
}

// Draws every chart (those off screen when they come into view); with many trials, redraws are
// spaced so that drawing takes at most a fifth of the time: the cost counted is from the start of
// a redraw until its plots are all drawn (ECharts draws large plots progressively, over many
// frames after setOption returns: counting only setOption's time let redraws follow each other
// every 2 s and keep the page's main thread half busy on a 20,000-trial study).
function drawCharts(replace) {
  if (document.hidden) {  // nothing is drawn in a hidden tab: draw when it is shown again
    app.drawHidden = true;
    return;
  }
  app.drawHidden = false;
  const started = performance.now();
  const store = app.store;
  const trials = store.trials;
  const study = app.study;
  const opts = { log: $('#log-scale').checked, mode: $('#history-mode').value };
  const items = trials.filter((t) => t.state === 'complete').length;
  const builders = {
    history: () => ({ option: historyOption(trials, study, opts) }),
    parallel: () => ({ option: parallelOption(trials, study, opts) }),
    slice: () => sliceOption(trials, study, opts),
    timeline: () => timelineOption(trials, store.now()),
    diagnostics: () => diagnosticsOption(trials, study),
  };
  for (const [name, build] of Object.entries(builders)) app.charts[name].update(build, { items, replace });
  app.pacer.drew(started, performance.now());  // so far: drawn() adds the frames the plots take to draw
  app.drawOpen = chartsBusy();
}

const chartsBusy = () => Object.values(app.charts).some((c) => c.busy());

// A chart finished drawing: once all those of the redraw have, its cost is known. (A chart
// scrolled into view draws on its own, outside of any redraw.)
function drawn() {
  if (!app.drawOpen || chartsBusy()) return;
  app.drawOpen = false;
  app.pacer.drew(app.pacer.started, performance.now());
}
for (const chart of Object.values(app.charts)) chart.onDrawn = drawn;

app.pacer = new RedrawPacer({ draw: () => { if (app.study) drawCharts(false); }, busy: chartsBusy,
  size: () => app.store?.trials.length ?? 0 });
const scheduleDraw = () => app.pacer.schedule();

document.addEventListener('visibilitychange', () => {
  if (!document.hidden && app.drawHidden && app.study) drawCharts(false);
});

// ---------------------------------------------------------------- live updates

function setStatus(ok, message) {
  const status = $('#status');
  status.className = `status ${ok ? 'live' : 'down'}`;
  status.textContent = ok ? `live · every ${fmtDuration(app.info.poll_ms / 1000)}` : `disconnected: ${message}`;
}

async function poll() {
  try {
    await refreshStudies();
    if (!app.id) {
      const wanted = new URLSearchParams(location.hash.slice(1)).get('study');
      const pick = app.studies.find((s) => s.id === wanted) || (app.studies.length === 1 ? app.studies[0] : null);
      if (pick) select(pick.id);
    } else if (!app.studies.some((s) => s.id === app.id)) {
      // Its trace deleted or moved, or the study deleted: the server is fine, the study is gone
      // (asking for its trials gave 404s, and "disconnected" in the status). One never read (an
      // address naming a study not created yet) opens when it appears.
      showStudyError(app.study ? `'${app.id}' is no longer served: its trace was deleted or moved, or the study deleted. `
        + 'What is shown is what was read before; it comes back if it reappears.'
        : `'${app.id}' is not served (yet): no study or trace has this name. It opens when it appears.`);
    } else if (app.loadFailed && !app.loading) {
      load();  // the first load failed: again (its error stays shown until it succeeds)
    } else if (document.body.dataset.state === 'ready') {
      const store = app.store;
      const wasFinished = store.summary.finished;
      const changed = await store.sync();
      if (store === app.store) {
        // A replaced trace may have another space (columns, axes): read the study again.
        const restarted = store.restarted;
        store.restarted = false;
        if (restarted || store.summary.finished !== wasFinished) {
          app.study = (await getJSON('/api/study', { id: store.studyId })).study;
          setupStudy(app.study, store);
        }
        renderStudy();
        if (restarted) {
          brush.reset();  // another run: its axes may be others
          drawCharts(true);
        } else if (changed) scheduleDraw();
      }
    }
    setStatus(true);
  } catch (e) {
    setStatus(false, e.message);
  }
  setTimeout(poll, document.hidden ? Math.max(5000, app.info.poll_ms) : app.info.poll_ms);
}

async function start() {
  $('#study-filter').addEventListener('input', renderStudies);
  const list = $('#studies tbody');
  list.addEventListener('click', (e) => {
    const tr = e.target.closest('tr[data-id]');
    if (tr) select(tr.dataset.id);
  });
  list.addEventListener('keydown', studyRowKey);
  // The skip link's target by script: following its #study would replace the address's #study=ID.
  $('#skip').addEventListener('click', (e) => {
    e.preventDefault();
    const study = $('#study');
    (study.hidden ? $('#studies tbody tr[tabindex="0"]') || $('#study-filter') : study).focus();
  });
  $('#trial-filter').addEventListener('input', (e) => app.table.setFilter(e.target.value));
  $('#state-filter').addEventListener('change', (e) => app.table.setStateFilter(e.target.value));
  $('#trials .brush-clear').addEventListener('click', () => brush.clear());
  $('#page-size').addEventListener('change', (e) => app.table.setPageSize(Number(e.target.value)));
  for (const control of ['#log-scale', '#history-mode'])
    $(control).addEventListener('change', () => { if (app.study && app.store.summary) drawCharts(true); });
  window.addEventListener('hashchange', () => {
    const wanted = new URLSearchParams(location.hash.slice(1)).get('study');
    if (wanted && wanted !== app.id) select(wanted);
  });
  // The first poll waits for the info: the status said "every 1.0 s" with --poll-ms 250.
  await getJSON('/api/info').then((info) => {
    app.info = info;
    $('#source').textContent = info.source;
  }, (e) => setStatus(false, e.message));
  poll();
}

start();
