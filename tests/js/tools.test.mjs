// tools.test.mjs - createTools (the four model-facing tools), their
// envelopes, Sandbox.applyPatch, and hostile arguments.
//
// Fixtures quote the reference product's recorded behaviour
// (memsandbox-spec §1.5, §1.6, §4): argument names, messages, codes,
// categories and the correctable/retryable rules. Runs against the staged
// package in build/npm; MSB_WASM picks the module. Ids are stable.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { Sandbox, MemSandboxError, createTools, toolResultText, TOOL_NAMES }
  from '../../build/npm/node.js';

const sha = (data) => createHash('sha256').update(data).digest('hex');
const open = (opts = {}) => Sandbox.create({ clock: 0, seed: 1, ...opts });

async function setup(files = {}, opts = {}) {
  const sb = await open({ files, ...opts });
  const tools = createTools(sb, { sessionId: 'sess-1' });
  const tool = (name) => tools.find((t) => t.name === name);
  const call = (name, args) => tool(name).execute(withNulls(tool(name).parameters, args));
  return { sb, tools, call, tool };
}

// Arguments as a strict-mode model sends them: an optional field it leaves
// out is null (tools-6.5 checks the tools refuse a missing one).
function withNulls(schema, args) {
  if (!args || Object.getPrototypeOf(args) !== Object.prototype) return args;
  let out;
  try {
    out = { ...args };
  } catch {
    return args; // a hostile object goes to the tool as it is
  }
  for (const [k, sub] of Object.entries(schema.properties)) {
    if (!(k in out) && Array.isArray(sub.type) && sub.type.includes('null')) out[k] = null;
  }
  return out;
}

// The reference's rule for input failures (§4.2).
const INVALID_INPUT = (tool) => ({ category: 'invalid_request', code: 'invalid_tool_input',
  message: `Invalid input for ${tool}`, correctable: true, retryable: false });

function assertError(env, expected) {
  assert.equal(env.ok, false, JSON.stringify(env));
  for (const [k, v] of Object.entries(expected)) assert.equal(env.error[k], v, `${k}: ${JSON.stringify(env)}`);
}

function assertOk(env) {
  assert.equal(env.ok, true, JSON.stringify(env));
  return env.result;
}

async function state(sb) {
  return { rev: sb.revision, hash: await sb.rootHash() };
}

test('tools-1.1 four tools with strict schemas', async () => {
  const { sb, tools } = await setup();
  assert.deepEqual(tools.map((t) => t.name), ['execute', 'read_file', 'write_file', 'apply_patch']);
  assert.deepEqual(TOOL_NAMES, ['execute', 'read_file', 'write_file', 'apply_patch']);
  const params = Object.fromEntries(tools.map((t) => [t.name, t.parameters]));
  for (const t of tools) {
    assert.equal(typeof t.description, 'string');
    assert.equal(t.parameters.type, 'object');
    assert.equal(t.parameters.additionalProperties, false);
    // strict mode: every property is listed in required
    assert.deepEqual([...t.parameters.required].sort(), Object.keys(t.parameters.properties).sort());
  }
  // argument names of §4.1
  assert.deepEqual(Object.keys(params.execute.properties), ['command', 'timeout_seconds', 'max_output_bytes']);
  assert.deepEqual(Object.keys(params.read_file.properties), ['path', 'start_line', 'end_line']);
  assert.deepEqual(Object.keys(params.write_file.properties),
    ['path', 'content', 'write_condition', 'expected_hash', 'create_parents']);
  assert.deepEqual(params.write_file.properties.write_condition.enum,
    ['any_current_state', 'path_must_not_exist', 'content_hash_must_equal']);
  assert.deepEqual(Object.keys(params.apply_patch.properties), ['patch', 'expected_hashes']);
  assert.equal(params.execute.properties.max_output_bytes.maximum, 262144);
  assert.equal(params.execute.properties.timeout_seconds.maximum, 30);
  // descriptions keep the reference's intent and state our improvements
  assert.match(tools[0].description, /not a host shell/);
  assert.match(tools[1].description, /truncated: true/);
  assert.match(tools[3].description, /V4A/);
  // the schemas handed out are copies: changing one changes nothing
  tools[0].parameters.properties.command.type = 'number';
  assert.equal(createTools(sb)[0].parameters.properties.command.type, 'string');
  await sb.close();
});

test('tools-1.2 envelope text: compact, sorted keys, ASCII escapes', () => {
  const text = toolResultText({ ok: true, result: { z: 1, a: 'é\u2028', m: [{ b: 1, a: null }] } });
  assert.equal(text, '{"ok":true,"result":{"a":"\\u00e9\\u2028","m":[{"a":null,"b":1}],"z":1}}');
  assert.ok(/^[\x20-\x7e]*$/.test(text));
});

