// contract.test.mjs - the reference product's tool and event contract
// (issue 22; memsandbox-spec §1.5, §1.6, §1.11, §2.5, §4): quotas,
// failure codes, operations and events, environment changes, error
// envelopes and patches, with the reference's expected values. Runs
// against the staged package in build/npm; MSB_WASM picks the module.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Sandbox, createTools } from '../../build/npm/node.js';

const open = (opts = {}) => Sandbox.create({ clock: 0, seed: 1, ...opts });

async function setup(opts = {}, toolOpts = {}) {
  const sb = await open(opts);
  const tools = createTools(sb, toolOpts);
  const call = (name, args) => tools.find((t) => t.name === name).execute(args);
  return { sb, tools, call };
}

test('contract-6.1 max_nodes counts the workspace the user sees: 3 allows two files', async () => {
  for (const warm of [false, true]) {
    const { sb, call } = await setup({ limits: { max_nodes: 3 } });
    if (warm) await sb.execute('true'); // installs /usr/bin, /bin, /dev
    const w = (path) => call('write_file', { path, content: 'x', write_condition: 'any_current_state' });
    assert.equal((await w('a')).ok, true);
    assert.equal((await w('b')).ok, true);
    const e = await w('c');
    assert.equal(e.ok, false);
    assert.deepEqual({ code: e.error.code, category: e.error.category, message: e.error.message },
      { code: 'node_limit_exceeded', category: 'quota_exceeded',
        message: 'workspace contains 4 nodes; limit is 3 nodes' });
    await sb.close();
  }
});

test('contract-6.2 built-in nodes and /tmp itself are not counted; files in /tmp are', async () => {
  const sb = await open({ limits: { max_nodes: 3 } });
  let r = await sb.execute('ls /usr/bin | wc -l >/dev/null; touch /tmp/t; touch a; touch b');
  assert.equal(r.exitCode, 1);
  assert.match(r.stderr, /touch: cannot touch 'b': Disk quota exceeded/);
  r = await sb.execute('rm /tmp/t; touch b && echo ok');
  assert.equal(r.stdout, 'ok\n');
  await sb.close();
});

test('contract-4.1 failure_code is what failed, recorded where it failed', async () => {
  const { sb, call } = await setup({ files: { f: 'a\n' } });
  const cases = [
    ['cat missing', 1, 'workspace_failure'],
    ['grep zz missing', 2, 'workspace_failure'],
    ['mkdir f', 1, 'workspace_failure'],
    ['cd /nope', 1, 'workspace_failure'],
    ['grep zz f', 1, 'no_match'],
    ['echo hi | grep zz', 1, 'no_match'],
    ['f() { grep zz f; }; f', 1, 'no_match'],
    ['nosuch', 127, 'command_not_found'],
    ['echo x > /workspace/nope/x', 1, 'redirection_failure'],
    ['grep zz nope > /workspace/nope/x', 1, 'redirection_failure'],
    ['ls --bogus', 2, 'invalid_argument'],
    ['sort -k', 2, 'invalid_argument'],
    ['grep "[" f', 2, 'invalid_argument'],
    ['export 1a=2', 1, 'invalid_argument'],
    ['grep a f; cat nope', 1, 'workspace_failure'],
    ['cat nope; grep zz f', 1, 'no_match'],
    ['cat nope; echo ok', 0, null],
    ['false', 1, 'nonzero_exit'],
    ['cat f >/dev/null; exit 3', 3, 'nonzero_exit'],
    ['while :; do :; done', 124, 'execution_limit_exceeded'],
  ];
  for (const [command, exit, code] of cases) {
    const env = await call('execute', { command });
    assert.equal(env.ok, true, command);
    assert.deepEqual([env.result.exit_code, env.result.failure_code], [exit, code], command);
  }
  await sb.close();
});

