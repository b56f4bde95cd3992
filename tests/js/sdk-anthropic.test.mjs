// sdk-anthropic.test.mjs - memsandbox/anthropic against the real
// @anthropic-ai/sdk (a dev dependency): the SDK's tool runner
// (client.beta.messages.toolRunner) drives the text editor, bash and memory
// tools through a scripted Messages API (the client's fetch option answers
// locally, no network); results and errors come back as tool_result
// blocks. Then the handlers directly, for the texts models expect.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import { betaMemoryTool } from '@anthropic-ai/sdk/helpers/beta/memory';
import { Sandbox } from '../../build/npm/node.js';
import { anthropicTools } from '../../build/npm/anthropic.js';

// A client whose Messages API answers with the scripted turns, recording requests.
function scriptedClient(turns) {
  const requests = [];
  const fetch = async (_url, init) => {
    requests.push(JSON.parse(init.body));
    const content = turns.shift();
    const stop = content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn';
    return new Response(JSON.stringify({ id: `msg_${requests.length}`, type: 'message', role: 'assistant',
      model: 'claude-test', content, stop_reason: stop, stop_sequence: null,
      usage: { input_tokens: 1, output_tokens: 1 } }), { headers: { 'content-type': 'application/json' } });
  };
  return { client: new Anthropic({ apiKey: 'test', fetch, maxRetries: 0 }), requests };
}

const use = (id, name, input) => ({ type: 'tool_use', id, name, input });

// The tool_result blocks the requests carried, by tool_use id.
function results(requests) {
  const out = {};
  for (const m of requests.flatMap((r) => r.messages)) {
    for (const b of Array.isArray(m.content) ? m.content : []) {
      if (b.type === 'tool_result') out[b.tool_use_id] = b;
    }
  }
  return out;
}

test('sdk-anthropic-1.1 tool runner: editor, bash and memory through a scripted model', async () => {
  const sb = await Sandbox.create({ files: { 'app.py': 'a = 1\nb = 2\n' } });
  const tools = anthropicTools(sb, { maxCharacters: 10000 });
  const { client, requests } = scriptedClient([
    [use('t1', 'str_replace_based_edit_tool', { command: 'view', path: '/workspace/app.py' }),
      use('t2', 'str_replace_based_edit_tool', { command: 'str_replace', path: '/workspace/app.py', old_str: 'b = 2', new_str: 'b = 3' }),
      use('t3', 'str_replace_based_edit_tool', { command: 'str_replace', path: '/workspace/app.py', old_str: 'zzz', new_str: '' }),
      use('t5', 'memory', { command: 'create', path: '/memories/notes.md', file_text: 'remember\n' })],
    // the runner runs one turn's calls concurrently: the check comes next turn
    [use('t4', 'bash', { command: 'cat app.py; exit 2' })],
    [{ type: 'text', text: 'done' }],
  ]);
  const memory = betaMemoryTool(tools.memoryHandlers);
  const final = await client.beta.messages.toolRunner({ model: 'claude-test', max_tokens: 100,
    messages: [{ role: 'user', content: 'fix it' }], tools: [tools.textEditor, tools.bash, memory] });
  assert.equal(final.content[0].text, 'done');
  const sent = requests[0].tools.map((t) => [t.type, t.name]);
  assert.deepEqual(sent, [['text_editor_20250728', 'str_replace_based_edit_tool'], ['bash_20250124', 'bash'],
    ['memory_20250818', 'memory']]);
  assert.equal(requests[0].tools[0].max_characters, 10000);
  const r = results(requests);
  assert.equal(r.t1.content, "Here's the result of running `cat -n` on /workspace/app.py:\n     1\ta = 1\n     2\tb = 2\n");
  assert.match(r.t2.content, /^The file \/workspace\/app.py has been edited\./);
  assert.equal(r.t3.is_error, true);
  assert.match(JSON.stringify(r.t3.content), /did not appear verbatim in \/workspace\/app.py/);
  assert.equal(r.t4.content, 'a = 1\nb = 3\nExit code: 2');
  assert.equal(r.t5.content, 'File created successfully at: /memories/notes.md');
  assert.equal(await sb.readFile('/memories/notes.md'), 'remember\n');
  await sb.close();
});

