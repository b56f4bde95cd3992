// execute.test.mjs - Sandbox.execute and the state operations around it
// (checkpoints, snapshots, forks of a running session), over the real
// module. Like sandbox.test.mjs it runs once per wasm build (MSB_WASM).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { Sandbox, MemSandboxError } from '../../build/npm/node.js';

const open = (opts = {}) => Sandbox.create({ clock: 0, seed: 1, ...opts });

test('exec-1.1 stdout, stderr, exit status, cwd and revision', async () => {
  const sb = await open();
  const r = await sb.execute('echo out; echo err >&2; mkdir d; cd d; exit 7');
  assert.equal(r.stdout, 'out\n');
  assert.equal(r.stderr, 'err\n');
  assert.equal(r.exitCode, 7);
  assert.equal(r.cwd, '/workspace/d');
  assert.equal(r.revision, 1, 'one command changed something: one revision');
  assert.equal(r.stdoutTruncated, false);
  assert.equal(r.limit, null);
  assert.equal(typeof r.durationMs, 'number');
  await sb.close();
});

test('exec-1.1b revisions count mutations, as the reference: one per command that changed something', async () => {
  const sb = await open();
  const r0 = sb.revision;
  let r = await sb.execute('mkdir a; mkdir b; touch c');
  assert.equal(r.revision, r0 + 3);
  r = await sb.execute('mkdir m && rm -r m');
  assert.equal(r.revision, r0 + 5);
  r = await sb.execute('ls; cat c; X=1; cd a; cd ..; true');
  assert.equal(r.revision, r0 + 5, 'a run that changes nothing leaves the revision');
  r = await sb.execute('mkdir -p a; rm -f nothere; chmod 644 c');
  assert.equal(r.revision, r0 + 5, 'commands that change nothing are no revision');
  r = await sb.execute('echo x > f; echo y >> f; f() { mkdir p; mkdir q; }; f; eval "rm -r p q"');
  assert.equal(r.revision, r0 + 10, 'a redirection is its command\'s; a function or eval counts its commands');
  assert.equal(sb.revision, r.revision);
  await sb.close();
});

test('exec-1.2 the session persists: cwd, variables, functions', async () => {
  const sb = await open();
  await sb.execute('cd /tmp; X=42; f() { echo "f:$1"; }');
  const r = await sb.execute('pwd; echo $X; f a');
  assert.equal(r.stdout, '/tmp\n42\nf:a\n');
  const fresh = await sb.execute('echo "[$X]"; pwd', { fresh: true });
  assert.equal(fresh.stdout, '[]\n/workspace\n');
  assert.equal((await sb.execute('echo $X')).stdout, '42\n', 'fresh state leaves the session');
  await sb.close();
});

test('exec-1.3 stdin, per-call env and cwd, bytes encoding', async () => {
  const sb = await open({ directories: ['sub'] });
  let r = await sb.execute('tr a-z A-Z', { stdin: 'hello\n' });
  assert.equal(r.stdout, 'HELLO\n');
  r = await sb.execute('echo "$GREETING"; pwd', { env: { GREETING: 'hi there' }, cwd: '/workspace/sub' });
  assert.equal(r.stdout, 'hi there\n/workspace/sub\n');
  r = await sb.execute("printf '\\377\\000x'", { encoding: 'bytes' });
  assert.deepEqual(r.stdout, new Uint8Array([255, 0, 120]));
  await assert.rejects(sb.execute('true', { env: { 'BAD NAME': 'x' } }),
    (e) => e instanceof MemSandboxError && e.category === 'invalid_request');
  await sb.close();
});

test('exec-1.4 files written by the shell are visible to the host and back', async () => {
  const sb = await open({ files: { 'in.txt': 'b\na\nc\n' } });
  await sb.execute('sort in.txt > out.txt');
  assert.equal(await sb.readFile('out.txt'), 'a\nb\nc\n');
  await sb.writeFile('in.txt', 'z\n');
  assert.equal((await sb.execute('cat in.txt')).stdout, 'z\n');
  await sb.close();
});