test('contract-7.1 one operation per tool call; its id is the events\'; session_id is the sandbox id', async () => {
  const events = [];
  const sb = await open({ files: { 'a.txt': 'one\n' }, onEvent: (e) => events.push(e) });
  const t1 = createTools(sb);
  const t2 = createTools(sb);
  const call = (tools, name, args) => tools.find((t) => t.name === name).execute(args);
  const sha = (await call(t1, 'read_file', { path: 'a.txt' })).result.content_hash;
  const calls = [
    ['execute', { command: 'echo hi; cat a.txt >/dev/null' }],
    ['read_file', { path: 'a.txt' }],
    ['write_file', { path: 'b.txt', content: 'b', write_condition: 'any_current_state' }],
    ['apply_patch', { patch: '--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+two\n',
      expected_hashes: [{ path: 'a.txt', content_hash: sha }] }],
  ];
  const stale = ['apply_patch', { patch: '--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-two\n+three\n',
    expected_hashes: [{ path: 'a.txt', content_hash: sha }] }];
  for (const [name, args] of calls) {
    for (const tools of [t1, t2]) {
      events.length = 0;
      const env = await call(tools, name, tools === t2 && name === 'apply_patch' ? stale[1] : args);
      if (name === 'apply_patch' && tools === t2) {
        // the guard no longer holds: a failed operation, with its id
        assert.equal(env.ok, false);
        assert.equal(env.error.code, 'stale_content');
        const ops = events.filter((e) => e.operation !== undefined);
        assert.deepEqual(ops.map((e) => [e.kind, e.op]),
          [['operation.started', 'apply_patch'], ['operation.failed', 'apply_patch']]);
        assert.equal(env.error.operation_id, String(ops[0].operation));
        continue;
      }
      assert.equal(env.ok, true, JSON.stringify(env));
      const ops = events.filter((e) => e.operation !== undefined);
      assert.deepEqual(ops.map((e) => [e.kind, e.op]),
        [['operation.started', name], ['operation.completed', name]], name);
      assert.equal(env.result.metadata.operation_id, String(ops[0].operation), name);
      assert.equal(env.result.metadata.session_id, sb.id, name);
      assert.equal(ops[1].revision, env.result.metadata.workspace_revision, name);
    }
  }
  await sb.close();
  assert.deepEqual(events.slice(-2).map((e) => e.kind), ['sandbox.closing', 'sandbox.closed']);
});

test('contract-7.2 lifecycle events: started after created; no operation for a bad path', async () => {
  const events = [];
  const sb = await open({ onEvent: (e) => events.push(e) });
  assert.deepEqual(events.map((e) => e.kind), ['sandbox.created', 'sandbox.started']);
  const [read] = createTools(sb).filter((t) => t.name === 'read_file');
  const env = await read.execute({ path: '../x' });
  assert.equal(env.ok, false);
  assert.deepEqual(Object.keys(env.error).sort(), ['category', 'code', 'correctable', 'message', 'retryable']);
  assert.equal(events.some((e) => e.kind === 'operation.started'), false);
  await sb.close();
});

test('contract-8.1 environment_changes in order of occurrence, set then unset included', async () => {
  const { sb, call } = await setup();
  const run = async (command) => (await call('execute', { command })).result.environment_changes;
  assert.deepEqual(await run('export B=2; export A=1; unset B; export C=3'),
    [{ name: 'B', value: '2' }, { name: 'A', value: '1' }, { name: 'B', value: null },
      { name: 'C', value: '3' }]);
  assert.deepEqual(await run('export T=1; unset T'), [{ name: 'T', value: '1' }, { name: 'T', value: null }]);
  assert.deepEqual(await run('for i in 1 2 3; do export N=$i; done; Y=local'), [{ name: 'N', value: '3' }],
    'a name keeps its last value');
  assert.deepEqual(await run('A=9; export -n C; echo $A'), [{ name: 'A', value: '9' }, { name: 'C', value: null }]);
  assert.deepEqual(await run('true'), []);
  await sb.close();
});

