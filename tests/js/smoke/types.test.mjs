// types.test.mjs - index.d.ts type-checks real usage (deno check, which
// bundles TypeScript), including a call the types must reject.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const deno = here('../node_modules/.bin/deno');
const npm = here('../../../build/npm/');

const USE = (pkg) => `// @ts-types="${pkg}index.d.ts"
import { Sandbox, SandboxService, MemSandboxError, type ExecuteResult } from '${pkg}index.js';
const sb: Sandbox = await Sandbox.create({ files: { 'a.txt': 'x' }, limits: { max_steps: 10 },
  profile: 'strict', clock: 0, seed: 1n, env: { A: 'b' } });
const r: ExecuteResult<string> = await sb.execute('echo hi', { stdin: 'x', atomic: true });
const b = await sb.execute('echo hi', { encoding: 'bytes' });
const u: Uint8Array = b.stdout;
const n: number = r.exitCode + sb.revision + (await sb.stat('a.txt')).size;
const s: string = await sb.readFile('a.txt');
const bytes: Uint8Array = await sb.readFile('a.txt', { encoding: 'bytes' });
const svc = new SandboxService({ profile: 'normal' });
const { handle } = await svc.create();
try { svc.get(handle); } catch (e) {
  if (e instanceof MemSandboxError) { const c: string = e.category + e.code; console.log(c); }
}
console.log(u, n, s, bytes, r.limit, await sb.snapshot());
`;

function check(source) {
  const dir = mkdtempSync(join(tmpdir(), 'msb-types-'));
  try {
    writeFileSync(join(dir, 'use.ts'), source);
    return spawnSync(deno, ['check', '--quiet', join(dir, 'use.ts')], {
      encoding: 'utf8', env: { ...process.env, DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' },
      timeout: 120000 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('types-1 index.d.ts accepts real usage', () => {
  const r = check(USE(npm));
  assert.equal(r.status, 0, r.stdout + r.stderr);
});

test('types-2 index.d.ts rejects a wrong call', () => {
  const r = check(USE(npm) + "await Sandbox.create({ profile: 'lax' });\n");
  assert.notEqual(r.status, 0);
  assert.match(r.stdout + r.stderr, /lax/);
});