test('tools-2.1 execute: result fields, state persists, failure codes', async () => {
  const { sb, call } = await setup({ 'a.txt': 'hello\n' });
  let r = assertOk(await call('execute', { command: 'mkdir -p src && cd src && X=1 && cat ../a.txt' }));
  assert.equal(r.exit_code, 0);
  assert.equal(r.failure_code, null);
  assert.equal(r.stdout, 'hello\n');
  assert.equal(r.stderr, '');
  assert.equal(r.stdout_original_bytes, 6);
  assert.equal(r.stdout_truncated, false);
  assert.equal(r.resulting_cwd, '/workspace/src');
  assert.equal(typeof r.duration_ms, 'number');
  assert.equal(r.metadata.session_id, 'sess-1');
  assert.match(r.metadata.operation_id, /^[1-9][0-9]*$/, 'the id its events carry');
  assert.equal(r.metadata.workspace_revision, sb.revision);
  assert.ok(!Number.isNaN(Date.parse(r.metadata.started_at)));
  assert.ok(Date.parse(r.metadata.completed_at) >= Date.parse(r.metadata.started_at));
  r = assertOk(await call('execute', { command: 'pwd; echo $X' }));
  assert.equal(r.stdout, '/workspace/src\n1\n');
  assert.deepEqual(r.environment_changes, []);
  // exported variables set, changed and unset (§4.2 environment_changes)
  r = assertOk(await call('execute', { command: 'export B=2 A="x y" C=3; NOTEXP=1' }));
  // in order of occurrence, as the reference lists them
  assert.deepEqual(r.environment_changes, [{ name: 'B', value: '2' }, { name: 'A', value: 'x y' },
    { name: 'C', value: '3' }]);
  r = assertOk(await call('execute', { command: 'unset B; export C=4 A="x y"' }));
  assert.deepEqual(r.environment_changes, [{ name: 'B', value: null }, { name: 'C', value: '4' },
    { name: 'A', value: 'x y' }]);
  assert.deepEqual(Object.entries(await sb.env()).filter(([k]) => k.length === 1), [['A', 'x y'], ['C', '4']]);
  // a non-zero exit is still ok: true, and always has a failure code
  r = assertOk(await call('execute', { command: 'nosuchcmd' }));
  assert.equal(r.exit_code, 127);
  assert.equal(r.failure_code, 'command_not_found');
  assert.equal(r.stderr, 'bash: line 1: nosuchcmd: command not found\n');
  r = assertOk(await call('execute', { command: 'grep zzz ../a.txt' }));
  assert.deepEqual([r.exit_code, r.failure_code], [1, 'no_match']);
  r = assertOk(await call('execute', { command: 'exit 3' }));
  assert.deepEqual([r.exit_code, r.failure_code], [3, 'nonzero_exit']);
  r = assertOk(await call('execute', { command: 'if then' }));
  assert.equal(r.exit_code, 2);
  assert.equal(r.failure_code, 'invalid_argument');
  await sb.close();
});

test('tools-2.2 execute: max_output_bytes cuts each stream at a character boundary', async () => {
  const { sb, call } = await setup();
  const r = assertOk(await call('execute', {
    command: 'printf "aé%.0s" {1..10}; printf "%.0se" {1..20} >&2', max_output_bytes: 5,
    timeout_seconds: 5 }));
  assert.equal(r.stdout, 'aéa'); // 4 bytes: the next "é" would not fit
  assert.equal(r.stdout_original_bytes, 30);
  assert.equal(r.stdout_truncated, true);
  assert.equal(r.stderr, 'eeeee');
  assert.equal(r.stderr_original_bytes, 20);
  assert.equal(r.stderr_truncated, true);
  await sb.close();
});

test('tools-2.3 execute: limits are results, not exceptions', async () => {
  const { sb, call } = await setup({}, { profile: 'strict' });
  const r = assertOk(await call('execute', { command: 'while true; do :; done' }));
  assert.notEqual(r.exit_code, 0);
  assert.equal(r.failure_code, 'execution_limit_exceeded');
  assert.equal(r.limit, 'max_steps');
  await sb.close();
});

