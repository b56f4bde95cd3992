// summary.mjs - sums the closing counts of every suite `make test` ran.
//
// Usage: node tests/js/summary.mjs LOGDIR NAME:STATUS...
// Reads LOGDIR/NAME.log for each suite and takes its counts from the
// closing lines the suites print: "[label:] N passed, M failed" (C unit
// runner, check-wasm, case runner, fuzz) or node --test's "# pass N" /
// "# fail N" (also "ℹ pass N" with the spec reporter). A suite that exited
// non-zero without reporting a failure counts one failure, so a broken build
// can never read as green. Prints a table and the final
// "N passed, M failed" line; exits 1 when anything failed.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const [dir, ...suites] = process.argv.slice(2);
let totalPass = 0, totalFail = 0;
const rows = [];
for (const spec of suites) {
  const i = spec.lastIndexOf(':');
  const name = spec.slice(0, i), status = Number(spec.slice(i + 1));
  let text = '';
  try {
    text = readFileSync(join(dir, `${name}.log`), 'utf8');
  } catch {
    text = '';
  }
  let pass = 0, fail = 0, seen = false;
  for (const line of text.split('\n')) {
    let m = /^(?:[\w .-]+:\s*)?(\d+) passed, (\d+) failed\b/.exec(line.trim());
    if (m) {
      pass += Number(m[1]);
      fail += Number(m[2]);
      seen = true;
      continue;
    }
    m = /^(?:#|ℹ)\s+(pass|fail)\s+(\d+)$/.exec(line.trim());
    if (m) {
      if (m[1] === 'pass') pass += Number(m[2]);
      else fail += Number(m[2]);
      seen = true;
    }
  }
  if (status !== 0 && fail === 0) fail = 1;
  rows.push(`  ${name.padEnd(16)} ${String(pass).padStart(6)} passed, ` +
    `${fail} failed${seen ? '' : ' (no count reported)'}${status ? ' [exit ' + status + ']' : ''}`);
  totalPass += pass;
  totalFail += fail;
}
console.log('==== summary');
for (const r of rows) console.log(r);
console.log(`${totalPass} passed, ${totalFail} failed`);
process.exit(totalFail ? 1 : 0);
