// sdk-openai.test.mjs - memsandbox/openai against the real OpenAI Agents
// SDK (@openai/agents, a dev dependency): a SandboxAgent run through
// MemSandboxClient with the SDK's ScriptedModel, no network. The model's
// tool calls go through the SDK's own capabilities (exec_command,
// apply_patch, view_image) into the sandbox, and their results come back
// to the model.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { run, setTracingDisabled } from '@openai/agents';
import { Manifest, SandboxAgent, dir, file } from '@openai/agents/sandbox';
import { ScriptedModel, assistantMessage, functionCall } from '@openai/agents/testing';
import { MemSandboxClient, MemSandboxSession } from '../../build/npm/openai.js';
import { Sandbox } from '../../build/npm/node.js';

// The text of the function_call_output the SDK sent back for callId.
function toolOutput(model, callId) {
  for (const call of model.calls) {
    const items = Array.isArray(call.request.input) ? call.request.input : [];
    const hit = items.find((i) => i.type === 'function_call_result' && i.callId === callId);
    if (hit) return typeof hit.output === 'string' ? hit.output : hit.output?.text ?? JSON.stringify(hit.output);
  }
  return undefined;
}

// A native apply_patch call, as a Responses model emits it.
function patchCall(callId, operation) {
  return { type: 'apply_patch_call', callId, status: 'completed', operation };
}

function patchOutput(model, callId) {
  for (const call of model.calls) {
    const items = Array.isArray(call.request.input) ? call.request.input : [];
    const hit = items.find((i) => i.type === 'apply_patch_call_output' && i.callId === callId);
    if (hit) return { status: hit.status, output: hit.output };
  }
  return undefined;
}

setTracingDisabled(true);

const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]);

function manifest() {
  return new Manifest({
    entries: {
      'notes.txt': file({ content: 'alpha\nbeta\n' }),
      src: dir({ children: { 'main.sh': file({ content: 'echo hi\n' }) } }),
      'pic.png': file({ content: PNG }),
    },
    environment: { GREETING: 'hello' },
  });
}

test('sdk-openai-1.1 SandboxAgent: manifest, exec_command, apply_patch, errors fed back', async () => {
  const client = new MemSandboxClient();
  let session;
  const model = new ScriptedModel([
    [functionCall('exec_command', { cmd: 'cat notes.txt; echo "$GREETING"; sh src/main.sh' }, { callId: 'c1' })],
    [functionCall('exec_command', { cmd: 'cat missing.txt', workdir: 'src' }, { callId: 'c2' })],
    [patchCall('c3', { type: 'update_file', path: 'notes.txt', diff: '@@\n alpha\n-beta\n+gamma\n' })],
    [patchCall('c5', { type: 'update_file', path: 'notes.txt', diff: '@@\n-nothere\n+x\n' })],
    [functionCall('exec_command', { cmd: 'cat notes.txt' }, { callId: 'c4' })],
    [assistantMessage('done')],
  ]);
  const agent = new SandboxAgent({ name: 'coder', model, defaultManifest: manifest() });
  const realCreate = client.create.bind(client);
  client.create = async (...a) => (session = await realCreate(...a));
  const result = await run(agent, 'edit the notes', { sandbox: { client } });
  assert.equal(result.finalOutput, 'done');
  assert.ok(session instanceof MemSandboxSession);
  const c1 = toolOutput(model, 'c1');
  assert.match(c1, /Process exited with code 0/);
  assert.match(c1, /alpha\nbeta\nhello\nhi\n/);
  const c2 = toolOutput(model, 'c2');
  assert.match(c2, /Process exited with code 1/);
  assert.match(c2, /cat: missing.txt: No such file or directory/);
  assert.deepEqual(patchOutput(model, 'c3'), { status: 'completed', output: 'Updated notes.txt' });
  assert.equal(patchOutput(model, 'c5').status, 'failed');
  assert.match(patchOutput(model, 'c5').output, /notes.txt/);
  assert.match(toolOutput(model, 'c4'), /alpha\ngamma\n/);
  model.assertComplete();
});

test('sdk-openai-1.2 session: read, list, images, persist/hydrate, host-only entries refused', async () => {
  const client = new MemSandboxClient({ clock: 0 });
  const s = await client.create({ manifest: manifest() });
  assert.equal(client.backendId, 'memsandbox');
  assert.equal(new TextDecoder().decode(await s.readFile({ path: 'notes.txt' })), 'alpha\nbeta\n');
  assert.equal((await s.readFile({ path: '/workspace/notes.txt', maxBytes: 3 })).length, 3);
  assert.deepEqual((await s.listDir({ path: '.' })).map((e) => [e.name, e.type]),
    [['notes.txt', 'file'], ['pic.png', 'file'], ['src', 'dir']]);
  assert.equal(await s.pathExists('src/main.sh'), true);
  assert.equal(await s.pathExists('nope'), false);
  assert.equal(await s.directoryExists('src'), true);
  const img = await s.viewImage({ path: 'pic.png' });
  assert.equal(img.type, 'image');
  assert.equal(img.image.mediaType, 'image/png');
  await assert.rejects(s.viewImage({ path: 'notes.txt' }), /not a PNG, JPEG, GIF or WebP image/);
  const r = await s.exec({ cmd: 'seq 1 1000', maxOutputTokens: 10 });
  assert.match(r.output, /tokens truncated/);
  assert.ok(r.output.length < 100);
  const saved = await s.persistWorkspace();
  await s.exec({ cmd: 'rm notes.txt' });
  await s.hydrateWorkspace(saved);
  assert.equal(await s.pathExists('notes.txt'), true);
  // a RunState round trip: serialize, then resume in a new sandbox
  const state = await client.serializeSessionState(s.state);
  const resumed = await client.resume(await client.deserializeSessionState(JSON.parse(JSON.stringify(state))));
  assert.equal(new TextDecoder().decode(await resumed.readFile({ path: 'notes.txt' })), 'alpha\nbeta\n');
  await resumed.close();
  const editor = s.createEditor();
  assert.equal((await editor.createFile({ type: 'create_file', path: 'new.txt', diff: '+x\n' })).status, 'completed');
  assert.equal((await s.exec({ cmd: 'cat new.txt' })).stdout, 'x\n');
  await s.close();
  assert.equal(await s.running(), false);
  await assert.rejects(client.create({ manifest: new Manifest({ entries: { a: { type: 'local_file', src: '/etc/passwd' } } }) }),
    /manifest entry \/workspace\/a of type local_file needs the host/);
  // an existing sandbox wrapped directly
  const sb = await Sandbox.create();
  const own = new MemSandboxSession(sb);
  assert.equal((await own.exec({ cmd: 'pwd' })).stdout, '/workspace\n');
  await own.close();
});
