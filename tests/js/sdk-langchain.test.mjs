// sdk-langchain.test.mjs - memsandbox/langchain against the real LangChain
// deepagents (a dev dependency): createDeepAgent with MemSandboxBackend and
// a scripted chat model (a BaseChatModel from @langchain/core) drives
// deepagents' own file and execute tools; then the backend protocol
// directly, with the results deepagents' StateBackend gives for the same
// calls where they are defined alike.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createDeepAgent, isSandboxBackend } from 'deepagents';
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage } from '@langchain/core/messages';
import { Sandbox } from '../../build/npm/node.js';
import { MemSandboxBackend } from '../../build/npm/langchain.js';

// Answers each model call with the next scripted message.
class ScriptedChatModel extends BaseChatModel {
  constructor(steps) {
    super({});
    this.steps = steps;
    this.seen = [];
  }

  _llmType() {
    return 'scripted';
  }

  bindTools() {
    return this;
  }

  async _generate(messages) {
    this.seen.push(messages);
    const message = this.steps.shift() ?? new AIMessage('(no more steps)');
    return { generations: [{ text: String(message.content), message }] };
  }
}

const call = (name, args, id) => new AIMessage({ content: '', tool_calls: [{ name, args, id, type: 'tool_call' }] });

// The text of the ToolMessage answering tool call id.
function toolText(model, id) {
  for (const msgs of model.seen) {
    const m = msgs.find((x) => x.tool_call_id === id);
    if (m) return typeof m.content === 'string' ? m.content : JSON.stringify(m.content);
  }
  return undefined;
}

test('sdk-langchain-1.1 createDeepAgent: write, edit, read, grep, glob, ls and execute', async () => {
  const sb = await Sandbox.create();
  const backend = new MemSandboxBackend(sb);
  assert.equal(isSandboxBackend(backend), true);
  const model = new ScriptedChatModel([
    call('write_file', { file_path: '/workspace/app.py', content: 'print("hi")\nx = 1\n' }, 'w'),
    call('edit_file', { file_path: '/workspace/app.py', old_string: 'x = 1', new_string: 'x = 2' }, 'e'),
    call('edit_file', { file_path: '/workspace/app.py', old_string: 'nope', new_string: 'y' }, 'e2'),
    call('read_file', { file_path: '/workspace/app.py' }, 'r'),
    call('grep', { pattern: 'x = ', path: '/workspace' }, 'g'),
    call('glob', { pattern: '**/*.py', path: '/workspace' }, 'gl'),
    call('ls', { path: '/workspace' }, 'l'),
    call('execute', { command: 'wc -l < /workspace/app.py; exit 4' }, 'x'),
    new AIMessage('all done'),
  ]);
  const agent = createDeepAgent({ model, backend });
  const out = await agent.invoke({ messages: [{ role: 'user', content: 'go' }] });
  assert.equal(out.messages.at(-1).content, 'all done');
  assert.equal(await sb.readFile('/workspace/app.py'), 'print("hi")\nx = 2\n');
  assert.match(toolText(model, 'e2'), /String not found/);
  assert.match(toolText(model, 'r'), /x = 2/);
  assert.match(toolText(model, 'g'), /app\.py/);
  assert.match(toolText(model, 'gl'), /app\.py/);
  assert.match(toolText(model, 'l'), /\/workspace\/app\.py/);
  assert.match(toolText(model, 'x'), /^2\n/);
  assert.match(toolText(model, 'x'), /4/);
  await sb.close();
});

test('sdk-langchain-1.2 backend protocol: results and errors', async () => {
  const sb = await Sandbox.create({ files: { 'a.txt': 'l1\nl2\nl3\n', 'sub/b.md': 'x: l2\n', 'img.png': '\x89PNG' } });
  const b = new MemSandboxBackend(sb);
  assert.equal(b.id, sb.id);
  assert.deepEqual(await b.read('/workspace/a.txt', 1, 1),
    { content: 'l2', mimeType: 'text/plain', totalLines: 3, startLine: 2, endLine: 2, nextOffset: 2 });
  assert.deepEqual(await b.read('/workspace/a.txt'),
    { content: 'l1\nl2\nl3\n', mimeType: 'text/plain', totalLines: 3, startLine: 1, endLine: 3, nextOffset: undefined });
  assert.deepEqual(await b.read('/workspace/none'), { error: "File '/workspace/none' not found" });
  assert.ok((await b.read('/workspace/img.png')).content instanceof Uint8Array);
  const ls = await b.ls('/workspace');
  assert.deepEqual(ls.files.map((f) => [f.path, f.is_dir]),
    [['/workspace/a.txt', false], ['/workspace/img.png', false], ['/workspace/sub/', true]]);
  assert.deepEqual(await b.ls('/nowhere'), { files: [] });
  const g = await b.grep('l2', '/workspace');
  assert.deepEqual(g.matches, [{ path: '/workspace/a.txt', line: 2, text: 'l2' },
    { path: '/workspace/sub/b.md', line: 1, text: 'x: l2' }]);
  assert.deepEqual((await b.grep('l2', '/workspace', '*.md')).matches.map((m) => m.path), ['/workspace/sub/b.md']);
  assert.deepEqual(await b.grep('l', '/workspace/a.txt', null, 2),
    { matches: [{ path: '/workspace/a.txt', line: 1, text: 'l1' }, { path: '/workspace/a.txt', line: 2, text: 'l2' }], truncated: true });
  assert.deepEqual((await b.glob('**/*.md', '/workspace')).files.map((f) => f.path), ['sub/b.md']);
  assert.deepEqual((await b.glob('*', '/workspace')).files.map((f) => f.path), ['a.txt', 'img.png', 'sub']);
  assert.deepEqual(await b.write('/workspace/new/c.txt', 'c'), { path: '/workspace/new/c.txt', filesUpdate: null });
  assert.deepEqual(await b.edit('/workspace/a.txt', 'l', 'L'),
    { error: "Multiple occurrences found in '/workspace/a.txt'. Use replaceAll=true to replace all." });
  assert.equal((await b.edit('/workspace/a.txt', 'l', 'L', true)).occurrences, 3);
  assert.deepEqual(await b.edit('/workspace/zz', 'a', 'b'), { error: "Error: File '/workspace/zz' not found" });
  const raw = await b.readRaw('/workspace/a.txt');
  assert.equal(raw.data.content, 'L1\nL2\nL3\n');
  assert.deepEqual(await b.delete('/workspace/new'), { path: '/workspace/new', filesUpdate: null });
  assert.deepEqual(await b.delete('/workspace/new'), { error: "Error: '/workspace/new' not found" });
  assert.deepEqual(await b.uploadFiles([['/workspace/u.bin', Uint8Array.of(1, 2)], ['/workspace/a.txt/x', Uint8Array.of(1)]]),
    [{ path: '/workspace/u.bin', error: null }, { path: '/workspace/a.txt/x', error: 'invalid_path' }]);
  const dl = await b.downloadFiles(['/workspace/u.bin', '/workspace/missing', '/workspace/sub']);
  assert.deepEqual([...dl[0].content], [1, 2]);
  assert.deepEqual(dl.slice(1).map((d) => [d.content, d.error]), [[null, 'file_not_found'], [null, 'is_directory']]);
  const r = await b.execute('echo out; echo err >&2; exit 3');
  assert.deepEqual(r, { output: 'out\nerr\n', exitCode: 3, truncated: false });
  await sb.close();
});