test('exec-1.5 syntax errors and unknown commands are results, bash-worded', async () => {
  const sb = await open();
  let r = await sb.execute('echo (');
  assert.equal(r.exitCode, 2);
  assert.match(r.stderr, /syntax error/);
  r = await sb.execute('nosuchcmd');
  assert.equal(r.exitCode, 127);
  assert.match(r.stderr, /nosuchcmd: command not found/);
  assert.equal(sb.parseCheck('if true; then'), 'incomplete');
  assert.equal(sb.parseCheck('echo ok'), 'complete');
  assert.equal(sb.parseCheck('fi'), 'error');
  await sb.close();
});

test('exec-1.6 limits stop a runaway loop and truncate output, as results', async () => {
  const sb = await open({ limits: { max_steps: 5000, max_output_bytes: 100 } });
  let r = await sb.execute('while true; do :; done');
  assert.notEqual(r.exitCode, 0);
  assert.equal(r.limit, 'max_steps');
  r = await sb.execute('for i in $(seq 1 100); do echo line $i; done');
  assert.equal(r.stdoutTruncated, true);
  assert.equal(r.stdout.length, 100);
  assert.ok(r.stdoutBytes > 100);
  assert.equal(sb.state, 'RUNNING');
  await sb.close();
});

test('exec-1.7 atomic runs roll back the workspace on failure', async () => {
  const sb = await open({ files: { keep: 'v1' } });
  const rev = sb.revision;
  const r = await sb.execute('echo v2 > keep; touch new; false', { atomic: true });
  assert.equal(r.rolledBack, true);
  assert.equal(await sb.readFile('keep'), 'v1');
  assert.equal(await sb.exists('new'), false);
  assert.equal(sb.revision, rev);
  const ok = await sb.execute('echo v3 > keep', { atomic: true });
  assert.equal(ok.rolledBack, false);
  assert.equal(await sb.readFile('keep'), 'v3\n');
  await sb.close();
});

test('exec-1.8 checkpoints roll back files and shell state', async () => {
  const sb = await open({ files: { f: 'one' } });
  await sb.execute('V=before');
  const id = await sb.checkpoint();
  await sb.execute('echo two > f; V=after; rm -f g');
  await sb.rollback(id);
  assert.equal(await sb.readFile('f'), 'one');
  assert.equal((await sb.execute('echo $V')).stdout, 'before\n');
  await sb.release(id);
  await assert.rejects(sb.rollback(id), MemSandboxError);
  await sb.close();
});

test('exec-1.9 snapshots are tar.gz and restore the same state elsewhere', async () => {
  const sb = await open({ files: { 'a/b.txt': 'bee\n', 'c.txt': 'sea\n' } });
  await sb.execute('cd a');
  const snap = await sb.snapshot();
  assert.equal(snap[0], 0x1f);
  assert.equal(snap[1], 0x8b);
  const tar = gunzipSync(snap);
  assert.equal(tar.subarray(257, 262).toString(), 'ustar');
  assert.deepEqual(await sb.snapshot(), snap, 'deterministic bytes');
  const other = await open();
  await other.restore(snap);
  assert.equal(await other.rootHash(), await sb.rootHash());
  assert.equal(await other.readFile('a/b.txt'), 'bee\n');
  await assert.rejects(other.restore(new Uint8Array([1, 2, 3])),
    (e) => e instanceof MemSandboxError && e.category === 'invalid_request');
  assert.equal(await other.readFile('c.txt'), 'sea\n', 'a failed restore changes nothing');
  await sb.close();
  await other.close();
});

test('exec-1.10 a fork keeps the session (cwd, variables) and diverges', async () => {
  const sb = await open();
  await sb.execute('cd /tmp; N=1');
  const child = await sb.fork();
  await child.execute('N=2; cd /');
  assert.equal((await sb.execute('echo $N; pwd')).stdout, '1\n/tmp\n');
  assert.equal((await child.execute('echo $N; pwd')).stdout, '2\n/\n');
  await sb.close();
  await child.close();
});

test('exec-1.11 create options cwd and env set up the session', async () => {
  const sb = await open({ directories: ['sub'], cwd: 'sub', env: { A: "it's $HOME" } });
  assert.equal((await sb.execute('pwd; echo "$A"')).stdout, "/workspace/sub\nit's $HOME\n");
  assert.equal((await sb.execute('pwd')).stdout, '/workspace/sub\n');
  await sb.close();
  await assert.rejects(open({ cwd: 'missing' }),
    (e) => e instanceof MemSandboxError && e.category === 'not_found');
});
