// Number, time and state formatting shared by the views. Nothing here builds HTML.

/** A value with 6 significant digits, or '—' when absent. */
export function fmtNumber(v) {
  if (v === null || v === undefined || Number.isNaN(v)) return '—';
  if (typeof v !== 'number') return String(v);
  const a = Math.abs(v);
  // 5 significant digits without trailing zeros: 1e-5, not 1.0000e-5.
  if (a !== 0 && (a >= 1e6 || a < 1e-3)) return Number(v.toPrecision(5)).toExponential();
  return String(Number(v.toPrecision(6)));
}

/** A duration in seconds, e.g. "850 ms", "12.3 s", "4 min 5 s", "2 h 3 min". */
export function fmtDuration(s) {
  if (s === null || s === undefined || !Number.isFinite(s)) return '—';
  // A benchmark's evaluation takes microseconds: "0 ms" read as "not measured".
  if (s > 0 && s < 0.001) return `${Math.max(1, Math.round(s * 1e6))} µs`;
  if (s < 1) return `${Math.round(s * 1000)} ms`;
  if (s < 60) return `${s.toFixed(1)} s`;
  // "1 min", not "1 min 0 s" (the timeline's ticks fall on whole minutes and hours).
  const [big, bigUnit, small, smallUnit] = s < 3600 ? [Math.floor(s / 60), 'min', Math.floor(s % 60), 's']
    : [Math.floor(s / 3600), 'h', Math.floor((s % 3600) / 60), 'min'];
  return small ? `${big} ${bigUnit} ${small} ${smallUnit}` : `${big} ${bigUnit}`;
}

/** "3 s ago" for an age in seconds. */
export function fmtAge(s) {
  return s === null || s === undefined ? '—' : `${fmtDuration(Math.max(0, s))} ago`;
}

/** A short age for the study list's "idle ..." (it must fit its column): "45 s", "14 min",
 *  "2 h 5 min", "14 h", "3 days". */
export function fmtSince(s) {
  if (s === null || s === undefined || !Number.isFinite(s)) return '—';
  s = Math.max(0, s);
  if (s < 60) return `${Math.floor(s)} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (s < 10 * 3600) return m ? `${h} h ${m} min` : `${h} h`;
  return s < 2 * 86400 ? `${h} h` : `${Math.floor(s / 86400)} days`;
}

/** A time in seconds since the epoch, in the browser's time zone: "2026-12-19 14:30". */
export function fmtTime(s) {
  if (s === null || s === undefined || !Number.isFinite(s)) return '—';
  const d = new Date(s * 1000);
  const p = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

export function fmtInteger(n) {
  return Number(n).toLocaleString('en-US');
}

/** For parameter i of a space (its JSON "parameters"), a test telling from a trial's values
 *  whether the parameter is active: a conditional parameter ("condition": {parent, values}) is
 *  when its parent holds one of the values, up the chain of parents. null for a parameter without
 *  a condition (always active). An inactive parameter holds a fixed value the objective never saw. */
export function activeTest(parameters, i) {
  const byName = new Map(parameters.map((p, k) => [p.name, k]));
  const chain = [];
  for (let k = i; parameters[k] && parameters[k].condition && chain.length < parameters.length;) {
    const c = parameters[k].condition;
    const j = byName.get(c.parent);
    if (j === undefined) break;
    chain.push([j, new Set(c.values)]);
    k = j;
  }
  if (chain.length === 0) return null;
  return (values) => chain.every(([j, allowed]) => allowed.has(values[j]));
}

/** A parameter value as the user wrote it: numbers shortened, choices as they are. */
export function fmtParam(v) {
  return typeof v === 'number' ? fmtNumber(v) : String(v);
}

/** The algorithm as the user should read it: `auto` names what it chose (the latest trial's
 *  `auto_algorithm` diagnostic), e.g. "gp-ei (auto)". */
export function algorithmLabel(algorithm, trials) {
  if (algorithm !== 'auto') return algorithm || '—';
  for (let i = trials.length - 1; i >= 0; i--) {
    const chosen = trials[i].diagnostics?.auto_algorithm;
    if (typeof chosen === 'string') return `${chosen} (auto)`;
  }
  return 'auto';
}

/** Creates an element with text content (never HTML) and optional class and attributes. */
export function el(tag, text, className, attrs) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = text;
  if (className) e.className = className;
  if (attrs) for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
}
