// policy.test.mjs - host policies through the JS API over the real wasm
// module: the object and text forms, command, path and operation rules,
// errors, atomic replacement, and the policy travelling with rollback and
// fork. Ids in test names ("js-pol-1") are stable.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { Sandbox, MemSandboxError, createTools } from '../../build/npm/node.js';

const WASM = process.env.MSB_WASM || new URL('../../build/npm/memsandbox.wasm', import.meta.url);
const open = (opts = {}) => Sandbox.create({ clock: 0, seed: 1, wasm: WASM, ...opts });

async function rejects(promise, code, category, match) {
  await assert.rejects(promise, (e) => {
    assert.ok(e instanceof MemSandboxError, `not a MemSandboxError: ${e}`);
    assert.equal(e.code, code, e.message);
    if (category) assert.equal(e.category, category);
    if (match) assert.match(e.message, match);
    return true;
  });
}

test('js-pol-1 create with an object policy: commands and paths', async () => {
  const sb = await open({
    files: { 'secret/key': 'K\n', 'ro/f': 'R\n', 'pub/a': 'A\n' },
    policy: {
      denyCommands: ['curl', 'wc'],
      paths: { '/workspace/secret': 'none', 'ro': 'read-only' },
    },
  });
  const r = await sb.execute('wc -l pub/a; echo "s=$?"; cat secret/key; cat ro/f; echo x > ro/f; ls');
  assert.equal(r.exitCode, 0);
  assert.equal(r.stdout, 's=126\nR\npub\nro\nsecret\n');
  assert.equal(r.stderr, 'bash: line 1: wc: command denied by policy\n'
    + 'cat: secret/key: Permission denied\n'
    + 'bash: line 1: ro/f: Permission denied\n');
  await rejects(sb.readFile('secret/key'), 'policy_denied', 'policy_denied', /path rules/);
  await rejects(sb.writeFile('ro/new', 'x'), 'policy_denied', 'policy_denied');
  assert.equal(await sb.readFile('ro/f'), 'R\n');
  await sb.writeFile('pub/b', 'ok');
  await sb.close();
});

test('js-pol-2 allow-lists: commands and operations', async () => {
  const sb = await open({ files: { f: 'hi\n' } });
  await sb.setPolicy({ allowCommands: ['cat'], allowOperations: ['execute', 'read_file'] });
  const r = await sb.execute('cat f; echo built-in; sort f');
  assert.equal(r.stdout, 'hi\nbuilt-in\n');
  assert.equal(r.stderr, 'bash: line 1: sort: command denied by policy\n');
  assert.equal(r.exitCode, 126);
  assert.equal(await sb.readFile('f'), 'hi\n');
  await rejects(sb.writeFile('g', 'x'), 'policy_denied', 'policy_denied',
    /operation write_file is denied by policy/);
  await rejects(sb.snapshot(), 'policy_denied', 'policy_denied', /create_snapshot/);
  assert.equal(await sb.execute('ls g').then((x) => x.exitCode), 126);
  await sb.close();
});

test('js-pol-3 the text form, errors naming the line, atomic replacement', async () => {
  const sb = await open();
  await sb.setPolicy('deny-op write_file\n');
  await rejects(sb.setPolicy('deny-op write_file\npath /x sometimes\n'), 'invalid_argument',
    'invalid_request', /line 2: unknown access "sometimes"/);
  // the old policy is still in force
  await rejects(sb.writeFile('a', 'x'), 'policy_denied');
  await sb.setPolicy('');
  await sb.writeFile('a', 'x');
  await assert.rejects(sb.setPolicy({ paths: { '/a': 'hidden' } }), /none, read-only or read-write/);
  await assert.rejects(sb.setPolicy({ denyCommands: ['a\nallow-op x'] }), /line breaks/);
  await assert.rejects(sb.setPolicy({ denyCommand: ['ls'] }), /unknown policy field "denyCommand"/);
  await sb.close();
});

test('js-pol-4 the policy is host state: rollback keeps it, fork copies it', async () => {
  const sb = await open({ files: { f: 'x' } });
  const cp = await sb.checkpoint();
  await sb.setPolicy({ denyCommands: ['cat'] });
  await sb.rollback(cp);
  assert.equal((await sb.execute('cat f')).exitCode, 126);
  const child = await sb.fork();
  assert.equal((await child.execute('cat f')).stderr, 'bash: line 1: cat: command denied by policy\n');
  await child.setPolicy('');
  assert.equal((await child.execute('cat f')).stdout, 'x');
  assert.equal((await sb.execute('cat f')).exitCode, 126);
  await child.close();
  await sb.close();
});

test('js-pol-5 a read-only workspace still runs read-only tools', async () => {
  const sb = await open({ files: { 'a.txt': 'one\ntwo\n' }, policy: { paths: { '/': 'read-only' } } });
  const r = await sb.execute('grep -n two a.txt; wc -l < a.txt; echo x > b.txt; mkdir d');
  assert.equal(r.stdout, '2:two\n2\n');
  assert.equal(r.stderr, 'bash: line 1: b.txt: Permission denied\n'
    + "mkdir: cannot create directory 'd': Permission denied\n");
  await sb.close();
});

// A host call or tool call is one operation: refused before anything
// changes, or carried out and reported as done. The hash or stat a write
// or read does for its own result is a step of it, not a policy decision.
const sha256 = (s) => createHash('sha256').update(s).digest('hex');

