// sandbox.test.mjs - the Sandbox API over the real wasm module.
//
// Runs against the staged package in build/npm (`make npm`); MSB_WASM picks
// the module, so `make js-test` runs this file once per wasm build (clang and
// Emscripten). Ids in test names ("js-1.2") are stable.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Sandbox, MemSandboxError, constants } from '../../build/npm/node.js';

const WASM = process.env.MSB_WASM || new URL('../../build/npm/memsandbox.wasm', import.meta.url);
const sha = (data) => createHash('sha256').update(data).digest('hex');
const open = (opts = {}) => Sandbox.create({ clock: 0, seed: 1, ...opts });

async function rejects(promise, code, category) {
  await assert.rejects(promise, (e) => {
    assert.ok(e instanceof MemSandboxError, `not a MemSandboxError: ${e}`);
    assert.equal(e.code, code, e.message);
    if (category) assert.equal(e.category, category);
    return true;
  });
}

// The reference product's directory hash (memsandbox.h, "Hashes").
function dirHash(entries) {
  const h = createHash('sha256');
  h.update(Buffer.from('mem-sandbox-directory-v1\0'));
  for (const [name, kind, digestHex] of [...entries].sort((a, b) =>
    Buffer.compare(Buffer.from(a[0]), Buffer.from(b[0])))) {
    const n = Buffer.from(name);
    const len = Buffer.alloc(4);
    len.writeUInt32BE(n.length);
    h.update(Buffer.from(kind));
    h.update(len);
    h.update(n);
    h.update(Buffer.from(digestHex, 'hex'));
  }
  return h.digest('hex');
}

test('js-1.1 create seeds files and directories; reads them back', async () => {
  const sb = await open({ files: { 'a.txt': 'hello\n', 'd/e/f.txt': new Uint8Array([0, 1, 255]) },
    directories: ['empty/dir'] });
  assert.equal(sb.state, 'RUNNING');
  assert.equal(await sb.readFile('a.txt'), 'hello\n');
  assert.deepEqual(await sb.readFile('/workspace/d/e/f.txt', { encoding: 'bytes' }),
    new Uint8Array([0, 1, 255]));
  assert.deepEqual(await sb.list('/workspace'), ['a.txt', 'd', 'empty']);
  assert.deepEqual(await sb.list('empty'), ['dir']);
  await sb.close();
});

test('js-1.2 writeFile, appendFile, stat, revision counts each mutation once', async () => {
  const sb = await open();
  const r0 = sb.revision;
  const w = await sb.writeFile('x.txt', 'abc');
  assert.equal(w.revision, r0 + 1);
  assert.equal(w.hash, sha('abc'));
  await sb.appendFile('x.txt', 'def');
  assert.equal(sb.revision, r0 + 2);
  assert.equal(await sb.readFile('x.txt'), 'abcdef');
  const st = await sb.stat('x.txt');
  assert.equal(st.kind, 'file');
  assert.equal(st.size, 6);
  assert.equal(st.mode, 0o644);
  await rejects(sb.readFile('missing.txt'), 'path_not_found', 'not_found');
  assert.equal(sb.revision, r0 + 2, 'a failed call changes nothing');
  await sb.close();
});

test('js-1.3 preconditions: must-not-exist and compare-and-swap', async () => {
  const sb = await open({ files: { 'f': 'one' } });
  await rejects(sb.writeFile('f', 'two', { mustNotExist: true }), 'path_already_exists', 'conflict');
  await rejects(sb.writeFile('f', 'two', { expectHash: sha('nope') }), 'stale_content', 'conflict');
  assert.equal(await sb.readFile('f'), 'one');
  await sb.writeFile('f', 'two', { expectHash: sha('one') });
  assert.equal(await sb.readFile('f'), 'two');
  await rejects(sb.writeFile('f', 'x', { expectHash: 'zz' }), 'invalid_argument', 'invalid_request');
  await sb.close();
});

