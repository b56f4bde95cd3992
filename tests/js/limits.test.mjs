// limits.test.mjs - src/limits.def and src/errors.def are the one source of
// the limits and result codes: the module's profiles, its checks, the JS
// error kinds, both CLIs' --limits and README.md's limits table all agree
// with them (through the generated constants).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Sandbox, MemSandboxError, constants } from '../../build/npm/node.js';

const WASM = process.env.MSB_WASM || new URL('../../build/npm/memsandbox.wasm', import.meta.url);
const root = (p) => fileURLToPath(new URL(`../../${p}`, import.meta.url));

// A size as the README writes it: bytes in the largest binary unit that
// holds them exactly (from 8 KiB), counts grouped by thousands from 10,000.
function human(limit, v) {
  if (limit.name.endsWith('_bytes') && v >= 8192) {
    for (const [unit, size] of [['GiB', 2 ** 30], ['MiB', 2 ** 20], ['KiB', 2 ** 10]]) {
      if (v % size === 0) return `${v / size} ${unit}`;
    }
  }
  return v >= 10000 ? v.toLocaleString('en-US') : String(v);
}

function readmeTable(limits) {
  return ['| limit | normal | strict | bounds |', '| --- | ---: | ---: | --- |',
    ...limits.map((l) =>
      `| \`${l.name}\` | ${human(l, l.normal)} | ${human(l, l.strict)} | ${l.bounds} |`)]
    .join('\n');
}

test('limits-1.1 README.md\'s limits table is limits.def\'s', () => {
  const readme = readFileSync(root('README.md'), 'utf8');
  const at = readme.indexOf('| limit | normal | strict |');
  assert.ok(at >= 0, 'README.md has no limits table');
  const end = readme.indexOf('\n\n', at);
  assert.equal(readme.slice(at, end), readmeTable(constants.limits));
});

test('limits-1.2 the module\'s profiles are limits.def\'s values', async () => {
  for (const profile of ['normal', 'strict']) {
    const sb = await Sandbox.create({ wasm: WASM, profile });
    const want = Object.fromEntries(constants.limits.map((l) => [l.name, l[profile]]));
    assert.deepEqual(sb.limits, want);
    await sb.close();
  }
});

test('limits-1.3 a limit below its minimum is refused, at it accepted', async () => {
  for (const l of constants.limits) {
    await assert.rejects(Sandbox.create({ wasm: WASM, limits: { [l.name]: l.min - 1 } }),
      (e) => e instanceof MemSandboxError && e.code === 'invalid_argument', l.name);
    const sb = await Sandbox.create({ wasm: WASM,
      limits: { [l.name]: l.min, ...(l.name === 'max_total_bytes' ? { max_file_bytes: 1 } : {}) } });
    await sb.close();
  }
});

test('limits-1.4 a run stopped by a limit names it as limits.def does', async () => {
  const sb = await Sandbox.create({ wasm: WASM, limits: { max_steps: 50 } });
  const r = await sb.execute('while :; do :; done');
  const steps = constants.limits.find((l) => l.name === 'max_steps');
  assert.equal(r.limit, 'max_steps');
  assert.equal(r.stderr, `bash: memsandbox: ${steps.noun} exceeded (max_steps=50)\n`);
  await sb.close();
});

test('limits-1.5 every result code has a JS error kind', () => {
  assert.deepEqual(Object.keys(constants.errorKinds).sort(), Object.keys(constants.codes).sort());
  for (const [name, [code, category]] of Object.entries(constants.errorKinds)) {
    assert.match(code, /^[a-z_]+$/, name);
    assert.match(category, /^[a-z_]+$/, name);
  }
});

test('limits-1.6 both CLIs take every limit of the table by name', () => {
  const spec = constants.limits.map((l) => `${l.name}=${l.normal}`).join(',');
  const js = spawnSync(process.execPath, [root('build/npm/bin/memsandbox.js'), '--limits', spec,
    '-c', 'echo ok'], { encoding: 'utf8' });
  assert.equal(js.stdout, 'ok\n', js.stderr);
  const c = spawnSync(root('build/msb'), ['--limits', spec, '-c', 'echo ok'], { encoding: 'utf8' });
  if (c.error?.code === 'ENOENT') return; // build/msb is `make all`'s
  assert.equal(c.stdout, 'ok\n', c.stderr);
});
