// events.test.mjs - events through the JS API over the real wasm module:
// lifecycle events, the started/terminal pair of every operation, ids and
// ordering, policy and limit events, snapshots, and what events never
// contain. Ids in test names ("js-ev-1") are stable.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Sandbox, SandboxService } from '../../build/npm/node.js';

const WASM = process.env.MSB_WASM || new URL('../../build/npm/memsandbox.wasm', import.meta.url);
const open = (opts = {}) => Sandbox.create({ clock: 0, seed: 1, wasm: WASM, ...opts });

test('js-ev-1 lifecycle and one operation, in order', async () => {
  const events = [];
  const sb = await open({ onEvent: (e) => events.push(e) });
  await sb.writeFile('a.txt', 'hello');
  await sb.close();
  // writeFile's hash of the new content is a step: one operation, as in
  // the reference (§1.11), with its lifecycle events, all in one sequence
  assert.deepEqual(events, [
    { seq: 1, kind: 'sandbox.created', sandbox: sb.id },
    { seq: 2, kind: 'sandbox.started', sandbox: sb.id },
    { seq: 3, kind: 'operation.started', operation: 1, op: 'write_file',
      paths: ['/workspace/a.txt'], sandbox: sb.id },
    { seq: 4, kind: 'operation.completed', operation: 1, op: 'write_file', revision: 1,
      paths: ['/workspace/a.txt'], bytes: { written: 5 }, sandbox: sb.id },
    { seq: 5, kind: 'sandbox.closing', sandbox: sb.id },
    { seq: 6, kind: 'sandbox.closed', sandbox: sb.id },
  ]);
});

test('js-ev-2 every operation: started then exactly one terminal event', async () => {
  const events = [];
  const sb = await open({ files: { f: 'x' }, onEvent: (e) => events.push(e) });
  await sb.execute('echo hi; cat f');
  await sb.stat('f');
  await sb.list('.');
  await assert.rejects(sb.readFile('missing'));
  const cp = await sb.checkpoint();
  await sb.rollback(cp);
  await sb.copy('f', 'g');
  await sb.move('g', 'h');
  await sb.remove('h');
  await sb.close();
  const ops = new Map();
  let seq = 0;
  for (const e of events) {
    if (e.seq !== undefined) {
      assert.ok(e.seq > seq, 'seq strictly increases');
      seq = e.seq;
    }
    if (e.operation === undefined) continue;
    const o = ops.get(e.operation) ?? { started: 0, terminal: 0, op: e.op };
    if (e.kind === 'operation.started') o.started++;
    if (e.kind === 'operation.completed' || e.kind === 'operation.failed') {
      assert.equal(o.started, 1, 'terminal after started');
      o.terminal++;
    }
    ops.set(e.operation, o);
  }
  for (const [id, o] of ops) {
    assert.equal(o.started, 1, `operation ${id} started once`);
    assert.equal(o.terminal, 1, `operation ${id} ended once`);
  }
  const kinds = [...ops.values()].map((o) => o.op);
  for (const k of ['execute', 'stat', 'list_entries', 'read_file', 'checkpoint', 'rollback',
    'copy_path', 'move_path', 'remove_path']) assert.ok(kinds.includes(k), k);
  const failed = events.find((e) => e.kind === 'operation.failed');
  assert.equal(failed.op, 'read_file');
  assert.equal(failed.code, 'MSB_ENOENT');
  const exec = events.find((e) => e.kind === 'operation.completed' && e.op === 'execute');
  assert.equal(exec.exit_code, 0);
  assert.deepEqual(exec.bytes, { stdout: 4, stderr: 0 });
});

test('js-ev-3 events carry counts and paths, never contents or text', async () => {
  const events = [];
  const sb = await open({ onEvent: (e) => events.push(e) });
  await sb.writeFile('note.txt', 'TOPSECRETCONTENT');
  await sb.execute('X=ENVVALUE; echo STDOUTTEXT; echo $X >&2; cat note.txt',
    { env: { TOKEN: 'ENVBOUND' } });
  await sb.readFile('note.txt');
  await sb.close();
  const text = JSON.stringify(events);
  for (const s of ['TOPSECRETCONTENT', 'ENVVALUE', 'STDOUTTEXT', 'ENVBOUND', 'echo']) {
    assert.ok(!text.includes(s), `events leak ${s}`);
  }
  assert.ok(text.includes('/workspace/note.txt'));
});

test('js-ev-4 policy, limit and snapshot events', async () => {
  const events = [];
  const sb = await open({
    limits: { max_steps: 100 },
    files: { 's/k': 'k' },
    policy: { denyCommands: ['curl'], paths: { s: 'none' }, denyOperations: ['remove_path'] },
    onEvent: (e) => events.push(e),
  });
  await sb.execute('curl x; cat s/k; while :; do :; done');
  await assert.rejects(sb.remove('s/k'));
  const snap = await sb.snapshot();
  await sb.restore(snap);
  await sb.close();
  const pick = (kind) => events.filter((e) => e.kind === kind);
  const denied = pick('policy.denied').map((e) => [e.op, e.reason, e.count]);
  assert.deepEqual(denied, [['execute', 'command', 1], ['execute', 'path', 1],
    ['remove_path', 'operation', undefined]]);
  assert.deepEqual(pick('limit.exceeded').map((e) => [e.op, e.limit]), [['execute', 'max_steps']]);
  assert.equal(pick('snapshot.created').length, 1);
  assert.equal(pick('snapshot.created')[0].bytes.written, snap.length);
  assert.equal(pick('snapshot.restored').length, 1);
  const rm = events.filter((e) => e.op === 'remove_path').map((e) => e.kind);
  assert.deepEqual(rm, ['operation.started', 'policy.denied', 'operation.failed']);
});

test('js-ev-5 paths with control bytes arrive intact', async () => {
  const events = [];
  const sb = await open({ onEvent: (e) => events.push(e) });
  await sb.writeFile('we"ird\nname\t\u00e9', 'x');
  await sb.close();
  assert.deepEqual(events.find((e) => e.kind === 'operation.started').paths, ['/workspace/we"ird\nname\t\u00e9']);
});

test('js-ev-6 service handles are the events\' sandbox ids; forks get their own', async () => {
  const events = [];
  const svc = new SandboxService({ clock: 0, seed: 1, wasm: WASM, onEvent: (e) => events.push(e) });
  const { handle, sandbox } = await svc.create();
  await sandbox.writeFile('a', 'b');
  const fork = await svc.fork(handle);
  await fork.sandbox.execute('true');
  await svc.close();
  assert.ok(events.filter((e) => e.sandbox === handle).length >= 3);
  const created = events.find((e) => e.kind === 'sandbox.created' && e.sandbox === fork.handle);
  assert.deepEqual(created, { seq: 1, kind: 'sandbox.created', forkedFrom: handle, sandbox: fork.handle });
  assert.ok(events.some((e) => e.sandbox === fork.handle && e.op === 'execute'));
  assert.equal(events.filter((e) => e.kind === 'sandbox.closed').length, 2);
});
