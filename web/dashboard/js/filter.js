// The trials table's filter: space-separated terms, all of which a trial must match.
//   value<10   x1>=0.5   state=failed   worker!=w1   kernel=rbf   (comparisons on a column)
//   timeout                                            (any cell containing the text)

const TERM = /^([^<>=!]+?)(<=|>=|!=|=|<|>)(.+)$/;

/** Parses `text` into predicates over rows (objects from column key to cell value). */
export function parseFilter(text, columns) {
  const byName = new Map();
  for (const c of columns) {
    byName.set(c.key.toLowerCase(), c);
    byName.set(c.label.toLowerCase(), c);
  }
  const predicates = [];
  for (const term of text.trim().split(/\s+/).filter(Boolean)) {
    const m = TERM.exec(term);
    const column = m && byName.get(m[1].toLowerCase());
    if (!column) {
      const needle = term.toLowerCase();
      predicates.push((row) => columns.some((c) => String(c.text(row)).toLowerCase().includes(needle)));
      continue;
    }
    const [, , op, rhs] = m;
    const number = Number(rhs);
    predicates.push((row) => compare(column.value(row), op, rhs, number));
  }
  return (row) => predicates.every((p) => p(row));
}

function compare(v, op, rhs, number) {
  if (v === null || v === undefined) return op === '!=';
  const numeric = typeof v === 'number' && !Number.isNaN(number);
  const a = numeric ? v : String(v).toLowerCase();
  const b = numeric ? number : rhs.toLowerCase();
  switch (op) {
    case '=': return a === b;
    case '!=': return a !== b;
    case '<': return a < b;
    case '<=': return a <= b;
    case '>': return a > b;
    case '>=': return a >= b;
  }
  return false;
}
