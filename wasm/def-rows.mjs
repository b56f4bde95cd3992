// def-rows.mjs - reads the rows of a C X-macro table (src/*.def) as arrays
// of argument texts, so JavaScript build steps and tests use the same table
// as the C code without a C compiler. Strings stay quoted (JSON-compatible
// C literals); nested parentheses, as in MiB(64), stay inside one argument.

/** The rows `MACRO(a, b, ...)` of a .def file, each as its trimmed args. */
export function defRows(text, macro) {
  const src = text.replace(/\/\*[\s\S]*?\*\//g, ' ');
  const rows = [];
  const start = new RegExp(`^\\s*${macro}\\(`, 'gm');
  for (let m; (m = start.exec(src));) {
    const args = [];
    let depth = 0, cur = '', i = m.index + m[0].length;
    for (; i < src.length; i++) {
      const c = src[i];
      if (c === '"') {
        const end = src.indexOf('"', i + 1);
        if (end < 0) throw new Error(`${macro}: unterminated string`);
        cur += src.slice(i, end + 1);
        i = end;
      } else if (c === '(') {
        depth++, cur += c;
      } else if (c === ')' && depth === 0) {
        break;
      } else if (c === ')') {
        depth--, cur += c;
      } else if (c === ',' && depth === 0) {
        args.push(cur.trim()), cur = '';
      } else {
        cur += c;
      }
    }
    args.push(cur.trim());
    rows.push(args);
    start.lastIndex = i;
  }
  return rows;
}