test('tools-3.1 read_file: lines, totals, hash of the whole file (§4.3)', async () => {
  const { sb, call } = await setup({ 'a.txt': 'a\n', 'b.txt': 'a\n\n', 'c.txt': 'x\r\ny\rz',
    'e.txt': '', 'f.txt': 'l1\nl2\nl3\nl4\n', 'd/g.txt': 'ff\fgg\u2028hh\n' });
  let r = assertOk(await call('read_file', { path: 'a.txt' }));
  assert.deepEqual([r.content, r.start_line, r.end_line, r.total_lines], ['a', 1, 1, 1]);
  assert.equal(r.path, '/workspace/a.txt');
  assert.equal(r.content_hash, sha('a\n'));
  assert.equal(r.truncated, false);
  r = assertOk(await call('read_file', { path: 'b.txt' }));
  assert.deepEqual([r.content, r.total_lines], ['a\n', 2]);
  r = assertOk(await call('read_file', { path: 'c.txt' }));
  assert.deepEqual([r.content, r.total_lines], ['x\ny\nz', 3]);
  r = assertOk(await call('read_file', { path: 'e.txt' }));
  assert.deepEqual([r.content, r.start_line, r.end_line, r.total_lines], ['', 1, 0, 0]);
  r = assertOk(await call('read_file', { path: 'f.txt', start_line: 2, end_line: 3 }));
  assert.deepEqual([r.content, r.start_line, r.end_line, r.total_lines], ['l2\nl3', 2, 3, 4]);
  r = assertOk(await call('read_file', { path: 'f.txt', start_line: 3, end_line: 99 }));
  assert.deepEqual([r.content, r.end_line], ['l3\nl4', 4]);
  // form feed and U+2028 are not line breaks
  r = assertOk(await call('read_file', { path: 'd/g.txt' }));
  assert.equal(r.total_lines, 1);
  // relative paths follow the session's cwd
  assertOk(await call('execute', { command: 'cd d' }));
  r = assertOk(await call('read_file', { path: 'g.txt' }));
  assert.equal(r.path, '/workspace/d/g.txt');
  r = assertOk(await call('read_file', { path: '/workspace/a.txt' }));
  assert.equal(r.content, 'a');
  await sb.close();
});

test('tools-3.2 read_file: errors with the reference wording', async () => {
  const { sb, call } = await setup({ 'f.txt': 'l1\nl2\n', 'bin': new Uint8Array([0xff, 0xfe]) });
  await sb.mkdir('dir');
  assertError(await call('read_file', { path: 'f.txt', start_line: 3 }), {
    category: 'invalid_request', code: 'invalid_range',
    message: 'start line 3 is outside a 2-line file', correctable: true, retryable: false });
  assertError(await call('read_file', { path: 'nope.txt' }), {
    category: 'not_found', code: 'path_not_found', message: '/workspace/nope.txt does not exist',
    correctable: true });
  assertError(await call('read_file', { path: 'bin' }), {
    code: 'file_encoding_error', message: '/workspace/bin is not valid UTF-8' });
  assertError(await call('read_file', { path: 'dir' }), {
    code: 'not_a_file', message: '/workspace/dir is not a file' });
  assertError(await call('read_file', { path: 'f.txt', start_line: 2, end_line: 1 }), INVALID_INPUT('read_file'));
  await sb.close();
});

test('tools-3.4 paths: no "..", nothing outside /workspace (spec §3)', async () => {
  const { sb, call } = await setup({ 'a.txt': 'a\n', 'src/b.txt': 'b\n' });
  await sb.writeFile('/tmp/t.txt', 't\n');
  await sb.execute('cd src');
  const before = await state(sb);
  const traversal = { category: 'invalid_request', code: 'invalid_path',
    message: 'parent traversal is not allowed', correctable: true, retryable: false };
  const outside = { category: 'invalid_request', code: 'path_outside_workspace',
    message: 'path must be contained by /workspace', correctable: true };
  for (const path of ['../a.txt', 'x/../b.txt', '/workspace/src/../a.txt', '..']) {
    assertError(await call('read_file', { path }), traversal);
    assertError(await call('write_file', { path, content: 'x', write_condition: 'any_current_state' }),
      traversal);
  }
  for (const path of ['/tmp/t.txt', '/', '/workspace-other/x', '/etc/passwd']) {
    assertError(await call('read_file', { path }), outside);
    assertError(await call('write_file', { path, content: 'x', write_condition: 'any_current_state' }),
      outside);
  }
  assertError(await call('apply_patch', { patch: '--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+A\n',
    expected_hashes: [{ path: '../a.txt', content_hash: sha('a\n') }] }), traversal);
  // patch headers: the same rules, as invalid_patch
  const invalid = { category: 'invalid_request', code: 'invalid_patch',
    message: 'patch contains an invalid workspace path' };
  for (const patch of [
    '--- a/../a.txt\n+++ b/../a.txt\n@@ -1 +1 @@\n-a\n+A\n',
    '--- /tmp/t.txt\n+++ /tmp/t.txt\n@@ -1 +1 @@\n-t\n+T\n',
    '*** Begin Patch\n*** Add File: ../x.txt\n+x\n*** End Patch\n',
    '*** Begin Patch\n*** Update File: a.txt\n*** Move to: /tmp/moved.txt\n@@\n-a\n+A\n*** End Patch\n',
  ]) {
    assertError(await call('apply_patch', { patch }), invalid);
  }
  assert.deepEqual(await state(sb), before);
  // relative paths still resolve against the shell's directory
  const r = assertOk(await call('read_file', { path: 'b.txt' }));
  assert.equal(r.path, '/workspace/src/b.txt');
  assert.equal((await sb.applyPatch('--- /tmp/t.txt\n+++ /tmp/t.txt\n@@ -1 +1 @@\n-t\n+T\n')).files[0].path,
    '/tmp/t.txt', 'the host API is not confined');
  await sb.close();
});