test('contract-3.1 error envelopes are the reference\'s objects; our codes behind errorCodes', async () => {
  const events = [];
  const sb = await open({ files: { f: 'x' }, policy: { denyOperations: ['write_file'] },
    onEvent: (e) => events.push(e) });
  const ref = createTools(sb);
  const ours = createTools(sb, { errorCodes: 'memsandbox' });
  const call = (tools, name, args) => tools.find((t) => t.name === name).execute(args);
  const write = { path: 'g', content: 'g', write_condition: 'any_current_state' };
  events.length = 0;
  let env = await call(ref, 'write_file', write);
  // the operation exists before the policy decides (§1.3): the denial
  // carries its id, the one its events carry
  const ops = events.filter((e) => e.operation !== undefined);
  assert.deepEqual(ops.map((e) => [e.kind, e.op]), [['operation.started', 'write_file'],
    ['policy.denied', 'write_file'], ['operation.failed', 'write_file']]);
  assert.deepEqual(env.error, { category: 'policy_denied', code: 'session_policy_denied',
    message: 'policy denied write_file: operation_denied', correctable: false, retryable: false,
    operation_id: String(ops[0].operation) });
  assert.equal(await sb.exists('g'), false);
  env = await call(ours, 'write_file', write);
  assert.equal(env.error.code, 'policy_denied');
  assert.match(env.error.message, /operation write_file is denied by policy/);
  env = await call(ref, 'read_file', { path: 'a'.repeat(256) });
  assert.deepEqual(env.error, { category: 'invalid_request', code: 'invalid_path',
    message: 'path segment exceeds 255 UTF-8 bytes', correctable: true, retryable: false });
  env = await call(ref, 'read_file', { path: 'a/'.repeat(2100) });
  assert.deepEqual(env.error, { category: 'invalid_request', code: 'invalid_path',
    message: 'path exceeds 4096 UTF-8 bytes', correctable: true, retryable: false });
  await sb.close();
  env = await call(ref, 'read_file', { path: 'f' });
  assert.equal(env.error.code, 'session_closed');
  assert.equal((await call(ours, 'read_file', { path: 'f' })).error.code, 'sandbox_closed');
});

test('contract-9.1 apply_patch applies unified diffs as the reference does', async () => {
  const { sb, call } = await setup({ files: { crlf: 'a\r\nb\r\nc\r\n', nonl: 'a\nb', empty: '',
    bin: new Uint8Array([0xff, 0x0a]), f: 'one\n\ntwo\n' } });
  const patch = async (p) => call('apply_patch', { patch: p });
  const ok = async (p, file, want) => {
    const env = await patch(p);
    assert.equal(env.ok, true, JSON.stringify(env));
    assert.equal(await sb.readFile(file), want);
  };
  const fails = async (p, code, message) => {
    const env = await patch(p);
    assert.equal(env.ok, false);
    assert.deepEqual([env.error.code, env.error.message], [code, message]);
  };
  // CRLF file, LF patch: matched, the file keeps CRLF; then a CRLF patch
  await ok('--- a/crlf\n+++ b/crlf\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n', 'crlf', 'a\r\nB\r\nc\r\n');
  await ok('--- a/crlf\r\n+++ b/crlf\r\n@@ -2 +2 @@\r\n-B\r\n+b\r\n', 'crlf', 'a\r\nb\r\nc\r\n');
  // the last line without a newline, no marker: changed, still none
  await ok('--- a/nonl\n+++ b/nonl\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n', 'nonl', 'a\nB');
  await ok('--- a/empty\n+++ b/empty\n@@ -0,0 +1 @@\n+first\n', 'empty', 'first');
  await fails('--- a/f\n+++ b/g\n@@ -1 +1 @@\n-one\n+ONE\n', 'invalid_patch',
    'patch names f and g: renaming is not supported');
  await fails('--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n-one\n+ONE\n\n two\n', 'invalid_patch',
    'hunk line 6 is empty; a blank context line is a single space');
  await fails('--- a/bin\n+++ b/bin\n@@ -1 +1 @@\n-x\n+y\n', 'file_encoding_error',
    '/workspace/bin is not valid UTF-8');
  await fails('', 'invalid_patch', 'patch contains no file sections');
  assert.equal(await sb.readFile('f'), 'one\n\ntwo\n');
  // the patch command keeps GNU's byte semantics
  const r = await sb.execute("printf -- '--- a/bin\\n+++ b/bin\\n@@ -1 +1 @@\\n-\\377\\n+y\\n' | patch -p1 && cat bin");
  assert.deepEqual([r.exitCode, r.stdout], [0, 'patching file bin\ny\n']);
  await sb.close();
});

