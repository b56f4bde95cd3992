// scale-cloudflare.test.mjs - memsandbox/cloudflare under workerd (npm's
// `workerd`, the runtime Wrangler and Miniflare run): the sample Worker of
// examples/cloudflare with SandboxObject on SQLite-backed Durable Object
// storage on disk. A sandbox survives workerd being killed and started
// again with its root hash and shell session; an idempotency key is
// applied once; a fork of a 2,000-file workspace goes through Workers
// RPC; 200 objects answer concurrent requests.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const workerd = here('./node_modules/.bin/workerd');
const npm = here('../../build/npm/');
const dir = mkdtempSync(join(tmpdir(), 'msb-cf-'));
let port = 0;
let proc = null;

function freePort() {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = s.address().port;
      s.close(() => resolve(p));
    });
  });
}

function configure() {
  const modules = readdirSync(npm).filter((f) => f.endsWith('.js'));
  for (const f of modules) copyFileSync(join(npm, f), join(dir, f));
  copyFileSync(process.env.MSB_WASM || join(npm, 'memsandbox.wasm'), join(dir, 'memsandbox.wasm'));
  // the sample as shipped, importing the package's files by path
  const sample = readFileSync(here('../../examples/cloudflare/src/index.js'), 'utf8')
    .replace("'memsandbox/cloudflare'", "'./cloudflare.js'");
  writeFileSync(join(dir, 'worker.js'), sample);
  mkdirSync(join(dir, 'do'));
  writeFileSync(join(dir, 'config.capnp'), `
    using Workerd = import "/workerd/workerd.capnp";
    const config :Workerd.Config = (
      services = [ (name = "main", worker = .w), (name = "do-disk", disk = (path = "${join(dir, 'do')}", writable = true)) ],
      sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
    );
    const w :Workerd.Worker = (
      modules = [
        (name = "worker.js", esModule = embed "worker.js"),
${modules.map((f) => `        (name = "${f}", esModule = embed "${f}"),\n`).join('')}        (name = "memsandbox.wasm", wasm = embed "memsandbox.wasm"),
      ],
      compatibilityDate = "2025-01-01",
      durableObjectNamespaces = [ (className = "SandboxObject", uniqueKey = "memsandbox-test", enableSql = true) ],
      durableObjectStorage = (localDisk = "do-disk"),
      bindings = [ (name = "SANDBOX", durableObjectNamespace = "SandboxObject") ],
    );`);
}

let log = '';
async function start() {
  proc = spawn(workerd, ['serve', join(dir, 'config.capnp')], { stdio: ['ignore', 'pipe', 'pipe'] });
  proc.on('error', (e) => { log += String(e); });
  proc.stdout.on('data', (d) => { log += d; });
  proc.stderr.on('data', (d) => { log += d; });
  for (let i = 0; i < 200 && proc.exitCode === null; i++) {
    try {
      await fetch(`http://127.0.0.1:${port}/`);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`workerd did not start:\n${log}`);
}

function stop() {
  return new Promise((resolve) => {
    if (!proc || proc.exitCode !== null) return resolve();
    proc.once('exit', resolve);
    proc.kill('SIGKILL');
  });
}

async function call(method, path, body, headers = {}) {
  const init = { method, headers: { ...headers } };
  if (body instanceof Uint8Array) {
    init.body = body;
  } else if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers['content-type'] = 'application/json';
  }
  const r = await fetch(`http://127.0.0.1:${port}${path}`, init);
  const json = await r.json();
  return { status: r.status, json };
}

async function ok(method, path, body, headers) {
  const r = await call(method, path, body, headers);
  assert.equal(r.status, 200, `${method} ${path}: ${JSON.stringify(r.json)}\n${log}`);
  return r.json;
}

before(async () => {
  port = await freePort();
  configure();
  await start();
});

after(async () => {
  await stop();
  rmSync(dir, { recursive: true, force: true });
});