test('tools-3.5 apply_patch: a link on the way must stay inside /workspace (GNU patch)', async () => {
  const { sb, call } = await setup({ 'sub/x': 'x\n' });
  await sb.writeFile('/tmp/o/x', 'o\n', { parents: true });
  await sb.symlink('/tmp/o', '/workspace/l');
  await sb.symlink('sub/x', '/workspace/f');
  await sb.symlink('sub', '/workspace/in');
  const before = await state(sb);
  const invalid = { category: 'invalid_request', code: 'invalid_patch',
    message: 'patch contains an invalid workspace path' };
  for (const patch of [
    '--- a/l/x\n+++ b/l/x\n@@ -1 +1 @@\n-o\n+pwned\n',
    '*** Begin Patch\n*** Add File: l/new\n+pwned\n*** End Patch\n',
    '*** Begin Patch\n*** Update File: f\n@@\n-x\n+pwned\n*** End Patch\n',
  ]) {
    assertError(await call('apply_patch', { patch }), invalid);
  }
  assert.deepEqual(await state(sb), before);
  assert.equal(await sb.readFile('/tmp/o/x'), 'o\n');
  // a link that stays inside is followed
  assertOk(await call('apply_patch', { patch: '--- a/in/x\n+++ b/in/x\n@@ -1 +1 @@\n-x\n+y\n' }));
  assert.equal(await sb.readFile('/workspace/sub/x'), 'y\n');
  await sb.close();
});

test('tools-3.3 read_file: large files truncate with a continuation (improvement)', async () => {
  // The reference fails this read (read_limit_exceeded); the usability
  // evaluation's 12,000-line log is the case.
  const lines = Array.from({ length: 12000 }, (_, i) => `line ${i + 1}`);
  const { sb, call } = await setup({ 'big.log': lines.join('\n') + '\n',
    'wide.txt': ('x'.repeat(1000) + '\n').repeat(400), 'one.txt': 'é'.repeat(200000) + '\nend\n' });
  let r = assertOk(await call('read_file', { path: 'big.log' }));
  assert.equal(r.total_lines, 12000);
  assert.deepEqual([r.start_line, r.end_line, r.truncated, r.next_start_line], [1, 2000, true, 2001]);
  assert.equal(r.content, lines.slice(0, 2000).join('\n'));
  r = assertOk(await call('read_file', { path: 'big.log', start_line: 11001 }));
  assert.deepEqual([r.end_line, r.truncated, r.next_start_line], [12000, false, null]);
  r = assertOk(await call('read_file', { path: 'big.log', start_line: 5, end_line: 10000 }));
  assert.deepEqual([r.end_line, r.truncated, r.next_start_line], [2004, true, 2005]);
  // byte budget: 262144 bytes hold 261 lines of 1001 bytes (the last without LF)
  r = assertOk(await call('read_file', { path: 'wide.txt' }));
  assert.deepEqual([r.end_line, r.truncated, r.next_start_line], [261, true, 262]);
  assert.ok(Buffer.byteLength(r.content) <= 262144);
  // one line over the budget: its first part, cut at a character boundary
  r = assertOk(await call('read_file', { path: 'one.txt' }));
  assert.deepEqual([r.end_line, r.truncated, r.line_truncated, r.next_start_line], [1, true, true, 2]);
  assert.equal(r.content, 'é'.repeat(131072));
  await sb.close();
});