test('contract-9.3 a guarded patch whose file changed is stale_content, even when its context no longer matches', async () => {
  const { sb, call } = await setup({ files: { a: 'one\n', b: 'x\n' } });
  const guard = (await call('read_file', { path: 'a' })).result.content_hash;
  const patch = '--- a/a\n+++ b/a\n@@ -1 +1 @@\n-one\n+two\n';
  await sb.writeFile('a', 'three\n'); // another writer: the guard is stale
  let env = await call('apply_patch', { patch, expected_hashes: [{ path: 'a', content_hash: guard }] });
  assert.deepEqual([env.error.code, env.error.category, env.error.message],
    ['stale_content', 'conflict', '/workspace/a content hash does not match the expected hash']);
  assert.ok(env.error.operation_id);
  // an up-to-date guard: the context mismatch is reported as such
  const now = (await call('read_file', { path: 'a' })).result.content_hash;
  env = await call('apply_patch', { patch, expected_hashes: [{ path: 'a', content_hash: now }] });
  assert.equal(env.error.code, 'patch_context_mismatch');
  assert.match(env.error.message, /^patch context for a does not match at line 1/);
  // and so is an unguarded one, or one whose guarded file did not change
  env = await call('apply_patch', { patch });
  assert.equal(env.error.code, 'patch_context_mismatch');
  const hb = (await call('read_file', { path: 'b' })).result.content_hash;
  env = await call('apply_patch', { patch: `${patch}--- a/b\n+++ b/b\n@@ -1 +1 @@\n-x\n+y\n`,
    expected_hashes: [{ path: 'b', content_hash: hb }] });
  assert.equal(env.error.code, 'patch_context_mismatch');
  assert.equal(await sb.readFile('a'), 'three\n');
  assert.equal(await sb.readFile('b'), 'x\n');
  await sb.close();
});

test('contract-7.3 every event carries seq, strictly increasing per sandbox, lifecycle events included', async () => {
  const events = [];
  const sb = await open({ onEvent: (e) => events.push(e) });
  await sb.execute('echo hi > f');
  await sb.writeFile('g', 'g');
  const child = await sb.fork();
  await child.execute('cat f');
  await child.close();
  await sb.close();
  for (const id of [sb.id, child.id]) {
    const mine = events.filter((e) => e.sandbox === id);
    assert.ok(mine.every((e) => Number.isInteger(e.seq) && e.seq > 0), id);
    for (let i = 1; i < mine.length; i++) assert.ok(mine[i].seq > mine[i - 1].seq, `${mine[i].kind} after ${mine[i - 1].kind}`);
  }
  const kinds = events.filter((e) => e.sandbox === sb.id).map((e) => e.kind);
  assert.deepEqual([kinds[0], kinds[1], ...kinds.slice(-2)],
    ['sandbox.created', 'sandbox.started', 'sandbox.closing', 'sandbox.closed']);
  assert.deepEqual(events.filter((e) => e.sandbox === child.id).slice(0, 2).map((e) => e.kind),
    ['sandbox.created', 'sandbox.started']);
});

test('contract-9.2 a patched file over the file limit gives the reference\'s numbers', async () => {
  const { sb, call } = await setup({ limits: { max_file_bytes: 20 }, files: { big: 'x\n' } });
  const env = await call('apply_patch', { patch: `--- a/big\n+++ b/big\n@@ -1 +1 @@\n-x\n+${'y'.repeat(30)}\n` });
  assert.deepEqual([env.error.code, env.error.message],
    ['file_size_limit_exceeded', 'file contains 31 bytes; limit is 20 bytes']);
  assert.equal(await sb.readFile('big'), 'x\n');
  await sb.close();
});

test('contract-3.2 copy or move onto itself is same_path', async () => {
  const sb = await open({ files: { f: 'x' } });
  for (const op of ['copy', 'move']) {
    await assert.rejects(sb[op]('f', './f'), (e) => e.code === 'same_path' &&
      e.category === 'invalid_request' && e.message === 'source and destination must differ');
  }
  await sb.close();
});
