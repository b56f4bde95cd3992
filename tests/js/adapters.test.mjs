// adapters.test.mjs - memsandbox/openai and memsandbox/ai: the shapes the
// OpenAI Agents SDK's tool() and the Vercel AI SDK's tool()/jsonSchema()
// take, produced without either SDK. The helpers are stood in for by
// functions with the SDKs' documented contracts (tool() of `ai` returns its
// argument; jsonSchema() wraps the schema with the vercel.ai.schema mark).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Sandbox } from '../../build/npm/node.js';
import { openaiTools, openaiToolDefinitions } from '../../build/npm/openai.js';
import { aiTools } from '../../build/npm/ai.js';

const open = () => Sandbox.create({ clock: 0, seed: 1, files: { 'a.txt': 'hello\n' } });

function noMinLength(schema) {
  return !JSON.stringify(schema).includes('minLength');
}

test('adapters-1.1 openai: tool() options with strict JSON Schema; execute returns the envelope text', async () => {
  const sb = await open();
  const defs = openaiToolDefinitions(sb, { sessionId: 's' });
  assert.deepEqual(defs.map((d) => d.name), ['execute', 'read_file', 'write_file', 'apply_patch']);
  for (const d of defs) {
    assert.equal(d.strict, true);
    assert.equal(d.parameters.additionalProperties, false);
    assert.ok(noMinLength(d.parameters));
    assert.equal(typeof d.description, 'string');
  }
  const text = await defs[1].execute({ path: 'a.txt', start_line: null, end_line: null });
  assert.equal(typeof text, 'string');
  const env = JSON.parse(text);
  assert.equal(env.ok, true);
  assert.equal(env.result.content, 'hello');
  assert.equal(Object.keys(env.result).join(), Object.keys(env.result).sort().join());
  // bad input is a model-readable envelope, not an exception
  assert.equal(JSON.parse(await defs[0].execute({ cmd: 'ls' })).error.code, 'invalid_tool_input');
  // with the SDK's helper: each definition goes through it
  const seen = [];
  const wrapped = openaiTools(sb, { tool: (d) => { seen.push(d.name); return { type: 'function', ...d }; } });
  assert.deepEqual(seen, ['execute', 'read_file', 'write_file', 'apply_patch']);
  assert.equal(wrapped[0].type, 'function');
  assert.deepEqual(openaiTools(sb).map((d) => d.name), seen);
  assert.throws(() => openaiTools(sb, { tool: 'nope' }), TypeError);
  await sb.close();
});

test('adapters-1.2 ai: tools object keyed by name, AI SDK schemas, envelopes as values', async () => {
  const sb = await open();
  const mark = Symbol.for('vercel.ai.schema');
  const tools = aiTools(sb);
  assert.deepEqual(Object.keys(tools), ['execute', 'read_file', 'write_file', 'apply_patch']);
  for (const t of Object.values(tools)) {
    assert.equal(t.inputSchema[mark], true);
    assert.equal(t.inputSchema.jsonSchema.type, 'object');
    assert.deepEqual(t.inputSchema.validate({ x: 1 }), { success: true, value: { x: 1 } });
  }
  const env = await tools.execute.execute({ command: 'cat a.txt', timeout_seconds: null, max_output_bytes: null }, { toolCallId: 'c1', messages: [] });
  assert.equal(env.ok, true);
  assert.equal(env.result.stdout, 'hello\n');
  const w = await tools.write_file.execute({ path: 'a.txt', content: 'x', write_condition: 'nope' });
  assert.equal(w.error.code, 'invalid_tool_input');
  // the SDK's own helpers are used when given
  const calls = [];
  const withSdk = aiTools(sb, {
    tool: (d) => { calls.push('tool'); return d; },
    jsonSchema: (s) => { calls.push('jsonSchema'); return { [mark]: true, jsonSchema: s, validate: undefined }; },
  });
  assert.equal(calls.filter((c) => c === 'tool').length, 4);
  assert.equal(calls.filter((c) => c === 'jsonSchema').length, 4);
  assert.equal(withSdk.read_file.inputSchema.jsonSchema.properties.path.type, 'string');
  assert.throws(() => aiTools(sb, { jsonSchema: 1 }), TypeError);
  await sb.close();
});

test('adapters-1.3 openai: Shell for shellTool and Editor for applyPatchTool', async () => {
  const { openaiShell, openaiEditor } = await import('../../build/npm/openai.js');
  const sb = await open();
  const shell = openaiShell(sb);
  const r = await shell.run({ commands: ['cat a.txt', 'cd /tmp; pwd; nope'], maxOutputLength: 4 });
  assert.deepEqual(r, { maxOutputLength: 4, output: [
    { stdout: 'hell', stderr: '', outcome: { type: 'exit', exitCode: 0 } },
    { stdout: '/tmp', stderr: 'bash', outcome: { type: 'exit', exitCode: 127 } }] });
  assert.equal((await shell.run({ commands: ['pwd'] })).output[0].stdout, '/tmp\n');
  await assert.rejects(shell.run({ commands: 'ls' }), TypeError);
  const ed = openaiEditor(sb);
  // operations carry headerless V4A diffs (integrations.md §1.3)
  assert.deepEqual(await ed.createFile({ type: 'create_file', path: 'src/n.py', diff: '+a\n+b' }),
    { status: 'completed', output: 'Created src/n.py' });
  assert.equal(await sb.readFile('src/n.py'), 'a\nb\n');
  assert.deepEqual(await ed.updateFile({ type: 'update_file', path: 'src/n.py', diff: '@@\n a\n-b\n+B\n',
    moveTo: 'src/m.py' }), { status: 'completed', output: 'Updated src/m.py' });
  assert.equal(await sb.readFile('src/m.py'), 'a\nB\n');
  assert.equal(await sb.exists('src/n.py'), false);
  const rev = sb.revision;
  const bad = await ed.updateFile({ type: 'update_file', path: 'src/m.py', diff: '@@\n-zzz\n+y\n' });
  assert.equal(bad.status, 'failed');
  assert.match(bad.output, /src\/m\.py \(hunk #1\)/);
  assert.equal((await ed.createFile({ path: 'x\n*** Delete File: a.txt', diff: '+x' })).status, 'failed');
  assert.equal((await ed.deleteFile({ path: 'missing.txt' })).status, 'failed');
  assert.equal((await ed.deleteFile(null)).status, 'failed');
  assert.equal(sb.revision, rev);
  assert.deepEqual(await ed.deleteFile({ type: 'delete_file', path: 'src/m.py' }),
    { status: 'completed', output: 'Deleted src/m.py' });
  assert.equal(await sb.exists('a.txt'), true);
  await sb.close();
});