test('tools-4.1 write_file: conditions, hashes, revisions (§1.5, §4.4)', async () => {
  const { sb, call } = await setup({ 'a.txt': 'old\n' });
  let rev = sb.revision;
  let r = assertOk(await call('write_file', { path: 'n.txt', content: 'new\n',
    write_condition: 'path_must_not_exist' }));
  assert.deepEqual([r.path, r.created, r.changed, r.previous_hash, r.current_hash],
    ['/workspace/n.txt', true, true, null, sha('new\n')]);
  assert.equal(sb.revision, rev + 1);
  assert.equal(r.metadata.workspace_revision, rev + 1);
  // identical content still changes and bumps the revision
  rev = sb.revision;
  r = assertOk(await call('write_file', { path: 'a.txt', content: 'old\n',
    write_condition: 'any_current_state', expected_hash: null, create_parents: null }));
  assert.deepEqual([r.created, r.changed, r.previous_hash, r.current_hash],
    [false, true, sha('old\n'), sha('old\n')]);
  assert.equal(sb.revision, rev + 1);
  // compare-and-swap
  r = assertOk(await call('write_file', { path: 'a.txt', content: 'v2\n',
    write_condition: 'content_hash_must_equal', expected_hash: sha('old\n') }));
  assert.equal(r.current_hash, sha('v2\n'));
  const before = await state(sb);
  assertError(await call('write_file', { path: 'a.txt', content: 'v3\n',
    write_condition: 'content_hash_must_equal', expected_hash: sha('old\n') }), {
    category: 'conflict', code: 'stale_content',
    message: '/workspace/a.txt content hash does not match the expected hash', correctable: true });
  assertError(await call('write_file', { path: 'a.txt', content: 'v3\n',
    write_condition: 'path_must_not_exist' }), {
    category: 'conflict', code: 'path_already_exists', message: '/workspace/a.txt already exists' });
  assertError(await call('write_file', { path: 'missing.txt', content: 'v3\n',
    write_condition: 'content_hash_must_equal', expected_hash: sha('x') }), {
    category: 'not_found', code: 'path_not_found', message: '/workspace/missing.txt does not exist' });
  assertError(await call('write_file', { path: 'd/e/f.txt', content: 'x',
    write_condition: 'any_current_state' }), {
    category: 'not_found', code: 'path_not_found', message: 'parent directory /workspace/d/e does not exist' });
  await sb.mkdir('dir');
  const mid = await state(sb);
  assertError(await call('write_file', { path: 'dir', content: 'x', write_condition: 'any_current_state' }), {
    code: 'not_a_file', message: '/workspace/dir is not a file' });
  // expected_hash is required iff content_hash_must_equal
  assertError(await call('write_file', { path: 'a.txt', content: 'x',
    write_condition: 'content_hash_must_equal' }), INVALID_INPUT('write_file'));
  assertError(await call('write_file', { path: 'a.txt', content: 'x',
    write_condition: 'any_current_state', expected_hash: sha('v2\n') }), INVALID_INPUT('write_file'));
  assertError(await call('write_file', { path: 'a.txt', content: 'x',
    write_condition: 'content_hash_must_equal', expected_hash: sha('v2\n').toUpperCase() }),
  INVALID_INPUT('write_file'));
  assert.deepEqual(await state(sb), mid);
  assert.equal(before.rev + 1, mid.rev);
  r = assertOk(await call('write_file', { path: 'd/e/f.txt', content: 'deep',
    write_condition: 'any_current_state', create_parents: true }));
  assert.equal(await sb.readFile('d/e/f.txt'), 'deep');
  await sb.close();
});

test('tools-4.3 hashes describe content through symbolic links', async () => {
  const { sb, call } = await setup({ 'd/a.txt': 'hi\n' });
  await sb.symlink('d/a.txt', 'l1');
  await sb.symlink('../l1', 'd/l2');
  await sb.symlink('loop', 'loop');
  await sb.symlink('nowhere.txt', 'dangling');
  let r = assertOk(await call('read_file', { path: 'd/l2' }));
  assert.deepEqual([r.content, r.content_hash], ['hi', sha('hi\n')]);
  r = assertOk(await call('write_file', { path: 'l1', content: 'v2\n',
    write_condition: 'content_hash_must_equal', expected_hash: r.content_hash }));
  assert.deepEqual([r.previous_hash, r.current_hash, r.created], [sha('hi\n'), sha('v2\n'), false]);
  assert.equal(await sb.readFile('d/a.txt'), 'v2\n');
  assertError(await call('read_file', { path: 'loop' }), { code: 'symlink_loop' });
  r = assertOk(await call('write_file', { path: 'dangling', content: 'new\n',
    write_condition: 'any_current_state' }));
  assert.deepEqual([r.created, r.previous_hash, r.current_hash], [true, null, sha('new\n')]);
  assert.equal(await sb.readFile('nowhere.txt'), 'new\n');
  await sb.close();
});

test('tools-4.2 write_file: quotas are quota_exceeded with the reference wording', async () => {
  const { sb, call } = await setup({}, { limits: { max_file_bytes: 10, max_total_bytes: 100 } });
  assertError(await call('write_file', { path: 'a', content: 'x'.repeat(11), write_condition: 'any_current_state' }), {
    category: 'quota_exceeded', code: 'file_size_limit_exceeded',
    message: 'file contains 11 bytes; limit is 10 bytes', correctable: true, retryable: false });
  await sb.close();
});

const UNIFIED = '--- a/src/app.py\n+++ b/src/app.py\n@@ -1,3 +1,3 @@\n def f():\n-    return 1\n+    return 2\n \n';
const V4A = '*** Begin Patch\n*** Add File: docs/new.md\n+# New\n*** Update File: src/app.py\n' +
  '@@ def f():\n-    return 1\n+    return 3\n*** Delete File: old.txt\n' +
  '*** Update File: notes.txt\n*** Move to: archive/notes.txt\n@@\n-draft\n+final\n*** End Patch\n';