test('sdk-anthropic-1.2 text editor texts: ranges, directories, create, insert, ambiguity', async () => {
  const sb = await Sandbox.create({ files: { 'f.txt': 'one\ntwo\nthree\ntwo\n', 'd/e/g.txt': 'x', 'd/e/h/i.txt': 'deep' } });
  const { textEditor: ed, handle } = anthropicTools(sb);
  const run = (input) => ed.run(input);
  assert.equal(await run({ command: 'view', path: '/workspace/f.txt', view_range: [2, -1] }),
    "Here's the result of running `cat -n` on /workspace/f.txt:\n     2\ttwo\n     3\tthree\n     4\ttwo\n");
  await assert.rejects(run({ command: 'view', path: '/workspace/f.txt', view_range: [0, 2] }),
    { message: 'Invalid `view_range`: [0, 2]. Its first element `0` should be within the range of lines of the file: [1, 4]' });
  await assert.rejects(run({ command: 'view', path: '/workspace/f.txt', view_range: [3, 2] }),
    /second element `2` should be larger or equal than its first `3`/);
  const dir = await run({ command: 'view', path: '/workspace/d' });
  assert.match(dir, /^Here're the files and directories up to 2 levels deep in \/workspace\/d/);
  assert.match(dir, /\t\/workspace\/d\/e\/\n.*\t\/workspace\/d\/e\/g\.txt\n.*\t\/workspace\/d\/e\/h\//);
  assert.doesNotMatch(dir, /i\.txt/);
  await assert.rejects(run({ command: 'view', path: 'f.txt' }),
    /not an absolute path, it should start with `\/`. Maybe you meant \/workspace\/f.txt\?/);
  await assert.rejects(run({ command: 'view', path: '/workspace/none' }),
    { message: 'The path /workspace/none does not exist. Please provide a valid path.' });
  await assert.rejects(run({ command: 'str_replace', path: '/workspace/f.txt', old_str: 'two', new_str: '2' }),
    { message: 'No replacement was performed. Multiple occurrences of old_str `two` in lines [2, 4]. Please ensure it is unique' });
  await assert.rejects(run({ command: 'create', path: '/workspace/f.txt', file_text: 'x' }), /File already exists at/);
  assert.equal(await run({ command: 'create', path: '/workspace/new/n.txt', file_text: 'n\n' }),
    'File created successfully at: /workspace/new/n.txt');
  await run({ command: 'insert', path: '/workspace/f.txt', insert_line: 0, insert_text: 'zero\n' });
  await run({ command: 'insert', path: '/workspace/f.txt', insert_line: 5, new_str: 'five' });
  assert.equal(await sb.readFile('/workspace/f.txt'), 'zero\none\ntwo\nthree\ntwo\nfive\n');
  await assert.rejects(run({ command: 'insert', path: '/workspace/f.txt', insert_line: 9, insert_text: 'x' }),
    /Invalid `insert_line` parameter: 9. It should be within the range of lines of the file: \[0, 6\]/);
  await assert.rejects(run({ command: 'undo_edit', path: '/workspace/f.txt' }), /Unrecognized command undo_edit/);
  const big = anthropicTools(sb, { maxCharacters: 20 }).textEditor;
  assert.match(await big.run({ command: 'view', path: '/workspace/f.txt' }), /<response clipped>/);
  assert.deepEqual(await handle({ id: 'x', name: 'nope', input: {} }),
    { type: 'tool_result', tool_use_id: 'x', content: 'Unknown tool: nope', is_error: true });
  await sb.close();
});

test('sdk-anthropic-1.3 bash restart and the memory tool confined to /memories', async () => {
  const sb = await Sandbox.create();
  const { bash, memory } = anthropicTools(sb);
  assert.equal(await bash.run({ command: 'echo hi' }), 'hi\n');
  await bash.run({ command: 'X=1; f() { :; }; cd /tmp; alias ll=ls' });
  assert.equal(await bash.run({ restart: true }), 'tool has been restarted.');
  assert.equal(await bash.run({ command: 'echo "[$X]"; pwd; declare -F; alias' }), '[]\n/workspace\n');
  await memory.run({ command: 'create', path: '/memories/a.md', file_text: 'one\n' });
  await assert.rejects(memory.run({ command: 'create', path: '/memories/a.md', file_text: 'x' }),
    { message: 'File /memories/a.md already exists' });
  await assert.rejects(memory.run({ command: 'view', path: '/workspace' }), /Path must start with \/memories/);
  await assert.rejects(memory.run({ command: 'view', path: '/memories/../etc' }), /would escape \/memories directory/);
  assert.equal(await memory.run({ command: 'rename', old_path: '/memories/a.md', new_path: '/memories/b/c.md' }),
    'Successfully renamed /memories/a.md to /memories/b/c.md');
  assert.match(await memory.run({ command: 'view', path: '/memories' }), /\t\/memories\/b\/c\.md/);
  assert.equal(await memory.run({ command: 'delete', path: '/memories/b' }), 'Successfully deleted /memories/b');
  await assert.rejects(memory.run({ command: 'delete', path: '/memories' }), /Cannot delete the \/memories directory itself/);
  await sb.close();
});