test('scale-3.1 a sandbox survives workerd being killed and restarted', async () => {
  await ok('POST', '/sandbox/a/create', { seed: 7 });
  const ex = await ok('POST', '/sandbox/a/execute', { script: 'mkdir -p src && echo hi > src/f && x=42; f(){ echo fn; }; cd src' });
  assert.equal(ex.exitCode, 0, ex.stderr);
  // past one SQL row (1 MiB): a piece in two rows
  await ok('PUT', '/sandbox/a/file?path=/workspace/big', new Uint8Array(1536 * 1024).fill(97));
  const before1 = await ok('GET', '/sandbox/a/info');
  assert.equal(before1.cwd, '/workspace/src');
  await stop();
  await start();
  const after1 = await ok('GET', '/sandbox/a/info');
  assert.equal(after1.rootHash, before1.rootHash);
  assert.equal(after1.revision, before1.revision);
  const r = await ok('POST', '/sandbox/a/execute', { script: 'echo $x; f; pwd; cat f; wc -c < ../big; tr -d a < ../big | wc -c' });
  assert.equal(r.stdout, '42\nfn\n/workspace/src\nhi\n1572864\n0\n');
});

test('scale-3.2 a retried request with the same idempotency key is applied once', async () => {
  await ok('POST', '/sandbox/b/create');
  const h = { 'idempotency-key': 'append-1' };
  const first = await ok('POST', '/sandbox/b/execute', { script: 'echo once >> log; wc -l < log' }, h);
  const again = await ok('POST', '/sandbox/b/execute', { script: 'echo once >> log; wc -l < log' }, h);
  assert.deepEqual(again, first);
  assert.equal(first.stdout, '1\n');
  // keys are durable too
  await stop();
  await start();
  const third = await ok('POST', '/sandbox/b/execute', { script: 'echo once >> log; wc -l < log' }, h);
  assert.deepEqual(third, first);
  assert.equal((await ok('GET', '/sandbox/b/file?path=log')).content, 'once\n');
  const fresh = await ok('POST', '/sandbox/b/execute', { script: 'echo once >> log; wc -l < log' },
    { 'idempotency-key': 'append-2' });
  assert.equal(fresh.stdout, '2\n');
  // creating twice is a conflict; files over HTTP
  assert.equal((await call('POST', '/sandbox/b/create')).status, 409);
  await ok('PUT', '/sandbox/b/file?path=/workspace/up.bin', new Uint8Array([104, 105]));
  assert.equal((await ok('GET', '/sandbox/b/file?path=/workspace/up.bin')).content, 'hi');
  assert.equal((await call('GET', '/sandbox/nobody/info')).json.error.code, 'sandbox_not_found');
});

test('scale-3.3 a fork of a 2,000-file workspace through RPC, then independent', async () => {
  await ok('POST', '/sandbox/big/create');
  const r = await ok('POST', '/sandbox/big/execute', {
    script: 'for d in $(seq 20); do mkdir -p src/$d; for f in $(seq 100); do echo "$d $f" > src/$d/$f.txt; done; done; find . -type f | wc -l',
  });
  assert.equal(r.stdout, '2000\n');
  const parent = await ok('GET', '/sandbox/big/info');
  const forked = await ok('POST', '/sandbox/big/fork?to=big2');
  assert.equal(forked.rootHash, parent.rootHash);
  await stop();
  await start();
  assert.equal((await ok('GET', '/sandbox/big2/info')).rootHash, parent.rootHash);
  await ok('POST', '/sandbox/big2/execute', { script: 'echo changed > src/1/1.txt' });
  assert.equal((await ok('GET', '/sandbox/big/file?path=src/1/1.txt')).content, '1 1\n');
  assert.equal((await ok('GET', '/sandbox/big2/file?path=src/1/1.txt')).content, 'changed\n');
  await ok('DELETE', '/sandbox/big/');
  // the fork's pieces are its own
  assert.equal((await ok('GET', '/sandbox/big2/file?path=src/20/100.txt')).content, '20 100\n');
  assert.equal((await call('GET', '/sandbox/big/info')).json.error.code, 'sandbox_not_found');
});

test('scale-3.4 200 sandboxes in 200 objects under concurrent requests', async () => {
  const names = Array.from({ length: 200 }, (_, i) => `many${i}`);
  await Promise.all(names.map((n) => ok('POST', `/sandbox/${n}/create`)));
  const outs = await Promise.all(names.map((n) => ok('POST', `/sandbox/${n}/execute`, { script: `echo ${n} > me; cat me` })));
  assert.deepEqual(outs.map((o) => o.stdout), names.map((n) => `${n}\n`));
  const reads = await Promise.all(names.map((n) => ok('GET', `/sandbox/${n}/file?path=me`)));
  assert.deepEqual(reads.map((o) => o.content), names.map((n) => `${n}\n`));
});