const APP = 'def f():\n    return 1\n\nprint(f())\n';

test('tools-5.1 apply_patch: unified diff, files with hashes, one revision', async () => {
  const { sb, call } = await setup({ 'src/app.py': APP });
  const rev = sb.revision;
  const r = assertOk(await call('apply_patch', { patch: UNIFIED }));
  assert.deepEqual(r.files, [{ path: '/workspace/src/app.py', op: 'update', moved_from: undefined,
    previous_hash: sha(APP), current_hash: sha(APP.replace('return 1', 'return 2')) }]);
  assert.equal(sb.revision, rev + 1);
  assert.equal(r.metadata.workspace_revision, rev + 1);
  assert.equal(await sb.readFile('src/app.py'), APP.replace('return 1', 'return 2'));
  await sb.close();
});

test('tools-5.2 apply_patch: V4A add, update, delete, move in one atomic step', async () => {
  const { sb, call } = await setup({ 'src/app.py': APP, 'old.txt': 'bye\n', 'notes.txt': 'draft\n' });
  const rev = sb.revision;
  const r = assertOk(await call('apply_patch', { patch: V4A, expected_hashes: [
    { path: 'src/app.py', content_hash: sha(APP) }, { path: 'notes.txt', content_hash: sha('draft\n') }] }));
  assert.deepEqual(r.files.map((f) => [f.op, f.path, f.moved_from ?? null]), [
    ['add', '/workspace/docs/new.md', null], ['update', '/workspace/src/app.py', null],
    ['delete', '/workspace/old.txt', null], ['move', '/workspace/archive/notes.txt', '/workspace/notes.txt']]);
  assert.deepEqual(r.files.map((f) => [f.previous_hash, f.current_hash]), [
    [null, sha('# New\n')], [sha(APP), sha(APP.replace('return 1', 'return 3'))],
    [sha('bye\n'), null], [sha('draft\n'), sha('final\n')]]);
  assert.equal(sb.revision, rev + 1);
  assert.equal(await sb.readFile('archive/notes.txt'), 'final\n');
  assert.equal(await sb.exists('notes.txt'), false);
  assert.equal(await sb.exists('old.txt'), false);
  await sb.close();
});

