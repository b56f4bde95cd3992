// cli.test.mjs - the memsandbox command (bin/memsandbox.js): -c, script
// files, stdin, --json, --seed, option errors, and the REPL through a
// pseudo-terminal (util-linux `script`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../../build/npm/bin/memsandbox.js', import.meta.url));
const run = (args, input) => spawnSync(process.execPath, [bin, ...args],
  { input: input ?? '', encoding: 'utf8', timeout: 60000 });

test('cli-1.1 -c runs a script; its exit status is the command\'s', () => {
  const r = run(['-c', 'echo out; echo err >&2; exit 3']);
  assert.equal(r.stdout, 'out\n');
  assert.equal(r.stderr, 'err\n');
  assert.equal(r.status, 3);
});

test('cli-1.2 a script on stdin and in a file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'msb-cli-'));
  try {
    assert.equal(run([], 'x=4\necho $((x * 2))\n').stdout, '8\n');
    writeFileSync(join(dir, 's.sh'), 'cd /tmp\npwd\n');
    const r = run([join(dir, 's.sh')]);
    assert.equal(r.stdout, '/tmp\n');
    assert.equal(r.status, 0);
    const missing = run([join(dir, 'nope.sh')]);
    assert.equal(missing.status, 127);
    assert.match(missing.stderr, /nope\.sh: No such file or directory/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('cli-1.3 --json prints the result record', () => {
  const r = run(['--json', '-c', 'printf hi']);
  const j = JSON.parse(r.stdout);
  assert.equal(j.stdout, 'hi');
  assert.equal(j.exitCode, 0);
  assert.equal(j.cwd, '/workspace');
  assert.equal(typeof j.durationMs, 'number');
});

test('cli-1.4 --seed copies a host directory into /workspace', () => {
  const dir = mkdtempSync(join(tmpdir(), 'msb-seed-'));
  try {
    mkdirSync(join(dir, 'sub'));
    writeFileSync(join(dir, 'sub', 'f.txt'), 'seeded\n');
    const r = run(['--seed', dir, '-c', 'cat sub/f.txt']);
    assert.equal(r.stdout, 'seeded\n');
    assert.equal(r.status, 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('cli-1.5 bad options are usage errors naming the option', () => {
  let r = run(['--frobnicate']);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /^memsandbox: unrecognized option '--frobnicate'\n/);
  r = run(['-z']);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /invalid option -- 'z'/);
  r = run(['--profile', 'lax', '-c', 'true']);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /unknown profile "lax"/);
  r = run(['--limits', 'max_steps=oops', '-c', 'true']);
  assert.equal(r.status, 2);
  assert.equal(run(['--help']).status, 0);
});

test('cli-1.6 the REPL: prompt with cwd, continuation lines, exit status', () => {
  const input = 'cd /tmp\nif true; then\necho cont\nfi\nexit 4\n';
  const r = spawnSync('script', ['-qec', `${process.execPath} ${bin}`, '/dev/null'],
    { input, encoding: 'utf8', timeout: 60000, env: { ...process.env, HOME: tmpdir(), TERM: 'dumb' } });
  // Without the terminal's cursor movements: prompt, two continuation
  // prompts while `if` is open, then the output.
  const screen = r.stdout.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '');
  assert.match(screen, /mem-sandbox:\/workspace> /);
  assert.match(screen, /mem-sandbox:\/tmp> > > cont\r?\n/);
  assert.equal(r.status, 4);
});
