// tools-extra.test.mjs - createTools' optional tools ({ include }):
// edit_file, list_directory, glob and grep with pagination that says how to
// continue; read_file's final_newline; the compact envelope.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Sandbox, createTools } from '../../build/npm/node.js';

const open = () => Sandbox.create({ clock: 0, seed: 1, files: {
  'a.py': 'x = 1\ny = 1\n', 'src/b.py': 'print("hi")\n', 'src/c.js': 'hi()\n', 'd/e/f.txt': 'deep hi\n',
  'nonl.txt': 'no newline' } });
const byName = (tools) => Object.fromEntries(tools.map((t) => [t.name, t]));

test('tools-extra-1.1 include adds the tools after the four, with strict schemas', async () => {
  const sb = await open();
  const tools = createTools(sb, { include: ['edit_file', 'list_directory', 'glob', 'grep'] });
  assert.deepEqual(tools.map((t) => t.name),
    ['execute', 'read_file', 'write_file', 'apply_patch', 'edit_file', 'list_directory', 'glob', 'grep']);
  for (const t of tools) {
    assert.equal(t.parameters.additionalProperties, false);
    assert.deepEqual(t.parameters.required, Object.keys(t.parameters.properties));
  }
  assert.throws(() => createTools(sb, { include: ['rm_rf'] }), /include must list tools among edit_file/);
  assert.throws(() => createTools(sb, { envelope: 'tiny' }), /envelope must be/);
  await sb.close();
});

test('tools-extra-1.2 edit_file: unique match, ambiguity, replace_all, no match', async () => {
  const sb = await open();
  const { edit_file: edit } = byName(createTools(sb, { include: ['edit_file'] }));
  const amb = await edit.execute({ path: 'a.py', old_string: '= 1', new_string: '= 2', replace_all: null });
  assert.equal(amb.error.code, 'edit_ambiguous');
  assert.match(amb.error.message, /occurs 2 times/);
  const one = await edit.execute({ path: 'a.py', old_string: 'y = 1', new_string: 'y = 3', replace_all: null });
  assert.equal(one.result.replacements, 1);
  assert.equal(await sb.readFile('/workspace/a.py'), 'x = 1\ny = 3\n');
  assert.equal(one.result.current_hash, await sb.hash('/workspace/a.py'));
  const all = await edit.execute({ path: 'a.py', old_string: ' = ', new_string: '=', replace_all: true });
  assert.equal(all.result.replacements, 2);
  assert.equal((await edit.execute({ path: 'a.py', old_string: 'zzz', new_string: '', replace_all: null })).error.code, 'edit_no_match');
  assert.equal((await edit.execute({ path: '../etc/x', old_string: 'a', new_string: '', replace_all: null })).error.code, 'invalid_path');
  await sb.close();
});

test('tools-extra-1.3 list_directory, glob and grep page with next_offset', async () => {
  const sb = await open();
  const t = byName(createTools(sb, { include: ['list_directory', 'glob', 'grep'] }));
  const ls = await t.list_directory.execute({ path: null, offset: null, limit: 2 });
  assert.deepEqual(ls.result.entries, [{ name: 'a.py', type: 'file', size: 12 }, { name: 'd', type: 'directory', size: ls.result.entries[1].size }]);
  assert.equal(ls.result.total, 4);
  assert.equal(ls.result.next_offset, 2);
  assert.equal(ls.result.note, '2 more; call again with offset 2');
  const ls2 = await t.list_directory.execute({ path: '.', offset: 2, limit: 2 });
  assert.deepEqual(ls2.result.entries.map((e) => e.name), ['nonl.txt', 'src']);
  assert.equal(ls2.result.next_offset, null);
  const g = await t.glob.execute({ pattern: '**/*.py', path: null, offset: null, limit: null });
  assert.deepEqual(g.result.matches, ['/workspace/a.py', '/workspace/src/b.py']);
  const g2 = await t.glob.execute({ pattern: 'src/*.{js,py}', path: null, offset: 1, limit: 1 });
  assert.deepEqual([g2.result.matches, g2.result.total], [['/workspace/src/c.js'], 2]);
  const gr = await t.grep.execute({ pattern: 'h[i]', path: null, glob: null, fixed_strings: null, ignore_case: null, offset: null, limit: 2 });
  assert.deepEqual(gr.result.matches, [{ path: '/workspace/d/e/f.txt', line: 1, text: 'deep hi' },
    { path: '/workspace/src/b.py', line: 1, text: 'print("hi")' }]);
  assert.equal(gr.result.next_offset, 2);
  const gr2 = await t.grep.execute({ pattern: 'HI', path: 'src', glob: '*.js', fixed_strings: true, ignore_case: true, offset: null, limit: null });
  assert.deepEqual(gr2.result.matches, [{ path: '/workspace/src/c.js', line: 1, text: 'hi()' }]);
  const none = await t.grep.execute({ pattern: 'nothing', path: null, glob: null, fixed_strings: null, ignore_case: null, offset: null, limit: null });
  assert.deepEqual([none.ok, none.result.matches], [true, []]);
  const bad = await t.grep.execute({ pattern: '(', path: null, glob: null, fixed_strings: null, ignore_case: null, offset: null, limit: null });
  assert.equal(bad.ok, false);
  assert.match(bad.error.message, /Unmatched \( or \\\(/);
  assert.equal((await sb.execute('echo $PWD')).stdout, '/workspace\n');
  await sb.close();
});

test('tools-extra-1.4 read_file final_newline; the compact envelope drops ids and timestamps', async () => {
  const sb = await open();
  const [, read] = createTools(sb, { envelope: 'compact' });
  const a = await read.execute({ path: 'a.py', start_line: null, end_line: null });
  assert.equal(a.result.final_newline, true);
  assert.equal(a.result.metadata, undefined);
  assert.equal((await read.execute({ path: 'nonl.txt', start_line: null, end_line: null })).result.final_newline, false);
  const err = await read.execute({ path: 'missing', start_line: null, end_line: null });
  assert.equal(err.error.operation_id, undefined);
  const [, full] = createTools(sb);
  assert.equal(typeof (await full.execute({ path: 'a.py', start_line: null, end_line: null })).result.metadata.operation_id, 'string');
  await sb.close();
});
