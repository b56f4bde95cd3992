// state.test.mjs - state that travels: snapshots with the shell session,
// Sandbox.fromSnapshot, SandboxService.resume, both fork modes, atomic
// execute, and the CLI's --load/--save and REPL .save/.load. Runs against
// build/npm like the other suites (MSB_WASM picks the module).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { Sandbox, SandboxService, MemSandboxError } from '../../build/npm/node.js';

const open = (opts = {}) => Sandbox.create({ clock: 0, seed: 1, ...opts });
const bin = fileURLToPath(new URL('../../build/npm/bin/memsandbox.js', import.meta.url));

const SETUP = "x=1; f(){ echo hi; }; cd /tmp; set -o pipefail; declare -A m=([a]=1 ['k y']=$'v\\n2'); " +
  "declare -ri n=6*7; export EX=e; alias ll='ls -l'; set -- p1 'p 2'; shopt -s globstar; " +
  'echo data > /workspace/file.txt; false';
const REPORT = 'declare -p; declare -f; pwd; set -o; shopt; alias; echo "$# $*"; echo $?';

async function report(sb) {
  const r = await sb.execute(REPORT);
  assert.equal(r.exitCode, 0, r.stderr);
  return r.stdout;
}

test('state-1.1 a snapshot carries the shell session into a fresh sandbox', async () => {
  const a = await open();
  const r = await a.execute(SETUP);
  assert.equal(r.exitCode, 1);
  const snap = await a.snapshot();
  const b = await Sandbox.fromSnapshot(snap, { clock: 0 });
  const want = await report(a);
  assert.equal(await report(b), want);
  assert.match(want, /declare -A m=\(\[a\]="1" \["k y"\]=/);
  assert.match(want, /f \(\) \n\{ \n    echo hi\n\}/);
  assert.match(want, /\/tmp\n/);
  assert.match(want, /pipefail\s+on/);
  assert.equal((await b.execute('f; echo $n $EX; cat /workspace/file.txt')).stdout, 'hi\n42 e\ndata\n');
  assert.equal((await b.execute('n=1')).exitCode, 1, 'readonly survives');
  // equal states give equal bytes
  assert.deepEqual(await b.snapshot(), await (await Sandbox.fromSnapshot(snap)).snapshot());
  // the session is in MEMSANDBOX.* pax records of the global header
  const tar = gunzipSync(snap).toString('latin1');
  assert.match(tar, /\d+ MEMSANDBOX\.format=2\n/);
  assert.match(tar, /\d+ MEMSANDBOX\.var\.x=- 1\n/);
  assert.match(tar, /\d+ MEMSANDBOX\.set=braceexpand hashall pipefail\n/);
  await a.close();
  await b.close();
});

test('state-1.2 fromSnapshot applies files, cwd and env on top; bad archives are rejected', async () => {
  const a = await open({ files: { '/workspace/keep.txt': 'k' } });
  await a.execute('y=2; cd /tmp');
  const snap = await a.snapshot({ level: 9 });
  const b = await Sandbox.fromSnapshot(snap, {
    files: { '/workspace/new.txt': 'n' }, cwd: '/workspace', env: { E: 'v' } });
  const r = await b.execute('echo $y $E; pwd; cat keep.txt new.txt');
  assert.equal(r.stdout, '2 v\n/workspace\nkn');
  await assert.rejects(Sandbox.fromSnapshot(new Uint8Array([1, 2, 3])), (e) => {
    assert.ok(e instanceof MemSandboxError);
    assert.match(e.message, /archive rejected/);
    return true;
  });
  // a restore that fails leaves the session as it was
  const bad = Buffer.from(gunzipSync(snap));
  const at = bad.indexOf('MEMSANDBOX.var.y=- 2');
  assert.ok(at > 0);
  bad.write('MEMSANDBOX.var.y=-Q2', at, 'latin1');
  await assert.rejects(b.restore(bad), /unknown attribute/);
  assert.equal((await b.execute('echo $y $E; pwd')).stdout, '2 v\n/workspace\n');
  await a.close();
  await b.close();
});

test('state-1.3 SandboxService.resume gives a handle; fork modes both copy the session', async () => {
  const svc = new SandboxService({ clock: 0, seed: 3 });
  const { handle, sandbox } = await svc.create();
  await sandbox.execute(SETUP);
  const want = await report(sandbox);
  const snap = await sandbox.snapshot();
  const resumed = await svc.resume(snap);
  assert.notEqual(resumed.handle, handle);
  assert.equal(resumed.handle, resumed.sandbox.id);
  assert.equal(await report(svc.get(resumed.handle)), want);
  for (const mode of ['memory', 'serialize']) {
    const f = await svc.fork(handle, { mode });
    assert.equal(await report(f.sandbox), want, mode);
    assert.equal(await f.sandbox.rootHash(), await sandbox.rootHash(), mode);
    await f.sandbox.execute('x=changed; rm /workspace/file.txt');
    assert.equal((await sandbox.execute('echo $x; cat /workspace/file.txt')).stdout, '1\ndata\n', mode);
    await svc.delete(f.handle);
  }
  await assert.rejects(sandbox.fork({ mode: 'teleport' }), /unknown fork mode/);
  await svc.close();
});

test('state-1.4 atomic execute rolls back files and session and says so', async () => {
  const sb = await open();
  await sb.execute('x=1; cd /tmp');
  let r = await sb.execute('x=2; cd /; unset -f nothing; g(){ :; }; touch /workspace/t; exit 5',
    { atomic: true });
  assert.equal(r.exitCode, 5);
  assert.equal(r.rolledBack, true);
  r = await sb.execute('echo $x; pwd; type g 2>&1; ls /workspace');
  assert.equal(r.stdout, '1\n/tmp\nbash: line 1: type: g: not found\n');
  r = await sb.execute('x=3', { atomic: true });
  assert.equal(r.rolledBack, false);
  assert.equal((await sb.execute('echo $x')).stdout, '3\n');
  const id = await sb.checkpoint();
  await sb.execute('x=4; cd /; set -e');
  await sb.rollback(id);
  assert.equal((await sb.execute('echo $x; pwd; echo $-')).stdout, '3\n/tmp\nhBc\n');
  await sb.close();
});

test('state-1.5 CLI --save/--load and the REPL .save/.load commands', () => {
  const dir = mkdtempSync(join(tmpdir(), 'msb-state-'));
  try {
    const file = join(dir, 's.tgz');
    let r = spawnSync(process.execPath, [bin, '--save', file, '-c', 'z=9; cd /tmp; echo x > /workspace/a'],
      { encoding: 'utf8', input: '' });
    assert.equal(r.status, 0, r.stderr);
    r = spawnSync(process.execPath, [bin, '--load', file, '-c', 'echo $z; pwd; cat /workspace/a'],
      { encoding: 'utf8', input: '' });
    assert.equal(r.stdout, '9\n/tmp\nx\n');
    const file2 = join(dir, 'r.tgz');
    const input = `w=5\ncd /tmp\n.save ${file2}\nw=6\n.load ${file2}\necho w=$w\n.nope\n.help\nexit\n`;
    r = spawnSync('script', ['-qec', `${process.execPath} ${bin}`, '/dev/null'],
      { input, encoding: 'utf8', timeout: 60000, env: { ...process.env, HOME: dir, TERM: 'dumb' } });
    const screen = r.stdout.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '');
    assert.match(screen, new RegExp(`saved ${file2}`));
    assert.match(screen, /w=5/);
    assert.match(screen, /unknown REPL command/);
    assert.match(screen, /\.load FILE/);
    assert.ok(readFileSync(file2).length > 0);
    r = spawnSync(process.execPath, [bin, '--load', join(dir, 'missing.tgz'), '-c', 'true'],
      { encoding: 'utf8', input: '' });
    assert.equal(r.status, 125);
    writeFileSync(join(dir, 'junk.tgz'), 'junk');
    r = spawnSync(process.execPath, [bin, '--load', join(dir, 'junk.tgz'), '-c', 'true'],
      { encoding: 'utf8', input: '' });
    assert.equal(r.status, 125);
    assert.match(r.stderr, /archive rejected/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('state-1.6 a fork into a closed fork\'s memory holds only its parent\'s state', async () => {
  const sb = await open({ files: { '/workspace/p.txt': 'parent\n' } });
  // a little heap to spare, so the first fork's commands need not grow it
  await sb.execute('v=parent; x=$(printf "%20000s"); unset x');
  const first = await sb.fork();
  await first.execute('v=first; echo secret > /workspace/s.txt; echo big > /tmp/b; ' +
    'alias q=true');
  const before = await sb.rootHash();
  const reused = first._inst.memory;
  await first.close();
  // same size as the parent: the next fork takes the closed one's memory
  for (let i = 0; i < 3; i++) {
    const f = await sb.fork();
    if (i === 0) assert.equal(f._inst.memory, reused, 'the closed fork\'s memory is reused');
    assert.equal(await f.rootHash(), before);
    const r = await f.execute('echo "$v"; ls /workspace /tmp; alias; cat p.txt');
    assert.equal(r.stdout, 'parent\n/tmp:\n\n/workspace:\np.txt\nparent\n');
    await f.execute(`v=f${i}; echo x > /workspace/f${i}`);
    await f.close();
  }
  // a closed fork that grew (not the parent's size) is not reused
  const g = await sb.fork();
  await g.execute('head -c 30000000 /dev/zero > /tmp/z; rm /tmp/z');
  await g.close();
  const h = await sb.fork();
  assert.equal((await h.execute('echo "$v"; ls /tmp')).stdout, 'parent\n');
  await h.close();
  await sb.close();
});