test('js-1.4 mkdir, copy, move, remove, symlink, chmod', async () => {
  const sb = await open({ files: { 'src/a': 'A', 'src/b': 'B' } });
  await sb.mkdir('p/q/r', { parents: true });
  assert.equal((await sb.stat('p/q/r')).kind, 'directory');
  await rejects(sb.mkdir('p'), 'path_already_exists');
  await sb.copy('src', 'dst', { recursive: true });
  assert.equal(await sb.readFile('dst/b'), 'B');
  await sb.move('dst/a', 'moved');
  assert.equal(await sb.exists('dst/a'), false);
  assert.equal(await sb.readFile('moved'), 'A');
  await rejects(sb.remove('src'), 'directory_not_empty', 'conflict');
  await sb.remove('src', { recursive: true });
  assert.equal(await sb.exists('src'), false);
  await sb.remove('src', { missingOk: true });
  await sb.symlink('moved', 'link');
  assert.equal(await sb.readlink('link'), 'moved');
  assert.equal((await sb.stat('link', { followSymlinks: false })).kind, 'symlink');
  assert.equal((await sb.stat('link')).kind, 'file');
  await sb.chmod('moved', 0o755);
  assert.equal((await sb.stat('moved')).mode, 0o755);
  await sb.close();
});

test('js-1.5 hashes follow the reference construction', async () => {
  const sb = await open({ files: { 'b.txt': 'bee', 'a/x': 'ex' } });
  assert.equal(await sb.hash('b.txt'), sha('bee'));
  const a = dirHash([['x', 'F', sha('ex')]]);
  assert.equal(await sb.hash('a'), a);
  const root = dirHash([['a', 'D', a], ['b.txt', 'F', sha('bee')]]);
  assert.equal(await sb.rootHash(), root);
  const other = await open({ files: { 'a/x': 'ex', 'b.txt': 'bee' } });
  assert.equal(await other.rootHash(), root, 'equal trees hash equally');
  await sb.close();
  await other.close();
});

test('js-1.6 invalid input is invalid_request, never a crash', async () => {
  const sb = await open();
  await rejects(sb.readFile('a\0b'), 'invalid_argument', 'invalid_request');
  await rejects(sb.writeFile('x', 42), 'invalid_argument', 'invalid_request');
  await rejects(Sandbox.create({ wasm: WASM, limits: { nope: 1 } }), 'invalid_argument');
  await rejects(Sandbox.create({ wasm: WASM, profile: 'lax' }), 'invalid_argument');
  await rejects(Sandbox.create({ wasm: WASM, files: [{ path: 'a', content: '1' },
    { path: 'a', content: '2' }] }), 'invalid_argument');
  await sb.close();
});

test('js-1.7 a closed sandbox rejects calls; close is idempotent', async () => {
  const sb = await open();
  await sb.close();
  await sb.close();
  assert.equal(sb.state, 'CLOSED');
  await rejects(sb.readFile('x'), 'sandbox_closed', 'invalid_request');
});

test('js-1.8 profiles and limits reach the module', async () => {
  const normal = await open();
  const strict = await open({ profile: 'strict' });
  assert.equal(normal.limits.max_file_bytes > 0, true);
  assert.ok(strict.limits.max_memory_bytes <= normal.limits.max_memory_bytes);
  const capped = await open({ limits: { maxFileBytes: 10 } });
  assert.equal(capped.limits.max_file_bytes, 10);
  await rejects(capped.writeFile('big', 'x'.repeat(11)), 'file_size_limit_exceeded', 'quota_exceeded');
  await capped.writeFile('ok', 'x'.repeat(10));
  for (const sb of [normal, strict, capped]) await sb.close();
});

test('js-1.9 the memory cap is a clean error and the sandbox survives', async () => {
  const mib = 1024 * 1024;
  const sb = await open({ limits: { max_memory_bytes: 8 * mib, max_file_bytes: 64 * mib,
    max_total_bytes: 64 * mib } });
  await assert.rejects(sb.writeFile('big', new Uint8Array(24 * mib)), (e) => {
    assert.ok(e instanceof MemSandboxError);
    assert.equal(e.category, 'quota_exceeded', e.message);
    return true;
  });
  assert.equal(sb.state, 'RUNNING');
  await sb.writeFile('small', 'fine');
  assert.equal(await sb.readFile('small'), 'fine');
  await sb.close();
});

test('js-1.10 fork copies the state and then diverges', async () => {
  const sb = await open({ files: { 'a': '1' } });
  const child = await sb.fork();
  await child.writeFile('a', '2');
  await child.writeFile('b', 'new');
  assert.equal(await sb.readFile('a'), '1');
  assert.equal(await sb.exists('b'), false);
  assert.equal(await child.readFile('a'), '2');
  await sb.writeFile('c', 'parent');
  assert.equal(await child.exists('c'), false);
  await sb.close();
  assert.equal(await child.readFile('b'), 'new', 'closing the parent leaves the fork');
  await child.close();
});