test('js-pol-6 writeFile under a denied hash or stat succeeds with its revision', async () => {
  for (const op of ['hash', 'stat']) {
    const sb = await open({ policy: { denyOperations: [op] } });
    const before = sb.revision;
    const w = await sb.writeFile('g', 'g');
    assert.deepEqual(w, { revision: before + 1, hash: sha256('g') }, op);
    assert.equal(await sb.readFile('g'), 'g');
    // the operation itself is still denied when the host asks for it
    await rejects(op === 'hash' ? sb.hash('g') : sb.stat('g'), 'policy_denied', 'policy_denied',
      new RegExp(`operation ${op} is denied by policy`));
    await sb.close();
  }
});

test('js-pol-7 the read_file and write_file tools under a denied hash or stat', async () => {
  for (const op of ['hash', 'stat']) {
    const sb = await open({ files: { 'f.txt': 'one\n' }, policy: { denyOperations: [op] } });
    await sb.symlink('f.txt', 'link');
    const tools = Object.fromEntries(createTools(sb).map((t) => [t.name, t]));
    const r = await tools.read_file.execute({ path: 'link', start_line: null, end_line: null });
    assert.equal(r.ok, true, JSON.stringify(r));
    assert.equal(r.result.content, 'one');
    assert.equal(r.result.content_hash, sha256('one\n'));
    const w = await tools.write_file.execute({ path: 'link', content: 'two\n',
      write_condition: 'content_hash_must_equal', expected_hash: sha256('one\n'),
      create_parents: false });
    assert.equal(w.ok, true, JSON.stringify(w));
    assert.equal(w.result.created, false);
    assert.equal(w.result.previous_hash, sha256('one\n'));
    assert.equal(w.result.current_hash, sha256('two\n'));
    const n = await tools.write_file.execute({ path: 'new.txt', content: 'n',
      write_condition: 'path_must_not_exist', expected_hash: null, create_parents: false });
    assert.equal(n.ok, true, JSON.stringify(n));
    assert.equal(n.result.created, true);
    assert.equal(n.result.current_hash, sha256('n'));
    assert.equal(await sb.readFile('f.txt'), 'two\n');
    await sb.close();
  }
});

test('js-pol-8 a denied operation leaves the workspace unchanged', async () => {
  const sb = await open({ files: { f: 'old' }, policy: { denyOperations: ['write_file'] } });
  const rev = sb.revision;
  const root = await sb.rootHash();
  await rejects(sb.writeFile('f', 'new'), 'policy_denied', 'policy_denied',
    /operation write_file is denied by policy/);
  await rejects(sb.writeFile('g', 'new'), 'policy_denied');
  const [, , write] = createTools(sb);
  const r = await write.execute({ path: 'f', content: 'new', write_condition: 'any_current_state',
    expected_hash: null, create_parents: false });
  assert.equal(r.ok, false);
  assert.equal(r.error.message, 'policy denied write_file: operation_denied');
  assert.equal(sb.revision, rev);
  assert.equal(await sb.rootHash(), root);
  assert.equal(await sb.readFile('f'), 'old');
  await sb.close();
});

test('js-pol-9 a refused write_file tool call is one failed operation', async () => {
  const events = [];
  const sb = await open({ files: { f: 'old' }, policy: { denyOperations: ['write_file'] },
    onEvent: (e) => events.push(e) });
  events.length = 0;
  await rejects(sb.writeFile('f', 'new'), 'policy_denied');
  const kinds = events.map((e) => `${e.kind}:${e.op ?? ''}`);
  assert.deepEqual(kinds, ['operation.started:write_file', 'policy.denied:write_file',
    'operation.failed:write_file']);
  await sb.close();
});

test('js-pol-20 denyOperations fork stops both kinds of fork (#21 item 9)', async () => {
  const events = [];
  const sb = await open({ files: { f: 'x' }, policy: { denyOperations: ['fork'] },
    onEvent: (e) => events.push(e) });
  for (const mode of ['memory', 'serialize']) {
    events.length = 0;
    await rejects(sb.fork({ mode }), 'policy_denied', 'policy_denied',
      /operation fork is denied by policy/);
    assert.deepEqual(events.map((e) => [e.kind, e.op]), [['operation.started', 'fork'],
      ['policy.denied', 'fork'], ['operation.failed', 'fork']], mode);
  }
  await sb.close();
});

test('js-pol-21 a memory fork emits operation events like the others (#21 item 9)', async () => {
  const events = [];
  const sb = await open({ files: { f: 'x' }, onEvent: (e) => events.push(e) });
  events.length = 0;
  const child = await sb.fork();
  const ops = events.filter((e) => e.op !== undefined).map((e) => [e.kind, e.op]);
  assert.deepEqual(ops, [['operation.started', 'fork'], ['operation.completed', 'fork']]);
  assert.equal((await child.execute('cat f')).stdout, 'x');
  await child.close();
  // a serialize fork's snapshot is a step of it: create_snapshot denied
  // alone does not stop the fork
  await sb.setPolicy({ denyOperations: ['create_snapshot'] });
  const child2 = await sb.fork({ mode: 'serialize' });
  assert.equal((await child2.execute('cat f')).stdout, 'x');
  await child2.close();
  await sb.close();
});
