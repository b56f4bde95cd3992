// service.test.mjs - SandboxService lifecycle, the WASI stub, and the
// package's shape (exports map, no import.meta at load time).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { SandboxService, MemSandboxError } from '../../build/npm/node.js';
import { wasiImports, WasiExit } from '../../build/npm/wasi.js';

const pkgDir = new URL('../../build/npm/', import.meta.url);

async function rejects(promise, code) {
  await assert.rejects(promise, (e) => e instanceof MemSandboxError && e.code === code);
}

test('svc-1.1 create, get, list, delete by opaque random handles', async () => {
  const svc = new SandboxService({ clock: 0, seed: 7 });
  const a = await svc.create({ files: { f: 'A' } });
  const b = await svc.create();
  assert.match(a.handle, /^[0-9a-f]{32}$/);
  assert.notEqual(a.handle, b.handle);
  assert.equal(svc.get(a.handle), a.sandbox);
  assert.equal(await svc.get(a.handle).readFile('f'), 'A');
  assert.deepEqual(svc.list().map((x) => x.state), ['RUNNING', 'RUNNING']);
  await svc.delete(a.handle);
  assert.equal(a.sandbox.state, 'CLOSED');
  assert.throws(() => svc.get(a.handle), (e) => e.code === 'sandbox_not_found' && e.category === 'not_found');
  await rejects(svc.delete(a.handle), 'sandbox_not_found');
  assert.equal(svc.list().length, 1);
  await svc.close();
});

test('svc-1.2 fork gives an independent sandbox under a new handle', async () => {
  const svc = new SandboxService({ clock: 0, seed: 7 });
  const a = await svc.create({ files: { f: 'parent' } });
  const c = await svc.fork(a.handle);
  assert.notEqual(c.handle, a.handle);
  await c.sandbox.writeFile('f', 'child');
  assert.equal(await a.sandbox.readFile('f'), 'parent');
  assert.equal(await svc.get(c.handle).readFile('f'), 'child');
  await svc.close();
  assert.equal(c.sandbox.state, 'CLOSED');
});

test('svc-1.3 a closed or failed sandbox is not returned; close is final', async () => {
  const svc = new SandboxService({ clock: 0 });
  const a = await svc.create();
  await a.sandbox.close();
  assert.throws(() => svc.get(a.handle), (e) => e.code === 'sandbox_not_found');
  await svc.close();
  await svc.close();
  await rejects(svc.create(), 'service_closed');
  assert.throws(() => svc.list(), (e) => e.code === 'service_closed');
});

test('svc-2.1 the WASI stub is deterministic and answers ENOSYS otherwise', async () => {
  const memory = new WebAssembly.Memory({ initial: 1 });
  // A synthetic import list, so every function is exercised.
  const names = ['random_get', 'clock_time_get', 'proc_exit', 'fd_write', 'path_open'];
  const w1 = wasiImports(names, { memory, seed: 42n, clockNs: () => 5n });
  const w2 = wasiImports(names, { memory, seed: 42n, clockNs: () => 5n });
  assert.deepEqual(Object.keys(w1), names);
  assert.deepEqual(wasiImports([], { memory }), {});
  const u8 = new Uint8Array(memory.buffer);
  w1.random_get(0, 16);
  const first = u8.slice(0, 16);
  w2.random_get(0, 16);
  assert.deepEqual(u8.slice(0, 16), first, 'same seed, same bytes');
  assert.notDeepEqual(first, new Uint8Array(16));
  assert.equal(w1.clock_time_get(0, 0n, 64), 0);
  assert.equal(new DataView(memory.buffer).getBigUint64(64, true), 5n);
  assert.equal(w1.path_open(), 52);
  assert.throws(() => w1.proc_exit(3), (e) => e instanceof WasiExit && e.code === 3);
});

test('pkg-1.1 package.json: exports conditions in the order runtimes need', () => {
  const pkg = JSON.parse(readFileSync(new URL('package.json', pkgDir), 'utf8'));
  assert.equal(pkg.name, 'memsandbox');
  assert.equal(pkg.type, 'module');
  assert.equal(pkg.dependencies, undefined, 'zero runtime dependencies');
  const keys = Object.keys(pkg.exports['.']);
  assert.deepEqual(keys, ['types', 'workerd', 'edge-light', 'deno', 'bun', 'node', 'browser', 'default']);
  assert.deepEqual(pkg.exports['./memsandbox.wasm'],
    { types: './memsandbox.wasm.d.ts', default: './memsandbox.wasm' });
  // the agent SDKs are optional peers: installing memsandbox never pulls them in
  for (const name of Object.keys(pkg.peerDependencies ?? {})) {
    assert.equal(pkg.peerDependenciesMeta[name].optional, true, name);
  }
  assert.equal(pkg.bin.memsandbox, 'bin/memsandbox.js');
  for (const target of [...Object.values(pkg.exports['.']), pkg.bin.memsandbox]) {
    assert.ok(readFileSync(new URL(target, pkgDir)), target);
  }
});

test('pkg-1.2 no module reads import.meta at load time; edge entries never', () => {
  const entries = ['index.js', 'node.js'];
  const neutral = readdirSync(pkgDir).filter((f) => f.endsWith('.js') && !entries.includes(f));
  assert.ok(neutral.includes('core.js') && neutral.includes('edge.js'), neutral.join(' '));
  for (const f of neutral) {
    const text = readFileSync(new URL(f, pkgDir), 'utf8');
    assert.doesNotMatch(text.replace(/\/\/.*$/gm, ''), /import\.meta/, f);
  }
  for (const f of entries) {
    const text = readFileSync(new URL(f, pkgDir), 'utf8');
    // import.meta only inside a function body (the lazy default source).
    const topLevel = text.split('\n').filter((l) => /^[^\s/]/.test(l) && /import\.meta/.test(l));
    assert.deepEqual(topLevel, [], f);
  }
});
