// types.test.mjs - the playground's sources type-check (tsc --checkJs over
// demo/src with the JSDoc types of demo/src/protocol.js), so the page and
// the worker cannot drift apart on a message's shape.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

test('demo-types-1 demo/src type-checks against protocol.js', () => {
  const r = spawnSync(process.execPath, [tsc, '-p', 'demo/tsconfig.json'],
    { cwd: root, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stdout + r.stderr);
});
