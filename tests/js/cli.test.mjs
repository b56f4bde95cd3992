// cli.test.mjs - the memsandbox command (bin/memsandbox.js): -c, script
// files, stdin, --json, --seed, option errors, and the REPL through a
// pseudo-terminal (util-linux `script`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, readFileSync, mkdirSync, rmSync } from 'node:fs';
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

test('cli-1.3 --json prints build/msb\'s result record', () => {
  const r = run(['--json', '-c', 'printf hi; echo oops >&2']);
  assert.deepEqual(JSON.parse(r.stdout), { exit_code: 0, stdout: 'hi', stderr: 'oops\n',
    cwd: '/workspace', stdout_truncated: false, stderr_truncated: false, stdout_total: 2,
    stderr_total: 5, limit: null });
});

test('cli-1.7 arguments after -c SCRIPT (ARG0 first) and FILE are $1...; stdin flows in', () => {
  let r = run(['-c', 'echo "$#:$1:$2"', 'zero', 'a b', "c'd"]);
  assert.equal(r.stdout, "2:a b:c'd\n");
  r = run(['-c', 'tr a-z A-Z'], 'shout\n');
  assert.equal(r.stdout, 'SHOUT\n');
  const script = 'echo $RANDOM; touch f; stat -c %Y f';
  r = run(['--rng-seed', '5', '--clock', '86400000000000', '-c', script]);
  const again = run(['--rng-seed', '5', '--clock', '86400000000000', '-c', script]);
  const other = run(['--rng-seed', '6', '--clock', '86400000000000', '-c', script]);
  assert.equal(r.stdout, again.stdout, 'same seed, same output');
  assert.notEqual(r.stdout, other.stdout, 'another seed, another $RANDOM');
  assert.match(r.stdout, /^\d+\n86400\n$/, 'the sandbox clock is --clock');
});

test('cli-1.9 the word after -c SCRIPT, or the FILE, is $0 and names the errors, as bash', () => {
  let r = run(['-c', 'echo "$0 $1"; nosuch', 'NAME', 'a']);
  assert.equal(r.stdout, 'NAME a\n');
  assert.equal(r.stderr, 'NAME: line 1: nosuch: command not found\n');
  assert.equal(r.status, 127);
  r = run(['-c', 'echo $0']);
  assert.equal(r.stdout, 'bash\n');
  const dir = mkdtempSync(join(tmpdir(), 'msb-cli-'));
  try {
    const file = join(dir, 's.sh');
    writeFileSync(file, 'echo "$0"\nnosuch\n');
    r = run([file]);
    assert.equal(r.stdout, `${file}\n`);
    assert.equal(r.stderr, `${file}: line 2: nosuch: command not found\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
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
  assert.equal(r.status, 2);
  assert.equal(r.stderr, 'memsandbox: --profile: expected normal or strict\n');
  r = run(['--limits', 'max_steps=oops', '-c', 'true']);
  assert.equal(r.status, 2);
  assert.equal(r.stderr, "memsandbox: --limits: bad value for max_steps: 'oops'\n");
  r = run(['--limits', 'nope=1', '-c', 'true']);
  assert.equal(r.stderr, "memsandbox: --limits: unknown limit 'nope'\n");
  r = run(['--limits', 'max_steps=0', '-c', 'true']);
  assert.equal(r.status, 2);
  assert.equal(r.stderr, 'memsandbox: --limits: max_steps must be at least 1\n');
  r = run(['--limits', 'max_file_bytes=100,max_total_bytes=10', '-c', 'true']);
  assert.equal(r.status, 125);
  assert.equal(r.stderr, 'memsandbox: cannot open a sandbox: max_file_bytes exceeds max_total_bytes\n');
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

test('cli-1.8 the REPL: Ctrl-C drops the typed text', async () => {
  const child = spawn('script', ['-qec', `${process.execPath} ${bin}`, '/dev/null'],
    { env: { ...process.env, HOME: tmpdir(), TERM: 'dumb' } });
  let out = '';
  let waiting = () => {};
  child.stdout.on('data', (d) => {
    out += d;
    waiting();
  });
  // Resolves once the screen so far matches re.
  const seen = (re) => new Promise((resolve) => {
    waiting = () => re.test(out) && resolve();
    waiting();
  });
  await seen(/workspace> /);
  child.stdin.write('echo AAA');
  await seen(/echo AAA/);
  child.stdin.write('\x03');
  await seen(/\^C/);
  child.stdin.write('echo BBB\rexit\r');
  const status = await new Promise((resolve) => child.on('close', resolve));
  assert.match(out, /\r?\nBBB\r?\n/);
  assert.doesNotMatch(out, /AAA\s*echo BBB|AAA\r?\n/);
  assert.equal(status, 0);
});

test('cli-1.10 host files that cannot be read are named as build/msb names them', () => {
  const dir = mkdtempSync(join(tmpdir(), 'msb-cli-'));
  try {
    const missing = join(dir, 'missing');
    let r = run(['--seed', missing, '-c', 'echo never']);
    assert.equal(r.stderr, `memsandbox: --seed: ${missing}: No such file or directory\n`);
    assert.equal(r.status, 125);
    r = run(['--load', missing, '-c', 'echo never']);
    assert.equal(r.stderr, `memsandbox: ${missing}: No such file or directory\n`);
    assert.equal(r.status, 125);
    r = run(['--save', join(missing, 'x.tgz'), '-c', 'echo ran']);
    assert.equal(r.stdout, 'ran\n');
    assert.equal(r.stderr, `memsandbox: ${join(missing, 'x.tgz')}: No such file or directory\n`);
    assert.equal(r.status, 125);
    r = run(['--policy', dir, '-c', 'echo never']);
    assert.equal(r.stderr, `memsandbox: ${dir}: Is a directory\n`);
  } finally {
    rmSync(dir, { recursive: true });
  }
});

test('cli-1.11 --policy and --events as in build/msb', () => {
  const dir = mkdtempSync(join(tmpdir(), 'msb-cli-'));
  try {
    const policy = join(dir, 'policy.txt'), events = join(dir, 'events.jsonl');
    writeFileSync(policy, 'deny-command rm\n');
    let r = run(['--policy', policy, '--events', events, '-c', 'echo hi > f; rm f; cat f']);
    assert.equal(r.stdout, 'hi\n');
    assert.equal(r.stderr, 'bash: line 1: rm: command denied by policy\n');
    const kinds = readFileSync(events, 'utf8').trim().split('\n').map((l) => JSON.parse(l).kind);
    assert.deepEqual(kinds, ['sandbox.created', 'sandbox.started', 'operation.started',
      'policy.denied', 'operation.completed', 'sandbox.closing', 'sandbox.closed']);
    writeFileSync(policy, 'bogus x\n');
    r = run(['--policy', policy, '-c', 'echo never']);
    assert.equal(r.stderr, 'memsandbox: --policy: invalid policy: line 1: unknown rule "bogus"\n');
    assert.equal(r.status, 125);
  } finally {
    rmSync(dir, { recursive: true });
  }
});