test('js-1.11 a trap fails that sandbox only', async () => {
  const a = await open({ files: { 'f': 'A' } });
  const b = await open({ files: { 'f': 'B' } });
  // Hand the module a path pointer far outside its memory: a guaranteed trap.
  assert.throws(() => a._call('stat', () => a._inst.call(OP.stat, a._sb, 0x7ffffff0, 0,
    0x7ffffff0)), (e) => e instanceof MemSandboxError && e.code === 'sandbox_failed');
  assert.equal(a.state, 'FAILED');
  await rejects(a.readFile('f'), 'sandbox_failed', 'internal');
  assert.equal(await b.readFile('f'), 'B');
  await a.close();
  assert.equal(a.state, 'CLOSED');
  await b.close();
});

test('js-1.12 the loader takes a Module, bytes or a default; compiles once', async () => {
  const bytes = readFileSync(WASM);
  const module = await WebAssembly.compile(bytes);
  const fromModule = await Sandbox.create({ wasm: module, clock: 0, seed: 0 });
  const fromBytes = await Sandbox.create({ wasm: new Uint8Array(bytes), clock: 0, seed: 0 });
  await fromModule.writeFile('x', 'm');
  await fromBytes.writeFile('x', 'b');
  assert.equal(await fromModule.readFile('x'), 'm');
  assert.equal(await fromBytes.readFile('x'), 'b');
  await rejects(Sandbox.create({ wasm: 12 }), 'invalid_argument');
  await fromModule.close();
  await fromBytes.close();
});

test('js-1.13 constants come from the C headers', () => {
  assert.equal(constants.version, '0.1.0');
  assert.equal(constants.codes.MSB_ENOENT, -2);
  assert.equal(constants.constants.MSB_WASM_OPEN_SLOTS - constants.constants.MSB_WASM_OPEN_LIMITS,
    constants.limitFields.length);
  assert.equal(constants.limitFields[0].name, 'max_memory_bytes');
});

test('js-1.14 events reach onEvent as parsed objects', async () => {
  const events = [];
  const sb = await open({ onEvent: (e) => events.push(e) });
  await sb.writeFile('e.txt', 'x');
  for (const e of events) assert.equal(typeof e, 'object');
  await sb.close();
});

test('js-1.15 Symbol.asyncDispose closes the sandbox (await using)', async () => {
  const sb = await Sandbox.create();
  assert.equal(typeof sb[Symbol.asyncDispose], 'function');
  await sb[Symbol.asyncDispose]();
  assert.equal(sb.state, 'CLOSED');
  await sb[Symbol.asyncDispose](); // idempotent, as close is
});

test('js-1.16 errors name the operation and the path they failed on', async () => {
  const sb = await Sandbox.create();
  try {
    await assert.rejects(sb.readFile('nope.txt'), (e) => {
      assert.ok(e instanceof MemSandboxError);
      assert.equal(e.code, 'path_not_found');
      assert.equal(e.operation, 'read');
      assert.equal(e.path, 'nope.txt');
      return true;
    });
    await assert.rejects(sb.rollback(12345), (e) => {
      assert.equal(e.operation, 'rollback');
      assert.equal(e.path, undefined);
      return true;
    });
  } finally {
    await sb.close();
  }
});

test('js-1.17 names that are not UTF-8 list exactly with encoding bytes (#21 item 15)', async () => {
  const sb = await open();
  const r = await sb.execute("touch $'a\\xffb' plain");
  assert.equal(r.exitCode, 0, r.stderr);
  const names = await sb.list('.', { encoding: 'bytes' });
  assert.deepEqual(names.map((n) => [...n]), [[0x61, 0xff, 0x62], [...Buffer.from('plain')]]);
  assert.equal((await sb.stat(names[0])).kind, 'file');
  await sb.writeFile(names[0], 'via bytes');
  assert.equal((await sb.execute("cat $'a\\xffb'")).stdout, 'via bytes');
  assert.deepEqual(await sb.list('.'), ['a\ufffdb', 'plain']);
  await sb.close();
});
