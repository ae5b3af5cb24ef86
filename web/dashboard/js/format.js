// Number, time and state formatting shared by the views. Nothing here builds HTML.

/** A value with 6 significant digits, or '—' when absent. */
export function fmtNumber(v) {
  if (v === null || v === undefined || Number.isNaN(v)) return '—';
  if (typeof v !== 'number') return String(v);
  const a = Math.abs(v);
  if (a !== 0 && (a >= 1e6 || a < 1e-3)) return v.toExponential(4);
  return String(Number(v.toPrecision(6)));
}

/** A duration in seconds, e.g. "850 ms", "12.3 s", "4 min 5 s", "2 h 3 min". */
export function fmtDuration(s) {
  if (s === null || s === undefined || !Number.isFinite(s)) return '—';
  if (s < 1) return `${Math.round(s * 1000)} ms`;
  if (s < 60) return `${s.toFixed(1)} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${Math.floor(s % 60)} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

/** "3 s ago" for an age in seconds. */
export function fmtAge(s) {
  return s === null || s === undefined ? '—' : `${fmtDuration(Math.max(0, s))} ago`;
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

/** A parameter value as the user wrote it: numbers shortened, choices as they are. */
export function fmtParam(v) {
  return typeof v === 'number' ? fmtNumber(v) : String(v);
}

/** Creates an element with text content (never HTML) and optional class and attributes. */
export function el(tag, text, className, attrs) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = text;
  if (className) e.className = className;
  if (attrs) for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
}