test('tools-5.3 apply_patch: failures change nothing and name file and hunk', async () => {
  const { sb, call } = await setup({ 'src/app.py': APP, 'old.txt': 'bye\n', 'notes.txt': 'draft\n' });
  const before = await state(sb);
  // the last file fails: the earlier ones are not applied either
  const bad = V4A.replace('-draft', '-nothing');
  assertError(await call('apply_patch', { patch: bad }), { category: 'conflict',
    code: 'patch_context_mismatch', correctable: true });
  assert.match((await call('apply_patch', { patch: bad })).error.message, /notes\.txt \(hunk #1\)/);
  assertError(await call('apply_patch', { patch: UNIFIED.replace(' def f():', ' def g():') }), {
    code: 'patch_context_mismatch',
    message: 'patch context for src/app.py does not match at line 1 (hunk #1)' });
  assertError(await call('apply_patch', { patch: '--- a/x\n+++ b/x\n@@ -1 +1 @@\n?x\n' }), {
    category: 'invalid_request', code: 'invalid_patch' });
  assertError(await call('apply_patch', { patch: 'not a patch\n' }), {
    code: 'invalid_patch', message: 'patch contains no file changes' });
  assertError(await call('apply_patch', { patch: '*** Begin Patch\n*** Update File: missing.txt\n@@\n-a\n+b\n*** End Patch\n' }), {
    category: 'not_found' });
  // expected hashes (§1.6)
  assertError(await call('apply_patch', { patch: UNIFIED, expected_hashes: [
    { path: 'other.txt', content_hash: sha('x') }] }), {
    code: 'invalid_patch', message: 'expected hash supplied for a path not present in the patch' });
  assertError(await call('apply_patch', { patch: UNIFIED, expected_hashes: [
    { path: 'src/app.py', content_hash: sha('stale') }] }), {
    category: 'conflict', code: 'stale_content',
    message: '/workspace/src/app.py content hash does not match the expected hash' });
  assertError(await call('apply_patch', { patch: UNIFIED, expected_hashes: [
    { path: 'src/app.py', content_hash: sha(APP) }, { path: './src/app.py', content_hash: sha(APP) }] }),
  INVALID_INPUT('apply_patch'));
  // size limit (§1.6)
  const huge = UNIFIED + ' '.repeat(1048576);
  assertError(await call('apply_patch', { patch: huge }), { code: 'invalid_patch',
    message: `patch contains ${huge.length} bytes; limit is 1048576 bytes` });
  assert.deepEqual(await state(sb), before);
  await sb.close();
});

test('tools-5.4 Sandbox.applyPatch: options, dry run, MemSandboxError', async () => {
  const sb = await open({ files: { 'd/a.txt': 'x\ny\nz\nq\n' } });
  const p = '--- a.txt\n+++ a.txt\n@@ -1,2 +1,2 @@\n z\n-q\n+Q\n';
  const rev = sb.revision;
  // offset search by default; exact refuses a hunk away from its line
  await assert.rejects(sb.applyPatch(p, { cwd: '/workspace/d', exact: true }),
    (e) => e instanceof MemSandboxError && e.code === 'patch_context_mismatch');
  let r = await sb.applyPatch(p, { cwd: '/workspace/d', dryRun: true });
  assert.equal(r.files[0].op, 'update');
  assert.equal(sb.revision, rev);
  r = await sb.applyPatch(new TextEncoder().encode(p), { cwd: '/workspace/d',
    expectedHashes: { 'a.txt': sha('x\ny\nz\nq\n') } });
  assert.equal(r.revision, rev + 1);
  assert.equal(await sb.readFile('d/a.txt'), 'x\ny\nz\nQ\n');
  await assert.rejects(sb.applyPatch(p, { cwd: 'relative' }), (e) => e.code === 'invalid_argument');
  await assert.rejects(sb.applyPatch(42), (e) => e.code === 'invalid_argument');
  await assert.rejects(sb.applyPatch(p, { expectedHashes: { 'a.txt': 'zz' } }),
    (e) => e.code === 'invalid_argument');
  await sb.close();
});

test('tools-6.1 hostile arguments: ok:false, handlers never throw, nothing changes', async () => {
  const { sb, tools, call } = await setup({ 'a.txt': 'a\n' });
  const before = await state(sb);
  const cases = [
    ['execute', undefined], ['execute', null], ['execute', 42], ['execute', []], ['execute', 'nope{'],
    ['execute', {}], ['execute', { command: '' }], ['execute', { command: 7 }],
    ['execute', { command: 'true', extra: 1 }], ['execute', { command: 'true', timeout_seconds: 0 }],
    ['execute', { command: 'true', timeout_seconds: 31 }], ['execute', { command: 'true', max_output_bytes: 1.5 }],
    ['execute', { command: 'true', max_output_bytes: 262145 }], ['execute', { command: 'true', timeout_seconds: NaN }],
    ['execute', { command: 'true', timeout_seconds: Infinity }], ['execute', JSON.parse('{"command":"true","__proto__":{"x":1}}')],
    ['read_file', { path: 'a.txt', start_line: 0 }], ['read_file', { path: 'a.txt', start_line: -1 }],
    ['read_file', { path: 'a.txt', start_line: 1.5 }], ['read_file', { path: 'a.txt', start_line: '1' }],
    ['read_file', { path: ['a.txt'] }], ['read_file', { path: { toString: () => 'a.txt' } }],
    ['write_file', { path: 'b.txt', content: 'x' }], ['write_file', { path: 'b.txt', content: 'x', write_condition: 'sometimes' }],
    ['write_file', { path: 'b.txt', content: new Uint8Array(1), write_condition: 'any_current_state' }],
    ['write_file', { path: 'b.txt', content: 'x', write_condition: 'any_current_state', create_parents: 'yes' }],
    ['apply_patch', { patch: UNIFIED, expected_hashes: {} }], ['apply_patch', { patch: UNIFIED, expected_hashes: [{ path: 'a' }] }],
    ['apply_patch', { patch: UNIFIED, expected_hashes: [{ path: 'a', content_hash: sha('a'), x: 1 }] }],
    ['apply_patch', { patch: null }],
    ['apply_patch', new Proxy({}, { ownKeys() { throw new Error('boom'); } })],
    ['write_file', { path: 'b.txt', content: 'x\ud800', write_condition: 'any_current_state' }],
    ['apply_patch', { patch: UNIFIED + '\udc00' }],
  ];
  for (const [name, args] of cases) {
    const env = await call(name, args);
    assertError(env, INVALID_INPUT(name));
    assert.equal('details' in env.error, false, 'the reference\'s keys only');
  }
  // NUL bytes in paths: invalid_path, nothing written
  for (const env of [
    await call('read_file', { path: 'a\0.txt' }),
    await call('read_file', { path: 'a\ud800.txt' }),
    await call('write_file', { path: 'b\0.txt', content: 'x', write_condition: 'any_current_state' }),
    await call('apply_patch', { patch: UNIFIED, expected_hashes: [{ path: 'src/app.py\0', content_hash: sha('a') }] }),
  ]) {
    assertError(env, { category: 'invalid_request', code: 'invalid_path' });
    assert.match(env.error.message, /^path must (not contain NUL|be valid UTF-8 text)$/);
  }
  assertError(await call('apply_patch', { patch: '--- a\0\n' }), { code: 'invalid_patch' });
  // huge strings are refused by limits, not by crashing
  assertError(await call('write_file', { path: 'x'.repeat(5000), content: 'x', write_condition: 'any_current_state' }), {
    category: 'invalid_request', code: 'invalid_path' });
  assertError(await call('read_file', { path: 'a/'.repeat(100000) }), { correctable: true });
  assert.deepEqual(await state(sb), before);
  // a closed sandbox: envelopes, no exceptions
  await sb.close();
  const argsFor = { execute: { command: 'true' }, read_file: { path: 'a.txt' },
    write_file: { path: 'a.txt', content: 'x', write_condition: 'any_current_state' },
    apply_patch: { patch: UNIFIED } };
  for (const t of tools) {
    const env = await t.execute(withNulls(t.parameters, argsFor[t.name]));
    assertError(env, { code: 'session_closed' });
  }
});

test('tools-6.2 internal failures are redacted with a correlation id', async () => {
  const fake = {
    execute: async () => { throw new TypeError('secret host detail'); },
    applyPatch: async () => ({ files: [], revision: 0 }),
    env: async () => ({}), revision: 0, cwd: '/workspace',
  };
  const [execute] = createTools(fake);
  const env = await execute.execute({ command: 'true', timeout_seconds: null, max_output_bytes: null });
  assertError(env, { category: 'internal', code: 'internal_error',
    message: 'The sandbox operation failed unexpectedly', correctable: false, retryable: false });
  assert.match(env.error.correlation_id, /^[0-9a-f-]{36}$/);
  assert.ok(!JSON.stringify(env).includes('secret'));
  assert.throws(() => createTools({}), TypeError);
  assert.throws(() => createTools(fake, { maxReadLines: 0 }), TypeError);
});

test('tools-6.4 parallel calls on one sandbox run one at a time, in order', async () => {
  const { sb, call } = await setup();
  const tools2 = createTools(sb);
  const results = await Promise.all([
    call('execute', { command: 'export A=1; echo one > f.txt' }),
    tools2[2].execute({ path: 'f.txt', content: 'two\n', write_condition: 'any_current_state',
      expected_hash: null, create_parents: null }),
    call('execute', { command: 'export B=2; cat f.txt' }),
    call('read_file', { path: 'f.txt' }),
  ]);
  assert.deepEqual(results[0].result.environment_changes, [{ name: 'A', value: '1' }]);
  assert.equal(results[1].result.previous_hash, sha('one\n'));
  assert.deepEqual(results[2].result.environment_changes, [{ name: 'B', value: '2' }]);
  assert.equal(results[2].result.stdout, 'two\n');
  assert.equal(results[3].result.content, 'two');
  await sb.close();
});

test('tools-6.3 arguments as a JSON string (as some SDKs pass them)', async () => {
  const { sb, call } = await setup({ 'a.txt': 'a\n' });
  const r = assertOk(await call('read_file', '{"path":"a.txt","start_line":null,"end_line":null}'));
  assert.equal(r.content, 'a');
  await sb.close();
});

test('tools-7.1 secrets: bound to execute and redacted, refused by write_file and apply_patch', async () => {
  const sb = await open({ files: { 'a.txt': 'x\n' } });
  const tools = createTools(sb, { secrets: { TOKEN: 's3cr3t-value' } });
  const call = (name, args) => {
    const t = tools.find((x) => x.name === name);
    return t.execute(withNulls(t.parameters, args));
  };
  const run = assertOk(await call('execute', { command: 'echo "[$TOKEN]"; printf %s "$TOKEN" | wc -c' }));
  assert.equal(run.stdout, '[[REDACTED]]\n12\n');
  const before = await state(sb);
  assertError(await call('write_file', { path: 'b.txt', content: 'key=s3cr3t-value\n',
    write_condition: 'any_current_state', expected_hash: null, create_parents: false }),
    { category: 'policy_denied', code: 'protected_value_rejected',
      message: 'write_file: protected values cannot be persisted' });
  const patch = '*** Begin Patch\n*** Add File: c.txt\n+s3cr3t-value\n*** End Patch\n';
  assertError(await call('apply_patch', { patch }),
    { category: 'policy_denied', code: 'protected_value_rejected' });
  assert.deepEqual(await state(sb), before);
  // inside execute the core refuses the write, and the file the
  // redirection made goes too: nothing is written
  const w = assertOk(await call('execute', { command: 'echo "$TOKEN" > d.txt' }));
  assert.equal(w.exit_code, 1);
  assert.equal(await sb.exists('d.txt'), false);
  assert.throws(() => createTools(sb, { secrets: { T: '' } }), TypeError);
  await sb.close();
});
