// deno.test.mjs - the package under Deno (npm's `deno`), through its "deno"
// export (index.js: the module is fetched from a file URL beside it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expected } from './probe.mjs';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const deno = here('../node_modules/.bin/deno');

test('smoke-deno-1 the web entry runs in Deno', () => {
  const script = `
    import * as pkg from ${JSON.stringify(new URL('../../../build/npm/index.js', import.meta.url).href)};
    import { probe } from ${JSON.stringify(new URL('./probe.mjs', import.meta.url).href)};
    console.log(JSON.stringify(await probe(pkg)));`;
  const out = execFileSync(deno, ['eval', '--quiet', '--ext=js', script], {
    encoding: 'utf8', env: { ...process.env, DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' },
    timeout: 120000 });
  assert.deepEqual(JSON.parse(out.trim().split('\n').pop()), expected);
});
