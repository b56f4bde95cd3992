// lineedit.test.mjs - the playground's line discipline (demo/src/lineedit.js)
// without a browser: keys in, the line and the actions out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LineEditor, commonPrefix, keys, visibleLength } from '../../../demo/src/lineedit.js';

function editor(opts = {}) {
  let screen = '';
  const ed = new LineEditor({ write: (s) => { screen += s; }, ...opts });
  ed.start('$ ');
  return { ed, screen: () => screen };
}

test('lineedit-1 keys splits escape sequences from characters', () => {
  assert.deepEqual(keys('a\x1b[Db\x1bOH\x7f'), ['a', '\x1b[D', 'b', '\x1bOH', '\x7f']);
  assert.equal(visibleLength('\x1b[32msb\x1b[0m:/w$ '), 7);
  assert.equal(commonPrefix(['README.txt', 'READ.md']), 'READ');
});

test('lineedit-2 editing: insert, move, delete, kill', () => {
  const { ed } = editor();
  assert.deepEqual(ed.feed('echo hllo'), []);
  ed.feed('\x1b[D\x1b[D\x1b[D');
  ed.feed('e');
  assert.equal(ed.buf, 'echo hello');
  ed.feed('\x01\x1b[3~');
  assert.equal(ed.buf, 'cho hello');
  ed.feed('\x05\x17');
  assert.equal(ed.buf, 'cho ');
  ed.feed('\x7f\x15');
  assert.equal(ed.buf, '');
});

test('lineedit-3 Enter returns the line; pasted lines come back as rest', () => {
  const { ed } = editor();
  const a = ed.feed('ls -l\r\npwd\rx');
  assert.deepEqual(a, [{ type: 'line', line: 'ls -l' }, { type: 'rest', data: 'pwd\rx' }]);
  ed.start('$ ');
  assert.deepEqual(ed.feed('\t\x03\x0c'), [{ type: 'complete' }, { type: 'interrupt' }, { type: 'clear' }]);
});

test('lineedit-4 history walks back and forth and keeps the draft', () => {
  const { ed } = editor({ history: ['one'] });
  ed.feed('two\r');
  ed.start('$ ');
  ed.feed('dra');
  ed.feed('\x1b[A');
  assert.equal(ed.buf, 'two');
  ed.feed('\x1b[A\x1b[A');
  assert.equal(ed.buf, 'one');
  ed.feed('\x1b[B\x1b[B');
  assert.equal(ed.buf, 'dra');
  ed.feed('\r');
  ed.start('$ ');
  ed.feed('   \r');
  assert.deepEqual(ed.history, ['one', 'two', 'dra']);
});

test('lineedit-5 completion: one candidate, a common prefix, a listing', () => {
  const { ed } = editor();
  ed.feed('cat REA');
  assert.deepEqual(ed.complete(4, ['README.txt']), []);
  assert.equal(ed.buf, 'cat README.txt ');
  ed.feed('sr');
  assert.deepEqual(ed.complete(15, ['src/', 'srv/']), ['src/', 'srv/']);
  assert.deepEqual(ed.complete(15, ['src/a', 'src/b']), []);
  assert.equal(ed.buf, 'cat README.txt src/');
});

test('lineedit-6 a wrapped line: the cursor moves across rows', () => {
  const { ed, screen } = editor({ columns: 10 });
  ed.feed('abcdefghijkl'); // "$ " + 12 cells: two rows
  assert.equal(ed.row, 1);
  ed.feed('\x01');
  assert.equal(ed.row, 0);
  assert.ok(screen().endsWith('\x1b[1A\r\x1b[2C'));
});
