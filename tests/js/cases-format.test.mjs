// cases-format.test.mjs - the .cases format rules the runner enforces: the
// case-id grammar, unique ids across files, and inputs generated with
// repeat=N instead of inlined.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

import { ID_GRAMMAR, parseCases, runCases } from '../cases.mjs';

const one = (body) => `=== t-1\n--- cmd\ntrue\n${body}`;

test('case ids follow one grammar', () => {
  for (const id of ['diff-pipes-28', 'cat-1.2', 'xargs-I0-1', 'sh-help-6'])
    assert.ok(ID_GRAMMAR.test(id), id);
  for (const id of ['diff--x', '-a', 'a-', 'a_b', 'a/b', 'a..b', 'ü-1']) {
    assert.ok(!ID_GRAMMAR.test(id), id);
    assert.throws(() => parseCases(`=== ${id}\n--- cmd\ntrue\n`, 'f.cases'),
      new RegExp(`f\\.cases:1: malformed case id`));
  }
});

test('repeat=N generates a file or stdin from its body', () => {
  const [c] = parseCases(one('--- file big.txt repeat=3\nabc\n--- stdin noeol repeat=2\nxy\n'));
  assert.equal(c.files[0].data.toString(), 'abc\nabc\nabc\n');
  assert.equal(c.stdin.toString(), 'xyxy');
  for (const bad of ['repeat=0', 'repeat=x', 'repeat=1000001'])
    assert.throws(() => parseCases(one(`--- file f ${bad}\na\n`)), /repeat needs a count/);
  assert.throws(() => parseCases(one('--- stdout repeat=2\na\n')), /unknown option/);
});

test('an id used twice, in one file or two, stops the run', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'msbfmt-'));
  try {
    const a = path.join(dir, 'a.cases');
    const b = path.join(dir, 'b.cases');
    fs.writeFileSync(a, one(''));
    fs.writeFileSync(b, '=== t-2\n--- cmd\ntrue\n' + one(''));
    const never = async () => assert.fail('no case may run');
    await assert.rejects(runCases([a, b], never, { log: () => {} }),
      /b\.cases:4: duplicate case id t-1/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
