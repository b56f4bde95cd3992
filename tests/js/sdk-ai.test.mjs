// sdk-ai.test.mjs - memsandbox/ai against the real Vercel AI SDK (`ai` 7
// and @ai-sdk/harness, dev dependencies): generateText with the SDK's mock
// model calls our tools and a tool that works through the
// Experimental_SandboxSession it receives, results fed back to the model;
// the session and the harness provider behave as their interfaces say.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateText, jsonSchema, stepCountIs, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { Sandbox } from '../../build/npm/node.js';
import { aiSandboxSession, aiTools, memsandboxProvider } from '../../build/npm/ai.js';

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

function calls(...list) {
  return {
    content: list.map(([toolName, input], i) => ({ type: 'tool-call', toolCallId: `c${i}`,
      toolName, input: JSON.stringify(input) })),
    finishReason: { unified: 'tool-calls', raw: undefined }, usage, warnings: [],
  };
}

const text = (t) => ({ content: [{ type: 'text', text: t }],
  finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] });

// The tool results the model saw in its last call, by tool name.
function results(model) {
  const last = model.doGenerateCalls.at(-1).prompt;
  const out = {};
  for (const m of last.filter((p) => p.role === 'tool')) {
    for (const part of m.content) out[part.toolName] = part.output;
  }
  return out;
}

test('sdk-ai-1.1 generateText: our tools and experimental_sandbox through a mock model', async () => {
  const sb = await Sandbox.create({ files: { 'a.txt': 'one\ntwo\n' } });
  const session = aiSandboxSession(sb);
  const model = new MockLanguageModelV4({ doGenerate: [
    calls(['execute', { command: 'cat a.txt; false', timeout_seconds: null, max_output_bytes: null }],
      ['count_lines', { path: 'a.txt' }],
      ['read_file', { path: 'nope.txt', start_line: null, end_line: null }]),
    text('two lines'),
  ] });
  const count = tool({
    description: 'Counts lines with the sandbox session',
    inputSchema: jsonSchema({ type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }),
    execute: async ({ path }, { experimental_sandbox: box }) => {
      const r = await box.run({ command: `wc -l < ${path}` });
      return { lines: Number(r.stdout.trim()) };
    },
  });
  const r = await generateText({
    model, prompt: 'count', experimental_sandbox: session, stopWhen: stepCountIs(3),
    tools: { ...aiTools(sb, { tool, jsonSchema }), count_lines: count },
  });
  assert.equal(r.text, 'two lines');
  const seen = results(model);
  assert.equal(seen.count_lines.value.lines, 2);
  assert.equal(seen.execute.value.result.stdout, 'one\ntwo\n');
  assert.equal(seen.execute.value.result.exit_code, 1);
  // the model gets the envelope without ids and timestamps; the app keeps them
  assert.equal(seen.execute.value.result.metadata, undefined);
  const full = r.steps[0].toolResults.find((t) => t.toolName === 'execute').output;
  assert.equal(typeof full.result.metadata.operation_id, 'string');
  assert.equal(seen.read_file.value.ok, false);
  assert.equal(seen.read_file.value.error.code, 'path_not_found');
  await sb.close();
});

test('sdk-ai-1.2 session: fixed base, files, stat, listing, spawn with stdin', async () => {
  const sb = await Sandbox.create();
  const s = aiSandboxSession(sb);
  assert.equal((await s.run({ command: 'cd /tmp && pwd' })).stdout, '/tmp\n');
  assert.equal((await s.run({ command: 'pwd' })).stdout, '/workspace\n');
  assert.equal((await s.run({ command: 'pwd', workingDirectory: '/tmp' })).stdout, '/tmp\n');
  assert.equal((await s.run({ command: 'echo $X', env: { X: 'y' } })).stdout, 'y\n');
  await s.writeTextFile({ path: 'd/e/f.txt', content: 'l1\nl2\nl3\n' });
  assert.equal(await s.readTextFile({ path: 'd/e/f.txt', startLine: 2, endLine: 9 }), 'l2\nl3\n');
  assert.equal(await s.readTextFile({ path: '/workspace/d/e/f.txt', endLine: 1 }), 'l1\n');
  assert.equal(await s.readTextFile({ path: 'missing' }), null);
  assert.equal(await s.readBinaryFile({ path: 'missing' }), null);
  await s.writeBinaryFile({ path: 'b.bin', content: Uint8Array.of(0, 1, 2) });
  assert.deepEqual([...await s.readBinaryFile({ path: 'b.bin' })], [0, 1, 2]);
  const stream = await s.readFile({ path: 'b.bin' });
  assert.deepEqual([...new Uint8Array(await new Response(stream).arrayBuffer())], [0, 1, 2]);
  await s.writeFile({ path: 's.txt', content: new Blob(['str', 'eam']).stream() });
  assert.equal(await s.readTextFile({ path: 's.txt' }), 'stream');
  await assert.rejects(s.writeTextFile({ path: 'd', content: 'x' }));
  assert.deepEqual(await s.stat({ path: 'd' }), { type: 'directory', size: (await sb.stat('/workspace/d')).size });
  assert.deepEqual(await s.stat({ path: 's.txt' }), { type: 'file', size: 6 });
  assert.equal(await s.stat({ path: 'zzz' }), null);
  await sb.symlink('s.txt', '/workspace/link');
  assert.deepEqual(await s.listDirectory({ path: '.' }),
    [{ name: 'b.bin', type: 'file' }, { name: 'd', type: 'directory' },
      { name: 'link', type: 'symlink' }, { name: 's.txt', type: 'file' }]);
  assert.equal(await s.listDirectory({ path: 'zzz' }), null);
  assert.equal(await s.deleteFile({ path: 's.txt' }), true);
  assert.equal(await s.deleteFile({ path: 's.txt' }), false);
  const p = await s.spawn({ command: 'tr a-z A-Z; echo err >&2; exit 3', stdin: true });
  const w = p.stdin.getWriter();
  await w.write(new TextEncoder().encode('abc\n'));
  await w.close();
  assert.deepEqual(await p.wait(), { exitCode: 3 });
  assert.equal(await new Response(p.stdout).text(), 'ABC\n');
  assert.equal(await new Response(p.stderr).text(), 'err\n');
  const q = await s.spawn({ command: 'echo hi' });
  assert.equal(await new Response(q.stdout).text(), 'hi\n');
  const ac = new AbortController();
  ac.abort(new Error('stop'));
  await assert.rejects(s.run({ command: 'echo', abortSignal: ac.signal }), /stop/);
  await sb.close();
});

test('sdk-ai-1.3 harness provider: sessions, restricted view, no ports, stop', async () => {
  const provider = memsandboxProvider({ limits: { max_steps: 100000 } });
  assert.equal(provider.specificationVersion, 'harness-sandbox-v1');
  let setup = 0;
  const s = await provider.createSession({ sessionId: 'abc', onFirstCreate: async (box) => {
    setup++;
    await box.writeTextFile({ path: 'boot.txt', content: 'ready' });
  } });
  assert.equal(setup, 1);
  assert.equal(s.id, 'abc');
  assert.equal(s.defaultWorkingDirectory, '/workspace');
  assert.deepEqual(s.ports, []);
  const r = s.restricted();
  assert.equal(r.stop, undefined);
  assert.equal(await r.readTextFile({ path: 'boot.txt' }), 'ready');
  await assert.rejects(s.getPortEndpoint({ port: 3000 }), /no network/);
  await s.stop();
  await s.destroy();
  await assert.rejects(r.run({ command: 'true' }));
});
