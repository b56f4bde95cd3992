// policy.test.mjs - host policies through the JS API over the real wasm
// module: the object and text forms, command, path and operation rules,
// errors, atomic replacement, and the policy travelling with rollback and
// fork. Ids in test names ("js-pol-1") are stable.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Sandbox, MemSandboxError } from '../../build/npm/node.js';

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
